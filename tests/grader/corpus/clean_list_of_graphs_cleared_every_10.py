# A window of recent losses cleared every 10 steps keeps up to 9 steps of graphs alive: bounded, whatever the
# training length (grill notes it).
import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
window = []
for step in range(100):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    window.append(loss)
    if len(window) == 10:
        print(sum(l.item() for l in window) / 10)
        window.clear()
