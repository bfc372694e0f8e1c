# Encoder and decoder have their own optimizers and are updated on alternating steps.
import torch
import torch.nn as nn

STEPS = 40

encoder, decoder = nn.Linear(6, 3), nn.Linear(3, 6)
opt_enc = torch.optim.Adam(encoder.parameters(), lr=1e-3)
opt_dec = torch.optim.SGD(decoder.parameters(), lr=1e-2)
log = []
for step in range(STEPS):
    x = torch.randn(16, 6)
    loss = (decoder(encoder(x)) - x).pow(2).mean()
    opt = opt_enc if step % 2 == 0 else opt_dec
    opt_enc.zero_grad()
    opt_dec.zero_grad()
    loss.backward()
    opt.step()
    log.append(loss.item())
