"""The small experiments behind the performance-and-syncs pack's claims, kept so the claims stay
true: a PyTorch upgrade that changes one of these behaviours fails a test here instead of
leaving a card wrong. Each test names the card it backs. What needs a GPU (the waits themselves,
CUDA events) is documented behaviour and cited in the cards' sources instead.
"""

from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.profiler import ProfilerActivity, profile, record_function


class CallsSeen(TorchFunctionMode):
    """Records every torch function or tensor method Python code reaches."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[object] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func)
        return func(*args, **(kwargs or {}))


def test_a_detached_loss_keeps_no_graph_and_one_tolist_gives_python_floats():
    """printing-the-loss-every-step-on-a-gpu: the kept losses carry no graph; one read gives floats."""
    weight = torch.randn(3, requires_grad=True)
    kept = [(weight * step).sum().detach() for step in range(4)]
    assert all(loss.grad_fn is None and not loss.requires_grad for loss in kept)
    history = torch.stack(kept).tolist()
    assert [type(value) for value in history] == [float] * 4


def test_formatting_and_printing_a_tensor_read_its_value():
    """printing-the-loss-every-step-on-a-gpu: an f-string and print reach the tensor's own
    __format__ and __repr__, which need its value."""
    loss = torch.tensor(0.25)
    with CallsSeen() as mode:
        text = f"{loss:.4f}"
        shown = repr(loss)
    assert text == "0.2500" and "0.25" in shown
    assert torch.Tensor.__format__ in mode.seen and torch.Tensor.__repr__ in mode.seen


def test_four_micro_batches_scaled_by_a_quarter_give_the_large_batch_gradient():
    """what-gradient-accumulation-costs-in-time: accumulation is the same update, in four passes."""
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    xs, ys = torch.randn(32, 16), torch.randint(0, 4, (32,))
    F.cross_entropy(model(xs), ys).backward()
    large = model.weight.grad.clone()
    model.weight.grad = None
    for x, y in zip(xs.chunk(4), ys.chunk(4), strict=True):
        (F.cross_entropy(model(x), y) / 4).backward()
    assert torch.allclose(model.weight.grad, large, atol=1e-6)


def test_the_masked_mean_equals_the_indexed_mean_and_an_empty_mask_gives_zero():
    """boolean-masks-and-data-dependent-shapes: the fixed-shape loss is the indexed one; with no
    true entry it is zero with zero gradients, where the indexed mean is NaN."""
    torch.manual_seed(0)
    logits = torch.randn(6, 3, requires_grad=True)
    targets = torch.randint(0, 3, (6,))
    mask = torch.tensor([True, False, True, True, False, True])

    def fixed_shape(mask: torch.Tensor) -> torch.Tensor:
        weight = mask.float()
        per_token = F.cross_entropy(logits, targets, reduction="none")
        return (per_token * weight).sum() / weight.sum().clamp(min=1)

    assert torch.allclose(F.cross_entropy(logits[mask], targets[mask]), fixed_shape(mask))
    none = torch.zeros(6, dtype=torch.bool)
    empty = fixed_shape(none)
    empty.backward()
    assert empty.item() == 0.0 and torch.count_nonzero(logits.grad) == 0
    assert F.cross_entropy(logits[none], targets[none]).isnan()


def test_where_with_three_arguments_keeps_the_shape_and_with_one_is_nonzero():
    """boolean-masks-and-data-dependent-shapes, follow-up on torch.where."""
    mask = torch.tensor([True, False, True])
    assert torch.where(mask, torch.ones(3), 0).shape == (3,)
    (indices,) = torch.where(mask)
    assert torch.equal(indices, mask.nonzero(as_tuple=True)[0])
    assert torch.equal(indices, torch.tensor([0, 2]))


def test_an_if_and_python_min_on_tensors_ask_for_the_truth_value():
    """if-on-a-tensor-in-the-training-loop: both reach Tensor.__bool__, a read of the value."""
    loss, best = torch.tensor(0.5), torch.tensor(0.7)
    with CallsSeen() as mode:
        if loss < best:
            pass
    assert torch.Tensor.__bool__ in mode.seen
    with CallsSeen() as mode:
        assert min(best, loss) is loss
    assert torch.Tensor.__bool__ in mode.seen


def test_where_on_the_detached_loss_keeps_no_graph_and_on_the_raw_loss_chains_it():
    """if-on-a-tensor-in-the-training-loop: the running best stays free of history only if what
    it is built from is detached; a Python int is accepted as the step."""
    weight = torch.tensor(1.0, requires_grad=True)
    best, best_step = torch.tensor(float("inf")), torch.tensor(-1)
    for step, scale in enumerate([0.9, 0.7, 0.8, 0.5]):
        loss = weight * scale
        improved = loss.detach() < best
        best = torch.where(improved, loss.detach(), best)
        best_step = torch.where(improved, step, best_step)
    assert (round(best.item(), 2), int(best_step), best.grad_fn) == (0.5, 3, None)

    raw = torch.tensor(float("inf"))
    for scale in [0.9, 0.7]:
        loss = weight * scale
        raw = torch.where(loss < raw, loss, raw)
    assert raw.grad_fn is not None


def test_grad_scaler_reads_its_found_inf_flag_before_stepping():
    """if-on-a-tensor-in-the-training-loop, follow-up: GradScaler's step accepts one read."""
    source = inspect.getsource(torch.amp.GradScaler._maybe_opt_step)
    assert ".item()" in source and "found_inf" in source


