# An HF-like Trainer with train() and evaluate(), a metrics dict, and evaluation every eval_steps under no_grad.
import torch
import torch.nn as nn

STEPS = 40


class Trainer:
    def __init__(self, model, train_data, eval_data, eval_steps=10, lr=5e-3):
        self.model = model
        self.train_data = train_data
        self.eval_data = eval_data
        self.eval_steps = eval_steps
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.metrics = {"train_loss": [], "eval_loss": [], "eval_accuracy": []}

    def compute_loss(self, batch):
        logits = self.model(batch["input"])
        return nn.functional.cross_entropy(logits, batch["label"]), logits

    def evaluate(self):
        self.model.eval()
        total, correct, n = 0.0, 0, 0
        with torch.no_grad():
            for batch in self.eval_data:
                loss, logits = self.compute_loss(batch)
                total += loss.item() * len(batch["label"])
                correct += (logits.argmax(-1) == batch["label"]).sum().item()
                n += len(batch["label"])
        self.model.train()
        return {"eval_loss": total / n, "eval_accuracy": correct / n}

    def train(self, max_steps):
        step = 0
        while step < max_steps:
            for batch in self.train_data:
                loss, _ = self.compute_loss(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.metrics["train_loss"].append(loss.item())
                step += 1
                if step % self.eval_steps == 0:
                    for key, value in self.evaluate().items():
                        self.metrics[key].append(value)
                if step >= max_steps:
                    break
        return self.metrics


def make(n):
    return [{"input": torch.randn(8, 6), "label": torch.randint(0, 2, (8,))} for _ in range(n)]


trainer = Trainer(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2)), make(5), make(2))
print(trainer.train(STEPS)["eval_accuracy"])
