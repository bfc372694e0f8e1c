# A trainer class with private state (self._step, self._buf) and private helper methods (_helper-style).
import torch
import torch.nn as nn

STEPS = 40


class Trainer:
    def __init__(self, model, lr=1e-3):
        self._model = model
        self._opt = torch.optim.Adam(model.parameters(), lr=lr)
        self._step = 0
        self._buf = []

    def _batch(self):
        x = torch.randn(16, 6)
        return x, x.sum(1, keepdim=True)

    def _loss(self, x, y):
        return nn.functional.mse_loss(self._model(x), y)

    def _log(self, value):
        self._buf.append(value)
        if len(self._buf) == 10:
            print(f"step {self._step}: {sum(self._buf) / 10:.4f}")
            self._buf.clear()

    def step(self):
        x, y = self._batch()
        loss = self._loss(x, y)
        self._opt.zero_grad()
        loss.backward()
        self._opt.step()
        self._step += 1
        self._log(loss.item())


trainer = Trainer(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)))
for _ in range(STEPS):
    trainer.step()
