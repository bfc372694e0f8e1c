# A bag-of-words classifier with nn.Embedding(n, d, padding_idx=0) over padded batches, logging floats.
import torch
import torch.nn as nn

STEPS = 40


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.fc = nn.Linear(dim, classes)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        pooled = (self.emb(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.fc(pooled)


model = BagClassifier(100, 16, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
log = []
for step in range(STEPS):
    tokens = torch.randint(1, 100, (8, 10))
    lengths = torch.randint(2, 11, (8,))
    tokens[torch.arange(10).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    loss = nn.functional.cross_entropy(model(tokens), torch.randint(0, 3, (8,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    log.append(loss.item())
