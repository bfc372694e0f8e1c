"""`torch._dynamo` without the compiler, for the worker's processes.

Eager torch reaches for `torch._dynamo` on paths every training loop takes: each optimizer
step marks two graph breaks, the functions torch wraps with `_disable_dynamo` ask
`torch._dynamo.disable` for their wrapper the first time they are called, and some read its
settings (`torch.utils.checkpoint` does). Outside a compiled region the first two mean nothing,
and no snippet can compile (the policy refuses `torch.compile`, `torch.compiler` and
`torch._dynamo`). Yet the first of them imports the whole compiler, sympy included: 1.5 to 2 s
of every worker's start, or of a cold run, and 20 MB in the peak of a run that pays it.

`install` puts a stand-in under the name that answers those two with their eager meaning and
loads the settings module on its own (it imports nothing of the compiler). Anything else asked
of it (another attribute, another submodule) first puts the real module in its place, so torch
code that needs the compiler's parts gets them, only later.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

NAME = "torch._dynamo"
SETTINGS = NAME + ".config"


class EagerDynamo(types.ModuleType):
    """Answers `graph_break` and `disable` as eager torch means them; loads the real module
    for anything else."""

    @staticmethod
    def graph_break(msg: str = "") -> None:
        """A graph break only means something while dynamo traces, which never happens here."""

    @staticmethod
    def disable(
        fn: Callable[..., Any] | None = None,
        recursive: bool = True,
        *,
        reason: str | None = None,
        wrapping: bool = True,
    ) -> Any:
        """Keeping dynamo out of a function that is never compiled leaves the function as is."""
        return fn if fn is not None else _unchanged

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            # Questions about the module itself (inspect.getmodule asks every module for its
            # __file__), not requests for the compiler's parts.
            raise AttributeError(f"module {NAME!r} has no attribute {name!r}")
        if name == "config":
            return importlib.import_module(SETTINGS)  # which also sets it on the stand-in
        return getattr(load_real(), name)


def _unchanged(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


class _RealOnSubmodule(importlib.abc.MetaPathFinder):
    """Importing a submodule (but the settings) while the stand-in is in place loads the real
    package first."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(NAME + ".") or fullname == SETTINGS or not installed():
            return None
        return importlib.util.spec_from_loader(fullname, _ThroughRealPackage())


class _ThroughRealPackage(importlib.abc.Loader):
    """Hands over the submodule as the real package's own import made it, so no module of the
    compiler runs twice (the package's `__init__` imports most of them itself)."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        load_real()
        module = importlib.import_module(spec.name)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self._own_spec  # the import system set this loader's spec on it


_finder = _RealOnSubmodule()


def installed() -> bool:
    return isinstance(sys.modules.get(NAME), EagerDynamo)


def install(torch: types.ModuleType) -> None:
    """Put the stand-in in place, unless the real module is already loaded."""
    if NAME in sys.modules:
        return
    stand_in = EagerDynamo(NAME, __doc__)
    # A package, so the settings load beneath it and other submodules reach the finder.
    stand_in.__path__ = [f"{torch.__path__[0]}/_dynamo"]
    sys.modules[NAME] = stand_in
    vars(torch)["_dynamo"] = stand_in
    sys.meta_path.insert(0, _finder)


def load_real() -> types.ModuleType:
    """Swap the stand-in for the real module (once) and return the real one."""
    if installed():
        sys.meta_path.remove(_finder)
        del sys.modules[NAME]
        del vars(sys.modules["torch"])["_dynamo"]
        importlib.import_module(NAME)  # which sets torch._dynamo too
    return sys.modules[NAME]
