# A spectral loss on torch.fft.rfft magnitudes added to the time-domain MSE of a tiny signal model.
import torch
import torch.nn as nn

STEPS = 30

model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 16))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
t = torch.linspace(0, 1, 16)
for step in range(STEPS):
    freq = torch.randint(1, 4, (8, 1)).float()
    clean = torch.sin(2 * torch.pi * freq * t)
    noisy = clean + 0.2 * torch.randn(8, 16)
    out = model(noisy)
    spec = (torch.fft.rfft(out).abs() - torch.fft.rfft(clean).abs()).pow(2).mean()
    loss = nn.functional.mse_loss(out, clean) + 0.1 * spec
    opt.zero_grad()
    loss.backward()
    opt.step()
