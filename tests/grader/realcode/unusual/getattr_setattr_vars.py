"""`getattr(nn, rnn_type)`, `setattr(cfg, key, value)` and `vars(obj)` in a config-driven script."""
import torch
import torch.nn as nn


class Cfg:
    rnn_type = "GRU"
    hidden = 8
    lr = 0.05


cfg = Cfg()
for key, value in {"rnn_type": "LSTM", "hidden": 12}.items():
    setattr(cfg, key, value)
print(vars(cfg), getattr(cfg, "lr"), hasattr(cfg, "dropout"))

rnn = getattr(nn, cfg.rnn_type)(4, cfg.hidden, batch_first=True)
head = nn.Linear(cfg.hidden, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=cfg.lr)
for step in range(25):
    x = torch.randn(4, 6, 4)
    out, _ = rnn(x)
    loss = head(out[:, -1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
