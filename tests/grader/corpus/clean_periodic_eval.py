# Every 10 steps the model is evaluated under torch.no_grad() and the accuracy recorded.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
val_x, val_y = torch.randn(256, 20), torch.randint(0, 4, (256,))
val_acc = []
for step in range(120):
    model.train()
    x, y = torch.randn(32, 20), torch.randint(0, 4, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        model.eval()
        with torch.no_grad():
            logits = model(val_x)
            val_acc.append((logits.argmax(1) == val_y).float().mean())
