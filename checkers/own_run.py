"""`grill run`: the user's own training script, run in this process as the user runs it, and
judged as `grill check` judges a snippet.

Nothing is sandboxed or refused: the script runs with the user's rights, imports, files and
environment, as `python train.py ARGS` would (its `__main__`, `sys.argv` and `sys.path[0]`).
What it does is watched by `checkers.measure.watcher.Watcher` (no source is rewritten), and
its measurements judged by the same rule (`checkers.judge.judge`), so the verdict, the curve,
the holders and the hint are those `grill check` gives.

Under torchrun each rank watches itself; every rank sends its measurements to rank 0 through
the launcher's own store (`TORCHELASTIC_USE_AGENT_STORE`), and rank 0 judges the run as one,
as `grill check --ranks` does.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import runpy
import sys
import traceback
import types
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from checkers.judge import judge
from checkers.judge.ranks import combine
from checkers.measure.watcher import (
    UNKNOWN,
    StopWatching,
    Watcher,
    is_user_file,
    lines_of,
    read_source,
)
from checkers.measurements import Measurements
from checkers.verdict import Verdict

if TYPE_CHECKING:
    from torch.distributed import TCPStore

PYTHON = re.compile(r"^python(\d+(\.\d+)*)?$")
"""An interpreter named at the start of the command (`python`, `python3`, `python3.11`)."""
RANK_WAIT_S = 600.0
"""How long rank 0 waits for the other ranks' measurements once its own run is over."""
STORE_PREFIX = "grill-run"


class CommandError(ValueError):
    """The command line names no script grill can run (exit status 2)."""


@dataclass(frozen=True)
class Command:
    """What to run: a script's path or a module's name, and the arguments it sees."""

    target: str
    args: tuple[str, ...] = ()
    module: bool = False
    interpreter: str | None = None
    """The interpreter the command named, when it named one: the script runs in grill's."""

    @property
    def argv(self) -> list[str]:
        return [self.target if not self.module else self.filename, *self.args]

    @property
    def filename(self) -> str:
        """The file whose lines the verdict names."""
        if not self.module:
            return os.path.abspath(self.target)
        name = self.target
        with _cwd_on_path():  # as `python -m` finds it
            try:
                spec = importlib.util.find_spec(name)
                if spec is not None and spec.submodule_search_locations is not None:
                    spec = importlib.util.find_spec(f"{name}.__main__")  # a package's
            except (ImportError, ValueError):
                spec = None
        if spec is None or spec.origin is None:
            raise CommandError(f"no module named {name}")
        return spec.origin


def parse_command(words: Sequence[str]) -> Command:
    """`train.py ARGS`, `python train.py ARGS` or `python -m pkg.train ARGS` (a leading `--`
    is dropped), as a Command; CommandError saying what is wrong otherwise."""
    words = list(words)
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise CommandError("name the script to run: grill run train.py ARGS...")
    interpreter = None
    if PYTHON.match(Path(words[0]).name):
        interpreter, words = words[0], words[1:]
        while words and words[0] in ("-u", "-B"):  # nothing to do in-process
            words = words[1:]
        if words and words[0] == "-m":
            if len(words) < 2:
                raise CommandError("-m needs a module name: grill run -- python -m pkg.train")
            found = Command(words[1], tuple(words[2:]), module=True, interpreter=interpreter)
            _ = found.filename  # a module that cannot be found: a usage error, said now
            return found
        if words and words[0].startswith("-"):
            raise CommandError(
                f"{interpreter} {words[0]}: grill run takes a script or -m MODULE after the"
                " interpreter, not its options"
            )
        if not words:
            raise CommandError(f"name the script after {interpreter}")
    script = words[0]
    if not Path(script).is_file():
        raise CommandError(f"{script}: no such file")
    return Command(script, tuple(words[1:]), interpreter=interpreter)


@dataclass(frozen=True)
class Rank:
    """This process's place in a torchrun launch."""

    rank: int
    world: int

    @classmethod
    def from_environment(cls) -> Rank | None:
        try:
            rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        except (KeyError, ValueError):
            return None
        return cls(rank, world) if world > 1 else None


@dataclass(frozen=True)
class OwnRun:
    """A watched run: its verdict, the measurements judged (None where it was not measured),
    and the file whose lines the verdict names (the training loop's) with its source."""

    verdict: Verdict
    measured: Measurements | None
    filename: str
    source: str


def run_script(
    command: Command,
    *,
    device: str = "auto",
    steps: int | None = None,
    seconds: float | None = None,
) -> OwnRun:
    """Run `command` in this process under the watcher, and judge it (not graded, with the
    script's traceback, where it raised). The verdict's lines are those of the file whose
    code makes the run's first backward call: the script's own loop, or the trainer of the
    user's package it calls (the report then names that file)."""
    filename = command.filename
    source = "" if filename.endswith(".pyc") else read_source(filename)
    try:
        watcher = Watcher(None, device=device, steps=steps, seconds=seconds)
    except RuntimeError as error:  # --device cuda where there is none: nothing ran
        failed = Verdict.not_graded("error", device, str(error), kind="device")
        return OwnRun(failed, None, filename, source)
    namespace: dict[str, object] = {}
    failure: BaseException | None = None
    with watcher:
        try:
            namespace = _execute(command, filename, source)
        except StopWatching:
            pass
        except SystemExit as exit:
            if exit.code not in (None, 0):
                failure = exit
        except KeyboardInterrupt:
            raise
        except Exception as error:  # the script's own error: its verdict says so
            failure = error
    if failure is not None and not watcher.stopped:
        return OwnRun(_failed(failure, filename, watcher.device), None, filename, source)
    measured = watcher.measurements(namespace)
    loop_file = watcher.filename if watcher.filename not in (None, UNKNOWN) else filename
    if loop_file != filename:
        source = read_source(loop_file)
    verdict = of_a_script(judge(measured, source))
    if loop_file != filename:
        verdict = dataclasses.replace(verdict, notes=(*verdict.notes, lines_of(loop_file)))
    return OwnRun(verdict, measured, loop_file, source)


