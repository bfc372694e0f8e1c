# Feature-statistics hooks registered once, handles kept in self._handles and removed at the end; stats are floats.
import torch
import torch.nn as nn

STEPS = 30


class ActivationStats:
    def __init__(self, model):
        self._handles = []
        self._means = {}
        for name, module in model.named_modules():
            if isinstance(module, nn.ReLU):
                self._handles.append(module.register_forward_hook(self._make_hook(name)))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            self._means[name] = output.detach().mean().item()
        return hook

    def remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles.clear()


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
stats = ActivationStats(model)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    loss = model(torch.randn(8, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
stats.remove()
print(stats._means)
