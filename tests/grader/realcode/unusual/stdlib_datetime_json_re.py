"""datetime for a run name, json for a metrics record, re to parse a config string."""
import datetime
import json
import re

import torch
import torch.nn as nn

run_name = "run-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
spec = "lr=0.05;steps=25;hidden=8"
cfg = {k: float(v) if "." in v else int(v) for k, v in re.findall(r"(\w+)=([\d.]+)", spec)}
model = nn.Sequential(nn.Linear(4, cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], 1))
opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
records = []
for step in range(cfg["steps"]):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    records.append({"step": step, "loss": round(loss.item(), 5)})
print(run_name[:4], json.dumps(records[-1]), json.loads(json.dumps(cfg)) == cfg, datetime.timedelta(seconds=90))
