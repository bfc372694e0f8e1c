"""Turn a run's measurements into a verdict: whether kept graph keeps accumulating, which names
hold it, and a hint drawn from what they are.

Pure data in, `Verdict` out, no torch: it runs in the parent, on what the sandbox child
measured (`checkers.measure.grade.measure`). The rule is in `checkers.judge.growth`: a leak is dead-weight
graph (graph no backward pass will use again) that keeps accumulating over the run, or a
backward pass that reaches further back every step; a bounded window is not a leak.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypedDict

from checkers.judge.curve import Shape, classify, classify_cuda
from checkers.judge.edits import Edit, is_position, split_path
from checkers.judge.growth import Growth, Window, analyse, held_whole
from checkers.judge.hints import count, detach_statement, hint_for
from checkers.judge.source import assignment_line, hook_line, lines_after_loops, source_flags
from checkers.measurements import HeldPass, Holder, Measurements, Series, format_bytes
from checkers.verdict import Extra, NotGraded, Pattern, Retained, Training, Verdict, shown_output

NO_GRAPH = "NoGraph"
"""The error kind of a run that built no autograd graph at all: there is nothing to grade."""
TAMPERED = "tampered"
BUDGET = "budget"
"""The error kind of a run whose time budget ran out before it built any graph."""
REPORTED_RETAINED = 20
PASS_LIKE = 1.5
"""A trend no longer than this many times a held pass is that pass, told as one."""


class _Common(TypedDict):
    """The fields every verdict on a run shares."""

    device: str
    output: str
    training: Training
    coverage: str
    steps: int


class _Judged(_Common):
    """The fields of a graded verdict, before its kind and explanation."""

    pattern: Pattern | None
    growth_bytes_per_step: float
    samples: tuple[float, ...]
    extra: Extra


@dataclass(frozen=True)
class Culprit:
    """Holders of the growth, grouped: one container of per-step values, or one tensor."""

    path: str
    """The container (`losses`) or the tensor (`running_loss`)."""
    holders: tuple[Holder, ...]
    steps: int
    """How many steps' graphs it holds at its peak."""
    count: int = 0
    """Holders in the container when it was scanned, all of them (a scan summarises at most
    a few hundred); 0 when unknown."""
    parts: tuple[str, ...] = ()
    """`path` in steps."""
    numbered: list[Edit] = field(default_factory=list, compare=False)
    """Edits the hint shows that make a kept value a Python number (`.item()`): compiling
    them cannot tell whether a later line still uses the value as a tensor, so
    `judge_with_edit` hands the last one to `checkers.api` to run."""

    @property
    def first(self) -> Holder:
        return self.holders[0]

    @property
    def is_container(self) -> bool:
        """Per-step values kept side by side, not one tensor that chains them."""
        return len(self.holders) > 1 or tuple(parts_of(self.first)) != self.parts

    @property
    def tensors(self) -> int:
        return max(self.count, len(self.holders))

    @property
    def element(self) -> str:
        """What the container holds per position: `tensor`, `tuple:2`, `dict:3`..."""
        kinds = self.first.get("kinds") or []
        return kinds[len(self.parts)] if len(kinds) > len(self.parts) else ""

    @property
    def oldest(self) -> int | None:
        """The earliest generation whose graph it holds."""
        keys = [h["keys"][0] for h in self.holders if h["keys"] is not None]
        return min(keys) if keys else None


def parts_of(holder: Holder) -> list[str]:
    return list(holder.get("parts") or split_path(holder["path"]))


def judge(
    m: Measurements, source: str = "", output: str = "", avoid: frozenset[str] = frozenset()
) -> Verdict:
    """The verdict on one run's measurements (see the module docstring). `avoid`: the calls
    a hint must not propose, because the task's contract refuses them (`.item()` where the
    task keeps a total on the device): its edit falls to the next candidate."""
    return judge_with_edit(m, source, output, avoid)[0]


