# A model records its activations in forward() for later inspection, never clearing them.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 1)
        self.activations = []

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        self.activations.append(h)
        return self.fc2(h)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(100):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
