"""Turn a run's measurements into a verdict: whether kept graph keeps accumulating, which names
hold it, and a hint drawn from what they are.

Pure data in, `Verdict` out, no torch: it runs in the parent, on what the sandbox child
measured (`checkers.measure.grade.measure`). The rule is in `checkers.judge.growth`: a leak is dead-weight
graph (graph no backward pass will use again) that keeps accumulating over the run, or a
backward pass that reaches further back every step; a bounded window is not a leak.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from checkers.judge.curve import Shape, classify, classify_cuda
from checkers.judge.growth import Growth, Window, analyse
from checkers.judge.source import assignment_line, hook_line, source_flags, stored_name
from checkers.measurements import Holder, Measurements, Series, format_bytes
from checkers.verdict import Extra, Pattern, Retained, Training, Verdict

NO_GRAPH = "NoGraph"
"""The error kind of a run that built no autograd graph at all: there is nothing to grade."""
TAMPERED = "tampered"
REPORTED_RETAINED = 20
_POSITION = re.compile(r"\[\d+\]")


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

    @property
    def first(self) -> Holder:
        return self.holders[0]

    @property
    def is_container(self) -> bool:
        """Per-step values kept side by side, not one tensor that chains them."""
        return len(self.holders) > 1 or bool(_POSITION.search(self.path)) or self.path.endswith("}")


def judge(m: Measurements, source: str = "", output: str = "") -> Verdict:
    """The verdict on one run's measurements (see the module docstring)."""
    training = Training(
        **{
            k: m["training"][k]
            for k in ("optimizer_steps", "updates", "backward_calls", "graph_nodes")
        }
    )
    device = m["device"]
    common: _Common = {
        "device": device,
        "output": output,
        "training": training,
        "coverage": coverage(m),
        "steps": training.optimizer_steps or training.backward_calls,
    }
    if m.get("problem"):
        return _not_graded(
            common, TAMPERED, f"Not graded: {m['problem']}; its verdict could not be trusted."
        )
    if training.graph_nodes == 0:
        return _not_graded(
            common,
            NO_GRAPH,
            "No autograd graph was built: nothing in the snippet"
            " used a tensor that requires grad, so it trains nothing and there is no"
            " graph whose lifetime could be graded.",
        )
    tree = _parse(source)
    flags = source_flags(tree) if tree else frozenset()
    series = m["dead_weight"]
    dead = analyse(series["lows"], series["highs"], series["releases"], series["loops"])
    reach = analyse(m["reach"]["lows"], m["reach"]["highs"])
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
            **(
                {"reserved": [r - m["reserved"][0] for r in m["reserved"]]}
                if m.get("reserved")
                else {}
            ),
        },
    }
    if reach.growing is not None or dead.growing is not None:
        if reach.growing is not None:
            culprit = _reach_culprit(m, flags)
            message, hint = _explain_reach(culprit, flags, tree)
        elif dead.growing is not None:  # (always so here)
            culprit = _dead_culprit(m, dead.growing)
            message, hint = _explain_dead(culprit, dead.growing, m, flags, tree)
        verdict["extra"]["retained_total"] = len(culprit.holders) if culprit else 0
        return Verdict(
            verdict="leak", message=message, hint=hint, retained=_retained(culprit, tree), **verdict
        )
    notes = _notes(m, dead, reach, tree)
    return Verdict(
        verdict="clean", message=_explain_clean(common["steps"], shape), notes=notes, **verdict
    )


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


def _not_graded(common: _Common, kind: str, message: str) -> Verdict:
    from checkers.verdict import ErrorInfo

    return Verdict(verdict="error", message=message, error=ErrorInfo(kind, message), **common)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
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


def _dead_culprit(m: Measurements, window: Window) -> Culprit | None:
    """The holders of the window's graph, from the scan that found most of them: the final
    scan for growth still held at the end, an earlier one for growth that was let go."""
    start, end = _window_generations(m["dead_weight"], window)
    best: list[Holder] = []
    for scan in m["scans"]:
        if end is not None and not start <= scan["generation"] <= end:
            continue
        holders = [
            h
            for h in scan["holders"]
            if h["keys"] is not None
            and (end is None or h["keys"][0] <= end)
            and h["keys"][1] >= start - 1
        ]
        if len(holders) >= len(best):
            best = holders
    return _group(best)


