# retain_graph=True for a second backward() through the same step's graph; the graph is
# dropped when the next step reassigns the names.
import torch
import torch.nn as nn

shared = nn.Linear(4, 8)
head_a = nn.Linear(8, 1)
head_b = nn.Linear(8, 1)
params = list(shared.parameters()) + list(head_a.parameters()) + list(head_b.parameters())
opt = torch.optim.SGD(params, lr=0.01)
for step in range(100):
    features = torch.relu(shared(torch.randn(8, 4)))
    loss_a = head_a(features).pow(2).mean()
    loss_b = head_b(features).abs().mean()
    opt.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    opt.step()
