# Full-batch style: each epoch's micro-batch losses are summed and backpropagated once at the epoch's end. The graph
# waits for that backward, so it is not dead weight, whatever its span (issue 23).
import torch
import torch.nn as nn

STEPS = 10

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(6)]
for epoch in range(STEPS):
    total = 0
    for x, y in data:
        total = total + nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    (total / len(data)).backward()
    opt.step()
    print(epoch, total.item())
