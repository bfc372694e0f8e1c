"""From measurements to a verdict: the rule, the message naming the culprit, and a hint drawn
from what the culprit is. Pure data in, so every case is written out here."""

import pytest

from checkers.judge import judge
from checkers.measurements import Series


def holder(path, **fields):
    base = {
        "path": path,
        "stored": path,
        "grad_fn": "MeanBackward0",
        "nodes": 6,
        "saved_bytes": 0,
        "line": 9,
        "keys": [0, 0],
        "generations": 1,
        "steps": 1,
        "used": True,
        "passes": 1,
        "root_used": True,
        "numel": 1,
        "view": False,
        "node_only": False,
    }
    return {**base, **fields}


def series(values) -> Series:
    return {
        "lows": list(values),
        "highs": list(values),
        "first": list(range(len(values))),
        "steps": list(range(len(values))),
        "loops": [5] * len(values),
        "releases": [0] * len(values),
        "width": 1,
    }


def measured(dead=(0,) * 40, reach=(0,) * 40, holders=(), scans=None, **overrides):
    m = {
        "device": "cpu",
        "stopped_by": "end",
        "seconds": 0.4,
        "training": {
            "optimizer_steps": 40,
            "updates": 40,
            "backward_calls": 40,
            "graph_nodes": 400,
            "reused_nodes": 0,
            "higher_order": False,
            "walk_truncated": False,
        },
        "dead_weight": series(dead),
        "reach": series(reach),
        "memory": [1000 * i for i in range(40)],
        "reserved": [],
        "peak_bytes": 0,
        "scans": scans
        if scans is not None
        else [{"generation": len(dead), "step": 40, "holders": list(holders), "capped": False}],
        "values": {},
        "problem": None,
        "unwatched_nodes": 0,
    }
    m.update(overrides)
    return m


KEPT_LOSSES = [holder(f"losses[{i}]", keys=[i, i]) for i in range(40)]
SOURCE = """\
import torch
losses = []
running = 0
for step in range(40):
    loss = f()
    loss.backward()
    losses.append(loss)
    running += loss
    queue[:, 0] = k
"""


def test_a_loop_that_keeps_nothing_is_clean_with_nothing_retained():
    verdict = judge(measured())
    assert (verdict.verdict, verdict.retained, verdict.hint) == ("clean", (), "")
    assert verdict.coverage.startswith("Watched the whole run (40 optimizer steps")


def test_a_list_of_kept_losses_is_a_leak_naming_the_list_its_line_and_the_fix():
    verdict = judge(measured(dead=range(40), holders=KEPT_LOSSES), SOURCE)
    assert verdict.verdict == "leak"
    assert verdict.message.startswith("`losses` holds 40 tensors that still carry their graphs")
    assert "(line 7)" in verdict.message
    assert "Store `loss.item()` (a number) or `loss.detach()` at line 7" in verdict.hint
    assert [r.path for r in verdict.retained][:2] == ["losses[0]", "losses[1]"]


def test_a_running_total_is_told_to_add_item_where_it_adds():
    total = holder(
        "running",
        grad_fn="AddBackward0",
        keys=[0, 39],
        generations=40,
        steps=40,
        root_used=False,
        nodes=200,
    )
    verdict = judge(measured(dead=range(40), holders=[total]), SOURCE)
    assert verdict.message.startswith("`running` chains the graphs of 40 steps into one")
    assert "Add `loss.item()` (a number) to `running` at line 8" in verdict.hint


def test_a_tensor_that_must_stay_a_tensor_is_never_told_to_become_a_number():
    """A MoCo queue filled with outputs that carry their history."""
    queue = holder(
        "model.queue",
        grad_fn="CopySlices",
        keys=[0, 39],
        generations=40,
        steps=40,
        numel=4096,
        root_used=False,
    )
    verdict = judge(measured(dead=range(40), holders=[queue]), SOURCE)
    assert ".item()" not in verdict.hint
    assert "`queue` must stay a tensor" in verdict.hint and "torch.no_grad()" in verdict.hint


def test_stored_views_are_told_to_clone():
    views = [holder(f"maps[{i}]", keys=[i, i], numel=36, view=True) for i in range(40)]
    verdict = judge(
        measured(dead=range(40), holders=views),
        "maps = []\nfor i in range(40):\n    maps.append(w)\n",
    )
    assert ".detach().clone()" in verdict.hint


