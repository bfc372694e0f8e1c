# To inspect the graph later, each step's loss.grad_fn is kept (not the tensor): the Node keeps the whole graph.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
graph_roots = []
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    graph_roots.append(loss.grad_fn)
print(graph_roots[-1].name())
