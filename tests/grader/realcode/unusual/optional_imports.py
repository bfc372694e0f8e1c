"""Optional integrations: `import wandb` in a branch that never runs, `from transformers import ...`
inside a method that is never called."""
import torch
import torch.nn as nn

wandb_log = False
if wandb_log:
    import wandb
    wandb.init(project="never")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)

    @classmethod
    def from_pretrained(cls, name):
        from transformers import GPT2LMHeadModel
        return GPT2LMHeadModel.from_pretrained(name)


try:
    import tqdm  # noqa: F401  (progress bars when installed)
    have_tqdm = True
except ImportError:
    have_tqdm = False

model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(25):
    x = torch.randn(8, 4)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if wandb_log:
        wandb.log({"loss": loss.item()})
print("tqdm installed:", have_tqdm)
