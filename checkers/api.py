"""Grade a snippet from the parent process: what the CLI, `grill lint --run`, the TUI and mock
interviews call. Runs the grading job in the sandbox, judges its measurements, and, for a
code task, holds them against the task's contract.

Never imports torch: the sandbox's worker does.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack, cast

from checkers.inputs import RANKS, SECONDS, STEPS, FileRefused, OutOfRange, format_cap, read_file
from checkers.judge import NO_GRAPH, judge, judge_with_edit
from checkers.judge import ranks as ranked_judge
from checkers.judge.communication import check_ranks, what_changed
from checkers.judge.contract import Observed, avoided_calls, check
from checkers.judge.edits import Edit
from checkers.judge.hints import ITEM_FAILED
from checkers.judge.rates import RATES
from checkers.judge.tried import error_hint
from checkers.measurements import GradePayload, Measurements
from checkers.sandbox import Outcome, Sandbox, SandboxError
from checkers.sandbox.isolation import host_has_cuda_devices
from checkers.sandbox.outcome import RankedOutcome
from checkers.verdict import Device, Expectation, Verdict

if TYPE_CHECKING:
    from checkers.task import TaskSpec

GRADE_MODULE = "checkers.measure.grade"
"""The grading job's module, which a grading sandbox's worker loads and warms at start."""
GRADE_JOB = f"{GRADE_MODULE}:grade_job"
DEFAULT_SECONDS = 60.0
"""The budget of one run unless told otherwise (a code task's `Grading` says its own)."""
FINISH_MARGIN_S = 20.0
"""Wall time beyond the budget for the final scan and the result, before the run is killed."""
MAX_SNIPPET_BYTES = 1_000_000
"""The largest snippet graded: a training loop is a few KB. JSON writes a byte as at most six
(`\\u0001`), so a snippet this size always fits in the sandbox's job message
(`protocol.MAX_CONTROL_BYTES`, 64 MiB), and one over it is a usage error before anything is sent."""


class UsageError(ValueError):
    """The request itself is wrong (missing file, not UTF-8, a bad budget): exit status 2."""


_sandboxes: dict[str, Sandbox] = {}
_sandboxes_lock = threading.Lock()
_references: dict[tuple[object, ...], tuple[Verdict, Observed | list[Observed]]] = {}
_references_lock = threading.Lock()


class _Options(TypedDict):
    """How a task's fix, its reference solution and its starter are all run."""

    device: Device
    seconds: float | None
    steps: int | None
    seed: int
    sandbox: Sandbox | None
    compare: tuple[str, ...]
    peak: bool
    ranks: int | None
    avoid: frozenset[str]
    """Calls a hint must not propose: the contract refuses them (`avoided_calls`)."""


class _FileOptions(TypedDict, total=False):
    """`grade_file`'s options: those of `grade_source`."""

    device: Device
    seconds: float | None
    steps: int | None
    seed: int
    sandbox: Sandbox | None
    ranks: int | None


def grading_sandbox(device: Device = "auto", *, warm: bool = True) -> Sandbox:
    """A sandbox whose worker loads the grading job at start (and, `warm`, runs it once)."""
    return Sandbox(device=device, warm=warm, preload=(GRADE_MODULE,))


def worker_device(device: Device) -> Device:
    """The device a worker asked for `device` grades on, as far as the parent can tell
    without torch: `auto` on a machine with no NVIDIA device nodes is the CPU."""
    return "cpu" if device == "auto" and not host_has_cuda_devices() else device


def shared_sandbox(device: Device = "auto") -> Sandbox:
    """One warm grading sandbox per device for this process (closed at exit, as every
    started sandbox is): `auto` and `cpu` share one where they are the same
    (`worker_device`), so a process grading both starts torch once."""
    device = worker_device(device)
    with _sandboxes_lock:
        if device not in _sandboxes:
            _sandboxes[device] = grading_sandbox(device)
        return _sandboxes[device]


def grade_source(
    source: str,
    *,
    device: Device = "auto",
    seconds: float | None = None,
    steps: int | None = None,
    seed: int = 0,
    sandbox: Sandbox | None = None,
    filename: str = "<snippet>",
    ranks: int | None = None,
) -> Verdict:
    """Grade `source` (a complete training-loop snippet) in the sandbox; `ranks`: as that
    many ranks, the way `torchrun --nproc-per-node RANKS` runs it (each rank graded, one
    verdict for the run).

    A snippet that cannot be graded (refused, raised, timed out, hit a limit, hung, or the
    sandbox could not start) comes back as a not-graded Verdict carrying the reason. Only a
    request that is wrong itself raises, UsageError, before anything runs: a budget out of
    range (`checked_budget`) or a snippet over `MAX_SNIPPET_BYTES` (`checked_source`).
    """
    options: _Options = {
        "device": device,
        "seconds": seconds,
        "steps": steps,
        "seed": seed,
        "sandbox": sandbox,
        "compare": (),
        "peak": False,
        "ranks": ranks,
        "avoid": frozenset(),
    }
    return _run(source, options, filename)[0]


def grade_task(
    source: str, spec: TaskSpec, *, sandbox: Sandbox | None = None, filename: str = "<snippet>"
) -> Verdict:
    """Grade a fix of a code task: `clean` only when it keeps no graph alive *and* keeps the
    task's contract against the reference solution run under the same seed; `wrong` when it
    breaks the contract, whatever its memory."""
    options: _Options = {
        "device": spec.grading.device,
        "seconds": spec.grading.seconds,
        "steps": spec.grading.steps,
        "seed": spec.grading.seed,
        "sandbox": sandbox,
        "compare": tuple(c.name for c in spec.contract.same_as_solution),
        "peak": spec.contract.peak_memory is not None,
        "ranks": spec.grading.ranks,
        "avoid": avoided_calls(spec.contract),
    }
    if spec.grading.ranks is not None:
        return _ranked_task(source, spec, options, filename)
    verdict, fix = _fix_run(source, spec, options, filename)
    if not isinstance(fix, Observed):
        return verdict
    reference = _reference(spec.solution, "the reference solution", options)
    if isinstance(reference, Verdict):
        return reference
    starter: Observed | None = None
    if spec.contract.peak_memory is not None:
        found = _reference(spec.starter, "the starter", options)
        if isinstance(found, Verdict):
            return found
        starter = found if isinstance(found, Observed) else None
    if not isinstance(reference, Observed):
        raise TypeError("a single run's reference is one run")
    expectations = check(spec.contract, fix, reference, starter)
    return with_expectations(verdict, expectations, unchanged=same_code(source, spec.starter))


def same_code(source: str, starter: str) -> bool:
    """Whether `source` is the task's starter as it was handed out (comments and layout
    aside): then it is not a fix of anything yet."""
    if not starter:
        return False
    try:
        return ast.dump(ast.parse(source)) == ast.dump(ast.parse(starter))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source.strip() == starter.strip()


def _run(
    source: str, options: _Options, filename: str
) -> tuple[Verdict, Observed | list[Observed] | None]:
    """One run, or a ranked run when `options` has ranks."""
    if options["ranks"] is not None:
        return _graded_ranks(
            source,
            ranks=options["ranks"],
            device=options["device"],
            seconds=options["seconds"],
            steps=options["steps"],
            seed=options["seed"],
            sandbox=options["sandbox"],
            filename=filename,
            compare=options["compare"],
            peak=options["peak"],
            avoid=options["avoid"],
        )
    return _graded(
        source,
        device=options["device"],
        seconds=options["seconds"],
        steps=options["steps"],
        seed=options["seed"],
        sandbox=options["sandbox"],
        filename=filename,
        compare=options["compare"],
        peak=options["peak"],
        avoid=options["avoid"],
    )


def _ranked_task(source: str, spec: TaskSpec, options: _Options, filename: str) -> Verdict:
    """A ranked task's fix: every rank graded, every rank held to the contract against the
    same rank of the solution, and the communication the contract asks for."""
    verdict, fixes = _fix_run(source, spec, options, filename)
    if not isinstance(fixes, list):
        return verdict
    reference = _reference(spec.solution, "the reference solution", options)
    if isinstance(reference, Verdict):
        return reference
    starters: list[Observed] | None = None
    if spec.contract.peak_memory is not None:
        found = _reference(spec.starter, "the starter", options)
        if isinstance(found, Verdict):
            return found
        starters = found if isinstance(found, list) else None
    solutions = reference if isinstance(reference, list) else [reference]
    expectations = check_ranks(spec.contract, fixes, solutions, starters)
    return with_expectations(
        verdict,
        expectations,
        unchanged=same_code(source, spec.starter),
        changed=what_changed(fixes, solutions),
    )


def with_expectations(
    verdict: Verdict,
    expectations: tuple[Expectation, ...],
    *,
    unchanged: bool = False,
    changed: str | None = None,
) -> Verdict:
    """`verdict` with the contract's result. A leak stays a leak (the graphs are the task's
    subject; a broken promise is added to its message). Code that no longer leaks, or never
    built a graph, but breaks a promise is `wrong`: it stopped the leak by breaking the task
    (`unchanged`: the starter itself, which does not yet do what the task asks). The message
    names the broken promises in a phrase each; their sentences are the contract's own, shown
    with it, not repeated in the message. Code that built no graph and keeps every promise is
    `clean`: only a contract that does not ask for training (`trains: false`, an inference
    task) can be kept without one, and nothing can pile up where nothing was recorded."""
    broken = [e for e in expectations if not e.met]
    if expectations and _built_no_graph(verdict):  # judged by its contract alone: no error
        verdict = dataclasses.replace(verdict, error=None)
        if not broken:
            return dataclasses.replace(
                verdict, verdict="clean", message=NO_GRAPH_KEPT, expectations=expectations
            )
    if not broken:
        return (
            dataclasses.replace(verdict, expectations=expectations) if verdict.graded else verdict
        )
    summary = _listed([_broken(e) for e in broken])
    if verdict.verdict == "leak":
        return dataclasses.replace(
            verdict,
            expectations=expectations,
            message=f"{verdict.message} It also breaks the task's contract: {summary}.",
        )
    lead = "does not yet do" if unchanged else "no longer does"
    return dataclasses.replace(
        verdict,
        verdict="wrong",
        message=f"Your code {lead} what the task asks: {summary}.",
        hint=_contract_hint(broken, expectations, changed),
        expectations=expectations,
    )


NO_GRAPH_KEPT = (
    "No autograd graph was built, so none can pile up, and the code still does what the task asks."
)
"""The message of a fix that recorded no graph (an inference task's, under `no_grad`) and
keeps its task's contract."""


def _built_no_graph(verdict: Verdict) -> bool:
    """Whether the run was not graded only because it recorded no autograd graph at all."""
    return verdict.error is not None and verdict.error.kind == NO_GRAPH


def _broken(expectation: Expectation) -> str:
    """A broken promise in a phrase that continues a sentence."""
    what, _, name = expectation.what.partition(":")
    if what == "trains":
        return "it runs fewer backward passes than the solution"
    if what in RATES:
        return RATES[what].phrase
    if what == "updates":
        return "it makes fewer optimizer updates than the solution"
    if what == "same":
        return f"`{name}` is not the solution's"
    if what == "exact":
        return f"`{name}` holds other strings, None or booleans than the solution's"
    if what == "dtype":
        return f"`{name}` is not kept in the solution's dtype"
    if what == "bytes":
        return f"`{name}` is not the size in memory the task keeps it at"
    if what == "peak_memory":
        return "its peak memory is over the task's budget"
    if what == "complete":
        return "its run was stopped by the time budget before it ended"
    return expectation.message[:1].lower() + expectation.message[1:].rstrip(".")


def _listed(phrases: list[str]) -> str:
    if len(phrases) <= 2:
        return " and ".join(phrases)
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


def _subject(promises: tuple[Expectation, ...]) -> str:
    """What the task asks a fix to change, from the promises its contract makes: a task that
    counts host reads is about where values are read, not about graphs."""
    kinds = {e.what for e in promises}
    if "host_syncs" in kinds:
        return "where values are read on the host (what is kept, and when it is read)"
    if "backward_passes" in kinds:
        return "how each loss is built and backpropagated"
    return "what keeps graphs alive (what is stored, or detached after backward, never before)"


def _contract_hint(
    broken: list[Expectation], promises: tuple[Expectation, ...], changed: str | None = None
) -> str:
    """What to do about the broken promises, never against the others (`promises`: all the
    contract's, kept or not); `changed`: what a ranked fix does otherwise than the solution
    between its ranks (`what_changed`), the likeliest cause of values that differ."""
    what = {e.what.split(":", 1)[0] for e in broken}
    advised = [e.advice for e in broken if e.advice]
    if what & {"trains", "updates"}:
        return " ".join(
            [
                "Keep the training as the starter has it: every step still runs backward() and"
                f" optimizer.step(). Change only {_subject(promises)}.",
                *advised[:1],
            ]
        )
    if advised:
        return advised[0]
    if "host_syncs" in what:
        return (
            "Keep the values on the device (add `loss.detach()` into a tensor) and read them on"
            " the host no more often than the solution does."
        )
    if "backward_passes" in what:
        return "Backpropagate as the solution does: build each loss once, call backward() once."
    if what & {"dtype", "bytes"}:
        return (
            "Keep the value as the solution keeps it: in its dtype, without a copy (compute in"
            " a wider dtype where needed, but store the result as it was)."
        )
    if "peak_memory" in what:
        return "The task is about peak memory: lower what is alive at the busiest moment of a step."
    if "complete" in what:
        return "Let the run finish within its budget: it must do the same work as the solution."
    if "in_sync" in what:
        return (
            "Every rank must step on the same gradients: all-reduce them (DDP does it in the"
            " last backward before each step) and average them, so the replicas stay identical."
        )
    if "averaged" in what:
        return (
            "all_reduce sums what the ranks send: divide the gradients by the world size (or"
            " reduce with ReduceOp.AVG) so every rank steps on their mean."
        )
    if what & {"per_update", "bytes_per_update"}:
        return (
            "The task is about communication: grill counts each rank's collectives per"
            " optimizer update, DDP's gradient buckets included: make only those the task"
            " needs."
        )
    if changed is not None:
        return (
            f"{changed} Values that differ from the solution's follow from that: keep the"
            " communication the training needs."
        )
    return (
        "Change only what the task asks: the model, the data and the order of random draws"
        " stay as in the starter, so the results match the reference under the same seed."
    )


def _fix_run(
    source: str, spec: TaskSpec, options: _Options, filename: str
) -> tuple[Verdict, Observed | list[Observed] | None]:
    """A fix's run. A fix that is the card's own code (its solution, or its starter where the
    contract measures peak memory against it) is the run its reference is: run once per
    process and shared (`_card_run`), so `grill lint --run`, which grades both, runs each once."""
    if source == spec.solution or (source == spec.starter and options["peak"]):
        return _card_run(source, options, filename)
    return _run(source, options, filename)


def _card_run(
    source: str, options: _Options, filename: str
) -> tuple[Verdict, Observed | list[Observed] | None]:
    """A run of the card's own code, kept per process once it ran (it is the same every
    time: the measurements do not depend on the name it runs under); a run that failed
    (cancelled, out of time on a busy machine) is not kept, and is tried again."""
    key = (
        hashlib.sha256(source.encode()).hexdigest(),
        *[options[k] for k in ("device", "seconds", "steps", "seed", "compare", "peak", "ranks")],
    )
    with _references_lock:
        found = _references.get(key)
    if found is not None:
        return found
    verdict, observed = _run(source, options, filename)
    if observed is not None:
        with _references_lock:
            _references[key] = (verdict, observed)
    return verdict, observed


def _reference(source: str, role: str, options: _Options) -> Observed | list[Observed] | Verdict:
    """What the card's own code does (`_card_run`), or why it could not be graded. A ranked
    task's is one Observed per rank."""
    verdict, observed = _card_run(source, options, f"<{role}>")
    if observed is not None:
        return observed
    return Verdict.not_graded(
        "error",
        verdict.device,
        f"The task's {role} could not be graded, so a fix cannot be"
        f" compared with it: {verdict.message or verdict.verdict}",
        kind="task",
    )


def _graded(
    source: str,
    *,
    device: Device,
    seconds: float | None,
    steps: int | None,
    seed: int,
    sandbox: Sandbox | None,
    filename: str,
    compare: tuple[str, ...] = (),
    peak: bool = False,
    avoid: frozenset[str] = frozenset(),
) -> tuple[Verdict, Observed | None]:
    seconds = checked_budget(seconds, steps)
    source = checked_source(source, filename)
    sandbox = sandbox or shared_sandbox(device)
    try:
        sandbox.start()
    except SandboxError as exc:
        return Verdict.not_graded("error", device, str(exc), kind=exc.kind), None
    payload: GradePayload = {
        "source": source,
        "filename": filename,
        "seconds": seconds,
        "steps": steps,
        "seed": seed,
        "compare": list(compare),
        "peak": peak,
        "device": sandbox.device or "cpu",
        "print_limit": sandbox.limits.output_bytes,
        "own_file": True,
    }
    outcome = sandbox.run(GRADE_JOB, payload, timeout_s=seconds + FINISH_MARGIN_S)

    def run_edited(edited: str) -> Outcome:
        return sandbox.run(
            GRADE_JOB, {**payload, "source": edited}, timeout_s=seconds + FINISH_MARGIN_S
        )

    return verdict_from_outcome(outcome, source, avoid, run_edited)


def _graded_ranks(
    source: str,
    *,
    ranks: int | None,
    device: Device,
    seconds: float | None,
    steps: int | None,
    seed: int,
    sandbox: Sandbox | None,
    filename: str,
    compare: tuple[str, ...] = (),
    peak: bool = False,
    avoid: frozenset[str] = frozenset(),
) -> tuple[Verdict, list[Observed] | None]:
    """`source` run as `ranks` ranks: every rank graded as a single run, one verdict for the
    run (`checkers.judge.ranks`), and each rank's observations for a contract."""
    seconds = checked_budget(seconds, steps)
    count = checked_ranks(ranks)
    sandbox = sandbox or shared_sandbox(device)
    try:
        sandbox.start()
        if not sandbox.can_rank:
            raise SandboxError(
                "ranked runs need a network of the sandbox's own, so that the ranks reach"
                " each other and nothing else, and this machine gives it none (bubblewrap is"
                " unavailable and the kernel allows no private network namespace): install"
                " bubblewrap, or run grill as root"
            )
    except SandboxError as exc:
        return Verdict.not_graded("error", device, str(exc), kind=exc.kind), None
    payloads: list[GradePayload] = [
        {
            "source": source,
            "filename": filename,
            "seconds": seconds,
            "steps": steps,
            "seed": seed,
            "compare": list(compare),
            "peak": peak,
            "device": sandbox.device or "cpu",
            "print_limit": sandbox.limits.output_bytes,
            "own_file": True,
            "rank": rank,
            "world": count,
        }
        for rank in range(count)
    ]

    def run_ranked(snippet: str) -> RankedOutcome:
        return sandbox.run_ranked(
            GRADE_JOB,
            [{**payload, "source": snippet} for payload in payloads],
            timeout_s=seconds + FINISH_MARGIN_S,
            stuck=lambda dumps: ranked_judge.stuck(dumps, filename),
        )

    try:
        outcome = run_ranked(source)
    except SandboxError as exc:
        return Verdict.not_graded("error", device, str(exc), kind=exc.kind), None
    edited_runs: dict[str, RankedOutcome | None] = {}

    def run_edited(rank: int) -> Callable[[str], Outcome]:
        """Rank `rank`'s part of the edited snippet's ranked run: one run for every rank
        whose hint shows the same edit (a failed start reads as a failed edit)."""

        def run(edited: str) -> Outcome:
            if edited not in edited_runs:
                try:
                    edited_runs[edited] = run_ranked(edited)
                except SandboxError:
                    edited_runs[edited] = None
            ran = edited_runs[edited]
            if ran is None:
                return Outcome(
                    status="error",
                    result=None,
                    output="",
                    error=None,
                    device=outcome.device,
                    wall_s=0.0,
                )
            return ran.ranks[rank]

        return run

    graded = [
        verdict_from_outcome(ranked, source, avoid, run_edited(rank))
        for rank, ranked in enumerate(outcome.ranks)
    ]
    measured = [
        cast(Measurements, rank.result) if rank.status == "ok" and rank.result else None
        for rank in outcome.ranks
    ]
    verdict = ranked_judge.combine(
        [v for v, _ in graded],
        measured,
        ended_by=outcome.ended_by,
        failed_rank=outcome.failed_rank,
        dumps=outcome.dumps,
        answered=outcome.answered,
        limit=outcome.limit,
        source=source,
        filename=filename,
        outputs=[rank.output for rank in outcome.ranks],
        device=outcome.device,
    )
    observed = [o for _, o in graded]
    if verdict.graded and all(o is not None for o in observed):
        return verdict, cast(list[Observed], observed)
    return verdict, None


def checked_ranks(ranks: int | None) -> int:
    """The number of ranks of a ranked run; UsageError for one that cannot run, before any
    worker starts."""
    try:
        return int(RANKS.check(ranks))
    except OutOfRange as error:
        raise UsageError(str(error)) from None


def checked_budget(seconds: float | None, steps: int | None) -> float:
    """The time budget in seconds (the default when None), with `steps`, checked against
    their ranges (`inputs.SECONDS`, `inputs.STEPS`): UsageError, saying the range, for a
    number that cannot run anything (0, negative, NaN, infinite, past an hour of budget or
    100,000 steps), before any worker starts."""
    seconds = DEFAULT_SECONDS if seconds is None else seconds
    try:
        SECONDS.check(seconds)
        if steps is not None:
            STEPS.check(steps)
    except OutOfRange as error:
        raise UsageError(str(error)) from None
    return float(seconds)


def verdict_from_outcome(
    outcome: Outcome,
    source: str = "",
    avoid: frozenset[str] = frozenset(),
    run_edited: Callable[[str], Outcome] | None = None,
) -> tuple[Verdict, Observed | None]:
    """The sandbox's Outcome as a Verdict (and what the contract needs), or why there is none;
    `avoid`: calls its hint must not propose; `run_edited`: runs an edited snippet the way
    `outcome` was run, so that a hint's edit is run before it is shown (`_hint_run`)."""
    if outcome.status == "ok":
        measured = cast(Measurements, outcome.result)  # grade_job's; malformed, it raises below
        try:
            verdict = _hint_run(
                *judge_with_edit(measured, source, outcome.output, avoid), run_edited
            )
            if verdict is None:  # the edit failed its run: the next candidate keeps a tensor
                verdict = judge(measured, source, outcome.output, avoid | {ITEM_FAILED})
            observed = Observed.from_measurements(measured)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            return Verdict.not_graded(
                "error",
                outcome.device,
                f"the grader's measurements could not be read ({exc})",
                kind="internal",
                output=outcome.output,
            ), None
        return (
            verdict,
            None if verdict.error is not None and verdict.error.kind == "tampered" else observed,
        )
    error = outcome.error
    verdict = Verdict.not_graded(
        outcome.status,
        outcome.device,
        error.message if error else "",
        line=error.line if error else None,
        kind=error.kind if error else None,
        output=outcome.output,
    )
    if outcome.traceback:
        verdict = dataclasses.replace(verdict, extra={"traceback": outcome.traceback})
    if error is not None and error_hint(error.message):
        verdict = dataclasses.replace(verdict, hint=error_hint(error.message))
    return verdict, None


def _hint_run(
    verdict: Verdict, edit: Edit | None, run_edited: Callable[[str], Outcome] | None
) -> Verdict | None:
    """`verdict`, unless its hint shows an `edit` that makes a kept value a Python number and
    the snippet so edited, run as the snippet was, raises, or still leaks through the same
    holder: then None, and the hint falls to its next candidate (`.detach()`, which keeps a
    tensor, so every later tensor use of the value still works). Only such edits are run:
    one that keeps a tensor cannot break a later line, so most verdicts wait for no second
    run."""
    if edit is None or run_edited is None:
        return verdict
    outcome = run_edited(edit.source)
    if outcome.status != "ok":
        return None
    try:
        edited = judge(cast(Measurements, outcome.result), edit.source, outcome.output)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    if edited.error is not None:
        return None
    if edited.verdict == "leak" and _holder(edited) == _holder(verdict):
        return None
    return verdict


def _holder(verdict: Verdict) -> str | None:
    return verdict.retained[0].path if verdict.retained else None


def grade_file(path: str | Path, **options: Unpack[_FileOptions]) -> Verdict:  # noqa: D103
    """Grade the snippet in `path`; raises UsageError when it cannot be read as text."""
    return grade_source(read_snippet(path), filename=str(path), **options)


def read_snippet(path: str | Path) -> str:
    """The snippet in `path`, read through grill's one reader (a plain file of at most
    `MAX_SNIPPET_BYTES`, UTF-8 text); UsageError naming the file otherwise."""
    path = Path(path)
    try:
        raw = read_file(path, role="a snippet", cap=MAX_SNIPPET_BYTES)
    except FileRefused as refused:
        raise UsageError(str(refused)) from None
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start} cannot be decoded)") from None


