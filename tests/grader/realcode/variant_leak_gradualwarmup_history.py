# grill-corpus: VARIANT of gradualwarmup_run.py: each epoch's last loss is kept in `history` as a tensor.
# Modeled on ildoonet/pytorch-gradual-warmup-lr warmup_scheduler/scheduler.py and
# warmup_scheduler/run.py @ 7021d63 (MIT License, Copyright (c) 2019 Ildoo Kim); written for
# grill's realcode corpus. A custom LR scheduler: a subclass of torch's _LRScheduler with its
# own get_lr() and step(), chained to a StepLR that takes over after the warm-up.
import torch
from torch.optim.lr_scheduler import _LRScheduler
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.optim.lr_scheduler import StepLR
from torch.optim.sgd import SGD


class GradualWarmupScheduler(_LRScheduler):
    """Raise the learning rate gradually over `total_epoch` epochs, then hand over to
    `after_scheduler` (Goyal et al., 'Accurate, Large Minibatch SGD')."""

    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        self.multiplier = multiplier
        if self.multiplier < 1.0:
            raise ValueError("multiplier should be greater thant or equal to 1.")
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        self.finished = False
        super(GradualWarmupScheduler, self).__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            if self.after_scheduler:
                if not self.finished:
                    self.after_scheduler.base_lrs = [lr * self.multiplier for lr in self.base_lrs]
                    self.finished = True
                return self.after_scheduler.get_last_lr()
            return [lr * self.multiplier for lr in self.base_lrs]
        if self.multiplier == 1.0:
            return [lr * (float(self.last_epoch) / self.total_epoch) for lr in self.base_lrs]
        return [
            lr * ((self.multiplier - 1.0) * self.last_epoch / self.total_epoch + 1.0)
            for lr in self.base_lrs
        ]

    def step_ReduceLROnPlateau(self, metrics, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
        # ReduceLROnPlateau is stepped at an epoch's end, the others at its start
        self.last_epoch = epoch if epoch != 0 else 1
        if self.last_epoch <= self.total_epoch:
            scale = (self.multiplier - 1.0) * self.last_epoch / self.total_epoch + 1.0
            for group, lr in zip(self.optimizer.param_groups, self.base_lrs):
                group["lr"] = lr * scale
        elif epoch is None:
            self.after_scheduler.step(metrics, None)
        else:
            self.after_scheduler.step(metrics, epoch - self.total_epoch)

    def step(self, epoch=None, metrics=None):
        if type(self.after_scheduler) != ReduceLROnPlateau:
            if self.finished and self.after_scheduler:
                if epoch is None:
                    self.after_scheduler.step(None)
                else:
                    self.after_scheduler.step(epoch - self.total_epoch)
                self.last_epoch = self.after_scheduler.last_epoch + self.total_epoch + 1
                self._last_lr = self.after_scheduler.get_last_lr()
            else:
                return super(GradualWarmupScheduler, self).step(epoch)
        else:
            self.step_ReduceLROnPlateau(metrics, epoch)


if __name__ == "__main__":
    model = [torch.nn.Parameter(torch.randn(2, 2, requires_grad=True))]
    optim = SGD(model, 0.1)

    # the warm-up scheduler is chained with a StepLR
    scheduler_steplr = StepLR(optim, step_size=10, gamma=0.1)
    scheduler_warmup = GradualWarmupScheduler(
        optim, multiplier=1, total_epoch=5, after_scheduler=scheduler_steplr
    )

    # a zero-gradient update first, to avoid the scheduler-before-optimizer warning
    optim.zero_grad()
    optim.step()

    target = torch.randn(2, 2)  # grill-corpus: a regression target, so that each epoch trains
    history = []
    for epoch in range(1, 20):
        scheduler_warmup.step(epoch)
        print(epoch, optim.param_groups[0]["lr"])

        for _ in range(5):  # grill-corpus: a few real updates (the source steps with no loss)
            optim.zero_grad()
            loss = (model[0] - target).pow(2).sum()
            loss.backward()
            optim.step()  # backward pass (update network)
        history.append(loss)  # grill-corpus: VARIANT: the epoch's last loss kept with its graph
