# Single-underscore loop variables and locals: for _batch in ..., for _ in range(...), _x, _y = ...
import torch
import torch.nn as nn

STEPS = 10

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
_batches = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(4)]
for _epoch in range(STEPS):
    _total = 0.0
    for _batch in _batches:
        _x, _y = _batch
        _loss = nn.functional.cross_entropy(model(_x), _y)
        opt.zero_grad()
        _loss.backward()
        opt.step()
        _total += _loss.item()
    print(_epoch, round(_total / len(_batches), 4))
