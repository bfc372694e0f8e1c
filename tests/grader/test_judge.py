"""The verdict rules, on measurements built by hand (no torch)."""

import pytest

from checkers.judge import Holder, Measurements, judge

BUCKETS = 17


def ages_row(**by_age: int) -> list[int]:
    row = [0] * BUCKETS
    for key, count in by_age.items():
        row[int(key.lstrip("a"))] = count
    return row


def measured(ages, spans=None, holders=(), stale_run_holders=(), memory=None, **extra) -> Measurements:
    steps = len(ages)
    return Measurements(
        device="cpu", memory=memory or [1000.0] * steps, ages=ages, nodes=[7] * steps,
        backward_spans=spans or [0] * steps, holders=holders, stale_run_holders=stale_run_holders,
        **extra)


CLEAN_AGES = [ages_row(a1=7)] * 30


def test_graphs_of_age_zero_and_one_only_are_clean():
    verdict = judge(measured(CLEAN_AGES))
    assert verdict.verdict == "clean"
    assert verdict.hint == ""
    assert verdict.extra["called_at_step"] is None


def test_one_stale_census_alone_is_not_enough_to_call_a_leak():
    ages = list(CLEAN_AGES)
    ages[10] = ages_row(a1=7, a2=3)
    assert judge(measured(ages)).verdict == "clean"


def test_graphs_older_than_one_step_in_two_censuses_are_a_leak_called_at_the_second():
    ages = [ages_row(a1=7)] * 2 + [ages_row(a1=7, a2=5 * i) for i in range(1, 29)]
    verdict = judge(measured(ages))
    assert verdict.verdict == "leak"
    assert verdict.extra["called_at_step"] == 4


def test_a_bounded_backward_horizon_allows_graphs_that_old():
    """Summing four micro-batch losses before backward() keeps four steps' graphs on purpose."""
    ages = [ages_row(a0=7, a1=7, a2=7, a3=7)] * 40
    spans = [3 if i % 4 == 3 else -1 for i in range(40)]
    verdict = judge(measured(ages, spans=spans))
    assert verdict.verdict == "clean"
    assert verdict.extra["allowed_age"] == 3


def test_a_backward_span_that_grows_every_step_is_a_leak_with_its_own_explanation():
    verdict = judge(measured(CLEAN_AGES, spans=list(range(30))))
    assert verdict.verdict == "leak"
    assert "all earlier steps" in verdict.message
    assert "detach" in verdict.hint


