# Pretraining (autoencoder) keeps its reconstruction losses as tensors; the finetuning phase after it is clean.
import torch
import torch.nn as nn

STEPS = 40

encoder = nn.Sequential(nn.Linear(10, 6), nn.ReLU())
decoder = nn.Linear(6, 10)
head = nn.Linear(6, 2)

pre_opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
recon_history = []
for step in range(STEPS):
    x = torch.randn(16, 10)
    recon_loss = (decoder(encoder(x)) - x).pow(2).mean()
    pre_opt.zero_grad()
    recon_loss.backward()
    pre_opt.step()
    recon_history.append(recon_loss)

ft_opt = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 10), torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(head(encoder(x)), y)
    ft_opt.zero_grad()
    loss.backward()
    ft_opt.step()
print(recon_history[0].item(), recon_history[-1].item())
