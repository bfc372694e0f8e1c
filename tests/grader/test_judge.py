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
    """A total started afresh every twelve steps by a counter: the code bounds it. The note
    counts the twelve graphs it holds (it once said 11, the series' height, which leaves out
    the newest)."""
    window = [
        holder(
            "window_total",
            grad_fn="AddBackward0",
            keys=[0, 11],
            generations=12,
            steps=12,
            root_used=False,
        )
    ]
    scans = [{"generation": 11, "step": 11, "holders": window, "capped": False}]
    verdict = judge(measured(dead=list(range(12)) * 5, scans=scans))
    assert verdict.verdict == "clean"
    assert verdict.notes and verdict.notes[0].startswith(
        "`window_total` (line 9) keeps the graphs of up to 12 loop iterations"
    )


def test_a_window_of_ten_is_told_as_ten_and_its_repeats_as_counted():
    """A `deque(maxlen=10)` of losses: the series also counts the newest step's graph, but the
    holder was seen holding ten, and ten is what the code keeps."""
    window = [holder("recent", grad_fn="MeanBackward0", keys=[0, 9], generations=10, steps=10)]
    scans = [{"generation": 10, "step": 10, "holders": window, "capped": False}]
    verdict = judge(measured(dead=list(range(11)) * 5, scans=scans))
    assert verdict.verdict == "clean"
    assert "keeps the graphs of up to 10 loop iterations" in verdict.notes[0]
    assert "again and again (5 times)" in verdict.notes[0]


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


# -- a window that spans a whole pass of a loop, and the holder that holds --------

EPOCHS = """\
import torch
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = [torch.randn(8, 4) for _ in range(20)]
for epoch in range(5):
    epoch_loss = 0.0
    for x in data:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss = epoch_loss + loss
"""


def held(loop=7, parent=5, passes=5, first=0, last=19, count=18, released=True):
    return {
        "loop": loop,
        "parent": parent,
        "passes": passes,
        "held_passes": passes,
        "first": first,
        "last": last,
        "held": count,
        "released": released,
    }


def test_a_total_held_for_a_whole_pass_of_a_loop_is_a_leak_though_it_is_reset_each_time():
    total = holder(
        "epoch_loss",
        grad_fn="AddBackward0",
        keys=[0, 19],
        generations=20,
        steps=20,
        root_used=False,
    )
    scans = [
        {
            "generation": 19,
            "step": 19,
            "holders": [total],
            "capped": False,
            "reason": "pass",
            "loop": 7,
            "first": 0,
            "last": 19,
        }
    ]
    m = measured(dead=list(range(20)) * 5, scans=scans, held_passes=[held()])
    verdict = judge(m, EPOCHS)
    assert verdict.verdict == "leak"
    assert verdict.message.startswith(
        "`epoch_loss` keeps every iteration's graph (line 12) until the loop at line 7 ends: 20 here"
    )
    assert "only when the loop at line 5 moves on" in verdict.message
    assert "in all 5 of its passes" in verdict.message
    assert "`epoch_loss = epoch_loss + loss.item()`" in verdict.hint


def test_without_a_held_pass_the_same_series_is_a_bounded_window():
    total = holder(
        "epoch_loss",
        grad_fn="AddBackward0",
        keys=[0, 19],
        generations=20,
        steps=20,
        root_used=False,
    )
    scans = [{"generation": 19, "step": 19, "holders": [total], "capped": False}]
    assert judge(measured(dead=list(range(20)) * 5, scans=scans), EPOCHS).verdict == "clean"


def test_graph_waiting_for_a_later_backward_is_never_named_as_the_holder():
    """REINFORCE: the episode's log-probs are read back for the episode's loss (a backward ran
    through them after the scan), the per-episode losses kept in `stats` are dead weight."""
    buffer = [
        holder(f"policy.saved_log_probs[{i}]", keys=[30, 30], used_after=True) for i in range(50)
    ]
    kept = [holder(f"stats['policy_loss'][{i}]", keys=[i, i]) for i in range(30)]
    source = (
        "stats = {'policy_loss': []}\n"
        "for episode in range(40):\n"
        "    policy_loss = f()\n"
        "    policy_loss.backward()\n"
        "    stats['policy_loss'].append(policy_loss)\n"
        "    policy.saved_log_probs.append(x)\n"
    )
    verdict = judge(measured(dead=range(40), holders=buffer + kept), source)
    assert verdict.message.startswith("`stats['policy_loss']` holds 30 tensors")
    assert "saved_log_probs" not in verdict.hint
    assert "`stats['policy_loss'].append(policy_loss.item())`" in verdict.hint


def test_a_dict_given_one_new_key_per_step_is_named_as_the_container():
    kept = [holder(f"metrics['epoch0_step{i}']['loss']", keys=[i, i]) for i in range(40)]
    loss = holder("loss", keys=[39, 39])
    source = (
        "metrics = {}\n"
        "for i in range(40):\n"
        "    loss = f()\n"
        "    loss.backward()\n"
        "    metrics[f'epoch0_step{i}'] = {'loss': loss, 'lr': 0.1}\n"
    )
    verdict = judge(measured(dead=range(40), holders=[loss, *kept]), source)
    assert verdict.message.startswith("`metrics` holds 40 tensors"), verdict.message
    assert "1 iterations" not in verdict.message
    assert "`metrics[f'epoch0_step{i}'] = {'loss': loss.item(), 'lr': 0.1}`" in verdict.hint


