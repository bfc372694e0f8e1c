# model.eval() switches dropout off but not autograd: the post-training validation keeps outputs by batch id.
import torch
import torch.nn as nn

STEPS = 50

model = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.1), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(STEPS):
    x = torch.randn(32, 8)
    y = (x[:, 0] > 0).long()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
val_outputs = {}
for batch_id in range(STEPS):
    x = torch.randn(32, 8)
    val_outputs[batch_id] = model(x)
print(len(val_outputs))
