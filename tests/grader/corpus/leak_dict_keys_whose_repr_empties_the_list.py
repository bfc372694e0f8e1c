# Losses are kept in a list that a dict's tuple keys point at; the keys' __repr__, __eq__ and __hash__ would empty the
# list if grill ever called them while it measures (issue 22: such a key once graded a leak clean).
import torch
import torch.nn as nn

STEPS = 40


class Tag:
    def __init__(self, victim):
        self.victim = victim

    def __repr__(self):
        self.victim.clear()
        return "Tag"

    def __eq__(self, other):
        self.victim.clear()
        return self is other

    def __hash__(self):
        self.victim.clear()
        return 7


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
index = {}
for step in range(STEPS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss)
    if step == 0:
        index[(Tag(losses), "losses")] = step
print(len(losses))