def test_record_function_labels_are_rows_of_the_profilers_table():
    """low-gpu-utilisation-across-the-fleet: labelled regions appear in key_averages."""
    model = torch.nn.Linear(8, 8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("load_batch"):
            x = torch.randn(4, 8)
        with record_function("train_step"):
            model(x).sum().backward()
    keys = {event.key for event in prof.key_averages()}
    assert {"load_batch", "train_step"} <= keys
    assert "load_batch" in prof.key_averages().table(sort_by="self_cpu_time_total")


def test_a_print_or_an_item_in_the_forward_breaks_the_graph_and_fullgraph_refuses_it():
    """adopting-torch-compile-across-teams: Dynamo's explain() counts the breaks (no kernels are
    compiled), fullgraph=True turns a break into an error, and the recompile limit is 8."""
    import torch._dynamo as dynamo

    def with_print(x):
        y = torch.relu(x) * 2
        print("seen")
        return y + 1

    def with_item(x):
        return x * x.sum().item()

    dynamo.reset()
    report = dynamo.explain(with_print)(torch.randn(4))
    assert (report.graph_count, report.graph_break_count) == (2, 1)
    assert dynamo.explain(with_item)(torch.randn(4)).graph_break_count == 1
    with pytest.raises(dynamo.exc.Unsupported, match="builtin operator"):
        torch.compile(with_print, backend="eager", fullgraph=True)(torch.randn(4))
    assert dynamo.config.recompile_limit == 8
    dynamo.reset()


def test_the_dataloader_loads_in_the_main_process_by_default_and_refuses_worker_options_without_workers():
    """dataloader-workers-and-waiting-for-data: the defaults, the order, and the refusals."""
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randn(10, 3), torch.arange(10))
    loader = DataLoader(data, batch_size=4)
    assert (loader.num_workers, loader.persistent_workers, loader.pin_memory) == (0, False, False)
    assert [y.tolist() for _, y in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    with pytest.raises(ValueError, match="num_workers > 0"):
        DataLoader(data, batch_size=4, persistent_workers=True)
    with pytest.raises(ValueError, match="num_workers > 0"):
        DataLoader(data, batch_size=4, prefetch_factor=4)
    assert DataLoader(data, batch_size=4, num_workers=2).prefetch_factor == 2  # not started
    assert loader.in_order  # batches come back in the sampler's order, workers or not


def test_the_operator_table_sums_calls_and_shows_item_as_its_own_rows():
    """reading-the-profilers-operator-table: one row per operator over its calls, total at least
    self, the columns the card names, and .item() recorded as aten::item and
    aten::_local_scalar_dense."""
    model = torch.nn.Linear(64, 64)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            loss = model(torch.randn(32, 64)).pow(2).mean()
            loss.backward()
            loss.item()
    rows = {event.key: event for event in prof.key_averages()}
    linear = rows["aten::linear"]
    assert linear.count == 3 and linear.cpu_time_total >= linear.self_cpu_time_total
    assert {"aten::item", "aten::_local_scalar_dense", "aten::addmm"} <= set(rows)
    header = prof.key_averages().table(sort_by="self_cpu_time_total")
    assert all(column in header for column in ("Self CPU", "CPU total", "# of Calls"))


def test_a_false_flag_times_nan_stays_nan_and_where_replaces_it():
    """skipping-a-non-finite-step-on-the-device: why multiplying by the flag fails."""
    grad, ok = torch.tensor([float("nan"), float("inf"), 1.0]), torch.tensor(False)
    assert (grad * ok).isnan().tolist() == [True, True, False]
    assert torch.equal(torch.where(ok, grad, torch.zeros_like(grad)), torch.zeros(3))


def test_a_zero_gradient_leaves_plain_sgd_alone_but_not_momentum_or_weight_decay():
    """skipping-a-non-finite-step-on-the-device: a zero gradient is a no-op for plain SGD only."""

    def moved_after_a_zero_step(**settings) -> bool:
        weight = torch.nn.Parameter(torch.ones(2))
        optimizer = torch.optim.SGD([weight], lr=0.1, **settings)
        weight.grad = torch.ones(2)
        optimizer.step()  # fills the momentum buffer, if any
        before = weight.detach().clone()
        weight.grad = torch.zeros(2)
        optimizer.step()
        return not torch.equal(weight.detach(), before)

    assert not moved_after_a_zero_step()
    assert moved_after_a_zero_step(momentum=0.9)
    assert moved_after_a_zero_step(weight_decay=0.1)


def test_grad_scaler_hands_itself_to_optimizers_that_skip_inside_their_step():
    """skipping-a-non-finite-step-on-the-device: the read is avoided only by such optimizers."""
    source = inspect.getsource(torch.amp.GradScaler.step)
    assert "_step_supports_amp_scaling" in source
    assert "optimizer.found_inf = found_inf" in source  # the flag, as a tensor, not a read
    weights = [torch.nn.Parameter(torch.ones(2))]
    for optimizer in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        assert optimizer(weights, lr=0.1, fused=True)._step_supports_amp_scaling
        assert not getattr(optimizer(weights, lr=0.1), "_step_supports_amp_scaling", False)


def test_a_data_dependent_if_breaks_the_graph_and_a_clamp_gives_its_values_in_one():
    """graph-breaks-and-recompilations: `.item()` in an if, and a tensor condition in an if,
    each split the forward in two graphs; the clamp that replaces them gives the same values
    and one graph."""
    import torch._dynamo as dynamo

    def with_item(h):
        if h.abs().max().item() > 2.0:
            h = h.clamp(-2.0, 2.0)
        return h * 2

    def with_tensor_condition(h):
        if h.abs().max() > 2.0:
            h = h.clamp(-2.0, 2.0)
        return h * 2

    def clamped(h):
        return h.clamp(-2.0, 2.0) * 2

    dynamo.reset()
    for h in (torch.randn(8) * 3, torch.rand(8)):  # with values out of range, and without
        assert torch.equal(with_item(h), clamped(h))
    h = torch.randn(8)
    counts = {
        fn.__name__: (report.graph_count, report.graph_break_count)
        for fn in (with_item, with_tensor_condition, clamped)
        for report in [dynamo.explain(fn)(h)]
    }
    assert counts == {"with_item": (2, 1), "with_tensor_condition": (2, 1), "clamped": (1, 0)}
    dynamo.reset()


def test_a_new_length_recompiles_once_as_dynamic_and_static_shapes_stop_at_the_limit():
    """graph-breaks-and-recompilations: four lengths compile twice by default (the second
    compile makes the length dynamic), once when mark_dynamic marks it up front; with
    dynamic=False each length compiles until recompile_limit (8), and later calls still run,
    uncompiled."""
    import torch._dynamo as dynamo

    compiles: list[int] = []

    def counting_backend(graph, inputs):
        compiles.append(len(inputs))
        return graph.forward

    dynamo.reset()
    double = torch.compile(lambda x: x * 2, backend=counting_backend)
    for length in (4, 5, 6, 7):
        double(torch.randn(length))
    assert len(compiles) == 2
    dynamo.reset()
    compiles.clear()
    for length in (4, 5, 6, 7):  # marked dynamic from the start: one compile serves them all
        x = torch.randn(length)
        dynamo.mark_dynamic(x, 0)
        double(x)
    assert len(compiles) == 1
    dynamo.reset()
    compiles.clear()
    static = torch.compile(lambda x: x * 2, backend=counting_backend, dynamic=False)
    results = [static(torch.ones(length)) for length in range(2, 14)]
    assert len(compiles) == dynamo.config.recompile_limit == 8
    assert all(torch.equal(r, torch.full_like(r, 2.0)) for r in results)
    dynamo.reset()


def test_three_per_class_counts_agree_and_only_bincount_and_one_hot_size_by_the_data():
    """training-metrics-without-waiting-for-the-gpu: bincount of the masked labels, index_add_
    and one_hot with num_classes give the same int64 counts; bincount's length and one_hot's
    width without num_classes follow the largest label, index_add_'s does not."""
    torch.manual_seed(0)
    y = torch.randint(0, 4, (32,))
    hits = torch.rand(32) > 0.5
    waited = torch.bincount(y[hits], minlength=4)
    fixed = torch.zeros(4, dtype=torch.long).index_add_(0, y, hits.long())
    scattered = torch.zeros(4, dtype=torch.long).scatter_add_(0, y, hits.long())
    one_hot = (F.one_hot(y, 4) * hits[:, None]).sum(0)
    assert torch.equal(waited, fixed) and torch.equal(fixed, one_hot)
    assert torch.equal(fixed, scattered) and fixed.dtype == one_hot.dtype == torch.long
    small = torch.tensor([0, 1, 6])
    assert torch.bincount(small, minlength=4).shape == (7,)
    assert F.one_hot(small).shape == (3, 7)


def test_float32_counts_stop_being_exact_above_two_to_the_24():
    """training-metrics-without-waiting-for-the-gpu: why the counts are int64."""
    limit = 2**24
    assert torch.tensor(float(limit)) + 1 == limit
    assert torch.tensor(limit, dtype=torch.long) + 1 == limit + 1
