# A while loop with a manual step counter; the total keeps the graphs.
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
step = 0
total_loss = torch.tensor(0.0)
while step < 150:
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total_loss += loss
    step += 1
