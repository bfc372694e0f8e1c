# A word-language-model loop without repackage_hidden: the hidden state is carried from batch to batch with its graph
# (retain_graph=True so backward runs, and the update goes through .data as the example's does), and re-initialised each epoch. Each backward runs back to the epoch's first
# batch: the chain is as long as the epoch (issue 23).
import torch
import torch.nn as nn

STEPS = 4
BATCHES = 8

rnn = nn.GRU(4, 8)
head = nn.Linear(8, 4)
params = list(rnn.parameters()) + list(head.parameters())
stream = torch.randn(BATCHES * 5 + 1, 2, 4)
for epoch in range(STEPS):
    hidden = torch.zeros(1, 2, 8)
    for i in range(BATCHES):
        x, y = stream[i * 5 : i * 5 + 5], stream[i * 5 + 1 : i * 5 + 6]
        out, hidden = rnn(x, hidden)
        loss = nn.functional.mse_loss(head(out), y)
        for p in params:
            p.grad = None
        loss.backward(retain_graph=True)
        for p in params:
            p.data.add_(p.grad, alpha=-0.01)  # the official example's update: no version bump
    print(epoch, loss.item())
