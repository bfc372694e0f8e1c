# Every fifth step the loss is snapshotted into a list for a coarse curve, tensor and graph included: a slower
# leak, but still one more graph per five steps for as long as training runs.
import torch
import torch.nn as nn

STEPS = 60

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
coarse_curve = []
for step in range(STEPS):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        coarse_curve.append(loss)
print(len(coarse_curve))
