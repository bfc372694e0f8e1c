"""warnings.filterwarnings / catch_warnings around a deprecated call, as many scripts start."""
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore", category=UserWarning)
warnings.simplefilter("ignore", FutureWarning)

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.warn("checkpoint format will change", DeprecationWarning)
print(len(caught), caught[0].category.__name__ if caught else None)
