"""A DCGAN-style weights_init that dispatches on `m.__class__.__name__`."""
import torch
import torch.nn as nn


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)
    elif type(m).__name__ == 'Linear':
        nn.init.xavier_uniform_(m.weight)


model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
model.apply(weights_init)
print(model.__class__.__name__, type(model[0]).__qualname__)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(25):
    x = torch.randn(8, 1, 8, 8)
    loss = nn.functional.cross_entropy(model(x), torch.randint(0, 2, (8,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
