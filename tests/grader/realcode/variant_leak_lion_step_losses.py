# grill-corpus: VARIANT of lion_train.py: every loss the closure returns through Lion.step() is kept in `step_losses`.
# Modeled on lucidrains/lion-pytorch lion_pytorch/lion_pytorch.py and README.md @ 05258c934a4e
# (MIT License, as its setup.py declares; Phil Wang); written for grill's realcode corpus. A custom
# optimizer: Lion, a subclass of torch.optim.Optimizer with its own @torch.no_grad() step(), an
# optional closure evaluated under torch.enable_grad(), and an update function kept as an
# attribute (`self.update_fn`) that works in place on the parameters and the optimizer state.
from __future__ import annotations

from typing import Callable, Tuple

import torch
from torch.optim.optimizer import Optimizer

# functions


def exists(val):
    return val is not None


# update functions


def update_fn(p, grad, exp_avg, lr, wd, beta1, beta2):
    # stepweight decay
    p.data.mul_(1.0 - lr * wd)

    # weight update
    update = exp_avg.clone().mul_(beta1).add(grad, alpha=1.0 - beta1).sign_()
    p.add_(update, alpha=-lr)

    # decay the momentum running average coefficient
    exp_avg.mul_(beta2).add_(grad, alpha=1.0 - beta2)


# class


class Lion(Optimizer):
    def __init__(
        self,
        params,
        lr: float = 1e-4,
        betas: Tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        use_triton: bool = False,
        decoupled_weight_decay: bool = False,
    ):
        assert lr > 0.0
        assert all([0.0 <= beta <= 1.0 for beta in betas])

        self._init_lr = lr
        self.decoupled_wd = decoupled_weight_decay

        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)

        super().__init__(params, defaults)

        self.update_fn = update_fn

        if use_triton:
            raise RuntimeError("grill-corpus: triton is not installed")  # grill-corpus: lion_pytorch.triton

    @torch.no_grad()
    def step(self, closure: Callable | None = None):
        loss = None
        if exists(closure):
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            for p in filter(lambda p: exists(p.grad), group["params"]):
                grad, lr, wd, beta1, beta2, state, decoupled_wd, init_lr = (
                    p.grad,
                    group["lr"],
                    group["weight_decay"],
                    *group["betas"],
                    self.state[p],
                    self.decoupled_wd,
                    self._init_lr,
                )

                # maybe decoupled weight decay
                if decoupled_wd:
                    wd /= init_lr

                # init state - exponential moving average of gradient values
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)

                exp_avg = state["exp_avg"]

                self.update_fn(p, grad, exp_avg, lr, wd, beta1, beta2)

        return loss


# README usage, grown into a short training run (grill-corpus: the README shows one step on a
# Linear(10, 1); here a small regression trained for a few epochs, half the steps through a closure)
if __name__ == "__main__":
    model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = Lion(model.parameters(), lr=1e-4, weight_decay=1e-2)
    inputs, targets = torch.randn(256, 10), torch.randn(256, 1)
    step_losses = []  # grill-corpus: VARIANT

    for epoch in range(4):
        for i in range(0, len(inputs), 16):
            x, y = inputs[i : i + 16], targets[i : i + 16]
            if i % 32 == 0:
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
                opt.zero_grad()
            else:

                def closure():
                    opt.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    return loss

                loss = opt.step(closure)
                step_losses.append(loss)  # grill-corpus: VARIANT: step() returns the closure's loss, graph and all
        print(f"epoch {epoch}: loss {loss.item():.4f}")
