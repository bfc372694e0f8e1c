# A list subclass whose __iter__, __len__ and __repr__ hide what it holds keeps every loss: grill reads its real
# storage, so the list is named, not the last loss (issue 23; issue 22's snippet code never runs while grill measures).
import torch
import torch.nn as nn

STEPS = 40


class QuietList(list):
    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __repr__(self):
        return "QuietList()"


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
history = QuietList()
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(loss)
print(repr(history))
