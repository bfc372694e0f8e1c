# TBPTT training detaches the LSTM state correctly, but the streaming evaluation afterwards carries the state from
# chunk to chunk with autograd on and no detach, so the evaluation's graph chains every chunk.
import torch
import torch.nn as nn

STEPS = 30

lstm = nn.LSTM(3, 8, batch_first=True)
head = nn.Linear(8, 3)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
state = None
for chunk in range(STEPS):
    if state is not None:
        state = tuple(s.detach() for s in state)
    x = torch.randn(2, 6, 3)
    out, state = lstm(x, state)
    loss = (head(out[:, :-1]) - x[:, 1:]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

lstm.eval()
state = None
errors = []
for chunk in range(STEPS):
    x = torch.randn(2, 6, 3)
    out, state = lstm(x, state)
    errors.append((head(out[:, :-1]) - x[:, 1:]).pow(2).mean().item())
print(sum(errors) / len(errors))
