# A train function whose parameters and helpers use leading underscores (_model, _opt, _steps, _make_batch).
import torch
import torch.nn as nn

STEPS = 30


def _make_batch(_size):
    _x = torch.randn(_size, 5)
    return _x, (_x[:, 0] > 0).float().unsqueeze(1)


def train(_model, _opt, _steps):
    _history = []
    for _i in range(_steps):
        _x, _y = _make_batch(16)
        _loss = nn.functional.binary_cross_entropy_with_logits(_model(_x), _y)
        _opt.zero_grad()
        _loss.backward()
        _opt.step()
        _history.append(_loss.item())
    return _history


_model = nn.Linear(5, 1)
print(train(_model, torch.optim.Adam(_model.parameters(), lr=1e-2), STEPS)[-1])
