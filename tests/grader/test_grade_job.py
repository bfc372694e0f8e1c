"""The child job, run in-process (the tests are trusted): what it measures, to the end of the
run or to its budget, and how the budget stops a run the snippet cannot hold up."""

import ast
import json
import os
import resource
import textwrap

import pytest
import torch
from pace import bound

from checkers.judge import judge
from checkers.judge.source import source_flags
from checkers.measure.grade import grade_job

LEAK_BODY = """
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss)
"""
PRELUDE = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
"""


@pytest.fixture(scope="module", autouse=True)
def warm_torch():
    """torch's lazy imports, as the worker warms them (before this file's first test, not while
    pytest collects: the first optimizer imports torch's compiler, 1.4 s of CPU)."""
    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


def measure(source: str, seconds: float = 60, cpu_limit: int | None = None, **payload) -> dict:
    """Run the job in a forked child, as the sandbox does: `finish` writes the result and
    ends the process, so it never returns into the snippet."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        if cpu_limit is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))

        def finish(result):
            os.write(write, json.dumps(result).encode())
            os._exit(0)

        try:
            finish(
                grade_job(
                    {
                        "source": textwrap.dedent(source),
                        "filename": "<test>",
                        "seconds": seconds,
                        **payload,
                    },
                    finish,
                )
            )
        finally:
            os._exit(1)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def verdict(source: str, **payload):
    return judge(measure(source, **payload), textwrap.dedent(source))


def test_the_whole_run_is_watched_not_a_sample_of_it():
    m = measure(PRELUDE + "for i in range(300):" + LEAK_BODY)
    assert m["stopped_by"] == "end"
    assert m["training"]["optimizer_steps"] == 300


def test_the_budget_stops_even_an_endless_loop_and_says_so():
    # (2 s on a quiet machine, longer as it gets busier: enough steps to judge even when
    # other work has the cores; a fixed 2 s judged too few steps with two suites and a CPU hog)
    m = measure(PRELUDE + "while True:" + LEAK_BODY, seconds=bound(0.2))
    assert m["stopped_by"] == "budget"
    assert judge(m).verdict == "leak"
    assert "time budget" in judge(m).coverage


def test_the_budget_stops_the_run_before_its_cpu_limit_would_kill_it():
    """On a quiet machine CPU time keeps pace with the clock: a wall budget as long as the
    CPU limit must not lose the run to the limit."""
    m = measure(PRELUDE + "while True:" + LEAK_BODY, seconds=600, cpu_limit=3)
    assert m["stopped_by"] == "budget"  # a run the CPU limit killed would have no result


def test_the_step_cap_stops_after_that_many_optimizer_steps():
    m = measure(PRELUDE + "for i in range(10_000):" + LEAK_BODY, steps=15)
    assert (m["stopped_by"], m["training"]["optimizer_steps"]) == ("steps", 15)


def test_except_base_exception_in_the_snippet_cannot_swallow_the_stop():
    body = textwrap.indent(LEAK_BODY, "    ")
    source = PRELUDE + "while True:\n    try:" + body + "    except BaseException:\n        pass\n"
    m = measure(source, seconds=0.5)
    assert m["stopped_by"] == "budget"


def test_a_leak_inside_a_function_is_named_from_the_scans_taken_while_it_ran():
    source = (
        PRELUDE
        + "def fit():\n    history = []\n    for i in range(150):"
        + textwrap.indent(LEAK_BODY.replace("kept", "history"), "    ")
        + "    return 0\nfit()\n"
    )
    result = verdict(source)
    assert result.verdict == "leak"
    assert result.message.startswith("`history` holds")
    assert result.retained[0].line == 13  # history.append(loss)


def test_a_list_returned_from_the_training_function_is_named_where_it_ends_up():
    source = (
        PRELUDE
        + """\
def train(steps):
    losses = []
    for _ in range(steps):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
