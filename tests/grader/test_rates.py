"""What a run does per optimizer update, counted where every route passes: host
synchronisations (whatever syntax reaches them) and backward passes."""

import textwrap

import pytest

from checkers.judge import judge
from tests.grader.test_grade_job import measure

LOOP = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
total = torch.zeros(())
for step in range(6):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
{body}
"""


def per_update(body: str) -> dict[str, list[int]]:
    source = LOOP.format(body=textwrap.indent(textwrap.dedent(body), "    "))
    return measure(source)["training"]["per_update"]


@pytest.mark.parametrize(
    "body",
    [
        "total += loss.item()",
        "total += float(loss)",
        "total += int(loss * 0)",
        "if loss > 0: total += 1",
        "print(f'{loss:.3f}')",
        "print(loss)",
        "x = str(loss)",
        "x = loss.detach().tolist()",
        "x = loss.detach().cpu()",
    ],
)
def test_each_route_to_the_host_counts_once_per_step(body):
    """A method, a builtin, a comparison's truth value, an f-string, print and str all reach
    the same count, once per call (an f-string's own `.item()` inside torch is not another)."""
    windows = per_update(body)["host_syncs"]
    assert windows[1:] == [1] * (len(windows) - 1), windows


@pytest.mark.parametrize(
    "body",
    [
        "x = loss.detach().expand(8) + torch.randn(8); y = x[x > 0]",
        "x = torch.randn(4, 3); y = x[:, torch.tensor([True, False, True])]",
        "y = torch.nonzero(torch.randn(8) > 0)",
        "y = (torch.randn(8) > 0).nonzero(as_tuple=True)",
        "y = torch.argwhere(torch.randn(8) > 0)",
        "y = torch.where(torch.randn(8) > 0)",
        "x = torch.randn(8); y = torch.masked_select(x, x > 0)",
        "y = torch.randint(0, 3, (8,)).unique()",
        "y = torch.unique_consecutive(torch.randint(0, 3, (8,)))",
        "y = torch.bincount(torch.randint(0, 3, (8,)))",
        "y = torch.nn.functional.one_hot(torch.randint(0, 3, (8,)))",
        "y = torch.repeat_interleave(torch.randn(3), torch.tensor([1, 2, 0]))",
        "x = torch.zeros(4, 3); x[torch.tensor([True, False, True, False])] = torch.ones(3)",
    ],
)
def test_an_output_sized_by_the_data_counts_as_one_host_sync(body):
    """The host must learn how many elements there are before it can allocate the result:
    boolean indexing, nonzero, unique and the others of DATA_DEPENDENT_SHAPES wait like
    `.item()`, once per call (boolean indexing's own nonzero inside torch is not another)."""
    windows = per_update(body)["host_syncs"]
    assert windows[1:] == [1] * (len(windows) - 1), windows


def test_the_same_selections_in_a_fixed_shape_make_no_host_sync():
    """A mask used with `torch.where(mask, x, y)`, `masked_fill`, a multiply, a fill of a
    number through the mask, integer or Python-list indexing, `nonzero_static` and
    `repeat_interleave` given its `output_size`: every size is known without the values."""
    found = per_update(
        """
        x = torch.randn(8)
        mask = x > 0
        a = torch.where(mask, x, 0.0)
        b = x.masked_fill(~mask, 0.0)
        c = (x * mask).sum() / mask.sum().clamp(min=1)
        x[mask] = 0.0
        d = x[torch.arange(4)] + x[[True, False] * 4]
        e = torch.nonzero_static(mask, size=8)
        f = torch.repeat_interleave(x[:3], torch.tensor([1, 2, 0]), output_size=3)
        g = x[:3].repeat_interleave(2)
        h = torch.nn.functional.one_hot(torch.randint(0, 3, (8,)), 3).sum(0)
        """
    )
    assert found["host_syncs"][1:] == [0] * 5, found


@pytest.mark.parametrize(
    "body",
    [
        "n = torch.tensor(3); y = torch.arange(n)",
        "n = torch.tensor(3); y = torch.zeros(n, 2)",
        "n = torch.tensor(3); y = torch.randn((n, 2))",
        "n = torch.tensor(2); y = torch.randn(6, 4).narrow(0, n, 2)",
        "n = torch.tensor(3); y = torch.randn(6, 4).view(n, -1)",
        "n = torch.tensor(3); y = torch.randn(6)[:n]",
        "n = torch.tensor(3); y = torch.randn(6, 2)[n]",
        "v = torch.tensor(2.5); y = torch.full((2,), v)",
        "a = torch.tensor(0.5); y = torch.randn(4).add(1, alpha=a)",
        "n = torch.tensor(2); y = torch.randn(6).topk(n)",
        "n = torch.tensor(3); y = [i for i in range(n)]",
        "y = torch.tensor([loss.detach(), loss.detach() * 2])",
        "y = torch.as_tensor([[loss.detach()], [loss.detach()]])",
    ],
)
def test_a_tensor_given_for_a_number_counts_as_one_host_sync(body):
    """A size, an index, a bound or a Scalar given as a tensor is read on the host by torch's
    argument parser in C++ (or by `__index__`), and tensors inside a new tensor's Python data
    element by element: once per call, like `.item()`."""
    windows = per_update(body)["host_syncs"]
    assert windows[1:] == [1] * (len(windows) - 1), windows


def test_numbers_given_as_numbers_and_tensors_given_as_operands_make_no_host_sync():
    """Python ints as sizes, shape arithmetic on `x.shape`, and a 0-dim tensor used as a
    tensor operand (an add, `torch.where`'s branch, an exponent, a clamp bound), a tensor built
    from Python numbers and `as_tensor` of a tensor read nothing: they stay on the device or
    were never there."""
    found = per_update(
        """
        x = torch.randn(6, 4)
        t = torch.tensor(2.0)
        a = torch.zeros(3, 2) + torch.arange(4)[:2].sum()
        b = torch.zeros(x.shape[0] * 2, x.size(1)).view(x.shape[0], -1)
        c = x + t
        d = torch.where(x > 0, x, t)
        e = x.pow(t).clamp(min=t)
        f = x.narrow(0, 1, 2).reshape(-1, x.shape[1] // 2)
        g = torch.tensor([1.0, 2.0, 3.0, 4.0]) + torch.as_tensor(x)
        """
    )
    assert found["host_syncs"][1:] == [0] * 5, found


def test_an_optimizers_own_reads_are_not_the_snippets():
    """Adam reads its step count with `.item()` inside `step()`: torch's work, run while
    grill's ledger is paused, not a read the snippet made."""
    source = LOOP.replace("torch.optim.SGD(", "torch.optim.Adam(").format(body="pass")
    found = measure(source)["training"]["per_update"]
    assert found["host_syncs"][1:] == [0] * 5, found


def test_a_total_kept_on_the_device_makes_no_host_sync():
    """`.detach()` and `.to("cpu")` of a tensor already on the CPU hand nothing to the host."""
    found = per_update("total += loss.detach().to('cpu')")
    assert found["host_syncs"][1:] == [0] * 5
    assert found["backward_passes"] == [1] * 6


def test_backward_passes_are_counted_per_update():
    source = LOOP.replace(
        "    loss.backward()\n", "    loss.backward(retain_graph=True)\n    loss.backward()\n"
    )
    found = measure(source.format(body="    pass"))["training"]["per_update"]
    assert found["backward_passes"] == [2] * 6


def test_hints_avoid_item_where_the_contract_refuses_it():
    """The running total's hint offers `.item()` first, unless the task's contract refuses it:
    then the detached tensor is the edit shown."""
    source = LOOP.format(body="    total = total + loss")
    measured = measure(source)
    plain = judge(measured, source)
    kept_on_device = judge(measured, source, avoid=frozenset({"item"}))
    assert plain.verdict == kept_on_device.verdict == "leak"
    assert "loss.item()" in plain.hint
    assert ".item()" not in kept_on_device.hint.replace("not with `.item()`", "")
    assert "total = total + loss.detach()" in kept_on_device.hint


@pytest.mark.parametrize(
    ("tried", "says"),
    [
        (
            "import gc\n    gc.collect()",
            "`gc.collect()` frees only objects nothing reachable refers to",
        ),
        ("torch.cuda.empty_cache()", "`torch.cuda.empty_cache()` hands back only cached memory"),
        ("del loss", "`del` removes one name, not the object: `kept` still references the graph"),
    ],
)
def test_the_fixes_people_try_run_and_the_hint_says_why_they_did_not_help(tried, says):
    source = (
        "import torch\nimport torch.nn as nn\nmodel = nn.Linear(4, 1)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.01)\nkept = []\n"
        "for step in range(8):\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n"
        "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n    kept.append(loss)\n"
        f"    {tried}\n"
    )
    found = judge(measure(source), source)
    assert found.verdict == "leak", found.message
    assert says in found.hint


def test_a_tasks_hint_is_checked_against_its_contract_and_its_verdict_names_the_host_syncs():
    """Through the real sandbox: the starter's hint offers the detached tensor where the task
    keeps its total on the device, and a fix that `.item()`s every step is `wrong`, saying so."""
    from checkers.api import grade_task
    from checkers.task import TaskSpec

    starter = LOOP.format(body="    total += loss")
    spec = TaskSpec(
        solution=LOOP.format(body="    total += loss.detach()"),
        starter=starter,
        contract={
            "same_as_solution": [{"name": "total", "tensors": True}],
            "per_update": {"host_syncs": "at_most"},
        },
    )
    leak = grade_task(starter, spec)
    assert leak.verdict == "leak"
    assert "total += loss.detach()" in leak.hint and "loss.item()" not in leak.hint
    wrong = grade_task(
        LOOP.format(body="    total += loss.detach()\n    print(f'{loss:.3f}')"), spec
    )
    assert wrong.verdict == "wrong"
    assert "it makes the host wait on the device more often than the solution" in wrong.message


def test_a_move_to_the_host_counts_only_from_another_device():
    """`.to("cpu")` waits for the host only when the tensor lives elsewhere (a meta tensor
    stands in for a GPU's here); a dtype change is no move, and `.cpu()` always names the host."""
    import torch

    from checkers.measure.rates import is_host_sync

    elsewhere, here = torch.empty(2, device="meta"), torch.empty(2)
    to = torch.Tensor.to
    assert is_host_sync(to, (elsewhere, "cpu"), {})
    assert is_host_sync(to, (elsewhere,), {"device": torch.device("cpu"), "dtype": torch.float16})
    assert not is_host_sync(to, (elsewhere, torch.float16), {})
    assert not is_host_sync(to, (here, "cpu"), {})
    assert is_host_sync(torch.Tensor.cpu, (here,), {})


def test_a_hint_follows_the_tasks_own_rates_and_never_contradicts_its_contract():
    """Gradient accumulation read once per update and backpropagated per micro-batch: a fix
    reading every micro-batch is told the solution's rate, not "once, after the loop"; one
    merging the micro-batches is told to keep them apart, not to combine them; and a fix that
    stops training is told to change where values are read, not what keeps graphs alive."""
    from checkers.api import with_expectations
    from checkers.judge.rates import per_update as judged
    from checkers.verdict import Expectation, Verdict

    clean = Verdict(verdict="clean", device="cpu", message="No graph piles up.")
    solution = {"host_syncs": [1] * 5, "backward_passes": [4] * 5}
    reads_each = with_expectations(
        clean, (judged("host_syncs", "at_most", {"host_syncs": [4] * 5}, solution),)
    )
    assert "1 per optimizer update" in reads_each.hint
    assert "after the loop" not in reads_each.hint + reads_each.expectations[0].message

    merged = with_expectations(
        clean, (judged("backward_passes", "same", {"backward_passes": [1] * 5}, solution),)
    )
    assert "4 backward passes per optimizer update" in merged.hint
    assert "do not merge them" in merged.hint and "combine" not in merged.hint

    never_read = judged("host_syncs", "at_most", {"host_syncs": [3] * 5}, {"host_syncs": [0] * 5})
    assert (
        "Read nothing on the host inside the loop" in with_expectations(clean, (never_read,)).hint
    )

    stopped = with_expectations(
        clean,
        (
            Expectation("trains", False, "20 backward passes; the solution's 80."),
            judged("host_syncs", "at_most", {"host_syncs": [1] * 5}, solution),
            judged("backward_passes", "same", {"backward_passes": [1] * 5}, solution),
        ),
    )
    assert "where values are read on the host" in stopped.hint
    assert "graphs alive" not in stopped.hint
    assert "do not merge them" in stopped.hint
