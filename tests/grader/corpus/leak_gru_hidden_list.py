# nn.GRU chunks: the hidden state is detached for the next chunk, but every h is kept in a list.
import torch
import torch.nn as nn

gru = nn.GRU(input_size=5, hidden_size=16, batch_first=True)
head = nn.Linear(16, 5)
opt = torch.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=1e-3)
stream = torch.randn(4, 2000, 5)
h = torch.zeros(1, 4, 16)
hidden_states = []
for start in range(0, 1960, 20):
    chunk = stream[:, start:start + 20]
    target = stream[:, start + 1:start + 21]
    out, h = gru(chunk, h.detach())
    hidden_states.append(h)
    loss = nn.functional.mse_loss(head(out), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
