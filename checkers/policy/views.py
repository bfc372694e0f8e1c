"""What a snippet gets for `import os`, `import sys`, `import gc` and `import pickle`: views of
the modules training scripts use everywhere, offering the parts that compute, query, or touch
files in the run's own folder, and refusing the rest (processes, raw file descriptors, the
interpreter's own state, every object in the process, unpickling) by name with the reason.

`pickle.dump` and `pickle.dumps` are offered because scripts log their curves with them
(wgan-gp's `tflib.plot` pickles every value it plotted); writing a pickle walks the objects as
`torch.save`, already offered, does, and runs nothing it did not already have. Reading one
(`load`, `loads`, `Unpickler`) runs code, and a `Pickler` of the snippet's own could be handed
every object the walk reaches: both stay refused.

`gc.collect()` is offered because it is the fix people try first for a leak, and it teaches by
running: it frees only unreachable cycles, so graph a name or a list still references stays,
and the verdict says so. What reaches objects (`gc.get_objects`, `gc.get_referrers`) or
changes the collector grill's measurements rely on stays refused.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from checkers.policy.identity import proxy_for
from checkers.policy.refusal import not_available
from checkers.policy.standins import _named, inside_run_folder, stand_in

VIEWS = frozenset({"os", "sys", "gc", "pickle"})

OS_AS_IS = (
    "name sep altsep extsep pathsep linesep curdir pardir defpath devnull "
    "SEEK_SET SEEK_CUR SEEK_END F_OK R_OK W_OK X_OK "
    "getcwd cpu_count getenv listdir scandir walk stat lstat fspath fsencode fsdecode "
    "urandom access times sched_getaffinity get_terminal_size strerror error PathLike "
    "DirEntry stat_result terminal_size getpid"
).split()
"""os as it is: names, constants, queries, and reading folders (the operating-system layers
keep a run's reads to its own folder and the Python installation)."""

OS_CONFINED = ("makedirs", "mkdir", "remove", "unlink", "rmdir", "removedirs", "utime", "truncate")
"""os's file changes, for paths inside the run's folder."""

OS_REASONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "system",
            "popen",
            "spawn",
            "exec",
            "fork",
            "kill",
            "wait",
            "posix_spawn",
            "nice",
            "setsid",
            "setpgid",
            "setpgrp",
            "abort",
            "_exit",
            "startfile",
            "pidfd",
            "sched_set",
            "setpriority",
            "plock",
        ),
        "starts, signals or changes processes",
    ),
    (
        (
            "open",
            "read",
            "write",
            "close",
            "dup",
            "pipe",
            "fdopen",
            "lseek",
            "fstat",
            "fsync",
            "fdatasync",
            "ftruncate",
            "sendfile",
            "splice",
            "copy_file_range",
            "isatty",
            "ttyname",
            "openpty",
            "memfd",
            "eventfd",
            "get_inheritable",
            "set_inheritable",
            "get_blocking",
            "set_blocking",
            "pread",
            "pwrite",
            "readv",
            "writev",
            "fchmod",
            "fchown",
            "fchdir",
        ),
        "raw file descriptors reach grill's own channels",
    ),
    (
        (
            "set",
            "chown",
            "lchown",
            "chroot",
            "chmod",
            "lchmod",
            "chdir",
            "umask",
            "symlink",
            "link",
            "mkfifo",
            "mknod",
            "putenv",
            "unsetenv",
        ),
        "changes the process, its folder or file modes",
    ),
)
"""Why each family of os names is closed, by the name's first letters."""

SYS_AS_IS = (
    "version version_info hexversion platform maxsize maxunicode byteorder float_info "
    "int_info hash_info implementation flags float_repr_style api_version executable "
    "getsizeof getrecursionlimit getdefaultencoding getfilesystemencoding exc_info "
    "exception intern stdout stderr exit copyright"
).split()
"""sys as it is: facts about the interpreter, the run's own output streams, `exit`."""

SYS_REASONS: dict[str, str] = {
    "modules": "it reaches every loaded module",
    "setrecursionlimit": "the recursion limit is the interpreter's, not the run's",
    "settrace": "tracing reaches grill's frames",
    "setprofile": "profiling reaches grill's frames",
    "addaudithook": "audit hooks are the interpreter's",
    "excepthook": "the interpreter's own hooks",
    "unraisablehook": "the interpreter's own hooks",
    "displayhook": "the interpreter's own hooks",
    "breakpointhook": "the interpreter's own hooks",
    "setswitchinterval": "the interpreter's thread switching",
    "stdin": "a run reads no terminal",
    "meta_path": "the import system",
    "path_hooks": "the import system",
    "path_importer_cache": "the import system",
}