history = train(40)
"""
    )
    result = verdict(source)
    assert result.verdict == "leak"
    assert {r.path.split("[")[0] for r in result.retained} == {"history"}
    assert result.extra["retained_total"] == 40


def test_a_snippet_that_builds_no_graph_is_not_graded_and_says_why():
    result = verdict("total = 0\nfor i in range(100):\n    total += i\n")
    assert (result.verdict, result.error.kind) == ("error", "NoGraph")
    assert result.training.graph_nodes == 0
    assert "trains nothing" in result.message


def test_compared_values_are_fingerprinted_and_the_seed_makes_runs_repeatable():
    source = PRELUDE + "for i in range(5):" + LEAK_BODY.replace("kept.append(loss)", "")
    first = measure(source, compare=["model", "nowhere"], seed=3)
    second = measure(source, compare=["model", "nowhere"], seed=3)
    other = measure(source, compare=["model"], seed=4)
    assert first["values"]["model"] == second["values"]["model"]
    assert first["values"]["model"]["shape"] == "module Linear weight tensor(1, 4) bias tensor(1,)"
    assert first["values"]["nowhere"] == {"missing": True}
    assert other["values"]["model"] != first["values"]["model"]


@pytest.mark.parametrize(
    ("call", "flags"),
    [
        ("loss.backward(retain_graph=True)", {"retain_graph"}),
        ("total = total + loss", {"feeds:total"}),
        ("self.mean = 0.9 * self.mean + 0.1 * x", {"feeds:mean"}),
        ("torch.autograd.grad(y, x, create_graph=True)", {"create_graph"}),
        ("loss.backward(retain_graph=False)", set()),
        ("out, h = rnn(x, h)", {"carried:h", "feeds:h"}),
        ("h = cell(x, h)", {"carried:h", "feeds:h"}),
        ("h = Cell.apply(h * 0.5 + x)", {"carried:h", "feeds:h"}),
        ("acc = torch.cat([acc, out])", {"feeds:acc"}),
        ("best = min(best, loss)", {"feeds:best"}),
        ("for i in range(3):\n    model.register_forward_hook(f)", {"hook_in_loop"}),
    ],
)
def test_source_flags_name_true_keywords_hooks_in_loops_and_state_fed_back(call, flags):
    assert source_flags(ast.parse(call)) == flags


# -- grill never runs the snippet's code while it measures -------------------------

HOSTILE_PRELUDE = (
    PRELUDE
    + """\
trap = []  # each method grill must never call appends here (or empties the holder)
"""
)

HOSTILE = {
    "iteration and length": """\
class Holder(list):
    def __iter__(self):
        trap.append("iter")
        return iter(())
    def __len__(self):
        trap.append("len")
        return 0
kept = Holder()
""",
    "repr, str, eq and hash of dict keys": """\
class Key:
    def __init__(self, victim):
        self.victim = victim
    def __repr__(self):
        trap.append("repr")
        self.victim.clear()
        return "Key"
    def __str__(self):
        trap.append("str")
        self.victim.clear()
        return "Key"
    def __eq__(self, other):
        trap.append("eq")
        self.victim.clear()
        return self is other
    def __hash__(self):
        return 3
index = {(Key(kept), 1): "kept", Key(kept): kept}
""",
    "items of a dict": """\
class Table(dict):
    def items(self):
        trap.append("items")
        return iter(())
    def values(self):
        trap.append("values")
        return iter(())
    def __iter__(self):
        trap.append("iter")
        return iter(())
table = Table(kept=kept)
""",
    "a property that deletes the list": """\
class Tracker:
    def __init__(self, store):
        self.store = store
    @property
    def history(self):
        trap.append("property")
        self.store.clear()
        return []
tracker = Tracker(kept)
""",
    "10,000-deep nesting": """\
deep = kept
for level in range(10_000):
    deep = [deep]
""",
    "a 5,000-deep tuple key": """\
key = (1,)
for level in range(5_000):
    key = (key,)
cache = {key: kept}
""",
    "huge fan-out": """\
wide = list(range(300_000))
wide.append(kept)
""",
}


@pytest.mark.parametrize("case", sorted(HOSTILE), ids=sorted(HOSTILE))
def test_hostile_holders_are_read_without_running_their_code_and_graded_right(case):
    """Each holder's methods lie, raise or empty the list of graphs; grill reads storage, so
    the leak is graded a leak, the list keeps its graphs, and grill never fails on them."""
    source = (
        HOSTILE_PRELUDE
        + HOSTILE[case]
        + "for i in range(40):"
        + LEAK_BODY
        + "print('trapped', sorted(set(trap)))\n"
    )
    m = measure(source)
    result = judge(m, source)
    assert result.verdict == "leak", (result.message, result.error)
    assert result.exit_code == 1
    assert "trapped []" in m.get("output", "trapped []")  # (the child's print goes to its pipe)
    if "deep" not in case:  # a holder past the depth cap is a leak all the same, not named
        assert result.extra["retained_total"] >= 40, result.message
