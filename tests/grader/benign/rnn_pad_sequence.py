# Variable-length sequences padded with torch.nn.utils.rnn.pad_sequence, an LSTM, and the last valid output per row.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence

STEPS = 30

lstm = nn.LSTM(3, 8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=3e-3)
for step in range(STEPS):
    lengths = torch.randint(2, 9, (5,))
    seqs = [torch.randn(int(n), 3) for n in lengths]
    padded = pad_sequence(seqs, batch_first=True)
    out, _ = lstm(padded)
    last = out[torch.arange(5), lengths - 1]
    target = torch.stack([s.sum() for s in seqs]).unsqueeze(1)
    loss = nn.functional.mse_loss(head(last), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
