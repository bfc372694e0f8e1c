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
