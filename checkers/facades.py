"""grill's own stand-ins that snippets are handed (print, the refusing builtins, the policed
`str.format`, `@dataclass`, the ledger's `Function.apply`): open, though their code is grill's.
Kept by id, next to a reference so that no id is reused while it is listed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_stand_ins: dict[int, object] = {}

F = TypeVar("F", bound=Callable[..., object])


def stand_in(function: F) -> F:
    """Mark `function` as one a snippet may hold and call; returns it (a decorator too)."""
    _stand_ins[id(function)] = function
    return function


def is_stand_in(value: object) -> bool:
    return _stand_ins.get(id(value)) is value
