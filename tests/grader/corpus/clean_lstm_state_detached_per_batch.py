# A stateful LSTM over consecutive batches of one stream: (h, c) carried over, both detached before each batch.
import torch
import torch.nn as nn

STEPS = 40

lstm = nn.LSTM(2, 8)
head = nn.Linear(8, 2)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=2e-3)
stream = torch.randn(STEPS * 5 + 1, 1, 2).cumsum(0) * 0.1
h, c = torch.zeros(1, 1, 8), torch.zeros(1, 1, 8)
for step in range(STEPS):
    x = stream[step * 5:step * 5 + 5]
    y = stream[step * 5 + 1:step * 5 + 6]
    h, c = h.detach(), c.detach()
    out, (h, c) = lstm(x, (h, c))
    loss = nn.functional.mse_loss(head(out), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
