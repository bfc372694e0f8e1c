"""`register_forward_hook` to read activations (detached), then `handle.remove()`."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
activations = {}
calls = []


def save_activation(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
        calls.append(name)
    return hook


handle = model[1].register_forward_hook(save_activation("relu"))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(30):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 20:
        handle.remove()
print(activations["relu"].shape, len(calls))  # 21 calls: none after remove()
