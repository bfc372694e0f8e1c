# configure_optimizers returns the Lightning-style dict with an lr_scheduler entry that the loop steps per batch.
import torch
import torch.nn as nn

STEPS = 40


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(5, 1)

    def training_step(self, batch):
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y)
        self.log_dict = {"train_loss": loss.item()}
        return loss

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


module = Regressor()
config = module.configure_optimizers()
opt, sched = config["optimizer"], config["lr_scheduler"]["scheduler"]
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = module.training_step((x, x.sum(1, keepdim=True)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if config["lr_scheduler"]["interval"] == "step":
        sched.step()
print(module.log_dict, sched.get_last_lr())
