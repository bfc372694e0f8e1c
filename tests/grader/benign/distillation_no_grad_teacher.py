# Knowledge distillation: the teacher runs under no_grad in eval mode, KL on temperature-softened logits.
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 30
T = 2.0

teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
student = nn.Linear(8, 4)
opt = torch.optim.Adam(student.parameters(), lr=3e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    kd = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    loss = 0.5 * kd + 0.5 * F.cross_entropy(s_logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