def judge_with_edit(
    m: Measurements, source: str = "", output: str = "", avoid: frozenset[str] = frozenset()
) -> tuple[Verdict, Edit | None]:
    """`judge`'s verdict, and the edit its hint shows where that edit makes a kept value a
    Python number (`Culprit.numbered`): compiling it cannot tell whether a later line still
    uses the value as a tensor, so `checkers.api` runs it before the hint is shown."""
    culprits: list[Culprit] = []
    verdict = _judge(m, source, output, avoid, culprits)
    numbered = [edit for culprit in culprits for edit in culprit.numbered]
    return verdict, numbered[-1] if numbered else None


def _judge(
    m: Measurements, source: str, output: str, avoid: frozenset[str], culprits: list[Culprit]
) -> Verdict:
    training = Training(
        **{
            k: m["training"][k]
            for k in ("optimizer_steps", "updates", "backward_calls", "graph_nodes")
        }
    )
    device = m["device"]
    common: _Common = {
        "device": device,
        "output": shown_output(output),
        "training": training,
        "coverage": coverage(m),
        "steps": training.optimizer_steps or training.backward_calls,
    }
    if m.get("problem"):
        return _not_graded(
            common, TAMPERED, f"Not graded: {m['problem']}; its verdict could not be trusted."
        )
    if training.graph_nodes == 0:
        if m["stopped_by"] == "budget":
            return _not_graded(
                common,
                BUDGET,
                f"The time budget ran out after {m['seconds']:.1f} s, before the snippet built"
                " any autograd graph: nothing of its training was watched, so there is"
                " nothing to grade. Give it a longer budget (--seconds), or make it start"
                " training sooner.",
                verdict="timeout",
            )
        return _not_graded(
            common,
            NO_GRAPH,
            "No autograd graph was built: nothing in the snippet"
            " used a tensor that requires grad, so it trains nothing and there is no"
            " graph whose lifetime could be graded.",
        )
    tree = _parse(source)
    flags = (source_flags(tree) if tree else frozenset()) | {f"avoid:{call}" for call in avoid}
    series = m["dead_weight"]
    dead = analyse(series["lows"], series["highs"], series["releases"], series["loops"])
    reach = analyse(m["reach"]["lows"], m["reach"]["highs"])
    whole = held_whole(m.get("held_passes") or [])
    shape = _shape(m)
    base = m["memory"][0] if m["memory"] else 0
    verdict: _Judged = {
        **common,
        "pattern": shape.pattern,
        "growth_bytes_per_step": round(shape.growth_per_step, 1),
        "samples": tuple(float(v - base) for v in m["memory"]),
        "extra": {
            "dead_weight": m["dead_weight"],
            "reach": m["reach"],
            "timings": m.get("timings", {}),
            "peak_bytes": m.get("peak_bytes", 0),
            "unwatched_nodes": m.get("unwatched_nodes", 0),
            **({"held_passes": m["held_passes"]} if m.get("held_passes") else {}),
            **(
                {"reserved": [r - m["reserved"][0] for r in m["reserved"]]}
                if m.get("reserved")
                else {}
            ),
        },
    }
    trend = _trend(m, reach, dead)
    if whole is not None and (
        trend is None or whole["held_passes"] > 1 and trend <= PASS_LIKE * _span(whole)
    ):
        # the climb is a loop's pass, held again and again (or no longer than one such): say
        # so; a single held pass is the ordinary trend (kept to the end, or until it was
        # dropped), told as one
        if whole.get("series") == "reach":
            culprit = _reach_culprit(m, flags)
            message, hint = _explain_reach_pass(culprit, whole, flags, tree)
        else:
            culprit = _pass_culprit(m, whole)
            message, hint = _explain_pass(culprit, whole, m, flags, tree)
    elif reach.growing is not None:
        culprit = _reach_culprit(m, flags)
        message, hint = _explain_reach(culprit, flags, tree)
    elif dead.growing is not None:
        culprit = _dead_culprit(m, dead.growing, tree=tree)
        message, hint = _explain_dead(culprit, dead.growing, m, flags, tree)
    else:
        notes = _notes(m, dead, reach, tree)
        return Verdict(
            verdict="clean", message=_explain_clean(common["steps"], shape), notes=notes, **verdict
        )
    verdict["extra"]["retained_total"] = culprit.tensors if culprit else 0
    culprits.extend([culprit] if culprit else [])
    return Verdict(
        verdict="leak", message=message, hint=hint, retained=_retained(culprit, tree), **verdict
    )


