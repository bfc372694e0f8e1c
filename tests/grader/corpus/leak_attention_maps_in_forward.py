# A tiny self-attention module saves its attention maps in forward() for visualisation and never clears them.
import torch
import torch.nn as nn

STEPS = 30


class SelfAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.attention_maps = []

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = torch.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
        self.attention_maps.append(attn)
        return self.out(attn @ v)


model = SelfAttention(8)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(2, 5, 8)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(model.attention_maps))
