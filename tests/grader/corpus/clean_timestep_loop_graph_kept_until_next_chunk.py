# A recurrent cell unrolled over each chunk's timesteps; the chunk's outputs are scored with .item() only and kept
# until the next chunk: the chunk's graph is never backpropagated but is bounded by the chunk's length (a TBPTT
# chunk is a bound the code sets, issue 23), whatever the number of chunks.
import torch
import torch.nn as nn

STEPS = 20
CHUNK = 8

cell = nn.GRUCell(3, 12)
head = nn.Linear(12, 3)
opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=1e-3)
h = torch.zeros(2, 12)
for chunk in range(STEPS):
    seq = torch.randn(CHUNK + 1, 2, 3)
    h = h.detach()
    outputs = []
    for t in range(CHUNK):
        h = cell(seq[t], h)
        outputs.append(head(h))
    error = sum((o - seq[t + 1]).pow(2).mean().item() for t, o in enumerate(outputs))
    train_loss = (head(cell(seq[0], h.detach())) - seq[1]).pow(2).mean()
    opt.zero_grad()
    train_loss.backward()
    opt.step()
print(error)