def of_a_script(verdict: Verdict) -> Verdict:
    """The judge speaks of a snippet; what ran here is the user's script."""

    def said(text: str) -> str:
        return text.replace("the snippet", "the script").replace("The snippet", "The script")

    error = verdict.error
    if error is not None:
        error = dataclasses.replace(error, message=said(error.message))
    return dataclasses.replace(
        verdict,
        message=said(verdict.message),
        hint=said(verdict.hint),
        notes=tuple(said(note) for note in verdict.notes),
        error=error,
    )


def _execute(command: Command, filename: str, source: str) -> dict[str, object]:
    """Run the script as `python` would, and return its module's globals."""
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    saved_main = sys.modules.get("__main__")
    sys.argv = command.argv
    if command.module:
        try:
            with _cwd_on_path():
                return runpy.run_module(command.target, run_name="__main__", alter_sys=True)
        finally:
            sys.argv = saved_argv
    module = types.ModuleType("__main__")
    module.__file__ = filename
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = module
    folder = os.path.dirname(filename)
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.append(folder)
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
        return module.__dict__
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
        if saved_main is not None:
            sys.modules["__main__"] = saved_main


@contextmanager
def _cwd_on_path() -> Iterator[None]:
    """The working folder first on `sys.path`, as `python -m` puts it."""
    folder = os.getcwd()
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        if folder in sys.path:
            sys.path.remove(folder)


def _failed(failure: BaseException, filename: str, device: str) -> Verdict:
    """The script raised (or exited with a failing status): not graded, with its traceback."""
    if isinstance(failure, SystemExit):
        message = f"the script exited with status {failure.code}"
        return Verdict.not_graded("error", device, message, kind="SystemExit")
    frames = [
        frame
        for frame in traceback.extract_tb(failure.__traceback__)
        if is_user_file(frame.filename)
    ]
    line = next((f.lineno for f in reversed(frames) if f.filename == filename), None)
    shown = "".join(
        ["Traceback (most recent call last):\n"]
        + traceback.format_list(frames)
        + traceback.format_exception_only(failure)
    )
    verdict = Verdict.not_graded(
        "error", device, str(failure), line=line, kind=type(failure).__name__
    )
    return dataclasses.replace(verdict, extra={"traceback": shown})


def ranked_verdict(
    verdict: Verdict,
    measured: Measurements | None,
    rank: Rank,
    source: str,
    filename: str,
) -> Verdict | None:
    """Under torchrun: send this rank's verdict and measurements to rank 0; on rank 0, the
    run's verdict from every rank's (None on the others). Without the launcher's store
    (another launcher), each rank's verdict stands alone."""
    store = _agent_store(rank)
    if store is None:
        return verdict
    key = f"{STORE_PREFIX}/{os.environ.get('TORCHELASTIC_RUN_ID', 'run')}"
    store.set(f"{key}/{rank.rank}", json.dumps({"verdict": verdict.to_dict(), "m": measured}))
    if rank.rank != 0:
        return None
    keys = [f"{key}/{r}" for r in range(rank.world)]
    try:
        store.wait(keys, timedelta(seconds=RANK_WAIT_S))
    except RuntimeError:  # (torch's DistStoreError, on a timeout, is one)
        missing = [r for r, k in enumerate(keys) if not store.check([k])]
        note = (
            f"Ranks {', '.join(map(str, missing))} had not reported {RANK_WAIT_S:.0f} s after"
            " rank 0 ended: this verdict is rank 0's alone."
        )
        return dataclasses.replace(verdict, notes=(*verdict.notes, note))
    sent = [json.loads(store.get(k)) for k in keys]
    verdicts = [
        judge(found["m"], source) if found["m"] is not None else _rebuilt(found["verdict"])
        for found in sent
    ]
    return of_a_script(
        combine(
            verdicts,
            [found["m"] for found in sent],
            ended_by="end",
            failed_rank=None,
            dumps=[""] * rank.world,
            answered=[found["m"] is not None for found in sent],
            limit=None,
            source=source,
            filename=filename,
            outputs=[""] * rank.world,
            device=verdict.device,
        )
    )


def _rebuilt(data: Mapping[str, object]) -> Verdict:
    """A rank's not-graded verdict, from what it sent."""
    error = data.get("error")
    found = error if isinstance(error, dict) else {}
    rebuilt = Verdict.not_graded(
        str(data["verdict"]),  # type: ignore[arg-type]
        str(data["device"]),
        str(data["message"]),
        line=found.get("line"),
        kind=found.get("kind"),
    )
    extra = data.get("extra")
    if isinstance(extra, dict) and "traceback" in extra:
        rebuilt = dataclasses.replace(rebuilt, extra={"traceback": str(extra["traceback"])})
    return rebuilt


def _agent_store(rank: Rank) -> TCPStore | None:
    """The torchrun agent's store, where its workers reach it (as their process group does)."""
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return None
    import torch.distributed as dist

    return dist.TCPStore(
        os.environ["MASTER_ADDR"],
        int(os.environ["MASTER_PORT"]),
        rank.world,
        is_master=False,
        timeout=timedelta(seconds=RANK_WAIT_S),
    )


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """The script's output on standard error (Python's and C's), so standard output holds
    the JSON verdict alone."""
    sys.stdout.flush()
    saved_fd = os.dup(1)
    saved = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
        sys.stdout = saved


__all__ = ["Command", "CommandError", "Rank", "parse_command", "ranked_verdict", "run_script"]
