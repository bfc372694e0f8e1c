# A tiny nn.TransformerEncoder (2 layers, d_model 16) with a padding mask, classifying sequences.
import torch
import torch.nn as nn

STEPS = 20

layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
emb = nn.Embedding(20, 16, padding_idx=0)
head = nn.Linear(16, 2)
params = list(encoder.parameters()) + list(emb.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-3)
for step in range(STEPS):
    tokens = torch.randint(1, 20, (4, 6))
    tokens[:, 4:] = 0
    pad_mask = tokens == 0
    h = encoder(emb(tokens), src_key_padding_mask=pad_mask)
    pooled = h.masked_fill(pad_mask.unsqueeze(-1), 0).sum(1) / (~pad_mask).sum(1, keepdim=True)
    loss = nn.functional.cross_entropy(head(pooled), torch.randint(0, 2, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
