# A fully type-annotated training module (typing: Dict, List, Optional, Tuple, Callable, Iterator).
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import torch
import torch.nn as nn

STEPS = 30

Batch = Tuple[torch.Tensor, torch.Tensor]


def batches(n: int, size: int = 8) -> Iterator[Batch]:
    for _ in range(n):
        x = torch.randn(size, 5)
        yield x, x.sum(1, keepdim=True)


def train(model: nn.Module, data: Iterator[Batch], loss_fn: Callable[..., torch.Tensor],
          lr: float = 1e-2, log_every: Optional[int] = None) -> Dict[str, List[float]]:
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    history: Dict[str, List[float]] = {"loss": []}
    for step, (x, y) in enumerate(data):
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history["loss"].append(loss.item())
        if log_every and step % log_every == 0:
            print(step, history["loss"][-1])
    return history


print(train(nn.Linear(5, 1), batches(STEPS), nn.functional.mse_loss)["loss"][-1])