def _reach_culprit(m: Measurements, flags: frozenset[str]) -> Culprit | None:
    """The holder whose graph many backward passes ran through and that the snippet computes
    from itself (the state carried from step to step, not this step's loss built on it);
    else the one most passes ran through."""
    holders = [h for h in m["scans"][-1]["holders"] if h["passes"] > 1] if m["scans"] else []
    if not holders:
        return None
    carried = [h for h in holders if f"feeds:{_last(h['path'])}" in flags]
    most = max(carried or holders, key=lambda h: h["passes"])
    return Culprit(most["path"], (most,), most["passes"])


def _last(path: str) -> str:
    return path.split("[", 1)[0].rsplit(".", 1)[-1]


def _group(holders: Sequence[Holder]) -> Culprit | None:
    """The container most holders sit in, or the single holder that spans the most steps,
    whichever holds more steps' graphs. Holders are grouped where their paths first take a
    position (`losses` for `losses[3]`, `records` for `records[3]['loss']`), and the container
    is named as far as their paths agree (`hook.<closure>.acts` for `hook.<closure>.acts[3]`)."""
    if not holders:
        return None
    groups: dict[str, list[Holder]] = {}
    for holder in holders:
        groups.setdefault(_POSITION.split(holder["path"], 1)[0], []).append(holder)
    _, members = max(groups.items(), key=lambda item: _steps_held(item[1]))
    single = max(holders, key=lambda h: h["generations"])
    if single["generations"] >= _steps_held(members):
        return Culprit(single["path"], (single,), single["generations"])
    members.sort(key=lambda h: _natural(h["path"]))
    return Culprit(
        _container_of([h["path"] for h in members]), tuple(members), _steps_held(members)
    )


def _container_of(paths: Sequence[str]) -> str:
    """Where several holders' paths part: up to the last `[` before their first difference."""
    first, last = min(paths), max(paths)
    common = 0
    while common < min(len(first), len(last)) and first[common] == last[common]:
        common += 1
    return (
        first[: first.rfind("[", 0, common + 1)] if "[" in first[: common + 1] else first[:common]
    )


def _many(holder: Holder) -> str:
    """How much history one holder chains: in optimizer steps, or loop iterations without one."""
    if holder["steps"] > 1:
        return f"{holder['steps']} steps"
    return f"{holder['generations']} iterations"


def _steps_held(holders: Sequence[Holder]) -> int:
    keys: set[int] = set()
    for holder in holders:
        if holder["keys"] is not None:
            keys.update((holder["keys"][0], holder["keys"][1]))
    return max(len(holders), len(keys)) if len(holders) > 1 else holders[0]["generations"]


