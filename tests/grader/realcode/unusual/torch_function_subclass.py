"""A tensor subclass with `__torch_function__` that counts the torch calls it takes part in."""
import torch
import torch.nn as nn


class CountingTensor(torch.Tensor):
    calls = 0

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        CountingTensor.calls += 1
        return super().__torch_function__(func, types, args, kwargs or {})


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 4).as_subclass(CountingTensor)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("torch calls seen", CountingTensor.calls)
