"""Ranked runs given bad input or pushed to their limits: a rank count out of range
is a usage error before any worker starts; a snippet that initialises twice, asks for another
backend, rendezvous outside the run, forks or loops forever gets a clear verdict (not graded,
naming the line and why, or a hang named per rank), in both modes; and none leaves a process
or a scratch file behind, nor, through the CLI, a child process or a `grill-sandbox-*` folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import cast

import pytest
from pace import bound
from sandbox_witness import process_tree, worker_pid

from checkers import api
from checkers.__main__ import main as checkers_main
from checkers.api import UsageError, grade_source
from checkers.sandbox import Sandbox
from checkers.sandbox.child import CRASH_LOG
from checkers.verdict import EXIT_NOT_GRADED, EXIT_USAGE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUDGET = 3.0
HEAD = "import os\nimport torch\nimport torch.distributed as dist\n"
"""Three lines before every snippet below: line numbers count from them."""


@pytest.fixture
def ranked(either_sandbox):
    """A sandbox that can rank (skipped where the machine gives it no network of its own)."""
    if not either_sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    return either_sandbox


def worker_folder(box: Sandbox) -> list[str]:
    """What the worker's folder holds once it has cleared the last run's scratch (it does so
    just after that run's answer, and before it takes the next request)."""
    deadline = time.monotonic() + bound(1)
    while True:
        names = sorted(os.listdir(cast(str, box._workdir)))
        if not any(n.startswith(CRASH_LOG) for n in names) or time.monotonic() > deadline:
            return names
        time.sleep(0.05)


def scratch(box: Sandbox) -> tuple[list[str], list[str]]:
    """A rank's scratch folder, from inside, and then the worker's folder, from outside: the
    inside run is the next request, so what the last run left has been cleared by then, and
    all that may still be there is the listing ranks' own crash records."""
    inside = box.run_ranked("rank_job:run_rank", [{"act": "listdir"}] * 2)
    assert inside.ended_by == "finished", inside
    listed = {
        name
        for rank in inside.ranks
        for name in rank.result["files"]
        if not name.startswith(CRASH_LOG)  # each listing rank's own crash record
    }
    return worker_folder(box), sorted(listed)


PRISTINE: dict[int, tuple[list[str], list[str]]] = {}
"""Each worker's scratch as its first ranked run here found it, by the worker's process id:
every run's scratch is cleared before the next one, so each run must leave it as found then
(a run that left a file fails, and so do the runs after it while the file stays)."""


def graded_leaving_nothing(box: Sandbox, source: str):
    """`source` (after HEAD) graded as 2 ranks; no process of the run and no file it wrote
    outlive it."""
    baseline = process_tree(worker_pid(box))
    if worker_pid(box) not in PRISTINE:
        PRISTINE[worker_pid(box)] = scratch(box)
    before = PRISTINE[worker_pid(box)]
    verdict = grade_source(HEAD + source, ranks=2, sandbox=box, seconds=BUDGET)
    assert process_tree(worker_pid(box)) == baseline, "a process of the ranked run survived it"
    assert scratch(box) == before, "the ranked run left files in its scratch"
    return verdict


# -- the number of ranks -------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, -1, 17, 10**20])
def test_a_rank_count_out_of_range_is_a_usage_error_before_any_worker_starts(count):
    box = Sandbox(device="cpu")
    with pytest.raises(UsageError, match="from 1 to 16"):
        grade_source("import torch\n", ranks=count, sandbox=box)
    assert box._process is None and box._workdir is None, "a worker started"


@pytest.mark.parametrize("count", ["0", "17", "100000000000000000000"])
def test_the_cli_says_the_range_of_ranks_and_exits_2(tmp_path, capsys, monkeypatch, count):
    """`python -m checkers` called in this process: a usage error starts nothing, so a process
    of its own would show nothing more (test_check_cli runs it as one)."""
    monkeypatch.setattr(Sandbox, "start", lambda self: pytest.fail("a worker was started"))
    snippet = tmp_path / "ddp.py"
    snippet.write_text("import torch\n")
    returncode = checkers_main(["--ranks", count, str(snippet)])
    stderr = capsys.readouterr().err
    assert returncode == EXIT_USAGE, stderr
    assert "--ranks must be" in stderr and "from 1 to 16" in stderr
    assert "Traceback" not in stderr


# -- snippets a rank cannot run ------------------------------------------------------------

INIT = 'dist.init_process_group("gloo")\n'
REFUSED_AT_THEIR_LINE = [
    # (name, source after HEAD, status, fragment of the message, line)
    ("init-twice", INIT + INIT, "error", "initialize the default process group twice", 5),
    ("nccl-on-cpu", 'dist.init_process_group("nccl")\n', "refused", "backend='nccl'", 4),
    ("mpi", 'dist.init_process_group(backend="mpi")\n', "refused", "backend='mpi'", 4),
    (
        "new-group-mpi",
        INIT + 'group = dist.new_group(backend="mpi")\n',
        "refused",
        "new_group(backend='mpi')",
        5,
    ),
    (
        "tcp-private-address",
        'dist.init_process_group("gloo", init_method="tcp://10.1.2.3:29500", rank=0, world_size=2)\n',
        "refused",
        "init_method='tcp://10.1.2.3:29500'",
        4,
    ),
    (
        "tcp-public-address",
        "rank = int(os.environ['RANK'])\n"
        'dist.init_process_group("gloo", init_method="tcp://8.8.8.8:29500", rank=rank, world_size=2)\n',
        "refused",
        "init_method='tcp://8.8.8.8:29500'",
        5,
    ),
    (
        "tcp-v4-mapped-address",
        'dist.init_process_group("gloo", init_method="tcp://[::ffff:8.8.8.8]:29500", rank=0, world_size=2)\n',
        "refused",
        "::ffff:8.8.8.8",
        4,
    ),
    (
        "master-addr-moved",
        "os.environ['MASTER_ADDR'] = '8.8.8.8'\n" + INIT,
        "refused",
        "MASTER_ADDR='8.8.8.8'",
        5,
    ),
    (
        "store-outside",
        "store = dist.TCPStore('8.8.8.8', 29500, 2, False)\n",
        "refused",
        "TCPStore('8.8.8.8')",
        4,
    ),
    (
        "rendezvous-outside",
        "rank = int(os.environ['RANK'])\n"
        "next(dist.rendezvous('tcp://8.8.8.8:29500', rank=rank, world_size=2))\n",
        "refused",
        "rendezvous(init_method='tcp://8.8.8.8:29500')",
        5,
    ),
    (
        "rendezvous-machinery",
        "from torch.distributed.rendezvous import _create_c10d_store\n"
        "_create_c10d_store('8.8.8.8', 29500, 1, 2, timeout=None)\n",
        "refused",
        "_create_c10d_store' is not available",
        4,
    ),
    ("fork", INIT + "pid = os.fork()\n", "refused", "'os.fork' is not available", 5),
    (
        "subprocess",
        "import subprocess\n" + INIT + "subprocess.run(['sleep', '100'])\n",
        "refused",
        "'subprocess.run' is not available",
        6,
    ),
    (
        "spawn",
        "import torch.multiprocessing as mp\ndef rank(i):\n    pass\nmp.spawn(rank, nprocs=2)\n",
        "refused",
        "'torch.multiprocessing' is not available",
        4,
    ),
]


@pytest.mark.parametrize(
    "source,status,fragment,line",
    [case[1:] for case in REFUSED_AT_THEIR_LINE],
    ids=[case[0] for case in REFUSED_AT_THEIR_LINE],
)
def test_a_snippet_a_rank_cannot_run_is_not_graded_at_its_line(
    ranked, source, status, fragment, line
):
    verdict = graded_leaving_nothing(ranked, source)
    assert not verdict.graded and verdict.exit_code == EXIT_NOT_GRADED
    assert verdict.verdict == status, (verdict.verdict, verdict.message)
    assert fragment in verdict.message, verdict.message
    # every rank refuses at that line, or the first to refuse ends its peer before it gets
    # there: which comes first is the scheduler's
    assert verdict.message.startswith(("Ranks 0–1: ", "Rank 0: ", "Rank 1: ")), verdict.message
    assert any(rank.state == "failed" for rank in verdict.ranks), verdict.ranks
    assert verdict.error is not None and verdict.error.line == line, verdict.error


# -- ranks that never finish ---------------------------------------------------------------


def test_ranks_that_all_loop_forever_are_stopped_by_their_budget(ranked):
    verdict = graded_leaving_nothing(ranked, INIT + "x = 0\nwhile True:\n    x += 1\n")
    assert (verdict.verdict, verdict.exit_code) == ("timeout", EXIT_NOT_GRADED), verdict.message
    assert verdict.message.startswith("Ranks 0–1: The time budget ran out"), verdict.message
    assert [rank.summary for rank in verdict.ranks] == ["stopped by its budget"] * 2


def test_ranks_that_sleep_past_the_wall_clock_are_a_timeout_naming_their_line(sandbox, monkeypatch):
    """Idle ranks that wait on nothing are no hang (no collective) and use no budget (no
    step): the wall clock ends them, and each says where it stood (one mode: it takes the
    wall clock's margin, here one that leaves the ranks time to reach their sleep on this
    machine now instead of grill's 20 s)."""
    if not sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    monkeypatch.setattr(api, "FINISH_MARGIN_S", bound(0.3))
    verdict = graded_leaving_nothing(sandbox, "import time\n" + INIT + "time.sleep(1000)\n")
    assert (verdict.verdict, verdict.exit_code) == ("timeout", EXIT_NOT_GRADED), verdict.message
    assert [rank.summary for rank in verdict.ranks] == ["timed out at line 6"] * 2


def test_a_rank_that_loops_forever_while_the_other_waits_is_a_hang_named_per_rank(ranked):
    verdict = graded_leaving_nothing(
        ranked,
        INIT + "if dist.get_rank() == 1:\n    while True:\n        pass\n"
        "t = torch.ones(1)\ndist.all_reduce(t)\n",
    )
    assert (verdict.verdict, verdict.exit_code) == ("hang", EXIT_NOT_GRADED), verdict.message
    assert "rank 0 waits in `all_reduce` at line 9" in verdict.message
    assert "rank 1 stopped by its budget" in verdict.message


def test_a_collective_only_rank_0_calls_is_a_hang_caught_before_the_budget(ranked):
    verdict = graded_leaving_nothing(
        ranked, INIT + "t = torch.ones(1)\nif dist.get_rank() == 0:\n    dist.all_reduce(t)\n"
    )
    assert verdict.verdict == "hang", verdict.message
    assert "rank 0 waits in `all_reduce` at line 7; rank 1 finished at line 7" in verdict.message


def test_ranks_that_write_past_their_shared_scratch_are_stopped(ranked):
    """The ranks share one scratch folder and its cap: past it, the run ends for its disk
    limit (process mode, measured), or the box's tmpfs is full (bubblewrap)."""
    megabytes = ranked.limits.scratch_bytes // (1024 * 1024)
    verdict = graded_leaving_nothing(
        ranked,
        INIT + "block = b'x' * (1024 * 1024)\nimport time\n"
        f"for i in range({megabytes}):\n"
        "    with open(f'{dist.get_rank()}-{i}', 'wb') as file:\n"
        "        file.write(block)\n"
        "    time.sleep(0.01)\n",
    )
    assert not verdict.graded and verdict.exit_code == EXIT_NOT_GRADED
    if verdict.verdict == "limit":
        assert verdict.error is not None and verdict.error.kind == "disk", verdict.error
        assert verdict.message.startswith("The ranks wrote more than"), verdict.message
        assert "ranks 0–1 ended with the run" in verdict.message, verdict.message
    else:
        assert verdict.verdict == "error" and "No space left" in verdict.message, verdict.message


# -- through the CLI: nothing outlives grill -------------------------------------------------

REAPER = """\
import ctypes, glob, json, os, subprocess, sys, tempfile, time
ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: what grill leaves behind is ours
run = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
out, err = run.communicate()
def children():
    found = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as file:
            found += [int(pid) for pid in file.read().split()]
    return found
deadline = time.monotonic() + 10
while children() and time.monotonic() < deadline:  # a worker still on its way out
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    time.sleep(0.05)
left = children()
for pid in left:
    os.kill(pid, 9)
folders = glob.glob(os.path.join(tempfile.gettempdir(), f"grill-sandbox-{run.pid}-*"))
print(json.dumps({"code": run.returncode, "out": out, "err": err, "left": left, "folders": folders}))
"""
"""Runs a command as a child subreaper: the processes its descendants leave behind become
this process's children, which it names (and ends); and the worker folders of the command's
own process id left in the temp folder."""

CLI_CASES = [
    ("fork", INIT + "pid = os.fork()\n", "'os.fork' is not available"),
    ("loop-forever", INIT + "while True:\n    pass\n", "The time budget ran out"),
    (
        "hang",
        INIT + "t = torch.ones(1)\nif dist.get_rank() == 0:\n    dist.all_reduce(t)\n",
        "rank 0 waits in `all_reduce` at line 7",
    ),
]


@pytest.mark.parametrize(
    "source,fragment", [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES]
)
def test_grill_check_with_ranks_leaves_no_process_and_no_folder(
    sandbox, tmp_path, source, fragment
):
    if not sandbox.can_rank:
        pytest.skip("this machine gives the sandbox no network of its own: ranked runs refused")
    snippet = tmp_path / "ranked.py"
    snippet.write_text(HEAD + source)
    command = [sys.executable, "-m", "checkers", "--ranks", "2", "--seconds", str(BUDGET)]
    reaped = subprocess.run(
        [sys.executable, "-c", REAPER, *command, "--json", str(snippet)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=bound(20),
    )
    found = json.loads(reaped.stdout)
    assert found["code"] == EXIT_NOT_GRADED, found["err"]
    assert fragment in json.loads(found["out"])["message"]
    assert found["left"] == [], "a process of grill's outlived it"
    assert found["folders"] == [], "grill left its worker folder"
