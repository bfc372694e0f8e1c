# Python's random drives augmentation (random.random, random.uniform) and shuffles the dataset every epoch.
import random

import torch
import torch.nn as nn

STEPS = 10

dataset = [(torch.randn(6), random.randint(0, 1)) for _ in range(24)]
model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(STEPS):
    random.shuffle(dataset)
    for i in range(0, len(dataset), 8):
        chunk = dataset[i:i + 8]
        xs = torch.stack([x * random.uniform(0.9, 1.1) if random.random() < 0.5 else x for x, _ in chunk])
        ys = torch.tensor([y for _, y in chunk])
        loss = nn.functional.cross_entropy(model(xs), ys)
        opt.zero_grad()
        loss.backward()
        opt.step()
