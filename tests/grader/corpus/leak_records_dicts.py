# Each step appends a record dict holding the loss tensor itself.
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
records = []
for step in range(100):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    records.append({"step": step, "loss": loss})
