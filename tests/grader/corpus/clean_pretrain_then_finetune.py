# Autoencoder pretraining then classifier finetuning, each phase logging floats only.
import torch
import torch.nn as nn

STEPS = 40

encoder = nn.Sequential(nn.Linear(10, 6), nn.ReLU())
decoder = nn.Linear(6, 10)
head = nn.Linear(6, 2)
history = {"pretrain": [], "finetune": []}

opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(16, 10)
    loss = (decoder(encoder(x)) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    history["pretrain"].append(loss.item())

opt = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(16, 10), torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(head(encoder(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history["finetune"].append(loss.item())
