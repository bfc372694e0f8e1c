# Logits stored in a dict keyed by step number.
import torch
import torch.nn as nn

model = nn.Linear(5, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
logits_at = {}
for step in range(100):
    logits = model(torch.randn(4, 5))
    loss = logits.logsumexp(dim=1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    logits_at[step] = logits
