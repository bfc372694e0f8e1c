# Adam for the first half, then L-BFGS whose closure logs loss.item(): two phases, nothing kept with a graph.
import torch
import torch.nn as nn

STEPS = 40

x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(3 * x)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))

adam = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(STEPS // 2):
    loss = nn.functional.mse_loss(model(x), y)
    adam.zero_grad()
    loss.backward()
    adam.step()

lbfgs = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=3)
closure_losses = []


def closure():
    lbfgs.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    closure_losses.append(loss.item())
    return loss


for step in range(STEPS // 2):
    lbfgs.step(closure)
print(len(closure_losses), closure_losses[-1])