def _span(held: HeldPass) -> int:
    return held["last"] - held["first"] + 1


def _trend(m: Measurements, reach: Growth, dead: Growth) -> int | None:
    """How many generations the climb that is a trend spans (reach first), or None."""
    if reach.growing is not None:
        series, window = m["reach"], reach.growing
    elif dead.growing is not None:
        series, window = m["dead_weight"], dead.growing
    else:
        return None
    first = series["first"]
    end = first[window.end] + series["width"] if window.end < len(first) else first[-1]
    return end - first[max(window.climb_start - 1, 0)]


def coverage(m: Measurements) -> str:
    t = m["training"]
    seen = (
        f"{t['optimizer_steps']} optimizer steps, {t['backward_calls']} backward passes,"
        f" {m['seconds']:.1f} s"
    )
    if m["stopped_by"] == "budget":
        return f"Stopped at its time budget ({seen}): the rest of the run was not watched."
    if m["stopped_by"] == "steps":
        return f"Stopped at the step cap ({seen}): the rest of the run was not watched."
    return f"Watched the whole run ({seen})."


def _not_graded(common: _Common, kind: str, message: str, verdict: NotGraded = "error") -> Verdict:
    from checkers.verdict import ErrorInfo

    return Verdict(verdict=verdict, message=message, error=ErrorInfo(kind, message), **common)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _shape(m: Measurements) -> Shape:
    if not m["memory"]:
        return Shape(None, 0.0)
    if m.get("reserved"):
        return classify_cuda(m["memory"], m["reserved"])
    return classify(m["memory"])


# -- who holds it ---------------------------------------------------------------------------


def _window_generations(series: Series, window: Window) -> tuple[int, int | None]:
    """The generations a window spans, from where its climb began; the end is open (None)
    when it ran to the end of the run."""
    first = series["first"]
    end = first[window.end] - 1 if window.released else None  # before the bucket that let go
    return first[max(window.climb_start - 1, 0)], end  # from the first graph kept


def _dead_weight_then(holder: Holder) -> bool:
    """A holder found by a scan was dead weight then unless a backward pass ran through its
    graph after the scan (a REINFORCE episode's log-probs, an accumulation window's losses:
    graph waiting for its backward)."""
    return holder["keys"] is not None and not holder.get("used_after", False)


def _dead_culprit(
    m: Measurements, window: Window, repeated: bool = False, tree: ast.Module | None = None
) -> Culprit | None:
    """The holders of the window's graph, from the scan whose culprit holds most of it: the
    final scan for growth still held at the end, an earlier one for growth that was let go
    (`repeated`: a window that climbs again and again, found by any scan that saw one of its
    climbs). Only what was dead weight when it was scanned counts, and what the run stored
    while it climbed wins over a value built once a loop is over (`torch.stack(all_values)`
    after the loop): the climb happened in the loop, and so does the fix."""
    start, end = _window_generations(m["dead_weight"], window)
    if repeated:
        start, end = 0, None
    after = lines_after_loops(tree) if tree is not None else set()

    def stored_in_a_loop(holder: Holder) -> bool:
        return (_stored_line(tree, holder["stored"]) or holder["line"]) not in after

    best: Culprit | None = None
    for scan in m["scans"]:
        if end is not None and not start <= scan["generation"] <= end:
            continue
        dead = [h for h in scan["holders"] if _dead_weight_then(h)]
        holders = [
            h
            for h in dead
            if (end is None or h["keys"][0] <= end)  # type: ignore[index]
            and h["keys"][1] >= start - 1  # type: ignore[index]
        ]
        holders = [h for h in holders if stored_in_a_loop(h)] or holders
        found = _group(holders, dead)
        if found is not None and (best is None or found.steps >= best.steps):
            best = found
    return best


