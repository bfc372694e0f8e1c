"""grill's stand-ins that snippets are handed in place of the real thing (print, the refusing
builtins, the policed `str.format`, a single-process DataLoader, `@dataclass` for the
snippet's own classes, the ledger's `Function.apply`): open, though their code is grill's.
Kept by id, next to a reference so that no id is reused while it is listed."""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from checkers.policy.refusal import candidate_classes, not_available

if TYPE_CHECKING:
    from torch.utils.data import DataLoader as TorchDataLoader

_stand_ins: dict[int, object] = {}

F = TypeVar("F", bound=Callable[..., object])


def stand_in(function: F) -> F:
    """Mark `function` as one a snippet may hold and call; returns it (a decorator too)."""
    _stand_ins[id(function)] = function
    return function


def is_stand_in(value: object) -> bool:
    return _stand_ins.get(id(value)) is value


@functools.cache
def single_process_data_loader() -> type[TorchDataLoader[object]]:
    """torch's DataLoader with worker processes closed: workers outlive a kill and hold pipes."""
    from torch.utils.data import DataLoader as TorchDataLoader
    from torch.utils.data.dataloader import _SingleProcessDataLoaderIter

    signature = inspect.signature(TorchDataLoader.__init__)

    class DataLoader(TorchDataLoader[object]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # Bound as torch binds them, so a setting passed by position is checked too.
            bound = signature.bind(self, *args, **kwargs)
            for name in ("num_workers", "multiprocessing_context"):
                check_loader_setting(name, bound.arguments.get(name))
            bound.arguments["num_workers"] = 0
            super().__init__(*bound.args[1:], **bound.kwargs)

        def __setattr__(self, name: str, value: object) -> None:
            check_loader_setting(name, value)
            super().__setattr__(name, value)

        def _get_iterator(self) -> _SingleProcessDataLoaderIter:
            # A subclass may still answer num_workers through a property: whatever it says,
            # iteration never takes the worker-process path.
            check_loader_setting("num_workers", self.num_workers)
            return _SingleProcessDataLoaderIter(self)

    DataLoader.__module__ = "torch.utils.data"
    DataLoader.__qualname__ = "DataLoader"
    return DataLoader


def candidate_dataclass(
    cls: type | None = None, /, **options: bool
) -> Callable[[type], type] | type:
    """`@dataclass` for the snippet's own classes only: on a class it did not define it would
    rewrite that class's `__init__`, `__eq__`... (nn.Module's, say), which would fool the grader."""
    import dataclasses

    def decorate(cls: type) -> type:
        # called from snippet code, whose namespace holds the set (never the empty tuple)
        classes = cast("weakref.WeakSet[type]", candidate_classes())
        if cls not in classes:
            raise not_available(f"dataclass({getattr(cls, '__qualname__', type(cls).__name__)})")
        made: type = dataclasses.dataclass(cls, **options)
        classes.add(made)  # slots=True builds a new class: it is still the snippet's own
        return made

    decorate.__module__, decorate.__qualname__ = "dataclasses", "dataclass"
    return stand_in(decorate) if cls is None else decorate(cls)


stand_in(candidate_dataclass)
candidate_dataclass.__module__ = "dataclasses"  # its repr names the real one, not grill
candidate_dataclass.__name__ = candidate_dataclass.__qualname__ = "dataclass"


def check_loader_setting(name: str, value: object) -> None:
    if (name == "num_workers" and value) or (
        name == "multiprocessing_context" and value is not None
    ):
        raise not_available(f"DataLoader({name}={value!r})")


SAFE_REPLACEMENTS: dict[str, Callable[[], object]] = {
    "torch.utils.data.DataLoader": single_process_data_loader,
    "dataclasses.dataclass": lambda: candidate_dataclass,
}
"""Names answered by a restricted stand-in instead of the real object."""
