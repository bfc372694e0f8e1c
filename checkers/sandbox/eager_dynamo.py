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

torch.distributed asks two more questions on the way of every ranked run: `init_process_group`
clears the compiler's trace-rule caches (`trace_rules.clear_lru_cache`: nothing was traced, so
nothing to clear) and DistributedDataParallel asks which reducer the compiler wants
(`utils.get_optimize_ddp_mode`, read from the settings). Answering them here keeps 1.2 s of
CPU out of each rank's start (the compiler's import, per rank, measured on these 2 cores).
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
        if name in _EAGER_PARTS:
            return _EAGER_PARTS[name]
        if name.startswith("__") and name.endswith("__"):
            # Questions about the module itself (inspect.getmodule asks every module for its
            # __file__), not requests for the compiler's parts.
            raise AttributeError(f"module {NAME!r} has no attribute {name!r}")
        if name == "config":
            return importlib.import_module(SETTINGS)  # which also sets it on the stand-in
        return getattr(load_real(), name)


def _unchanged(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


class _EagerPart:
    """A submodule as eager torch asks it: a few functions with their eager meaning, and the
    real submodule (through the real package) for anything else."""

    def __init__(self, name: str, **answers: Callable[..., Any]) -> None:
        self._name = name
        self._answers = answers

    def __getattr__(self, name: str) -> Any:
        if name in self._answers:
            return self._answers[name]
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(importlib.import_module(f"{NAME}.{self._name}"), name)


def _optimize_ddp_mode() -> str:
    """`torch._dynamo.utils.get_optimize_ddp_mode`, from the settings alone."""
    setting = importlib.import_module(SETTINGS).optimize_ddp
    if isinstance(setting, bool):
        return "ddp_optimizer" if setting else "no_optimization"
    return str(setting)


def _nothing_traced() -> None:
    """`torch._dynamo.trace_rules.clear_lru_cache`: nothing was ever traced here."""


_EAGER_PARTS = {
    "utils": _EagerPart("utils", get_optimize_ddp_mode=_optimize_ddp_mode),
    "trace_rules": _EagerPart("trace_rules", clear_lru_cache=_nothing_traced),
}


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
