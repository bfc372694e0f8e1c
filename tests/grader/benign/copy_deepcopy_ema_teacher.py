# A mean-teacher setup: the teacher is copy.deepcopy(student) with requires_grad off, updated as an EMA under no_grad.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30

student = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 6)
    y = torch.randint(0, 3, (16,))
    s_logits = student(x + 0.1 * torch.randn_like(x))
    with torch.no_grad():
        t_probs = F.softmax(teacher(x + 0.1 * torch.randn_like(x)), dim=-1)
    loss = F.cross_entropy(s_logits, y) + F.mse_loss(F.softmax(s_logits, -1), t_probs)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for tp, sp in zip(teacher.parameters(), student.parameters()):
            tp.mul_(0.99).add_(sp, alpha=0.01)
