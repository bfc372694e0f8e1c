# First-order MAML in a class: the inner loop adapts a functional copy of the weights, the outer loop updates them.
import torch
import torch.nn.functional as F

STEPS = 25


class FOMAML:
    def __init__(self, n_in, n_out, inner_lr=0.05):
        self.params = [(0.1 * torch.randn(n_out, n_in)).requires_grad_(), torch.zeros(n_out, requires_grad=True)]
        self.inner_lr = inner_lr
        self.opt = torch.optim.SGD(self.params, lr=0.01)

    def adapt(self, x, y, steps=2):
        fast = [p.detach().clone().requires_grad_() for p in self.params]
        for _ in range(steps):
            loss = F.cross_entropy(F.linear(x, *fast), y)
            grads = torch.autograd.grad(loss, fast)
            fast = [(p - self.inner_lr * g).detach().requires_grad_() for p, g in zip(fast, grads)]
        return fast

    def meta_step(self, tasks):
        self.opt.zero_grad()
        for xs, ys, xq, yq in tasks:
            fast = self.adapt(xs, ys)
            q_loss = F.cross_entropy(F.linear(xq, *fast), yq)
            for p, g in zip(self.params, torch.autograd.grad(q_loss, fast)):
                p.grad = g if p.grad is None else p.grad + g
        self.opt.step()


maml = FOMAML(5, 3)
for it in range(STEPS):
    tasks = [(torch.randn(6, 5), torch.randint(0, 3, (6,)), torch.randn(6, 5), torch.randint(0, 3, (6,)))
             for _ in range(3)]
    maml.meta_step(tasks)