def checked_source(source: str, filename: str = "<snippet>") -> str:
    """`source` when the sandbox can take it: at most `MAX_SNIPPET_BYTES` of UTF-8, so that its
    job message, however JSON escapes it, stays under the sandbox's `MAX_CONTROL_BYTES`;
    UsageError naming the cap otherwise, before anything starts or is sent."""
    if len(source) > MAX_SNIPPET_BYTES:  # each character is at least a byte: no need to encode
        size = f"over {MAX_SNIPPET_BYTES:,} bytes"
    else:
        encoded = len(source.encode("utf-8", "surrogatepass"))
        if encoded <= MAX_SNIPPET_BYTES:
            return source
        size = f"{encoded:,} bytes"
    raise UsageError(
        f"{filename}: the snippet is {size}; grill grades snippets of at most "
        f"{format_cap(MAX_SNIPPET_BYTES)}"
    )


def read_fix(path: str | Path, *, parse: bool = True) -> str:
    """A code task's fix from `path`, as `grill check --task` and `grill task watch` take it:
    `read_snippet`'s text, which must also not be empty, not binary, and (`parse`) parse as
    Python. UsageError (one line naming the file) otherwise."""
    path = Path(path)
    source = read_snippet(path)
    if not source.strip():
        raise UsageError(f"{path}: is empty; a fix is the whole task's code, the starter changed")
    if "\x00" in source:
        raise UsageError(f"{path}: a binary file (it holds NUL bytes), not Python source")
    if not parse:
        return source
    try:
        compile(source, str(path), "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        where = f"{path}:{error.lineno or 1}:{error.offset or 1}"
        raise UsageError(f"{where}: does not parse as Python: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise UsageError(f"{path}: does not parse as Python ({type(error).__name__})") from None
    return source