def test_a_hook_registered_every_step_is_told_to_register_once_or_remove_it():
    source = "for step in range(40):\n    h = model.register_forward_hook(f)\n"
    kept = [holder(f"model._forward_hooks[{i}].<closure>.out", keys=[i, i]) for i in range(40)]
    verdict = judge(measured(dead=range(40), holders=kept), source)
    assert verdict.message.startswith("A hook registered on every step (line 2)")
    assert "handle.remove()" in verdict.hint


def test_graph_nodes_kept_without_their_tensors_are_still_a_leak():
    nodes = [holder(f"fns[{i}]", keys=[i, i], node_only=True, numel=None) for i in range(40)]
    verdict = judge(measured(dead=range(40), holders=nodes), SOURCE)
    assert verdict.verdict == "leak"
    assert "graph nodes" in verdict.message and "not the node" in verdict.hint


def test_a_late_leak_says_from_which_step_and_loop():
    kept = [holder(f"late[{i}]", keys=[60 + i, 60 + i]) for i in range(40)]
    verdict = judge(measured(dead=[0] * 60 + list(range(40)), holders=kept))
    assert verdict.verdict == "leak"
    assert "from step 60 on while the loop at line 5 ran" in verdict.message


def test_a_phase_that_kept_its_losses_until_it_ended_is_a_leak_named_from_an_earlier_scan():
    scans = [
        {"generation": 30, "step": 30, "holders": KEPT_LOSSES[:30], "capped": False},
        {"generation": 80, "step": 80, "holders": [], "capped": False},
    ]
    verdict = judge(measured(dead=list(range(40)) + [0] * 40, scans=scans), SOURCE)
    assert verdict.verdict == "leak"
    assert verdict.message.startswith("`losses` holds 30 tensors")
    assert "until it was dropped" in verdict.message


def test_bounded_windows_are_clean_with_a_note_that_names_the_holder():
    epoch = [
        holder(
            "epoch_loss",
            grad_fn="AddBackward0",
            keys=[0, 11],
            generations=12,
            steps=12,
            root_used=False,
        )
    ]
    scans = [{"generation": 11, "step": 11, "holders": epoch, "capped": False}]
    verdict = judge(measured(dead=list(range(12)) * 5, scans=scans))
    assert verdict.verdict == "clean"
    assert verdict.notes and verdict.notes[0].startswith(
        "`epoch_loss` keeps up to 11 steps' graphs"
    )


def test_a_backward_that_reaches_further_back_every_step_is_a_leak_about_the_carried_state():
    h = holder("h", grad_fn="TanhBackward0", passes=40, keys=[39, 39])
    verdict = judge(
        measured(reach=range(40), holders=[h]), "for s in range(9):\n    h = cell(x, h)\n"
    )
    assert verdict.verdict == "leak"
    assert "`h` is fed back into the next step with its graph" in verdict.message
    assert "`h = h.detach()`" in verdict.hint


def test_a_summed_loss_backpropagated_every_step_is_not_called_a_hidden_state():
    total = holder("total", grad_fn="AddBackward0", passes=40, keys=[39, 39])
    verdict = judge(measured(reach=range(40), holders=[total]), "total = total + loss\n")
    assert "sums every step's loss" in verdict.message
    assert "hidden state" not in verdict.message + verdict.hint
    assert "must stay a tensor" in verdict.hint and "`total = 0`" in verdict.hint


@pytest.mark.parametrize(("retain", "mentioned"), [(True, True), (False, False)])
def test_retain_graph_is_named_only_when_the_code_passes_it_and_never_needs_it(retain, mentioned):
    source = SOURCE.replace("loss.backward()", f"loss.backward(retain_graph={retain})")
    verdict = judge(measured(dead=range(40), holders=KEPT_LOSSES), source)
    assert ("retain_graph=True" in verdict.hint) is mentioned


def test_a_run_that_builds_no_graph_is_not_graded():
    m = measured()
    m["training"]["graph_nodes"] = 0
    verdict = judge(m)
    assert (verdict.verdict, verdict.error.kind, verdict.exit_code) == ("error", "NoGraph", 3)


def test_switched_off_instrumentation_is_never_clean():
    verdict = judge(
        measured(problem="the snippet switched off grill's instrumentation (at line 4)")
    )
    assert (verdict.verdict, verdict.error.kind) == ("error", "tampered")


def test_a_run_stopped_by_its_budget_says_what_it_saw():
    verdict = judge(measured(stopped_by="budget"))
    assert "the rest of the run was not watched" in verdict.coverage
