# The registered running-loss buffer updated from loss.detach(): a buffer without history.
import torch
import torch.nn as nn

STEPS = 40


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 1)
        self.register_buffer("running_loss", torch.zeros(()))

    def forward(self, x):
        return self.fc(x)

    def track(self, loss):
        self.running_loss = 0.95 * self.running_loss + 0.05 * loss.detach()


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(STEPS):
    loss = model(torch.randn(8, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.track(loss)
print(model.running_loss.item())
