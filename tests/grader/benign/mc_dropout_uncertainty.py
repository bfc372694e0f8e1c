# Monte Carlo dropout at the end: dropout left on, 10 stochastic passes under no_grad, mean and std of predictions.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(STEPS):
    x = torch.randn(16, 3)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
x_test = torch.randn(8, 3)
with torch.no_grad():
    samples = torch.stack([model(x_test) for _ in range(10)])
print(samples.mean(0).squeeze(1), samples.std(0).squeeze(1))
