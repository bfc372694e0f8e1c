# A stateful LSTM over consecutive batches keeps each batch's final (h, c) in hidden_history for later analysis: the
# tuples carry each batch's graph. The hint must be valid code for a tuple (issue 23: it said `states.detach()`).
import torch
import torch.nn as nn

STEPS = 30

lstm = nn.LSTM(3, 8)
head = nn.Linear(8, 3)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
h, c = torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)
hidden_history = []
for step in range(STEPS):
    x = torch.randn(5, 2, 3)
    out, states = lstm(x, (h.detach(), c.detach()))
    loss = nn.functional.mse_loss(head(out), x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    hidden_history.append(states)
    h, c = states
print(len(hidden_history))
