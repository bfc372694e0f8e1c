# Predictions after training are made inside torch.inference_mode() and collected in a list.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 5), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
preds = []
with torch.inference_mode():
    for batch in range(STEPS):
        preds.append(model(torch.randn(16, 5)).argmax(1))
print(torch.cat(preds).bincount(minlength=3))
