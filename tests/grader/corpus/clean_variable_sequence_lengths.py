# An RNN over sequences of random length; the hidden state starts fresh for each sequence.
import random

import torch
import torch.nn as nn

rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
head = nn.Linear(16, 1)
opt = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(100):
    length = random.randint(2, 40)
    x = torch.randn(4, length, 8)
    out, h = rnn(x)
    loss = head(out[:, -1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