GC_AS_IS = "collect isenabled get_count get_threshold get_stats".split()
"""gc as a leak's first suspect uses it: run a collection, read its counters."""

GC_REASONS: dict[str, str] = {
    "get_objects": "it reaches every object in the process",
    "get_referrers": "it reaches every object in the process",
    "get_referents": "it reaches every object in the process",
    "garbage": "it reaches every object in the process",
    "callbacks": "it runs code inside grill's own collections",
}
"""Why each closed name of gc is; the rest change the collector grill's measurements rely on."""


PICKLE_AS_IS = "dump dumps HIGHEST_PROTOCOL DEFAULT_PROTOCOL PickleError PicklingError".split()
"""pickle as a script logging its values uses it: writing, never reading."""

PICKLE_REASONS: dict[str, str] = {
    "Pickler": "a pickler of the snippet's own is handed every object its walk reaches",
}
"""Why each closed name of pickle is; the rest read pickles, and unpickling runs code."""


class EnvironView(MutableMapping[str, str]):
    """`os.environ` as a snippet sees it: the run's own environment (set for the sandbox, and
    for ranked runs their RANK and WORLD_SIZE), readable and changeable for this run only."""

    def __getitem__(self, key: str) -> str:
        return os.environ[key]

    def __setitem__(self, key: str, value: str) -> None:
        os.environ[key] = value

    def __delitem__(self, key: str) -> None:
        del os.environ[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(os.environ))

    def __len__(self) -> int:
        return len(os.environ)

    def __repr__(self) -> str:
        return f"environ({dict(os.environ)!r})"

    def copy(self) -> dict[str, str]:
        return dict(os.environ)


for _member in list(vars(EnvironView).values()):
    if callable(_member):
        stand_in(_member)
stand_in(EnvironView)
_ENVIRON = EnvironView()


def _confined(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def confined(path: object, *args: Any, **kwargs: Any) -> Any:
        return real(inside_run_folder(path, f"os.{name}"), *args, **kwargs)

    return _named(confined, "os", name)


def _renaming(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def renaming(src: object, dst: object, *args: Any, **kwargs: Any) -> Any:
        what = f"os.{name}"
        return real(inside_run_folder(src, what), inside_run_folder(dst, what), *args, **kwargs)

    return _named(renaming, "os", name)


def _offers() -> dict[str, dict[str, object]]:
    os_offers: dict[str, object] = {
        name: getattr(os, name) for name in OS_AS_IS if hasattr(os, name)
    }
    os_offers.update({name: _confined(name, getattr(os, name)) for name in OS_CONFINED})
    os_offers.update(
        rename=_renaming("rename", os.rename), replace=_renaming("replace", os.replace)
    )
    os_offers["environ"] = _ENVIRON
    sys_offers: dict[str, object] = {
        name: getattr(sys, name) for name in SYS_AS_IS if hasattr(sys, name)
    }
    gc_offers: dict[str, object] = {name: getattr(gc, name) for name in GC_AS_IS}
    pickle_offers: dict[str, object] = {name: getattr(pickle, name) for name in PICKLE_AS_IS}
    for offers in (os_offers, sys_offers, gc_offers, pickle_offers):
        for value in offers.values():
            if callable(value) and not isinstance(value, type):
                stand_in(value)
    for name in ("PathLike", "DirEntry", "stat_result", "terminal_size", "error"):
        if name in os_offers:
            stand_in(os_offers[name])
    for name in ("PickleError", "PicklingError"):
        stand_in(pickle_offers[name])
    return {"os": os_offers, "sys": sys_offers, "gc": gc_offers, "pickle": pickle_offers}


_OFFERS = _offers()


def view_attribute(module: str, attr: str) -> object:
    """`os.attr`, `sys.attr`, `gc.attr` or `pickle.attr` for snippet code."""
    if module == "os" and attr == "path":
        return proxy_for("posixpath")
    if module == "sys":
        if attr == "argv":
            return list(sys.argv)
        if attr == "path":
            return list(sys.path)
    offers = _OFFERS[module]
    if attr in offers:
        return offers[attr]
    raise not_available(f"{module}.{attr}", _reason(module, attr))


def _reason(module: str, attr: str) -> str:
    if module == "sys":
        return SYS_REASONS.get(attr, "the sandbox offers only part of sys")
    if module == "gc":
        return GC_REASONS.get(attr, "it changes the collector grill's measurements rely on")
    if module == "pickle":
        return PICKLE_REASONS.get(attr, "unpickling runs code")
    for prefixes, why in OS_REASONS:
        if any(attr.startswith(prefix) for prefix in prefixes):
            return why
    return "the sandbox offers only part of os"
