# BatchNorm1d and Dropout switched with model.train()/model.eval(); evaluation every 10 steps under no_grad.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
xv, yv = torch.randn(64, 8), torch.randint(0, 2, (64,))
accs = []
for step in range(STEPS):
    model.train()
    x, y = torch.randn(32, 8), torch.randint(0, 2, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        model.eval()
        with torch.no_grad():
            accs.append((model(xv).argmax(1) == yv).float().mean().item())
print(accs)
