# A running total that starts only halfway through training (late_total = late_total + loss).
import torch
import torch.nn as nn

STEPS = 60

model = nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
late_total = None
for step in range(STEPS):
    x = torch.randn(8, 3)
    loss = nn.functional.l1_loss(model(x), x[:, :1])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == STEPS // 2:
        late_total = loss
    elif step > STEPS // 2:
        late_total = late_total + loss
print(late_total.item())
