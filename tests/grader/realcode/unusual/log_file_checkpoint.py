"""A log file opened in the current folder, and a checkpoint saved with torch.save and read back
with torch.load(weights_only=True)."""
import os

import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
with open("train_log.txt", "w") as log:
    for step in range(30):
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.write(f"{step} {loss.item():.5f}\n")
        if step % 10 == 9:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, "ckpt.pt")
state = torch.load("ckpt.pt", weights_only=True)
model.load_state_dict(state["model"])
opt.load_state_dict(state["opt"])
with open("train_log.txt") as log:
    print(len(log.readlines()), "lines; resumed at", state["step"])
os.remove("ckpt.pt")
os.remove("train_log.txt")