def test_a_tuple_stored_per_step_gets_a_hint_that_is_valid_code_for_a_tuple():
    kept = [
        holder(
            f"hidden_history[{i}][{j}]",
            keys=[i, i],
            numel=16,
            kinds=["list:40", "tuple:2", "tensor"],
        )
        for i in range(40)
        for j in range(2)
    ]
    source = (
        "hidden_history = []\n"
        "for i in range(40):\n"
        "    states = (h, c)\n"
        "    hidden_history.append(states)\n"
    )
    verdict = judge(measured(dead=range(40), holders=kept), source)
    assert verdict.message.startswith(
        "`hidden_history` holds 80 tensors that still carry their graphs, from 40 steps"
    )
    assert "`hidden_history.append(tuple((t.detach() for t in states)))`" in verdict.hint
    assert "states.detach()" not in verdict.hint


def test_counts_come_from_the_whole_container_and_read_in_the_singular_for_one():
    kept = [holder(f"losses[{i}]", keys=[i, i], in_container=300) for i in range(200)]
    verdict = judge(measured(dead=range(40), holders=kept), SOURCE)
    assert verdict.message.startswith("`losses` holds 300 tensors")
    one = judge(
        measured(dead=range(40), holders=[holder("late[0]", keys=[0, 0], generations=40)]), SOURCE
    )
    assert "1 tensors" not in one.message


def test_a_late_leak_counts_from_the_step_its_holder_first_kept():
    """The series climbs into view a few generations after the holder's first graph; the
    message counts from the holder's oldest graph."""
    kept = [holder(f"kept[{i}]", keys=[i, i]) for i in range(40)]
    verdict = judge(measured(dead=[0, 0, 0, 0, 0] + list(range(35)), holders=kept), SOURCE)
    assert "from step" not in verdict.message


def test_a_snippet_that_only_waits_past_its_budget_says_the_budget_ran_out():
    m = measured(stopped_by="budget")
    m["training"]["graph_nodes"] = 0
    verdict = judge(m)
    assert verdict.verdict == "timeout" and verdict.exit_code == 3
    assert "time budget ran out" in verdict.message
    assert "No autograd graph was built" not in verdict.message


def test_every_hint_that_shows_code_shows_code_that_compiles():
    import re

    cases = [
        test_a_total_held_for_a_whole_pass_of_a_loop_is_a_leak_though_it_is_reset_each_time,
        test_graph_waiting_for_a_later_backward_is_never_named_as_the_holder,
        test_a_dict_given_one_new_key_per_step_is_named_as_the_container,
        test_a_tuple_stored_per_step_gets_a_hint_that_is_valid_code_for_a_tuple,
    ]
    assert cases
    verdicts = [
        judge(measured(dead=range(40), holders=KEPT_LOSSES), SOURCE),
        judge(
            measured(
                dead=range(40),
                holders=[
                    holder(
                        "running",
                        grad_fn="AddBackward0",
                        keys=[0, 39],
                        generations=40,
                        steps=40,
                        root_used=False,
                    )
                ],
            ),
            SOURCE,
        ),
    ]
    for verdict in verdicts:
        for code in re.findall(r"`([^`]+)`", verdict.hint):
            if "(" in code and "=" in code or ".append(" in code:
                compile(code, "<hint>", "exec")


def test_graph_kept_through_a_caught_exception_is_told_to_keep_the_message_not_the_exception():
    kept = [
        holder(
            f"errors[{i}][1].__traceback__.tb_next.<checked locals>.out",
            keys=[i, i],
            kinds=["list:40", "tuple:2", "exception", "object", "object", "tensor"],
        )
        for i in range(40)
    ]
    verdict = judge(measured(dead=range(40), holders=kept), SOURCE)
    assert verdict.verdict == "leak"
    assert "keep `str(err)` or `repr(err)`, or `err.with_traceback(None)`" in verdict.hint


@pytest.mark.parametrize(
    "kept_at,told",
    [
        (range(0, 40, 3), "one is added every 3 steps"),
        ([0, 3, 7, 9, 12, 16, 18, 21, 24, 28, 30, 33, 36], "about one is added every 3 steps"),
        ([0, 1, 3, 4, 6, 7, 9, 10, 12, 14, 15, 17, 18, 19], "14 were added in 20 steps"),
        (sorted({*range(3, 36, 4), *range(4, 36, 4)}), "2 are added every 4 steps"),
    ],
)
def test_a_cadence_is_told_as_measured_never_rounded_to_a_step_count_the_code_lacks(kept_at, told):
    """Regular gaps, or a repeating pattern of them, are told as the code's cadence; irregular
    ones as about that many, or as the count over the steps they span where no whole number of
    steps fits."""
    kept = [holder(f"losses[{i}]", keys=[at, at]) for i, at in enumerate(kept_at)]
    verdict = judge(measured(dead=range(40), holders=kept), SOURCE)
    assert verdict.verdict == "leak", verdict.message
    assert told in verdict.message, verdict.message


def test_entries_added_together_are_counted_together():
    """Two validation losses kept after every fourth update (each in its own generation, both
    at one step) are two added every 4 steps, not one every 2."""
    kept = [
        holder(f"outputs[{i}]", keys=[g, g])
        for i, g in enumerate(sorted({*range(0, 40, 8), *range(1, 40, 8)}))
    ]
    m = measured(dead=range(40), holders=kept)
    m["dead_weight"]["steps"] = [max(g - 1, 0) // 2 for g in range(40)]  # a step ends 2g
    verdict = judge(m, SOURCE)
    assert verdict.verdict == "leak", verdict.message
    assert "2 are added every 4 steps" in verdict.message, verdict.message
