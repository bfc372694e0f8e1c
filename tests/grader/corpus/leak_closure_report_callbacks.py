# Deferred report callbacks are built by a factory closing over each step's loss, and queued until the end.
import torch
import torch.nn as nn

STEPS = 40


def make_report(step, loss):
    def report():
        return f"step {step}: {loss.item():.4f}"
    return report


model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
reports = []
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    reports.append(make_report(step, loss))
print(reports[-1]())
