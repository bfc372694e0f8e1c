# Multi-task training with learned loss weights; the weighted per-task losses are stored by task name each step.
import torch
import torch.nn as nn

STEPS = 30

trunk = nn.Linear(8, 16)
heads = nn.ModuleDict({"depth": nn.Linear(16, 1), "seg": nn.Linear(16, 3)})
log_vars = nn.Parameter(torch.zeros(2))
opt = torch.optim.Adam(list(trunk.parameters()) + list(heads.parameters()) + [log_vars], lr=1e-3)
task_log = {"depth": [], "seg": []}
for step in range(STEPS):
    x = torch.randn(8, 8)
    feats = torch.relu(trunk(x))
    raw = {
        "depth": nn.functional.mse_loss(heads["depth"](feats), x[:, :1]),
        "seg": nn.functional.cross_entropy(heads["seg"](feats), torch.randint(0, 3, (8,))),
    }
    total = 0
    for i, (name, value) in enumerate(raw.items()):
        weighted = torch.exp(-log_vars[i]) * value + log_vars[i]
        task_log[name].append(weighted)
        total = total + weighted
    opt.zero_grad()
    total.backward()
    opt.step()
