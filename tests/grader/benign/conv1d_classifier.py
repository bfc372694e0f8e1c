# A 1-D CNN over short signals (Conv1d, MaxPool1d, AdaptiveAvgPool1d).
import torch
import torch.nn as nn

STEPS = 20

model = nn.Sequential(
    nn.Conv1d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool1d(2),
    nn.Conv1d(4, 8, kernel_size=3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
    nn.Flatten(), nn.Linear(8, 2),
)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(STEPS):
    y = torch.randint(0, 2, (8,))
    t = torch.linspace(0, 6.28, 32)
    x = torch.sin(t * (1 + y.float().unsqueeze(1))).unsqueeze(1) + 0.1 * torch.randn(8, 1, 32)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