def _pass_culprit(m: Measurements, held: HeldPass) -> Culprit | None:
    """What held the graph of a loop's pass: from the scan taken as such a pass ended (the
    ledger scans then, while it is held), else any scan within the pass."""
    first, last = held["first"], held["last"]
    candidates = [
        s for s in m["scans"] if s.get("reason") == "pass" and s.get("loop") == held["loop"]
    ]
    candidates += [s for s in m["scans"] if first <= s["generation"] <= last + 1]
    best: Culprit | None = None
    for scan in candidates:
        lo = scan.get("first", first) if scan.get("reason") == "pass" else first
        holders = [h for h in scan["holders"] if _within(h, lo, scan["generation"])]
        found = _group(holders)
        if found is not None and (best is None or found.steps > best.steps):
            best = found
    return best


def _unnamed_because(tree: ast.Module | None, line: int) -> str:
    """Why a pass's holder has no name, where the source says: a comprehension's list."""
    if tree is None:
        return ""
    on_line = [node for node in ast.walk(tree) if getattr(node, "lineno", None) == line]
    if any(
        isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) for n in on_line
    ) and not any(isinstance(n, (ast.For, ast.While)) for n in on_line):
        return " (a list a comprehension is still building has no name yet)"
    return ""


def _within(holder: Holder, first: int, now: int) -> bool:
    """Whether a holder found at generation `now` holds dead weight of a pass begun at
    `first`: graph of the pass's own later iterations, none from before it, still held."""
    keys, died = holder["keys"], holder.get("died")
    return (
        _dead_weight_then(holder)
        and keys is not None
        and keys[1] > first
        and first - 1 <= keys[0] <= now
        and (died is None or died >= now)
    )


def _reach_culprit(m: Measurements, flags: frozenset[str]) -> Culprit | None:
    """The holder whose graph many backward passes ran through and that the snippet computes
    from itself (the state carried from step to step, not this step's loss built on it);
    else the one most passes ran through. A state kept in a tuple or list (`(h, c)`) is named
    by its container."""
    holders = [h for h in m["scans"][-1]["holders"] if h["passes"] > 1] if m["scans"] else []
    if not holders:
        return None
    carried = [
        h
        for h in holders
        if f"feeds:{_last(h['path'])}" in flags and f"reset:{_last(h['path'])}" not in flags
    ]
    holders = [h for h in holders if f"reset:{_last(h['path'])}" not in flags] or holders
    most = max(carried or holders, key=lambda h: h["passes"])
    parts = parts_of(most)
    kinds = most.get("kinds") or []
    if (
        len(parts) > 1
        and is_position(parts[-1])
        and kinds[-2:-1]
        and kinds[-2].split(":")[0] in ("tuple", "list")
    ):
        container = tuple(parts[:-1])
        members = tuple(h for h in holders if tuple(parts_of(h)[:-1]) == container)
        return Culprit("".join(container), members, most["passes"], len(members), container)
    return Culprit(most["path"], (most,), most["passes"], 1, tuple(parts))


def _last(path: str) -> str:
    return path.split("[", 1)[0].rsplit(".", 1)[-1]


def _group(holders: Sequence[Holder], scanned: Sequence[Holder] = ()) -> Culprit | None:
    """The container most holders sit in, or the single holder that spans the most steps,
    whichever holds more steps' graphs. Holders are grouped where their paths first take a
    position (`losses` for `losses[3]`, `records` for `records[3]['loss']`, `metrics` for
    `metrics['epoch0_step3']['loss']`), and the container is named as far as their paths
    agree (`hook.<closure>.acts` for `hook.<closure>.acts[3]`, `stats['policy_loss']` for
    `stats['policy_loss'][4]`)."""
    if not holders:
        return None
    groups: dict[str, list[Holder]] = {}
    for holder in holders:
        groups.setdefault("".join(_until_position(parts_of(holder))), []).append(holder)
    key, members = max(groups.items(), key=lambda item: _steps_held(item[1]))
    if len(members) > 1 or _until_position(parts_of(members[0])) != parts_of(members[0]):
        # the container's earlier entries belong to the same growth, whenever the series
        # showed it begin (`scanned`: the scan's dead-weight holders)
        known = {id(h) for h in members}
        members = members + [
            h
            for h in scanned
            if id(h) not in known and "".join(_until_position(parts_of(h))) == key
        ]
    single = max(holders, key=lambda h: h["generations"])
    if single["generations"] >= _steps_held(members) and not (
        len(members) == 1
        and members[0] is single
        and _until_position(parts_of(single)) != parts_of(single)
    ):
        return Culprit(single["path"], (single,), single["generations"], 1, tuple(parts_of(single)))
    members.sort(key=lambda h: _natural(h["path"]))
    container = _container_of([parts_of(h) for h in members])
    count = max((h.get("in_container", 0) for h in members), default=0)
    return Culprit(
        "".join(container), tuple(members), _steps_held(members), count, tuple(container)
    )


