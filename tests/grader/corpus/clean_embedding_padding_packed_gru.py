# Padded token sequences through nn.Embedding(padding_idx=0) and a GRU via pack_padded_sequence.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

STEPS = 30

emb = nn.Embedding(40, 8, padding_idx=0)
gru = nn.GRU(8, 12, batch_first=True)
head = nn.Linear(12, 2)
params = list(emb.parameters()) + list(gru.parameters()) + list(head.parameters())
opt = torch.optim.Adam(params, lr=3e-3)
for step in range(STEPS):
    lengths = torch.randint(1, 9, (6,))
    tokens = torch.randint(1, 40, (6, 8)) * (torch.arange(8) < lengths.unsqueeze(1))
    packed = pack_padded_sequence(emb(tokens), lengths, batch_first=True, enforce_sorted=False)
    _, h = gru(packed)
    loss = nn.functional.cross_entropy(head(h[-1]), torch.randint(0, 2, (6,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
