# grill-corpus: VARIANT of cosinewarmup_train.py: train() sums the loss tensors, and each epoch's sum is kept in `history`.
# Modeled on katsura-jp/pytorch-cosine-annealing-with-warmup cosine_annealing_warmup/scheduler.py
# and README.md @ 2e2718dc45a1 (MIT License, Copyright (c) 2020 Naoki Katsura); written for
# grill's realcode corpus. A custom LR scheduler: a subclass of torch's _LRScheduler with its own
# init_lr(), get_lr() and step() (cycles that restart, a linear warm-up, a max LR decayed by gamma
# per cycle), stepped once per epoch after train() and valid() as the README shows.
import math

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import _LRScheduler


class CosineAnnealingWarmupRestarts(_LRScheduler):
    """
    optimizer (Optimizer): Wrapped optimizer.
    first_cycle_steps (int): First cycle step size.
    cycle_mult(float): Cycle steps magnification. Default: -1.
    max_lr(float): First cycle's max learning rate. Default: 0.1.
    min_lr(float): Min learning rate. Default: 0.001.
    warmup_steps(int): Linear warmup step size. Default: 0.
    gamma(float): Decrease rate of max learning rate by cycle. Default: 1.
    last_epoch (int): The index of last epoch. Default: -1.
    """

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        first_cycle_steps: int,
        cycle_mult: float = 1.0,
        max_lr: float = 0.1,
        min_lr: float = 0.001,
        warmup_steps: int = 0,
        gamma: float = 1.0,
        last_epoch: int = -1,
    ):
        assert warmup_steps < first_cycle_steps

        self.first_cycle_steps = first_cycle_steps  # first cycle step size
        self.cycle_mult = cycle_mult  # cycle steps magnification
        self.base_max_lr = max_lr  # first max learning rate
        self.max_lr = max_lr  # max learning rate in the current cycle
        self.min_lr = min_lr  # min learning rate
        self.warmup_steps = warmup_steps  # warmup step size
        self.gamma = gamma  # decrease rate of max learning rate by cycle

        self.cur_cycle_steps = first_cycle_steps  # first cycle step size
        self.cycle = 0  # cycle count
        self.step_in_cycle = last_epoch  # step size of the current cycle

        super(CosineAnnealingWarmupRestarts, self).__init__(optimizer, last_epoch)

        # set learning rate min_lr
        self.init_lr()

    def init_lr(self):
        self.base_lrs = []
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = self.min_lr
            self.base_lrs.append(self.min_lr)

    def get_lr(self):
        if self.step_in_cycle == -1:
            return self.base_lrs
        elif self.step_in_cycle < self.warmup_steps:
            return [
                (self.max_lr - base_lr) * self.step_in_cycle / self.warmup_steps + base_lr
                for base_lr in self.base_lrs
            ]
        else:
            return [
                base_lr
                + (self.max_lr - base_lr)
                * (1 + math.cos(math.pi * (self.step_in_cycle - self.warmup_steps) / (self.cur_cycle_steps - self.warmup_steps)))
                / 2
                for base_lr in self.base_lrs
            ]

    def step(self, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
            self.step_in_cycle = self.step_in_cycle + 1
            if self.step_in_cycle >= self.cur_cycle_steps:
                self.cycle += 1
                self.step_in_cycle = self.step_in_cycle - self.cur_cycle_steps
                self.cur_cycle_steps = (
                    int((self.cur_cycle_steps - self.warmup_steps) * self.cycle_mult) + self.warmup_steps
                )
        else:
            if epoch >= self.first_cycle_steps:
                if self.cycle_mult == 1.0:
                    self.step_in_cycle = epoch % self.first_cycle_steps
                    self.cycle = epoch // self.first_cycle_steps
                else:
                    n = int(math.log((epoch / self.first_cycle_steps * (self.cycle_mult - 1) + 1), self.cycle_mult))
                    self.cycle = n
                    self.step_in_cycle = epoch - int(
                        self.first_cycle_steps * (self.cycle_mult**n - 1) / (self.cycle_mult - 1)
                    )
                    self.cur_cycle_steps = self.first_cycle_steps * self.cycle_mult ** (n)
            else:
                self.cur_cycle_steps = self.first_cycle_steps
                self.step_in_cycle = epoch

        self.max_lr = self.base_max_lr * (self.gamma**self.cycle)
        self.last_epoch = math.floor(epoch)
        for param_group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            param_group["lr"] = lr

        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


# README usage: train(), valid(), scheduler.step() once per epoch (grill-corpus: the README's
# `model`, `train()` and `valid()` are placeholders; a small classifier on random data fills them)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
criterion = nn.CrossEntropyLoss()
train_x, train_y = torch.randn(320, 20), torch.randint(0, 5, (320,))
valid_x, valid_y = torch.randn(64, 20), torch.randint(0, 5, (64,))


def train():
    model.train()
    total = 0.0
    for i in range(0, len(train_x), 32):
        optimizer.zero_grad()
        loss = criterion(model(train_x[i : i + 32]), train_y[i : i + 32])
        loss.backward()
        optimizer.step()
        total += loss  # grill-corpus: VARIANT: the loss tensor, not loss.item()
    return total / (len(train_x) // 32)


def valid():
    model.eval()
    with torch.no_grad():
        return criterion(model(valid_x), valid_y).item()


optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
# grill-corpus: first_cycle_steps 200 -> 8, warmup_steps 50 -> 2, gamma 1.0 -> 0.5 (a few cycles in a short run)
scheduler = CosineAnnealingWarmupRestarts(
    optimizer, first_cycle_steps=8, cycle_mult=1.0, max_lr=0.1, min_lr=0.001, warmup_steps=2, gamma=0.5
)
n_epoch = 20  # grill-corpus: a short run
history = {"train": [], "valid": []}  # grill-corpus: VARIANT
for epoch in range(n_epoch):
    train_loss = train()
    valid_loss = valid()
    history["train"].append(train_loss)  # grill-corpus: VARIANT: the epoch's chained sum kept
    history["valid"].append(valid_loss)
    scheduler.step()
    print(f"epoch {epoch}: lr {scheduler.get_lr()[0]:.4f} train {train_loss:.3f} valid {valid_loss:.3f}")
