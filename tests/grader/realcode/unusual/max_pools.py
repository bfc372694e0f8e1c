"""F.max_pool2d, F.max_pool1d and F.adaptive_max_pool2d in a forward pass."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.conv1d = nn.Conv1d(4, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 2 * 2 + 4 * 4, 3)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = F.max_pool2d(h, 2)
        a = F.adaptive_max_pool2d(h, (2, 2)).flatten(1)
        s = F.max_pool1d(self.conv1d(h.flatten(2)), kernel_size=4).flatten(1)
        return self.fc(torch.cat([a, s], 1))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(25):
    x = torch.randn(8, 1, 8, 8)
    loss = F.cross_entropy(model(x), torch.randint(0, 3, (8,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
