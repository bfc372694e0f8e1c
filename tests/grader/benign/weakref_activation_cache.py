# A weakref.WeakValueDictionary caches activations by layer name: entries vanish once the step drops its tensors.
import weakref

import torch
import torch.nn as nn

STEPS = 30


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 1)
        self.cache = weakref.WeakValueDictionary()

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        self.cache["fc1"] = h
        return self.fc2(h)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    if "fc1" in model.cache:
        sparsity = (model.cache["fc1"] == 0).float().mean().item()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(sparsity)
