"""The corpus's names agree with an independent labeler (tests/grader/labeler.py, no grill import).

`labels.json` in `corpus/` and `benign/` records what the labeler measured (`python
tests/grader/labeler.py --write`). These tests read it: every file has an entry and every entry
a file, every `leak_`/`clean_` prefix matches its recorded label, every benign file is clean,
and every file written for the labeler sets its training length on one `STEPS = <int>` line.
The slow tests re-measure a few files, so the labeler itself is tested too.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CORPUS_DIR = HERE / "corpus"
BENIGN_DIR = HERE / "benign"
CORPUS = sorted(CORPUS_DIR.glob("*.py"))
BENIGN = sorted(BENIGN_DIR.glob("*.py"))
STEPS_LINE = re.compile(r"^STEPS = \d+\s*$", re.MULTILINE)

# The corpus files that predate the labeler: they set no STEPS, so the labeler reads their
# trend from one run's own progress (first half against the whole run), and they may not be
# edited here. (clean_epoch_total_with_graph_reset_each_epoch.py left the list when the
# epoch-long window rule relabelled it: as leak_epoch_total_with_graph_reset_each_epoch.py it sets STEPS and BATCHES.)
LEGACY = {
    "clean_accumulate_32.py",
    "clean_accuracy_counts.py",
    "clean_autocast.py",
    "clean_best_loss_item.py",
    "clean_best_state_dict.py",
    "clean_bounded_deque.py",
    "clean_detached_list.py",
    "clean_ema_detached.py",
    "clean_epoch_accumulator_reset.py",
    "clean_epoch_preds_cat.py",
    "clean_function_train.py",
    "clean_generator_train.py",
    "clean_grad_accumulation.py",
    "clean_grad_norms.py",
    "clean_gradient_penalty.py",
    "clean_hook_detached.py",
    "clean_item_total.py",
    "clean_iterator_next.py",
    "clean_lbfgs_closure.py",
    "clean_lr_scheduler.py",
    "clean_maml.py",
    "clean_nested_epochs.py",
    "clean_no_grad_decorator.py",
    "clean_no_grad_predictions.py",
    "clean_one_step_graph.py",
    "clean_periodic_eval.py",
    "clean_reinforce_env_step.py",
    "clean_retain_graph_two_losses.py",
    "clean_sawtooth_batch_sizes.py",
    "clean_stored_parameters.py",
    "clean_summed_accumulation.py",
    "clean_tbptt_detached.py",
    "clean_tbptt_per_timestep.py",
    "clean_trainer_metrics_item.py",
    "clean_variable_sequence_lengths.py",
    "clean_while_loop.py",
    "clean_while_true.py",
    "leak_accumulated_across_steps.py",
    "clean_best_loss_min_keeps_one_graph.py",
    "leak_cat_outputs.py",
    "leak_class_level_list.py",
    "leak_create_graph_norms.py",
    "leak_default_argument.py",
    "leak_defaultdict_sum.py",
    "leak_dict_of_lists.py",
    "leak_ema_loss.py",
    "leak_forward_hook_closure.py",
    "leak_function_local.py",
    "leak_generator_batches.py",
    "leak_generator_meter.py",
    "leak_generator_train_tensors.py",
    "leak_gru_hidden_list.py",
    "leak_history_by_name.py",
    "leak_inference_no_grad_forgotten.py",
    "leak_kept_predictions.py",
    "leak_lambda_default.py",
    "clean_list_of_graphs_cleared_every_10.py",
    "leak_list_of_losses.py",
    "leak_micro_batches_outer_total.py",
    "leak_module_forward_cache.py",
    "leak_nested_epochs_list.py",
    "leak_nonlocal_counter.py",
    "leak_object_attribute.py",
    "leak_outputs_by_step_dict.py",
    "leak_partial.py",
    "leak_records_dicts.py",
    "leak_reinforce_episodes.py",
    "leak_retain_graph_total.py",
    "leak_rnn_hidden_state.py",
    "leak_running_total.py",
    "leak_softmax_scores.py",
    "leak_train_returns_losses.py",
    "leak_trainer_metrics.py",
    "leak_wgan_history.py",
    "leak_while_total.py",
}


# Re-measured by the slow tests: (file, label).
REMEASURED = [
    ("corpus/leak_late_keep_after_half.py", "leak"),
    ("corpus/leak_epoch_total_tensor_reset_each_epoch.py", "leak"),
    ("corpus/clean_window_cleared_every_4_inside_epochs.py", "clean"),
    ("corpus/leak_moco_queue_cat_truncate.py", "leak"),
    ("corpus/clean_accum_sum_k16_class.py", "clean"),
    ("corpus/clean_window_cleared_every_5.py", "clean"),
    ("benign/private_attributes_trainer.py", "clean"),
]


def load_labels(folder):
    return json.loads((folder / "labels.json").read_text(encoding="utf-8"))


def load_labeler():
    spec = importlib.util.spec_from_file_location("grill_corpus_labeler", HERE / "labeler.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected(path):
    return path.name.split("_")[0]


@pytest.mark.parametrize("folder", [CORPUS_DIR, BENIGN_DIR], ids=["corpus", "benign"])
def test_labels_json_has_an_entry_for_every_file_and_no_stale_one(folder):
    files = {path.name for path in folder.glob("*.py")}
    labels = load_labels(folder)
    assert sorted(files - labels.keys()) == [], "files without a label: run labeler.py --write"
    assert sorted(labels.keys() - files) == [], "labels of files that are gone"
    for name, entry in labels.items():
        assert entry["label"] in ("leak", "clean"), name
        assert isinstance(entry["peak_n"], int) and isinstance(entry["peak_2n"], int), name


def test_the_corpus_is_large_and_covers_both_labels():
    labels = load_labels(CORPUS_DIR)
    new = [name for name in labels if name not in LEGACY]
    assert len(labels) >= 120 and len(new) >= 90
    kinds = [expected(CORPUS_DIR / name) for name in new]
    assert min(kinds.count("leak"), kinds.count("clean")) >= 30
    assert len(BENIGN) >= 60


@pytest.mark.parametrize("path", CORPUS, ids=[path.stem for path in CORPUS])
def test_corpus_name_prefix_equals_the_measured_label(path):
    assert expected(path) in ("leak", "clean"), (
        f"{path.name}: the name must start with leak_ or clean_"
    )
    entry = load_labels(CORPUS_DIR)[path.name]
    assert entry["label"] == expected(path), entry


@pytest.mark.parametrize("path", BENIGN, ids=[path.stem for path in BENIGN])
def test_benign_file_is_labelled_clean(path):
    assert load_labels(BENIGN_DIR)[path.name]["label"] == "clean"


@pytest.mark.parametrize(
    "path", CORPUS + BENIGN, ids=[f"{p.parent.name}/{p.stem}" for p in CORPUS + BENIGN]
)
def test_file_has_one_steps_line_and_a_first_line_comment(path):
    source = path.read_text(encoding="utf-8")
    assert source.startswith("# "), "the first line says what the file shows"
    if path.parent == CORPUS_DIR and path.name in LEGACY:
        return
    assert len(STEPS_LINE.findall(source)) == 1, "exactly one top-level `STEPS = <int>` line"


def test_labeler_counts_nodes_of_kept_graphs_and_skips_accumulate_grad():
    torch = pytest.importorskip("torch")
    import gc

    labeler = load_labeler()
    gc.collect()
    gc.freeze()  # as the labeler does: only what this test makes is scanned
    try:
        model = torch.nn.Linear(3, 1)
        assert labeler.reachable_graph_nodes() == 0
        kept = [model(torch.randn(2, 3)).pow(2).mean() for _ in range(3)]
        # each loss: MeanBackward0, PowBackward0, AddmmBackward0, TBackward0 (AccumulateGrad skipped)
        assert labeler.reachable_graph_nodes() == 12
        nodes = [loss.grad_fn for loss in kept]
        del kept
        assert labeler.reachable_graph_nodes() == 12  # Nodes kept directly still hold their graphs
        del nodes
        assert labeler.reachable_graph_nodes() == 0
        x = torch.randn(4, 3, requires_grad=True)
        (g,) = torch.autograd.grad(model(x).pow(2).sum(), x, create_graph=True)
        x.grad = g  # a leaf whose .grad carries a graph
        del g
        assert labeler.reachable_graph_nodes() > 0
    finally:
        gc.unfreeze()


def test_an_epoch_long_window_grows_with_the_inner_loop_and_a_code_bounded_one_does_not():
    """Doubling the epochs cannot tell them apart (both climb as high again); doubling the
    epoch's length can."""
    epoch, window = (
        load_labels(CORPUS_DIR)[name]
        for name in (
            "leak_epoch_total_tensor_reset_each_epoch.py",
            "clean_window_cleared_every_4_inside_epochs.py",
        )
    )
    assert epoch["method"] == window["method"] == "STEPS+BATCHES"
    assert epoch["peak_2n"] < 1.5 * epoch["peak_n"] and epoch["peak_2b"] >= 1.5 * epoch["peak_n"]
    assert window["peak_2n"] < 1.5 * window["peak_n"] and window["peak_2b"] < 1.5 * window["peak_n"]


