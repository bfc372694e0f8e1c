"""The compiler's settings modules as a snippet sees them (`tables.SETTINGS_MODULES`).

Real training scripts import them at the top (`import torch._inductor.config as config`) and
set a few values, compiling only under a flag that is off by default. Compilation stays closed
(`torch.compile` is refused at its line); the settings only import. What the snippet sets is
kept here, for this run's snippet alone: nothing compiles, so a setting changes nothing, and
torch's own settings (which eager code reads: DDP asks dynamo's `optimize_ddp`) stay as they are.
The compiler itself is never imported for them (that costs seconds).
"""

from __future__ import annotations

from checkers.policy import tables
from checkers.policy.identity import ModuleProxy, proxy_for
from checkers.policy.refusal import not_available

KEPT = "a compiler setting, kept for the snippet alone: nothing compiles in the sandbox"
"""The mark a settings proxy carries where a closed one carries its reason."""

VALUES = (bool, int, float, str, type(None))
"""What a setting may be set to."""

_values: dict[str, object] = {}
"""Every setting the snippet set in this run, by its full path."""


def is_settings(path: str) -> bool:
    """A settings module or a section of one (`torch._inductor.config.triton`)."""
    return any(path == name or path.startswith(name + ".") for name in tables.SETTINGS_MODULES)


def toward(path: str, why: str) -> ModuleProxy | None:
    """The proxy for `path` reached on the way to a settings module, or None when `path` is
    not on that way: the settings themselves, or a closed package (refusing any other use)."""
    if not tables.settings_path(path):
        return None
    return proxy_for(path, KEPT if is_settings(path) else why)


def read(section: str, attr: str) -> object:
    """A setting the snippet set, or else a section below this one (for `config.triton.x`)."""
    path = f"{section}.{attr}"
    if path in _values:
        return _values[path]
    if attr.startswith("__") and attr.endswith("__"):
        raise AttributeError(f"module '{section}' has no attribute '{attr}'")
    return proxy_for(path, KEPT)


def write(section: str, attr: str, value: object) -> None:
    if not isinstance(value, VALUES):
        raise not_available(f"{section}.{attr} = ...", "a compiler setting holds a plain value")
    _values[f"{section}.{attr}"] = value