def _until_position(parts: Sequence[str]) -> list[str]:
    for index, step in enumerate(parts):
        if index and is_position(step):
            return list(parts[:index])
    return list(parts)


def _container_of(paths: Sequence[Sequence[str]]) -> list[str]:
    """Where several holders' paths part: their common steps, up to the last position step
    before their first difference (one holder: up to its last position)."""
    if len(paths) == 1:
        parts = list(paths[0])
        positions = [i for i, step in enumerate(parts) if i and is_position(step)]
        return parts[: positions[-1]] if positions else parts
    common = 0
    shortest = min(len(p) for p in paths)
    while common < shortest and all(p[common] == paths[0][common] for p in paths):
        common += 1
    return list(paths[0][:common]) or list(paths[0][:1])


def _many(holder: Holder) -> str:
    """How much history one holder chains: in optimizer steps, or loop iterations without one."""
    if holder["steps"] > 1:
        return f"{holder['steps']} steps"
    return count(holder["generations"], "iteration")


def _steps_held(holders: Sequence[Holder]) -> int:
    """How many generations' graphs a group holds: the distinct generations its holders'
    graphs carry (two tensors kept per step are one step's graph)."""
    if len(holders) == 1:
        return holders[0]["generations"]
    keys: set[int] = set()
    for holder in holders:
        if holder["keys"] is not None:
            keys.update(
                range(holder["keys"][0], holder["keys"][1] + 1)
                if holder["keys"][1] - holder["keys"][0] < 4096
                else holder["keys"]
            )
    return len(keys) or len(holders)


def _natural(path: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part)
        for part in path.replace("[", " ").replace("]", " ").split()
    )


def _retained(culprit: Culprit | None, tree: ast.Module | None) -> tuple[Retained, ...]:
    if culprit is None:
        return ()
    return tuple(
        Retained(
            h["path"],
            h["grad_fn"],
            h["nodes"],
            h["saved_bytes"],
            _stored_line(tree, h["stored"]) or h["line"],
            max(h["generations"], h["passes"], 1),
        )
        for h in culprit.holders[:REPORTED_RETAINED]
    )


def _stored_line(tree: ast.Module | None, path: str) -> int | None:
    return assignment_line(tree, path) if tree is not None else None


def _step_of(m: Measurements, generation: int | None) -> int:
    """The optimizer steps taken when `generation` opened, from the bucketed series."""
    series = m["dead_weight"]
    if generation is None or not series["first"] or not series["steps"]:
        return 0
    index = max(0, bisect.bisect_right(series["first"], generation) - 1)
    return series["steps"][index]


# -- messages and hints ---------------------------------------------------------------------


