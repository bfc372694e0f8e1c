# A sliding window of the last 16 outputs (graphs included) for a smoothness penalty on detached history; the
# window is trimmed with pop(0), so at most 16 graphs are held however long training runs.
import torch
import torch.nn as nn

STEPS = 60
WINDOW = 16

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
probe = torch.randn(8, 4)
history = []
for step in range(STEPS):
    out = model(probe)
    smooth = sum((out - h.detach()).pow(2).mean() for h in history) / max(1, len(history))
    loss = model(torch.randn(8, 4)).pow(2).mean() + 0.1 * smooth
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(out)
    if len(history) > WINDOW:
        history.pop(0)
