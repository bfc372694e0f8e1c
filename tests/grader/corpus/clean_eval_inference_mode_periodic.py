# Every 5 steps a validation pass runs under torch.inference_mode(); the results are kept as tensors (no graph).
import torch
import torch.nn as nn

STEPS = 40

model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
val_batches = [(torch.randn(16, 6), torch.randint(0, 2, (16,))) for _ in range(3)]
val_history = []
for step in range(STEPS):
    x, y = torch.randn(16, 6), torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        with torch.inference_mode():
            val_history.append(torch.stack([nn.functional.cross_entropy(model(vx), vy) for vx, vy in val_batches]))