def _explain_dead(
    culprit: Culprit | None,
    window: Window,
    m: Measurements,
    flags: frozenset[str],
    tree: ast.Module | None,
) -> tuple[str, str]:
    series = m["dead_weight"]
    begin = max(window.climb_start - 1, 0)  # the generation that kept the first graph
    oldest = culprit.oldest if culprit is not None else None
    first_generation = oldest if oldest is not None else series["first"][begin]
    from_step = _step_of(m, first_generation)
    loop = series["loops"][begin] if series["loops"] else 0
    where = f" while the loop at line {loop} ran" if loop and from_step > 2 else ""
    late = f" from step {from_step} on" if from_step > 2 else ""
    if culprit is None:
        unread = _unread(m)
        message = (
            f"Graph nobody will backpropagate through again piled up{late}{where}, about"
            f" {window.peak + 1} steps' worth, held somewhere grill could not name{unread}."
        )
        return message, (
            "Whatever outlives a step should leave it as `.item()` (a number) or"
            " `.detach()` (a tensor without its graph)."
        )
    first = culprit.first
    line = _stored_line(tree, first["stored"]) or first["line"]
    at = f" (line {line})" if line else ""
    ending = " until it was dropped" if window.released else ", and none of it is let go"
    if "hook_in_loop" in flags and any("_hooks" in h["path"] for h in culprit.holders):
        hook = hook_line(tree) if tree else None
        message = (
            f"A hook registered on every step{f' (line {hook})' if hook else ''} keeps"
            f" each step's graph alive through `{culprit.path}`: {culprit.steps} steps'"
            f" graphs piled up{late}{ending}."
        )
        return message, hint_for(culprit, line, flags, tree, m)
    if culprit.is_container:
        message = (
            f"`{culprit.path}` holds {_holds(culprit, m)} ({first['grad_fn']}){at}{late}{where}:"
            f" {_cadence(culprit, m)}{ending}."
        )
    else:
        message = (
            f"`{culprit.path}` chains the graphs of {_many(first)} into one"
            f" ({first['grad_fn']}, {first['nodes']} nodes){at}{late}: every step links"
            f" its graph onto it{ending}."
        )
    return message, hint_for(culprit, line, flags, tree, m)


def _holds(culprit: Culprit, m: Measurements) -> str:
    """`40 tensors that still carry their graphs`, `at least 200 ...` where a scan was cut."""
    first = culprit.first
    noun = "graph node" if first["node_only"] else "tensor"
    tensors = culprit.tensors
    capped = any(s["capped"] for s in m["scans"]) and not culprit.count
    text = count(tensors, noun)
    if not first["node_only"]:
        text += (
            " that still carry their graphs" if tensors != 1 else " that still carries its graph"
        )
    if tensors > culprit.steps > 1:
        text = f"{text}, from {culprit.steps} steps"
    return f"at least {text}" if capped else text


def _unread(m: Measurements) -> str:
    unread = max((s.get("unread", 0) for s in m["scans"]), default=0)
    return f" (its scan left {count(unread, 'object')} unread)" if unread else ""


def _explain_pass(
    culprit: Culprit | None,
    held: HeldPass,
    m: Measurements,
    flags: frozenset[str],
    tree: ast.Module | None,
) -> tuple[str, str]:
    """A loop's every pass held whole: the climb spans the pass, so its height is the loop's
    length (an epoch's batches: the data), not a bound the code sets."""
    loop = held["loop"]
    span = held.get("iterations") or held["last"] - held["first"] + 1
    passes, of = held["held_passes"], held["passes"]
    again = _in_passes(passes, of)
    release = _released_by(held, "them")
    grow = (
        f"{span} here, one per iteration, so as many as the loop has iterations in a real run"
        " (one per batch of a real epoch)"
    )
    if culprit is None:
        message = (
            f"Graph of every iteration of the loop at line {loop} is kept until that loop ends:"
            f" {grow}. grill could not name what holds it{_unread(m)}"
            f"{_unnamed_because(tree, loop)}. {release}{again}."
        )
        return message, (
            "Whatever outlives an iteration should leave it as `.item()` (a number) or"
            " `.detach()` (a tensor without its graph)."
        )
    line = _stored_line(tree, culprit.first["stored"]) or culprit.first["line"]
    at = f" (line {line})" if line else ""
    message = (
        f"`{culprit.path}` keeps every iteration's graph{at} until the loop at line {loop} ends:"
        f" {grow}. {release}{again}. That climb grows with the loop's length (the data), not"
        " with a bound the code sets."
    )
    return message, hint_for(culprit, line, flags, tree, m)


def _in_passes(held: int, passes: int) -> str:
    if passes <= 1:
        return ""
    return (
        f", in all {passes} of its passes"
        if held == passes
        else f", in {held} of its {passes} passes"
    )


