# Truncated backpropagation through time: the hidden state is detached at each chunk boundary.
import torch
import torch.nn as nn

rnn = nn.LSTM(input_size=4, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
state = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
for chunk in range(100):
    state = tuple(s.detach() for s in state)
    x = torch.randn(2, 6, 4)
    out, state = rnn(x, state)
    loss = head(out).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
