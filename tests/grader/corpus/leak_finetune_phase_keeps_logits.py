# Pretraining is clean; the finetuning phase that follows keeps every batch's logits for a confusion matrix.
import torch
import torch.nn as nn


STEPS = 30


def pretrain(backbone, steps):
    opt = torch.optim.SGD(backbone.parameters(), lr=0.01)
    for step in range(steps):
        x = torch.randn(16, 8)
        loss = backbone(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def finetune(backbone, head, steps):
    opt = torch.optim.Adam(list(backbone.parameters()) + list(head.parameters()), lr=1e-3)
    logits_log, labels_log = [], []
    for step in range(steps):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        logits = head(torch.relu(backbone(x)))
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        logits_log.append(logits)
        labels_log.append(y)
    return logits_log, labels_log


backbone, head = nn.Linear(8, 16), nn.Linear(16, 3)
pretrain(backbone, STEPS)
logits_log, labels_log = finetune(backbone, head, STEPS)
print((torch.cat(logits_log).argmax(1) == torch.cat(labels_log)).float().mean().item())
