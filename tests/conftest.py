"""Suite-wide fixtures."""

import ctypes
import functools
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from edit_loop import in_edit_loop
from pace import bound

ROOT = Path(__file__).resolve().parents[1]

# torch in the test processes and the programs they start uses one thread, as the sandbox's
# runs do: the suite runs twice as many processes as cores, and torch's threads spin waiting for
# each other when their cores are taken (the shipped cards' examples took 11 s of CPU with two
# threads against 2.6 s with one, load 16 on 2 cores). Set before any test imports torch.
for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


@pytest.hookimpl(tryfirst=True)  # before -k or -m leave any out: the sample stays the same
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks `slow` every test the edit loop leaves out (`tests/edit_loop.py`)."""
    kept_ones = in_edit_loop(item.path.relative_to(ROOT / "tests") for item in items)
    for item, kept in zip(items, kept_ones, strict=True):
        if not kept:
            item.add_marker(pytest.mark.slow)


TEXTUAL_SCREEN_WAIT_S = 3.0
"""What Textual's pilot allows, on a quiet machine, for the messages already queued on a screen
to be handled, before each key press and pause (Textual's own bound is a fixed 30 s)."""


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Textual's fixed wall-clock bounds, in a process that uses Textual, become `pace.bound`'s,
    generous for a machine ten times slower than this one is now: the pilot's 30 s wait for the
    screen before every key press (a mock interview at load 15 overran it,
    `WaitForScreenTimeout`), and a notification's few seconds on screen (a test that checks one
    found it gone at load 18)."""
    if "textual" in sys.modules:
        from textual.notifications import Notification
        from textual.pilot import Pilot

        Pilot._wait_for_screen.__defaults__ = (bound(TEXTUAL_SCREEN_WAIT_S),)
        setattr(Notification, "time_left", property(_time_left_at_this_pace))  # noqa: B010


def _time_left_at_this_pace(notification) -> float:
    return notification.raised_at + bound(notification.timeout) - time.time()


CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
PR_CAPBSET_DROP = 24


@dataclass(frozen=True)
class Unprivileged:
    """Runs `grill ARGS` in a fresh process to which file permissions apply."""

    drop: Callable[[], None] | None

    def grill(self, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            cwd=ROOT,
            env={**os.environ, **env},
            preexec_fn=self.drop,
            capture_output=True,
            text=True,
            timeout=bound(12),
        )


def _drop_permission_override() -> None:
    """Before exec: take the two capabilities that let root ignore file modes out of the
    bounding set, so the new program runs as root that a mode-000 folder stops."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@functools.cache
def _can_drop_permission_override() -> bool:
    """Whether a new program can start without the override: asked once per test process."""
    probe = subprocess.run(
        [sys.executable, "-c", "pass"],
        preexec_fn=_drop_permission_override,
        check=False,
        timeout=bound(1),
    )
    return probe.returncode == 0


@pytest.fixture
def unprivileged() -> Unprivileged:
    """Tests run as root here, which reads a mode-000 folder; the child gives up that override
    first (the interpreter lives under /root, so switching to another user is not an option).
    Skipped, with the reason, where the override cannot be given up."""
    if os.geteuid() != 0:
        return Unprivileged(None)
    if not _can_drop_permission_override():
        pytest.skip(
            "running as root without the right to drop CAP_DAC_OVERRIDE, so file modes cannot apply"
        )
    return Unprivileged(_drop_permission_override)


class Imported(frozenset[str]):
    """The modules a fresh interpreter holds after running some code, and what it printed."""

    output: str

    def of(self, *packages: str) -> list[str]:
        """Those that are one of `packages` or inside one."""
        return sorted(m for m in self if any(m == p or m.startswith(p + ".") for p in packages))


def _imported_after(code: str, env: dict[str, str] | None = None) -> Imported:
    probe = f"{code}\nimport sys; print(' '.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=bound(30),
    )
    *printed, modules = done.stdout.strip().splitlines()
    imported = Imported(modules.split())
    imported.output = "\n".join(printed)
    return imported


@pytest.fixture
def imported_after() -> Callable[..., Imported]:
    """`imported_after(code, env=None)` runs code in a fresh interpreter (imports made by other
    tests cannot hide a violation) and returns what it imported: the run-time half of the layer
    rules, which sees dynamic imports that `lint-imports` cannot."""
    return _imported_after
