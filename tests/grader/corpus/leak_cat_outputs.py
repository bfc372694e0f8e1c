# Outputs concatenated into one growing tensor keep a cat graph over every step.
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
all_outputs = torch.empty(0, 2)
for step in range(100):
    out = model(torch.randn(4, 4))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    all_outputs = torch.cat([all_outputs, out])
