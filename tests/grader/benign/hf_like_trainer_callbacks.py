# An HF-like training loop with a TrainerState dataclass and callbacks (on_step_end, on_log, early stopping flag).
from dataclasses import dataclass, field
from typing import Dict, List

import torch
import torch.nn as nn

STEPS = 40


@dataclass
class TrainerState:
    global_step: int = 0
    log_history: List[Dict[str, float]] = field(default_factory=list)
    should_stop: bool = False


class TrainerCallback:
    def on_step_end(self, state, logs):
        pass


class LoggingCallback(TrainerCallback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, state, logs):
        if state.global_step % self.every == 0:
            state.log_history.append(dict(logs, step=state.global_step))


class StopOnNaN(TrainerCallback):
    def on_step_end(self, state, logs):
        if logs["loss"] != logs["loss"]:
            state.should_stop = True


model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
state = TrainerState()
callbacks = [LoggingCallback(every=10), StopOnNaN()]
for step in range(STEPS):
    x = torch.randn(16, 4)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    opt.zero_grad()
    loss.backward()
    opt.step()
    state.global_step += 1
    logs = {"loss": loss.item(), "lr": opt.param_groups[0]["lr"]}
    for cb in callbacks:
        cb.on_step_end(state, logs)
    if state.should_stop:
        break
print(state.log_history[-1])
