# functools.lru_cache memoises a pure float schedule; functools.cmp_to_key sorts checkpoints by score.
import functools

import torch
import torch.nn as nn

STEPS = 30


@functools.lru_cache(maxsize=None)
def dropout_rate(step):
    return min(0.5, 0.05 * (step // 5))


def compare(a, b):
    return (a["score"] > b["score"]) - (a["score"] < b["score"])


model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.02)
checkpoints = []
for step in range(STEPS):
    x = torch.randn(16, 4)
    h = nn.functional.dropout(model[1](model[0](x)), p=dropout_rate(step))
    loss = nn.functional.mse_loss(model[2](h), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    checkpoints.append({"step": step, "score": -loss.item()})
print(sorted(checkpoints, key=functools.cmp_to_key(compare))[-1])
