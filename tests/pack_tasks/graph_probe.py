"""Count the autograd nodes a snippet leaves alive, for the pack's starter/solution test.

A stand-in for the real grader while it is being built. Run as a script, it reads a JSON list of
`{"name", "code", "steps"}` from stdin. For each job it executes the snippet once per entry of
`steps`, with its `STEPS = 60` line rewritten to that count, and reports how many backward nodes
are still reachable afterwards; a job with no `steps` is only executed. It prints
`{name: {"nodes": {steps: count}}}` or `{name: {"error": message}}` as JSON. One process runs
every job so torch is imported once.
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


def execute(source: str) -> dict:
    """Run a snippet as its own module, with its printing swallowed; return its namespace."""
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<snippet>", "exec"), namespace)
    return namespace


def nodes_left_by(code: str, steps: int) -> int:
    source, replaced = STEPS_LINE.subn(f"STEPS = {steps}", code)
    if replaced != 1:
        raise ValueError("the snippet needs exactly one `STEPS = <n>` line")
    namespace = execute(source)
    gc.collect()
    count = reachable_nodes(graph_roots())
    namespace.clear()
    gc.collect()
    return count


def run_job(job: dict) -> dict:
    try:
        if not job["steps"]:
            execute(job["code"]).clear()
            gc.collect()
            return {"nodes": {}}
        return {"nodes": {str(n): nodes_left_by(job["code"], n) for n in job["steps"]}}
    except Exception as error:  # reported per job, so one broken snippet names itself
        return {"error": f"{type(error).__name__}: {error}"}


def main() -> None:
    jobs = json.load(sys.stdin)
    # A first run makes torch import what it loads lazily; freezing everything alive after it
    # keeps those objects out of every later collection and scan, which makes them fast.
    run_job({**jobs[0], "steps": jobs[0]["steps"][:1]})
    gc.freeze()
    json.dump({job["name"]: run_job(job) for job in jobs}, sys.stdout)


if __name__ == "__main__":
    main()
