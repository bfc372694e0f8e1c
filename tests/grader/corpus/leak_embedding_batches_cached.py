# Text classifier with nn.Embedding(padding_idx=0); the embedded batches are cached per step for a later probe.
import torch
import torch.nn as nn

STEPS = 30

emb = nn.Embedding(50, 8, padding_idx=0)
clf = nn.Linear(8, 2)
opt = torch.optim.Adam(list(emb.parameters()) + list(clf.parameters()), lr=1e-2)
probe_inputs = []
for step in range(STEPS):
    tokens = torch.randint(1, 50, (4, 7))
    tokens[:, 5:] = 0
    e = emb(tokens)
    mask = (tokens != 0).unsqueeze(-1).float()
    pooled = (e * mask).sum(1) / mask.sum(1)
    loss = nn.functional.cross_entropy(clf(pooled), torch.randint(0, 2, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    probe_inputs.append(pooled)
