# nn.ModuleDict of task heads and an nn.ParameterList of per-task temperature parameters.
import torch
import torch.nn as nn

STEPS = 30


class MultiHead(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.trunk = nn.Linear(6, 16)
        self.heads = nn.ModuleDict({name: nn.Linear(16, k) for name, k in tasks.items()})
        self.temps = nn.ParameterList([nn.Parameter(torch.ones(())) for _ in tasks])

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return {name: head(h) / t for (name, head), t in zip(self.heads.items(), self.temps)}


tasks = {"a": 2, "b": 3}
model = MultiHead(tasks)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(8, 6)
    outs = model(x)
    loss = sum(nn.functional.cross_entropy(outs[n], torch.randint(0, k, (8,))) for n, k in tasks.items())
    opt.zero_grad()
    loss.backward()
    opt.step()