def test_retained_holders_name_the_container_and_how_many_tensors_it_holds():
    holders = [Holder(f"losses[{i}]", "MeanBackward0", 6, 0, 14, 29 - i) for i in range(29)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert verdict.verdict == "leak"
    assert "`losses` holds 28 tensors" in verdict.message
    assert "line 14" in verdict.message
    assert verdict.retained[0].path == "losses[0]"
    assert verdict.extra["retained_total"] == 28
    assert ".item()" in verdict.hint


def test_the_last_steps_graph_is_not_reported_as_retained():
    holders = [Holder("loss", "MeanBackward0", 6, 0, 9, 1), Holder("out", "AddmmBackward0", 3, 0, 8, 1)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert verdict.verdict == "clean"
    assert verdict.retained == ()


def test_a_reset_accumulator_is_named_from_the_scan_taken_while_it_held_graphs():
    ages = [ages_row(a1=7, a2=4 * (i % 10)) if i % 10 > 1 else ages_row(a1=7) for i in range(40)]
    run = [Holder("epoch_loss", "AddBackward0", 40, 0, 16, 5)]
    verdict = judge(measured(ages, stale_run_holders=run))
    assert verdict.verdict == "leak"
    assert verdict.message.startswith("`epoch_loss` kept the graphs")
    assert "until it was reset or replaced" in verdict.message
    assert "never detached" in verdict.message


def test_a_clean_loop_whose_memory_grows_says_the_growth_is_data():
    memory = [1000.0 + 800 * i for i in range(30)]
    verdict = judge(measured(CLEAN_AGES, memory=memory))
    assert verdict.verdict == "clean"
    assert verdict.pattern == "monotonic"
    assert "not graphs" in verdict.message


def test_a_kept_graph_through_a_create_graph_gradient_gets_the_gradient_hint():
    holders = [Holder("norms[0]", "SqrtBackward0", 20, 64, 12, 9, higher_order=True)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert "create_graph=True" in verdict.hint


def test_samples_are_bytes_above_the_first_step_and_survive_json():
    verdict = judge(measured(CLEAN_AGES, memory=[500.0, 700.0] + [600.0] * 28))
    data = verdict.to_dict()
    assert data["samples"][:3] == [0.0, 200.0, 100.0]
    assert set(data) >= {"verdict", "device", "steps", "pattern", "growth_bytes_per_step",
                         "samples", "retained", "message", "hint", "error"}


def test_state_fed_back_into_its_own_call_gets_the_detach_hint():
    holders = [Holder("h", "StackBackward0", 900, 0, 12, 30)]
    verdict = judge(measured(CLEAN_AGES, holders=holders, source_flags=frozenset({"carried:h"})))
    assert "h = h.detach()" in verdict.hint


def test_a_kept_best_loss_gets_the_keep_a_float_hint_naming_it():
    """`best = min(best, loss)` is not state fed into the model: the hint says to keep a float."""
    holders = [Holder("best_loss", "MeanBackward0", 6, 0, 13, 3)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert verdict.hint.startswith("Keep `loss.item()` (a Python float) in `best_loss`")


@pytest.mark.parametrize(("path", "container"), [
    ("records[{i}]['loss']", "records"),
    ("history[{i}][1]", "history"),
    ("pending[{i}].<defaults>[0]", "pending"),
    ("cache['h'][{i}]", "cache['h']"),
])
def test_tensors_kept_inside_per_step_records_are_counted_on_their_container(path, container):
    """A dict or tuple appended every step holds one tensor each: the list is what grows."""
    holders = [Holder(path.format(i=i), "MeanBackward0", 6, 0, 13, 29 - i) for i in range(29)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert f"`{container}` holds 28 tensors" in verdict.message


def test_the_container_hint_names_the_variable_the_snippet_stored():
    """`hidden_states.append(h)` is fixed by `h.detach()`, not by the loss's `.item()`."""
    holders = [Holder(f"hidden_states[{i}]", "StackBackward0", 9, 0, 15, 29 - i, stored="h")
               for i in range(29)]
    verdict = judge(measured(CLEAN_AGES, holders=holders))
    assert verdict.hint.startswith("Store `h.detach()` in the container")
    assert "loss" not in verdict.hint


def test_the_plain_name_hint_names_the_variable_not_its_owner():
    holders = [Holder("meter.<closure>.total", "AddBackward0", 300, 0, 11, 40)]
    assert "in `total`" in judge(measured(CLEAN_AGES, holders=holders)).hint


def test_graphs_no_scan_could_name_are_described_by_whether_they_are_still_held():
    """Stale graphs at the last census are still kept; ones that vanished were let go."""
    culprit = {"grad_fn": "AddBackward0", "line": 10, "oldest_age": 9}
    held = judge(measured([ages_row(a1=7, a9=3)] * 30, culprit=culprit))
    assert held.verdict == "leak"
    assert held.message.startswith("A tensor made at line 10 (AddBackward0) still keeps")
    let_go = judge(measured([ages_row(a1=7, a9=3)] * 29 + [ages_row(a1=7)], culprit=culprit))
    assert "then let them go" in let_go.message


def test_the_stored_variable_is_named_only_when_it_is_the_tensor_itself():
    """`episodes.append(log_probs)` stores a list: `log_probs.detach()` would be wrong advice."""
    holders = [Holder(f"episodes[{i}][2]", "SelectBackward0", 9, 0, 15, 29 - i, stored="log_probs")
               for i in range(29)]
    assert "log_probs" not in judge(measured(CLEAN_AGES, holders=holders)).hint


def test_a_count_cut_short_by_the_scan_limit_reads_as_a_lower_bound():
    holders = [Holder(f"losses[{i}]", "MeanBackward0", 6, 0, 14, 29 - i) for i in range(29)]
    verdict = judge(measured(CLEAN_AGES, holders=holders, holders_capped=True))
    assert "`losses` holds at least 28 tensors" in verdict.message


def test_the_stored_variable_hint_wins_over_the_create_graph_and_retain_graph_hints():
    """A WGAN-GP loss kept in a list runs through the penalty's gradient graph, but the fix is
    still `loss.detach()`, not advice about the gradients."""
    holders = [Holder(f"history[{i}]", "AddBackward0", 40, 0, 19, 29 - i, stored="loss",
                      higher_order=True) for i in range(29)]
    verdict = judge(measured(CLEAN_AGES, holders=holders, source_flags=frozenset({"retain_graph"})))
    assert verdict.hint.startswith("Store `loss.detach()` in the container")
