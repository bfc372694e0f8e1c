"""`import torch.nn.utils.parametrize as P`: a symmetric weight through register_parametrization."""
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(6, 6)
P.register_parametrization(layer, "weight", Symmetric())
print(P.is_parametrized(layer), torch.allclose(layer.weight, layer.weight.T))
opt = torch.optim.SGD(layer.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 6)
    with P.cached():
        loss = (layer(x) - x.flip(1)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
