"""statistics for loss summaries, string for a template, textwrap for a report."""
import statistics
import string
import textwrap

import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
losses = []
for step in range(30):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
template = string.Template("mean $mean, median $median, stdev $stdev")
report = template.substitute(mean=round(statistics.mean(losses), 4), median=round(statistics.median(losses), 4),
                             stdev=round(statistics.stdev(losses), 4))
print(textwrap.fill(report, width=30), string.ascii_lowercase[:3], textwrap.dedent("  x").strip())
