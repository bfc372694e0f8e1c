"""Count the autograd nodes a snippet leaves alive, for the pack's starter/solution test.

A stand-in for the real grader while it is being built: run as a script, it reads a JSON list
of `{"name", "code", "steps"}` from stdin, executes each snippet with its `STEPS = 60` line
rewritten to every requested count, and prints `{name: {steps: nodes}}` as JSON. One process
runs them all so torch is imported once.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import re
import sys

import torch

STEPS_LINE = re.compile(r"^STEPS = \d+$", re.MULTILINE)


def graph_roots() -> list[torch.Tensor]:
    """Every live tensor that still holds a graph: non-parameters with a grad_fn, and
    parameter gradients that carry one (left behind by `backward(create_graph=True)`)."""
    roots = []
    for obj in gc.get_objects():
        if not isinstance(obj, torch.Tensor):
            continue
        if isinstance(obj, torch.nn.Parameter):
            if obj.grad is not None and obj.grad.grad_fn is not None:
                roots.append(obj.grad)
        elif obj.grad_fn is not None:
            roots.append(obj)
    return roots


def reachable_nodes(roots: list[torch.Tensor]) -> int:
    """Distinct backward nodes reachable from the roots (the nodes are kept in the dict
    while walking so that no id is reused)."""
    seen: dict[int, object] = {}
    stack = [root.grad_fn for root in roots]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def nodes_left_by(code: str, steps: int) -> int:
    source, replaced = STEPS_LINE.subn(f"STEPS = {steps}", code)
    if replaced != 1:
        raise ValueError("the snippet needs exactly one `STEPS = <n>` line")
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<snippet>", "exec"), namespace)
    gc.collect()
    count = reachable_nodes(graph_roots())
    namespace.clear()
    gc.collect()
    return count


def main() -> None:
    jobs = json.load(sys.stdin)
    if jobs:
        # A first run makes torch import what it loads lazily; freezing everything alive after it
        # keeps those objects out of every later collection and scan, which makes them fast.
        nodes_left_by(jobs[0]["code"], 1)
        gc.freeze()
    report = {job["name"]: {str(n): nodes_left_by(job["code"], n) for n in job["steps"]} for job in jobs}
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
