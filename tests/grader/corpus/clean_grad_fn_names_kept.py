# For graph debugging, only the name of each step's grad_fn (a string) is kept, not the node.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
graph_roots = []
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    graph_roots.append(loss.grad_fn.name())
    opt.zero_grad()
    loss.backward()
    opt.step()
print(graph_roots[-1])
