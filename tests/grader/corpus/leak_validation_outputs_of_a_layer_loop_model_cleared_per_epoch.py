# The validation outputs kept without no_grad and cleared at epoch end, from a model whose forward loops over its
# layers: each batch's graph is a chain through the layers (bounded by the depth), but the list keeps every batch's
# chain until the epoch ends, as many as the validation set has batches (issue 23).
import torch
import torch.nn as nn

STEPS = 6
BATCHES = 8


class Stack(nn.Module):
    def __init__(self, width=12, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth))
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return self.head(x)


model = Stack()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train = [(torch.randn(8, 12), torch.randint(0, 2, (8,))) for _ in range(4)]
val = [(torch.randn(8, 12), torch.randint(0, 2, (8,))) for _ in range(BATCHES)]
for epoch in range(STEPS):
    for x, y in train:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    outputs = []
    for x, y in val:
        outputs.append(nn.functional.cross_entropy(model(x), y))
    print(epoch, torch.stack(outputs).mean().item())
