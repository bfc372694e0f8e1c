"""A rendezvous or store that never answers is a stalled rendezvous, named per rank, caught by
the stall rule (`Limits.stall_seconds` of no progress), not by the wall clock."""

from __future__ import annotations

import time

import pytest

from checkers.api import FINISH_MARGIN_S, grade_source
from checkers.verdict import EXIT_NOT_GRADED

HEAD = "import os\nimport torch\nimport torch.distributed as dist\n"
BUDGET = 3.0


@pytest.fixture
def ranked(either_sandbox):
    if not either_sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    return either_sandbox


@pytest.mark.parametrize(
    "source,call",
    [
        ("store = dist.TCPStore('127.0.0.1', 29999, 2, False)\n", "TCPStore"),
        (
            "dist.init_process_group('gloo', init_method='tcp://127.0.0.1:29511',"
            " rank=int(os.environ['RANK']), world_size=3)\n",
            "init_process_group",
        ),
    ],
    ids=["store-with-no-server", "rendezvous-short-of-a-rank"],
)
def test_a_rendezvous_that_never_answers_is_a_hang_named_per_rank(ranked, source, call):
    started = time.monotonic()
    verdict = grade_source(HEAD + source, ranks=2, sandbox=ranked, seconds=BUDGET)
    elapsed = time.monotonic() - started
    assert (verdict.verdict, verdict.exit_code) == ("hang", EXIT_NOT_GRADED), verdict.message
    assert f"ranks 0–1 wait in `{call}` at line 4" in verdict.message
    assert elapsed < BUDGET + FINISH_MARGIN_S, "the wall clock ended it, not the stall rule"