def test_every_clean_file_with_epochs_sets_its_inner_loop_length():
    """A clean file that runs epochs is labelled by doubling its inner loop too, so a window
    that spans the epoch cannot pass for a bounded one, except those that predate
    the labeler."""
    for path in CORPUS:
        if path.name in LEGACY or not path.name.startswith("clean_"):
            continue
        source = path.read_text(encoding="utf-8")
        uses_epochs = "for epoch" in source
        if uses_epochs and "backpropagated_at_epoch_end" not in path.name:
            assert re.search(r"^BATCHES = \d+\s*$", source, re.MULTILINE), path.name


def test_labeler_rule():
    labeler = load_labeler()
    assert labeler.decide(100, 150, 8) == "leak"
    assert labeler.decide(100, 149, 8) == "clean"  # not 1.5x
    assert labeler.decide(10, 30, 8) == "clean"  # 3x, but less than 3 steps' graphs
    assert labeler.decide(0, 24, 8) == "leak"


@pytest.mark.parametrize("relative, label", REMEASURED, ids=[r for r, _ in REMEASURED])
def test_labeler_remeasures_a_file_as_recorded(relative, label):
    pytest.importorskip("torch")
    labeler = load_labeler()
    path = HERE / relative
    result = labeler.measure(path)
    recorded = load_labels(path.parent)[path.name]
    assert result["error"] is None
    assert result["label"] == label == recorded["label"], result
    # the doubled run that grows: the outer loop's, or the inner loop's
    doubled = [result["peak_2n"], *([result["peak_2b"]] if "peak_2b" in result else [])]
    if label == "leak":
        assert any(peak >= 1.5 * result["peak_n"] for peak in doubled)
    else:
        assert all(
            peak < 1.5 * result["peak_n"] or peak - result["peak_n"] < 3 * result["unit"]
            for peak in doubled
        )
