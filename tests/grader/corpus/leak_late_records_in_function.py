# A train() function starts recording step records (with the loss tensor) once the learning rate has decayed.
import torch
import torch.nn as nn

STEPS = 40


def train(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(1, steps // 2), gamma=0.1)
    records = []
    for step in range(steps):
        loss = model(torch.randn(8, 5)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if sched.get_last_lr()[0] < 0.1:
            records.append({"step": step, "loss": loss, "lr": sched.get_last_lr()[0]})
    return records


records = train(nn.Linear(5, 2), STEPS)
print(len(records))
