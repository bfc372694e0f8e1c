# Validation without no_grad: each batch's outputs are collected for the epoch's score and the list is emptied at
# epoch end. Every validation batch's graph is kept until the pass ends: as long as the validation set (issue 23).
import torch
import torch.nn as nn

STEPS = 8
BATCHES = 10

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(4)]
val = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(BATCHES)]
for epoch in range(STEPS):
    model.train()
    for x, y in train:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    outputs = []
    for x, y in val:
        outputs.append(nn.functional.cross_entropy(model(x), y))
    print(epoch, torch.stack(outputs).mean().item())
