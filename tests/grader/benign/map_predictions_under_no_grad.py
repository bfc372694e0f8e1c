# After each epoch, predictions for a held-out set are made with map() under no_grad and scored.
import torch
import torch.nn as nn

STEPS = 10

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(5)]
held_out = [torch.randn(8, 4) for _ in range(6)]
for epoch in range(STEPS):
    for x, y in train:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        preds = list(map(model, held_out))
    print(epoch, torch.cat(preds).argmax(1).float().mean().item())
