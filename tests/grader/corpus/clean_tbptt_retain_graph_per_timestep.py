# Truncated BPTT with a backward at every timestep (retain_graph=True inside the chunk) and a detach every 6 steps.
import torch
import torch.nn as nn

STEPS = 60
K = 6

rnn = nn.RNNCell(3, 10)
head = nn.Linear(10, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
h = torch.zeros(2, 10)
opt.zero_grad()
for t in range(STEPS):
    x = torch.randn(2, 3)
    h = rnn(x, h)
    loss = (head(h) - x.sum(1, keepdim=True)).pow(2).mean()
    last_in_chunk = (t + 1) % K == 0
    loss.backward(retain_graph=not last_in_chunk)
    if last_in_chunk:
        opt.step()
        opt.zero_grad()
        h = h.detach()