def _natural(path: str) -> tuple[int | str, ...]:
    return tuple(
        int(part) if part.isdigit() else part
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
    from_step = series["steps"][begin] if series["steps"] else 0
    loop = series["loops"][begin] if series["loops"] else 0
    where = f" while the loop at line {loop} ran" if loop else ""
    late = f" from step {from_step} on" if from_step > 2 else ""
    if culprit is None:
        message = (
            f"Graph nobody will backpropagate through again piled up{late}{where}, about"
            f" {window.peak} steps' worth, held somewhere grill could not name."
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
        return message, (
            "Register the hook once, before the loop; or keep the handle that"
            " `register_..._hook` returns and call `handle.remove()` when the step"
            " is done with it."
        )
    if culprit.is_container:
        kind = "graph nodes" if first["node_only"] else "tensors that still carry their graphs"
        count = len(culprit.holders)
        many = f"at least {count}" if any(s["capped"] for s in m["scans"]) else str(count)
        message = (
            f"`{culprit.path}` holds {many} {kind} ({first['grad_fn']}){at}{late}{where}:"
            f" each step adds one{ending}."
        )
    else:
        message = (
            f"`{culprit.path}` chains the graphs of {_many(first)} into one"
            f" ({first['grad_fn']}, {first['nodes']} nodes){at}{late}: every step links"
            f" its graph onto it{ending}."
        )
    return message, _hint_for(culprit, line, flags, tree)


def _hint_for(
    culprit: Culprit, line: int | None, flags: frozenset[str], tree: ast.Module | None
) -> str:
    first = culprit.first
    at = f" at line {line}" if line else ""
    stored = stored_name(tree, line) if tree is not None and line else None
    if first["node_only"]:
        return (
            "Keep what you need from a graph node (its name, a number), not the node: a"
            " `grad_fn` holds its whole graph."
        )
    name = culprit.path.rsplit(".", 1)[-1]
    if f"carried:{name}" in flags:
        return (
            f"`{name}` is fed back into the next step with its graph: detach it where one"
            f" sequence or chunk ends (`{name} = {name}.detach()`), or start it fresh."
        )
    if (
        first["path"].endswith(".grad")
        or "create_graph" in flags
        and not first["root_used"]
        and first["grad_fn"] != "AddBackward0"
    ):
        return (
            "Gradients made with create_graph=True carry a graph of their own: keep"
            " `g.detach()` (or `.item()`), and after `backward(create_graph=True)` set"
            " `p.grad = None` once the step is done, so `.grad` does not hold it."
        )
    tail = _retain_note(flags, culprit)
    value = f"`{stored}`" if stored else "what is stored"
    if first["view"]:
        return (
            f"Store `{stored or 'x'}.detach().clone()`{at}: a detached slice still keeps the whole"
            f" batch's storage alive, and the original keeps its graph.{tail}"
        )
    if culprit.is_container:
        item, detached = (
            (f"`{stored}.item()`", f"`{stored}.detach()`")
            if stored
            else ("its `.item()`", "its `.detach()`")
        )
        if first["numel"] == 1:
            return (
                f"Store {item} (a number) or {detached}{at}, not {value} itself, which"
                f" still points at its graph.{tail}"
            )
        return f"Store {detached}{at} (a tensor without its graph), not {value} itself.{tail}"
    if first["numel"] == 1 and not first["root_used"]:
        return (
            f"Add `loss.item()` (a number) to `{name}`{at}, or `loss.detach()` to keep a"
            f" tensor; what you add still carries its graph.{tail}"
        )
    return (
        f"`{name}` must stay a tensor: write `.detach()`ed values into it{at}, or compute"
        f" what you write under `torch.no_grad()` (a key encoder's forward, an EMA"
        f" update).{tail}"
    )


def _retain_note(flags: frozenset[str], culprit: Culprit) -> str:
    if "retain_graph" in flags and not any(
        h["used"] and h["generations"] > 1 for h in culprit.holders
    ):
        return (
            " retain_graph=True also keeps every kept graph's saved activations: drop it"
            " unless a second backward pass runs through the same graph."
        )
    return ""


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
    name = culprit.path.rsplit(".", 1)[-1]
    line = _stored_line(tree, first["stored"]) or first["line"]
    at = f" (line {line})" if line else ""
    if f"carried:{root}" in flags or f"carried:{name}" in flags:
        return (
            f"{lead}: `{culprit.path}` is fed back into the next step with its graph{at}, so"
            " the graph grows every step and each backward() takes longer.",
            f"Detach it where one sequence or chunk ends (`{name} = {name}.detach()`), or start"
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
            f" Memory still grows by about {format_bytes(shape.growth_per_step)} a step:"
            " that is data the loop keeps on purpose (detached tensors or values), not"
            " graphs."
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
        culprit = _dead_culprit(m, dead.bounded)
        who = f"`{culprit.path}`" if culprit is not None else "Something"
        notes.append(
            f"{who} keeps up to {dead.bounded.peak} steps' graphs and then lets them go,"
            f" again and again ({dead.repeats} times): bounded, so not a leak, but"
            " memory the loop does not need; store `.item()` or `.detach()` instead."
        )
    if m.get("unwatched_nodes"):
        notes.append(
            f"{m['unwatched_nodes']} graph nodes still alive at the end were made where"
            " grill could not watch them being made; they were counted as alive."
        )
    return tuple(notes)
