"""Turn measurements into a verdict, an explanation naming the culprit, and a hint.

Pure data in, `Verdict` out: no torch here, so the rules are tested directly.

The rule: a loop leaks when autograd nodes older than the allowed age are still reachable.
The allowed age is one step (the last `loss` and `out` are alive at the top of the next
step), or longer when the snippet really backpropagates through several steps' graph
(gradient accumulation over a summed loss): then it is the longest span backward() ever
reached, as long as that span stays bounded. A span that grows with every step is itself
the leak (retain_graph=True over a hidden state that is never detached).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from checkers.curve import Shape, classify, classify_cuda
from checkers.verdict import Retained, Verdict

STALE_SAMPLES_FOR_LEAK = 2
"""Steps with stale graphs needed to call a leak (one could be a reference cycle gc missed)."""
GROWING_SPAN_RUN = 4
REPORTED_RETAINED = 20
_POSITION = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Holder:
    """A graph-bearing tensor found by a scan, before the allowed age is known."""

    path: str
    grad_fn: str
    graph_nodes: int
    saved_bytes: int
    line: int | None
    age: int | None
    """Steps between the scan and the oldest node of its graph (None: no stamped node)."""
    stored: str | None = None
    """The variable the snippet put in the container at `line` (`h` in `states.append(h)`)."""
    higher_order: bool = False
    """Its graph runs through a gradient made with create_graph=True."""


@dataclass(frozen=True)
class Measurements:
    device: str
    memory: Sequence[float]
    """Bytes per step: host heap on CPU, allocated bytes on CUDA."""
    ages: Sequence[Sequence[int]]
    """Per step, live autograd nodes by age in steps (the last bucket holds the older ones)."""
    nodes: Sequence[int]
    backward_spans: Sequence[int]
    """Per step, how far back backward() reached (-1: no backward that step)."""
    holders: Sequence[Holder] = ()
    """Graph-bearing tensors alive when the loop ended (or was stopped)."""
    holders_capped: bool = False
    """A scan stopped summarising at its limit: there are more holders than listed."""
    stale_run_holders: Sequence[Holder] = ()
    """The same, scanned when stale graphs last appeared (for leaks that reset later)."""
    culprit: dict | None = None
    """From the census: grad_fn, line and oldest_age of the tensor with the most stale nodes."""
    reserved: Sequence[float] = ()
    source_flags: frozenset[str] = frozenset()
    """From the source: `retain_graph` (passed as True), `carried:NAME`."""
    output: str = ""
    extra: dict = field(default_factory=dict)


def judge(m: Measurements) -> Verdict:
    """The verdict by the rule in the module docstring, with the memory curve's shape."""
    steps = len(m.nodes)
    spans = [s for s in m.backward_spans[:steps] if s >= 0]
    growing = _growing(spans)
    oldest_bucket = len(m.ages[0]) - 1 if m.ages else 2
    allowed = 1 if growing else max(1, min(max(spans, default=0), oldest_bucket - 1))
    stale = [sum(row[allowed + 1:]) for row in m.ages]
    retained = sorted((h for h in m.holders if h.age is not None and h.age > allowed),
                      key=lambda h: _natural(h.path))
    if not retained and any(stale):
        retained = sorted((h for h in m.stale_run_holders if h.age is not None and h.age > allowed),
                          key=lambda h: _natural(h.path))
    stale_steps = sum(1 for count in stale if count)
    leak = growing or stale_steps >= STALE_SAMPLES_FOR_LEAK or bool(retained)
    shape = _shape(m)
    base = m.memory[0] if m.memory else 0.0
    extra = {
        **m.extra,
        "graph_nodes": list(m.nodes),
        "stale_nodes": stale,
        "allowed_age": allowed,
        "called_at_step": _called_at(stale, spans_by_step=m.backward_spans[:steps]) if leak else None,
        "retained_total": len(retained),
    }
    if m.reserved:
        extra["reserved"] = [r - m.reserved[0] for r in m.reserved]
    message, hint = (_explain_leak(retained, m, growing, allowed) if leak
                     else (_explain_clean(steps, shape), ""))
    return Verdict(
        verdict="leak" if leak else "clean", device=m.device, steps=steps, pattern=shape.pattern,
        growth_bytes_per_step=round(shape.growth_per_step, 1),
        samples=tuple(v - base for v in m.memory),
        retained=tuple(Retained(h.path, h.grad_fn, h.graph_nodes, h.saved_bytes, h.line)
                       for h in retained[:REPORTED_RETAINED]),
        message=message, hint=hint, output=m.output, extra=extra)


def _growing(spans: Sequence[int]) -> bool:
    """backward() reaches one step further every time: the graph it runs through never ends."""
    tail = spans[-GROWING_SPAN_RUN:]
    return (len(tail) == GROWING_SPAN_RUN and tail[-1] >= GROWING_SPAN_RUN
            and all(b > a for a, b in zip(tail, tail[1:])))


def _called_at(stale: Sequence[int], spans_by_step: Sequence[int]) -> int:
    """Steps observed when the evidence first sufficed (what the benchmark reports)."""
    seen, recent = 0, []
    for index, count in enumerate(stale):
        seen += count > 0
        if spans_by_step[index] >= 0:
            recent.append(spans_by_step[index])
        if seen >= STALE_SAMPLES_FOR_LEAK or _growing(recent):
            return index + 1
    return len(stale)


def _shape(m: Measurements) -> Shape:
    if not m.memory:
        return Shape(None, 0.0)
    if m.reserved:
        return classify_cuda(m.memory, m.reserved)
    return classify(m.memory)


def _natural(path: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part
                 for part in path.replace("[", " ").replace("]", " ").split())


