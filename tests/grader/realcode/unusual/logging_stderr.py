"""logging.basicConfig + logging.info to standard error, and a named logger."""
import logging
import sys

import torch
import torch.nn as nn

logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger("train")

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(30):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        logging.info("step %d loss %.4f", step, loss.item())
        logger.debug("not shown at INFO")
logger.warning("done after %d steps", step + 1)