def _released_by(held: HeldPass, what: str) -> str:
    """`It lets them go only when the loop at line 8 moves on`, or `It never lets them go`."""
    parent = held["parent"]
    if parent and held["released"]:
        return f"It lets {what} go only when the loop at line {parent} moves on"
    return (
        f"It lets {what} go only when the pass is over"
        if held["released"]
        else f"It never lets {what} go"
    )


def _explain_reach_pass(
    culprit: Culprit | None, held: HeldPass, flags: frozenset[str], tree: ast.Module | None
) -> tuple[str, str]:
    """A state carried through a whole pass of a loop under retain_graph: each backward runs
    back to the pass's start, so the reach grows with the loop's length."""
    loop = held["loop"]
    passes, of = held["held_passes"], held["passes"]
    again = _in_passes(passes, of)
    who = "a tensor carried from step to step"
    at = ""
    hint = "Detach what crosses the step boundary, then drop retain_graph=True once nothing needs the old graph."
    if culprit is not None:
        who = f"`{culprit.path}`"
        line = _stored_line(tree, culprit.first["stored"]) or culprit.first["line"]
        at = f" (line {line})" if line else ""
        hint = (
            f"Detach it where one sequence or chunk ends ({detach_statement(culprit)}), or start"
            " it fresh; then retain_graph=True is no longer needed."
        )
    message = (
        f"Each backward() runs back through the graphs of every earlier iteration of the loop at"
        f" line {loop}: {who} is fed back into the next step with its graph{at}, so the last"
        f" backward of a pass runs through {held['held']} earlier ones here, and through as many"
        " as the loop has iterations in a real run (a real epoch's batches)."
        f" {_released_by(held, 'the chain')}{again}."
    )
    return message, hint


def _explain_reach(
    culprit: Culprit | None, flags: frozenset[str], tree: ast.Module | None
) -> tuple[str, str]:
    lead = "Each backward() runs through the graphs of all earlier steps"
    if culprit is None:
        return (
            f"{lead}: a tensor carried from step to step is never detached, so the graph"
            " grows every step.",
            "Detach what crosses the step boundary, then drop"
            " retain_graph=True once nothing needs the old graph.",
        )
    first = culprit.first
    root = culprit.path.split(".", 1)[0].split("[", 1)[0]
    name = _last(culprit.path)
    line = _stored_line(tree, first["stored"]) or first["line"]
    at = f" (line {line})" if line else ""
    if f"carried:{root}" in flags or f"carried:{name}" in flags:
        return (
            f"{lead}: `{culprit.path}` is fed back into the next step with its graph{at}, so"
            " the graph grows every step and each backward() takes longer.",
            f"Detach it where one sequence or chunk ends ({detach_statement(culprit)}), or start"
            " it fresh; then retain_graph=True is no longer needed.",
        )
    if first["numel"] is not None and first["numel"] > 1:
        return (
            f"{lead}: `{culprit.path}` is updated every step from values that carry their"
            f" graph{at}, so each backward() reaches back through every earlier update.",
            f"Update `{name}` from `.detach()`ed values (or under `torch.no_grad()`); then"
            " retain_graph=True is no longer needed.",
        )
    return (
        f"{lead}: `{culprit.path}` sums every step's loss and is backpropagated every"
        f" step{at}, so each backward() goes back over the whole run.",
        f"`{name}` is backpropagated, so it must stay a tensor: start it afresh after each"
        f" backward() (`{name} = 0`), or backpropagate each step's own loss and keep a"
        " separate total of `loss.item()` for reporting.",
    )


def _explain_clean(steps: int, shape: Shape) -> str:
    text = "No autograd graph piles up over the run."
    if shape.pattern == "monotonic":
        text += (
            f" Memory still grows by about {format_bytes(shape.growth_per_step)} a step,"
            " but not as autograd graph: something the loop keeps without its graph"
            " (detached tensors or values), or the allocator's own caches."
        )
    elif shape.pattern == "sawtooth":
        text += " Memory rises and falls with the batch, and nothing accumulates."
    elif shape.pattern == "fragmentation":
        text += (
            " The CUDA allocator's reserved pool keeps growing while allocated bytes do not:"
            " fragmentation from changing tensor sizes, not a retained graph."
        )
    return text