def _explain_clean(steps: int, shape: Shape) -> str:
    text = f"No autograd graph outlived its step over {steps} steps."
    if shape.pattern == "monotonic":
        text += (f" Memory still grows by about {format_bytes(shape.growth_per_step)} a step: that is data"
                 " the loop keeps on purpose (detached tensors or values), not graphs.")
    elif shape.pattern == "sawtooth":
        text += " Memory rises and falls with the batch, and nothing accumulates."
    elif shape.pattern == "fragmentation":
        text += (" The CUDA allocator's reserved pool keeps growing while allocated bytes do not:"
                 " fragmentation from changing tensor sizes, not a retained graph.")
    return text


def _explain_leak(retained: Sequence[Holder], m: Measurements, growing: bool,
                  allowed: int) -> tuple[str, str]:
    if growing:
        message = ("Each backward() runs through the graphs of all earlier steps: a tensor carried"
                   " from step to step (often an RNN hidden state) is never detached, so the graph"
                   " grows every step.")
        hint = ("Detach what crosses the step boundary (`h = h.detach()` at the start of each"
                " chunk), and drop retain_graph=True once nothing needs the old graph.")
        return message, hint
    if retained and not any(h in m.holders for h in retained):
        first = retained[0]
        where = f" (line {first.line})" if first.line else ""
        message = (f"`{_group(retained)[0]}` kept the graphs of up to {_oldest_age(m)} earlier steps"
                   f" alive ({first.grad_fn}){where} until it was reset or replaced: what it"
                   " holds is never detached.")
        return message, _hint(first, m.source_flags)
    if retained:
        first = retained[0]
        container, count = _group(retained)
        where = f" (line {first.line})" if first.line else ""
        if count > 1:
            many = f"at least {count}" if m.holders_capped else str(count)
            message = (f"`{container}` holds {many} tensors that still carry their autograd graphs"
                       f" ({first.grad_fn}){where}: every step's graph stays alive.")
        else:
            message = (f"`{first.path}` still carries an autograd graph ({first.grad_fn},"
                       f" {first.graph_nodes} nodes) reaching back {first.age} steps{where}.")
        return message, _hint(first, m.source_flags)
    culprit = m.culprit or {}
    line = f" made at line {culprit['line']}" if culprit.get("line") else ""
    grad_fn = culprit.get("grad_fn", "a graph")
    if any(m.ages[-1][allowed + 1:]):  # still held at the last census, somewhere no scan reached
        message = (f"A tensor{line} ({grad_fn}) still keeps the graphs of up to {_oldest_age(m)}"
                   " earlier steps alive, held somewhere the grader cannot name.")
    else:
        message = (f"A tensor{line} ({grad_fn}) kept the graphs of up to {_oldest_age(m)} earlier"
                   " steps alive, then let them go: an accumulator that is reset but never detached.")
    return message, _hint(None, m.source_flags)


def _oldest_age(m: Measurements) -> int:
    """The oldest graph age any census saw (the last bucket means "at least that old")."""
    return max((age for row in m.ages for age, count in enumerate(row) if count), default=0)


def _group(retained: Sequence[Holder]) -> tuple[str, int]:
    """The container most reported tensors sit in, and how many.

    The container ends where the path first takes a position (the index that grows with the
    steps): `losses` for `losses[3]`, `records` for `records[3]['loss']` and `history[3][1]`,
    `cache['h']` for `cache['h'][3]`.
    """
    heads: dict[str, int] = {}
    for holder in retained:
        head = _POSITION.split(holder.path, 1)[0]
        heads[head] = heads.get(head, 0) + 1
    head = max(heads, key=heads.get)
    return head, heads[head]


def _hint(first: Holder | None, flags: frozenset[str]) -> str:
    path, stored = (first.path, first.stored) if first else ("", None)
    root = path.split(".", 1)[0].split("[", 1)[0]
    if f"carried:{root}" in flags:
        return (f"`{root}` is fed back into the next step with its graph: detach it where one"
                f" sequence or chunk ends (`{root} = {root}.detach()`), or start it fresh.")
    if ("[" in path or path.endswith("}")) and stored and _stored_itself(path):
        return (f"Store `{stored}.detach()` in the container (or `{stored}.item()` when it is one"
                f" number), not `{stored}` itself, which still points at its graph.")
    if path.endswith(".grad") or (first and first.higher_order):
        return ("Gradients made with create_graph=True carry a graph of their own: keep"
                " `g.detach()` (or `.item()`), and only keep the graph inside the step that uses it.")
    if "retain_graph" in flags:
        return ("Drop retain_graph=True, and store `.item()` or `.detach()` of anything you keep"
                " past the step.")
    if "[" in path or path.endswith("}"):
        return ("Store `loss.item()` (a Python float) or `tensor.detach()` in the container, not"
                " the tensor that still points at its graph.")
    name = path.rsplit(".", 1)[-1]  # `total` for `meter.<closure>.total`
    where = f" in `{name}`" if name else ""
    return (f"Keep `loss.item()` (a Python float){where}, or `.detach()` the tensor before it"
            " outlives the step, so each step's graph can be freed.")


def _stored_itself(path: str) -> bool:
    """Whether the tensor is the item put in its container (`states[3]`), not inside it
    (`episodes[3][5]`, where the stored `log_probs` is a list)."""
    head = _POSITION.split(path, 1)[0]
    return re.fullmatch(r"(\[\d+\])?", path[len(head):]) is not None


def format_bytes(amount: float) -> str:
    if abs(amount) < 1024:
        return f"{amount:.0f} B"
    if abs(amount) < 1024 ** 2:
        return f"{amount / 1024:.1f} KB"
    return f"{amount / 1024 ** 2:.1f} MB"
