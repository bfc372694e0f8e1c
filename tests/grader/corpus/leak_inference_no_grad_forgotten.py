# Inference only, but autograd is left on: every kept output carries its graph.
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
model.eval()
outputs = []
for i in range(100):
    outputs.append(model(torch.randn(8, 4)))
