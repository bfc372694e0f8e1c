# A custom leaky-integrator Function carries its state across a stream with autograd on and never detaches it.
import torch
import torch.nn as nn

STEPS = 40


class LeakyIntegrate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, drive, state, decay):
        ctx.save_for_backward(decay)
        return decay * state + drive

    @staticmethod
    def backward(ctx, grad_out):
        (decay,) = ctx.saved_tensors
        return grad_out, grad_out * decay, None


encoder = nn.Linear(5, 6)
decay = torch.full((6,), 0.9)
state = torch.zeros(2, 6)
readings = []
for step in range(STEPS):
    drive = torch.tanh(encoder(torch.randn(2, 5)))
    state = LeakyIntegrate.apply(drive, state, decay)
    readings.append(state.norm().item())
print(readings[-1])