def _notes(
    m: Measurements, dead: Growth, reach: Growth, tree: ast.Module | None
) -> tuple[str, ...]:
    notes = list(m.get("sandbox_notes", ()))
    if dead.bounded is not None:
        culprit = _dead_culprit(m, dead.bounded, repeated=dead.repeats > 1, tree=tree)
        kept = dead.bounded.peak + 1  # the newest iteration's graph is alive in any loop
        if culprit is not None:
            # what the holder was seen holding, where it saw the whole window (a deque of 10
            # holds 10, however the newest step's graph adds to the series)
            kept = culprit.steps if culprit.steps >= dead.bounded.peak else kept
            line = _stored_line(tree, culprit.first["stored"]) or culprit.first["line"]
            who = f"`{culprit.path}`{f' (line {line})' if line else ''}"
        else:
            who = f"Something grill could not name{_unread(m)}"
        notes.append(
            f"{who} keeps the graphs of up to {count(kept, 'loop iteration')} and then lets"
            f" them go{_again(dead.repeats)}: bounded by the code,"
            " so not a leak, but memory the loop does not need; store `.item()` or"
            " `.detach()` instead."
        )
    if reach.bounded is not None:
        notes.append(
            f"Each backward() runs back through up to {count(reach.bounded.peak, 'earlier pass')}'"
            f" graphs, and the chain is cut{_again(reach.repeats)}:"
            " bounded by the code (a truncated-BPTT chunk), so not a leak."
        )
    return tuple(notes)


def _again(repeats: int) -> str:
    """How often a bounded window was let go, as the run had it: once is no "again"."""
    return f", again and again ({repeats} times)" if repeats > 1 else ""


MAX_PERIOD = 4
"""The longest repeating pattern of gaps between a container's entries told as a cadence."""


def _cadence(culprit: Culprit, m: Measurements) -> str:
    """How the container grows, as the code has it: one per step, one every few steps, or
    several per step. Its entries' steps (a step: the loop's update, however many optimizers
    it steps and backward passes it takes) are measured, and a cadence the gaps between them
    do not share is told as the numbers were, never rounded to a step count the code lacks.
    An entry is dated by the steps taken when the generation of its graph's newest node (the
    value stored) ended: an inner loop between a backward and its step (`for opt in
    optimizers`) opens a generation there, so the one before is no step of its own."""
    if culprit.tensors > culprit.steps:
        return "each step adds its own"
    series = m["dead_weight"]
    measured = series["first"][-1] + series["width"] if series["first"] else 0
    per_step = Counter(  # the generation still open at the end has not ended
        _step_of(m, h["keys"][1] + 1)
        for h in culprit.holders
        if h["keys"] is not None and h["keys"][1] + 1 < measured
    )
    added, sizes = sorted(per_step), set(per_step.values())
    if len(added) < 2:
        return "each step adds one"
    spread = f"{per_step.total()} were added in {added[-1] - added[0] + 1} steps"
    if len(sizes) > 1:
        return spread
    size = sizes.pop()
    what = "one is" if size == 1 else f"{size} are"
    gaps = [later - earlier for earlier, later in pairwise(added)]
    if len(set(gaps)) == 1:
        if gaps[0] == 1:
            return f"each step adds {'one' if size == 1 else size}"
        return f"{what} added every {gaps[0]} steps"
    for period in range(2, min(len(gaps) // 2, MAX_PERIOD) + 1):
        # a repeating pattern (a critic's and a generator's entries, 1 and 3 steps apart)
        if all(gap == gaps[i % period] for i, gap in enumerate(gaps)):
            return f"{period * size} are added every {sum(gaps[:period])} steps"
    mean = (added[-1] - added[0]) / (len(added) - 1)
    near = round(mean)
    if abs(mean - near) > 0.1 * near:
        return spread
    if near == 1:
        return f"nearly every step adds {'one' if size == 1 else size}"
    return f"about {what} added every {near} steps"
