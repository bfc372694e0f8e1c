# Truncated BPTT over a long synthetic stream: the LSTM state is detached at every chunk boundary.
import torch
import torch.nn as nn

STEPS = 20
CHUNK = 10


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 12)
        self.head = nn.Linear(12, 1)

    def forward(self, x, state=None):
        out, state = self.lstm(x, state)
        return self.head(out), state


model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
stream = torch.sin(torch.arange(STEPS * CHUNK + 1).float() * 0.2).view(-1, 1, 1)
state = None
for chunk in range(STEPS):
    x = stream[chunk * CHUNK:(chunk + 1) * CHUNK]
    y = stream[chunk * CHUNK + 1:(chunk + 1) * CHUNK + 1]
    pred, state = model(x, state)
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    state = tuple(s.detach() for s in state)
