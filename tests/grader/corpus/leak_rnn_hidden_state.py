# Streaming predictions through an RNN with autograd on: the hidden state is carried from step
# to step without detach, so its graph reaches back to the first step.
import torch
import torch.nn as nn

rnn = nn.RNN(input_size=4, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
h = torch.zeros(1, 1, 8)
forecasts = []
for step in range(120):
    x = torch.randn(1, 3, 4)
    out, h = rnn(x, h)
    forecasts.append(head(out[:, -1]).item())
