# Distillation caches teacher logits per batch over a fixed dataset of 6 batches (with grad, by mistake): the cache
# cannot hold more than 6 graphs, however long training runs.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40

teacher = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 4))
student = nn.Linear(6, 4)
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
dataset = [torch.randn(4, 6) for _ in range(6)]
teacher_cache = {}
for step in range(STEPS):
    i = step % len(dataset)
    x = dataset[i]
    if i not in teacher_cache:
        teacher_cache[i] = teacher(x)
    loss = F.kl_div(F.log_softmax(student(x), -1), F.softmax(teacher_cache[i].detach(), -1), reduction="batchmean")
    opt.zero_grad()
    loss.backward()
    opt.step()
