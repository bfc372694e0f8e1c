"""The two ways a candidate's snippet stops early (a policy refusal and its own exception), and
what the policy knows of the run in progress.

Both errors carry the candidate's line so that the user sees `line 7: ...` and nothing of
grill. A run's state (its namespace, the classes it defined, its refusals, whether grill is
measuring) lives here, keyed by the identity of the snippet's globals, never inside them: the
snippet's namespace holds nothing of grill's bookkeeping that it could rewrite.
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass, field
from types import FrameType


class Refused(Exception):
    """The snippet used something the sandbox does not offer (an import, an attribute...)."""

    message: str
    line: int | None

    def __init__(self, message: str, line: int | None = None):
        super().__init__(f"line {line}: {message}" if line else message)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "line", line)

    def __setattr__(self, name: str, value: object) -> None:
        """Its reason is read-only: a snippet that caught it cannot rewrite what its run ends
        with (what Python itself sets, `__traceback__` and the like, it still may)."""
        if name in ("message", "line", "args"):
            raise AttributeError(f"a refusal's {name} cannot be changed")
        super().__setattr__(name, value)


class CandidateError(Exception):
    """The snippet itself raised; `traceback` shows only the candidate's own frames."""

    def __init__(self, kind: str, message: str, line: int | None, traceback: str = ""):
        super().__init__(f"{kind}: {message}" + (f" (line {line})" if line else ""))
        self.kind = kind
        self.message = message
        self.line = line
        self.traceback = traceback


class Measuring(BaseException):
    """Raised by every guard while grill measures: snippet code that runs then (a finalizer,
    a weakref callback, a method grill's scan reached) can compute, but not act."""


@dataclass(frozen=True)
class Ranked:
    """A rank of a ranked run (`grill check --ranks N`, a task's `ranks`), as the policy sees
    it: torch.distributed and DistributedDataParallel are open to it, within the run's own
    ranks (`checkers.policy.ranked`)."""

    rank: int
    world: int
    device: str = "cpu"


@dataclass(eq=False)
class Run:
    """One snippet's run, as the guards see it."""

    filename: str
    scratch: str
    """The run's own folder, the one place its files may go (the ranks of a ranked run share
    it, as processes on one machine share a folder)."""
    ranked: Ranked | None = None
    """Set for a rank of a ranked run: a policy setting the run carries, read by the guards
    (`ranked_now`), never a change to the tables."""
    own_file: str | None = None
    """The snippet's own file in its folder, read-only (`__file__`), when the run placed one."""
    ended_at: int | None = None
    """The line whose `sys.exit()` ended the snippet early, when one did."""
    refusals: list[Refused] = field(default_factory=list)
    """Refusals raised while the snippet ran, kept so that `except Exception: pass` cannot
    hide one."""
    notes: list[str] = field(default_factory=list)
    """What the sandbox changed to run the snippet (a DataLoader's workers kept in process)."""


FACTS_CHANGED = [0]
"""How often a fact the policy's remembered decisions rest on has changed: a class became the
snippet's own, an object became a stand-in, a run started or ended (`identity` forgets its
decisions when this moves)."""


class ClassSet:
    """Classes held weakly and told apart by identity alone. A `weakref.WeakSet` hashes the
    class it is asked about, which makes a weak reference and calls its metaclass's `__hash__`
    (a snippet's own) on every object the policy judges; this asks a dict by `id` and checks
    the entry is still that very class, so no snippet code runs and a freed class's reused id
    never matches."""

    def __init__(self) -> None:
        self._refs: dict[int, weakref.ref[type]] = {}

    def add(self, cls: type) -> None:
        key = id(cls)
        self._refs[key] = weakref.ref(cls, lambda ref: self._forget(key, ref))
        FACTS_CHANGED[0] += 1

    def _forget(self, key: int, ref: weakref.ref[type]) -> None:
        if self._refs.get(key) is ref:
            del self._refs[key]

    def __contains__(self, value: object) -> bool:
        ref = self._refs.get(id(value))
        return ref is not None and ref() is value


OWN_CLASSES = ClassSet()
"""Every class a snippet defined (class statements, and the class factories it called)."""

_runs: dict[int, Run] = {}
"""Each live snippet namespace's run, by the identity of the namespace dict."""


_namespaces: dict[int, dict[str, object]] = {}
"""The namespaces themselves, held so that no other dict takes a registered one's id."""


RANKED_RUNS = [0]
"""How many live runs are ranked: while none is, `ranked_now` costs nothing."""


def start_run(namespace: dict[str, object], run: Run) -> None:
    _runs[id(namespace)] = run
    _namespaces[id(namespace)] = namespace
    FACTS_CHANGED[0] += 1
    if run.ranked is not None:
        RANKED_RUNS[0] += 1


def end_run(namespace: dict[str, object]) -> None:
    """Forget a finished snippet's namespace (its guards then act as outside any snippet)."""
    run = _runs.pop(id(namespace), None)
    _namespaces.pop(id(namespace), None)
    FACTS_CHANGED[0] += 1
    if run is not None and run.ranked is not None:
        RANKED_RUNS[0] -= 1


def ranked_now() -> Ranked | None:
    """The rank the code running now belongs to, when it is a rank of a ranked run."""
    if not RANKED_RUNS[0]:
        return None
    run = current_run()
    return run.ranked if run is not None else None


def is_namespace(value: object) -> bool:
    """Whether `value` is a live snippet's globals (grill's guards are in it)."""
    return id(value) in _runs and isinstance(value, dict)


def candidate_frame() -> FrameType | None:
    """The innermost frame on the current stack that runs candidate code, if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if id(frame.f_globals) in _runs:
            return frame
        frame = frame.f_back
    return None


def current_run() -> Run | None:
    """The run of the innermost candidate frame on the stack, else the latest one started
    (grill's code measuring it, or a snippet's function called after it ended)."""
    frame = candidate_frame()
    if frame is not None:
        return _runs[id(frame.f_globals)]
    return next(reversed(_runs.values()), None)


def candidate_line() -> int | None:
    """The line of the innermost candidate frame on the current stack, if any."""
    frame = candidate_frame()
    return frame.f_lineno if frame is not None else None


def unavailable(subject: str, why: str = "") -> str:
    """The one refusal wording users see: `'torch.os' is not available in the sandbox`,
    with the reason when there is one to give."""
    return f"'{subject}' is not available in the sandbox" + (f" ({why})" if why else "")


def not_available(subject: str, why: str = "") -> Refused:
    """A run-time refusal in that wording, at the candidate's line, remembered by its run."""
    refusal = Refused(unavailable(subject, why), candidate_line())
    run = current_run()
    if run is not None:
        run.refusals.append(refusal)
    return refusal
