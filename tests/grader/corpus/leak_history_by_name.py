# Outputs of each head are kept in history[name], a dict of lists built with setdefault.
import torch
import torch.nn as nn

backbone = nn.Linear(10, 16)
heads = nn.ModuleDict({"cls": nn.Linear(16, 3), "reg": nn.Linear(16, 1)})
opt = torch.optim.Adam(list(backbone.parameters()) + list(heads.parameters()), lr=1e-3)
history = {}
for step in range(100):
    feats = torch.relu(backbone(torch.randn(8, 10)))
    loss = 0
    for name, head in heads.items():
        out = head(feats)
        history.setdefault(name, []).append(out)
        loss = loss + out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
