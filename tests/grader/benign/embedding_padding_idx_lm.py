# A tiny GRU language model with nn.Embedding(vocab, d, padding_idx=0) and cross_entropy(ignore_index=0).
import torch
import torch.nn as nn

STEPS = 30
VOCAB = 30


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 12, padding_idx=0)
        self.rnn = nn.GRU(12, 16, batch_first=True)
        self.out = nn.Linear(16, VOCAB)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.out(h)


model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(STEPS):
    lengths = torch.randint(3, 10, (4,))
    tokens = torch.randint(1, VOCAB, (4, 10)) * (torch.arange(10) < lengths.unsqueeze(1))
    logits = model(tokens[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1), ignore_index=0)
    opt.zero_grad()
    loss.backward()
    opt.step()
