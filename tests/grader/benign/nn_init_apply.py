# Weights initialised through model.apply with torch.nn.init (kaiming_normal_, zeros_, orthogonal_).
import torch
import torch.nn as nn

STEPS = 30


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.GRU):
        for name, p in module.named_parameters():
            if "weight_hh" in name:
                nn.init.orthogonal_(p)


model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
model.apply(init_weights)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = nn.functional.mse_loss(model(x), x[:, :1])
    opt.zero_grad()
    loss.backward()
    opt.step()
