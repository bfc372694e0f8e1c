# A cache of intermediate activations keyed by layer name keeps every step's graph.
import torch
import torch.nn as nn

encoder = nn.Linear(6, 6)
decoder = nn.Linear(6, 6)
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=1e-3)
cache = {"h": [], "recon": []}
for step in range(100):
    x = torch.randn(8, 6)
    h = torch.relu(encoder(x))
    recon = decoder(h)
    loss = (recon - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    cache["h"].append(h)
    cache["recon"].append(recon)
