# The final validation sums loss tensors (val_loss += loss) over batches with autograd on: one chain across the pass.
import torch
import torch.nn as nn

STEPS = 40

model = nn.Linear(5, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
w_true = torch.randn(5, 1)
for step in range(STEPS):
    x = torch.randn(16, 5)
    loss = nn.functional.mse_loss(model(x), x @ w_true)
    opt.zero_grad()
    loss.backward()
    opt.step()

val_loss = 0
n_val = STEPS
for i in range(n_val):
    x = torch.randn(16, 5)
    val_loss += nn.functional.mse_loss(model(x), x @ w_true)
print("val", (val_loss / n_val).item())
