# train() defines an inner step() that appends to the enclosing function's list through the closure.
import torch
import torch.nn as nn

STEPS = 40


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    outputs = []

    def step(x, y):
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        outputs.append(out)
        return loss.item()

    return [step(torch.randn(8, 2), torch.randn(8, 1)) for _ in range(steps)], outputs


curve, outputs = train(nn.Linear(2, 1), STEPS)
print(curve[-1], len(outputs))
