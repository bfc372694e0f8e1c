# A model whose forward loops over its layers, evaluated each epoch without no_grad: each batch's graph (a chain
# through every layer) is never backpropagated and lives until the next batch. Wasteful, bounded by the model's depth.
import torch
import torch.nn as nn

STEPS = 6
BATCHES = 6


class Stack(nn.Module):
    def __init__(self, width=16, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.Tanh()) for _ in range(depth))
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return self.head(x)


model = Stack()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(BATCHES)]
val = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(BATCHES)]
for epoch in range(STEPS):
    for x, y in train:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    total = 0.0
    for x, y in val:
        out = model(x)
        total += nn.functional.mse_loss(out, y).item()
    print(epoch, total / len(val))
