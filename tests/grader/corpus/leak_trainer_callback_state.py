# An HF-like Trainer passes a state dict to callbacks; a LossHistory callback stores state["loss"], the tensor.
import torch
import torch.nn as nn

STEPS = 30


class LossHistory:
    def __init__(self):
        self.losses = []

    def on_step_end(self, state):
        self.losses.append(state["loss"])


class PrintEvery:
    def __init__(self, every):
        self.every = every

    def on_step_end(self, state):
        if state["step"] % self.every == 0:
            print(state["step"], state["loss"].item())


class Trainer:
    def __init__(self, model, callbacks):
        self.model = model
        self.callbacks = callbacks
        self.opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def train(self, steps):
        for step in range(steps):
            loss = self.model(torch.randn(8, 3)).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            state = {"step": step, "loss": loss}
            for cb in self.callbacks:
                cb.on_step_end(state)


history = LossHistory()
Trainer(nn.Linear(3, 1), [history, PrintEvery(100)]).train(STEPS)
print(len(history.losses))
