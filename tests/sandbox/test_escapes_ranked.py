"""The escape suites held with ranks > 1: their own tests and lists, run as ranked
runs of `WORLD` ranks, in both modes.

- `test_policy_escapes_in_a_loop.py`: its two list tests (`REFUSED`, `HELD`) on every
  `EVERY`-th entry of their lists, starting with the first, through a sandbox whose `run` is
  a ranked run (`RankedBox`): the snippet runs as every rank, with torch.distributed open to
  it as to a graded rank; with bubblewrap, and a sample of them without it, as the single
  runs of those lists (`isolation_modes`).
- `test_isolation_probes.py` and `test_verdict_integrity.py`: every test that is not
  parametrized, through the same `RankedBox`, with its own fixtures.
- `test_verdict_integrity.py`'s `GRADED` list (every `EVERY`-th entry) graded as ranks by
  `grade_source(..., ranks=WORLD)`: the same verdict as a single run.

A rank refused or failed ends its peers (torchrun's rule), so a peer may come back "ended"
instead of refused: every rank must end as the one the suite's assertions read, or be ended.
"""

from __future__ import annotations

import inspect
import socket
from collections.abc import Mapping

import pytest
import test_isolation_probes as probes
import test_policy_escapes_in_a_loop as in_a_loop
import test_verdict_integrity as integrity
from isolation_modes import in_modes
from sandbox_witness import process_tree, worker_pid

from checkers.api import grade_source
from checkers.sandbox import Outcome, Sandbox
from checkers.verdict import EXIT_FAILED

WORLD = 2
EVERY = 5
"""Of each list, the entries 0, EVERY, 2·EVERY...: a rule, not a hand-picked set."""

host_file = probes.host_file  # a fixture of the probes' own, for the test that uses it


class RankedBox:
    """A sandbox whose `run` runs the job as WORLD ranks (each payload told its rank) and
    gives back the outcome the suites' assertions read: the limit of the whole run that ended
    it, else the rank the run failed on, else the last rank; everything else is the
    sandbox's own."""

    def __init__(self, box: Sandbox):
        self.box = box

    def run(
        self, job: str, payload: Mapping[str, object], timeout_s: float | None = None
    ) -> Outcome:
        ranked = self.box.run_ranked(
            job,
            [{**payload, "rank": rank, "world": WORLD} for rank in range(WORLD)],
            timeout_s=timeout_s,
        )
        if ranked.ended_by == "limit":  # of the whole run: each rank was ended for it
            assert ranked.limit is not None
            return Outcome("limit", None, "", ranked.limit, ranked.device, ranked.wall_s)
        read = ranked.ranks[ranked.failed_rank if ranked.failed_rank is not None else -1]
        for rank, outcome in enumerate(ranked.ranks):
            ended = outcome.error is not None and outcome.error.kind == "ended"
            assert outcome.status == read.status or ended, (rank, outcome, read)
        return read

    def __getattr__(self, name: str) -> object:
        return getattr(self.box, name)


@pytest.fixture
def ranked_box(either_sandbox) -> RankedBox:
    if not either_sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    return RankedBox(either_sandbox)


def every(cases: list) -> list:
    return cases[::EVERY]


REFUSED = every(in_a_loop.REFUSED)
HELD = every(in_a_loop.HELD)
GRADED = every(integrity.GRADED)


@pytest.mark.parametrize(
    "either_sandbox,attack,fragment", in_modes(REFUSED), indirect=["either_sandbox"]
)
def test_an_attack_in_a_training_loop_is_refused_on_every_rank(
    ranked_box, witness, attack, fragment
):
    in_a_loop.test_an_attack_in_a_training_loop_is_refused_and_changes_nothing(
        ranked_box, witness, attack, fragment
    )


@pytest.mark.parametrize(
    "either_sandbox,attack,status", in_modes(HELD), indirect=["either_sandbox"]
)
def test_code_in_a_training_loop_that_reaches_nothing_is_held_on_every_rank(
    ranked_box, witness, attack, status
):
    in_a_loop.test_code_in_a_training_loop_that_reaches_nothing_runs_and_changes_nothing(
        ranked_box, witness, attack, status
    )


def plain_tests(module: object) -> list[str]:
    """The module's tests that are not parametrized, by name."""
    return [
        name
        for name, test in vars(module).items()
        if name.startswith("test_") and callable(test) and not hasattr(test, "pytestmark")
    ]


NOT_THE_SAME = {
    "test_no_udp_datagram_leaves_the_run": "a rank may open sockets (its peers are on"
    " loopback), so the datagram is sent, inside the run's own network, and reaches nothing:"
    " test_nothing_a_rank_sends_reaches_the_host",
}
"""Probes whose single-run assertion is not what holds for a rank, each with what holds."""

SUITES = [(probes, name) for name in plain_tests(probes) if name not in NOT_THE_SAME] + [
    (integrity, name) for name in plain_tests(integrity)
]


@pytest.mark.parametrize("module,name", SUITES, ids=[f"{m.__name__}::{n}" for m, n in SUITES])
def test_a_probe_or_a_forgery_is_held_as_ranks(request, ranked_box, module, name):
    test = getattr(module, name)
    if "sandbox" in inspect.signature(test).parameters and (
        ranked_box.box is not request.getfixturevalue("sandbox")
    ):
        pytest.skip("a test of bubblewrap's box alone")
    arguments = {}
    for parameter in inspect.signature(test).parameters:
        if parameter in ("sandbox", "either_sandbox"):
            arguments[parameter] = ranked_box
        else:
            arguments[parameter] = request.getfixturevalue(parameter)
    test(**arguments)


@pytest.mark.parametrize(
    "source,expected", [(s, e) for _, s, e in GRADED], ids=[name for name, _, _ in GRADED]
)
def test_an_attack_on_the_grader_is_graded_the_same_as_ranks(
    either_sandbox, witness, source, expected
):
    if not either_sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    baseline = process_tree(worker_pid(either_sandbox))
    verdict = grade_source(source, sandbox=either_sandbox, seconds=3, ranks=WORLD)
    assert verdict.verdict == expected, (verdict.verdict, verdict.message, verdict.error)
    assert verdict.exit_code == (EXIT_FAILED if expected == "leak" else 0)
    witness.assert_untouched(integrity.verdict_outcome(verdict), either_sandbox, baseline)


def test_nothing_a_rank_sends_reaches_the_host(ranked_box, witness):
    """A rank's sockets are open, in a network that holds nothing but the run's loopback: a
    datagram to a host listener and a connection to another arrive nowhere."""
    baseline = process_tree(worker_pid(ranked_box.box))
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(0.3)
    sent = ranked_box.run("probe_jobs:send_udp", {"port": listener.getsockname()[1]})
    assert sent.status == "ok", sent.error
    with pytest.raises(socket.timeout):
        listener.recvfrom(64)
    listener.close()
    connect = ranked_box.box.run_ranked(
        "rank_job:run_rank", [{"act": "connect", "port": witness.port}] * WORLD
    )
    assert [rank.result for rank in connect.ranks] == [{"reached": False}] * WORLD, connect
    witness.assert_untouched(sent, ranked_box.box, baseline)
