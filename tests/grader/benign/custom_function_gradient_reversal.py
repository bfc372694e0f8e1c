# Domain-adversarial training with a gradient reversal layer (autograd.Function saving a scalar on ctx).
import torch
import torch.nn as nn

STEPS = 30


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.lam * grad_output, None


features = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
label_head = nn.Linear(16, 2)
domain_head = nn.Linear(16, 2)
params = list(features.parameters()) + list(label_head.parameters()) + list(domain_head.parameters())
opt = torch.optim.SGD(params, lr=0.05)
for step in range(STEPS):
    xs, ys = torch.randn(8, 6), torch.randint(0, 2, (8,))
    xt = torch.randn(8, 6) + 0.5
    fs, ft = features(xs), features(xt)
    task_loss = nn.functional.cross_entropy(label_head(fs), ys)
    dom_in = GradReverse.apply(torch.cat([fs, ft]), 0.1)
    dom_y = torch.cat([torch.zeros(8), torch.ones(8)]).long()
    loss = task_loss + nn.functional.cross_entropy(domain_head(dom_in), dom_y)
    opt.zero_grad()
    loss.backward()
    opt.step()
