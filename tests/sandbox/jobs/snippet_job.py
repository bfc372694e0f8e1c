"""The plainest sandbox job: run a snippet under the policy and report its `result` name.

Used to try a snippet without grading it (benign controls, the escape suites, the benchmark);
loaded through `Sandbox(job_paths=...)`, as every test job is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import NoReturn, NotRequired, TypedDict

from checkers import policy
from checkers.measure import warnings_shown
from checkers.measure.grade import run_failed


class SnippetPayload(TypedDict):
    source: str
    filename: NotRequired[str]
    rank: NotRequired[int]
    world: NotRequired[int]
    """Set for a rank of a ranked run (`Sandbox.run_ranked`): the policy opens
    torch.distributed to it, as it does to a graded rank."""


def run_snippet(
    payload: SnippetPayload, finish: Callable[[Mapping[str, object]], NoReturn] | None = None
) -> dict[str, object]:
    """payload: {"source": str}, and `rank` and `world` for a rank of a ranked run.
    Returns {"result": <the snippet's `result`, if JSON>}."""
    warnings_shown.install()
    try:
        compiled = policy.compile_candidate(payload["source"], payload.get("filename", "<snippet>"))
        rank, world = payload.get("rank"), payload.get("world")
        ranked = None if rank is None or world is None else policy.Ranked(rank, world, "cpu")
        namespace = policy.candidate_namespace(compiled, rank=ranked)
        policy.run_candidate(compiled, namespace)
    except (policy.Refused, policy.CandidateError) as exc:
        raise run_failed(exc) from None
    result = namespace.get("result")
    try:
        json.dumps(result)
    except (TypeError, ValueError):
        result = repr(result)
    return {"result": result}
