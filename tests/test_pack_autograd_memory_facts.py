"""The small experiments behind the autograd-memory pack's claims, kept so the claims stay true.

A fact-check of the first pack against PyTorch's documentation and a few experiments corrected
several cards; each experiment that settled a claim is here, named after what it shows, so a
PyTorch upgrade that changes the behaviour fails a test instead of leaving a card wrong.
"""

from __future__ import annotations

import gc
import inspect
import warnings
import weakref

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from checkers.measure.memory import HostHeap


def test_backward_with_create_graph_leaves_a_grad_cycle_that_gc_does_not_free():
    """create-graph-higher-order-gradients: the parameter <-> .grad cycle runs through autograd's
    C++ nodes, so Python's cycle collector cannot free it; only `p.grad = None` does."""

    def parameter_with_graph_in_its_grad() -> weakref.ref:
        p = nn.Parameter(torch.randn(5))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch warns about exactly this cycle
            p.pow(3).sum().backward(create_graph=True)
        assert p.grad.grad_fn is not None
        return p

    p = parameter_with_graph_in_its_grad()
    kept = weakref.ref(p)
    del p
    gc.collect()
    gc.collect()
    assert kept() is not None, "the cycle collector freed it after all: update the card"

    p = parameter_with_graph_in_its_grad()
    cleared = weakref.ref(p)
    p.grad = None  # what zero_grad(set_to_none=True) does
    del p
    assert cleared() is None


def test_create_graph_alone_gives_second_order_gradients():
    """create-graph-higher-order-gradients, red flag 5: retain_graph defaults to create_graph."""
    x = torch.tensor(2.0, requires_grad=True)
    (first,) = torch.autograd.grad(x**3, x, create_graph=True)
    (second,) = torch.autograd.grad(first, x)
    assert (first.item(), second.item()) == (12.0, 12.0)


def saved_tensor_bytes(root: torch.Tensor) -> int:
    """Bytes of the tensors still saved in the graph behind `root` (what a GPU would hold for it);
    a saved tensor already freed by backward raises when read and counts as nothing."""
    seen, storages, stack = set(), {}, [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for name in dir(node):
            if not name.startswith("_saved_") or name.startswith("_saved_tensors"):
                continue
            try:
                value = getattr(node, name)
            except RuntimeError:  # freed by backward
                continue
            for item in value if isinstance(value, (tuple, list)) else [value]:
                if isinstance(item, torch.Tensor):
                    storages[item.untyped_storage().data_ptr()] = item.untyped_storage().nbytes()
        stack.extend(next_node for next_node, _ in node.next_functions)
    return sum(storages.values())


def kept_total(
    backpropagate: bool, steps: int, heap: HostHeap | None = None
) -> tuple[torch.Tensor, float]:
    """A loop that adds each step's loss tensor to a running total; returns the total and the
    host heap growth per step measured between step 20 and the last step."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.Tanh(), nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 64)
    total, marks = 0.0, {}
    for step in range(steps + 1):
        if heap is not None and step in (20, steps):
            gc.collect()
            marks[step], _ = heap.read()
        loss = model(x).pow(2).mean()
        if backpropagate:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total = total + loss
    growth = (marks[steps] - marks[20]) / (steps - 20) if heap is not None else 0.0
    return total, growth


def test_a_kept_backpropagated_loss_pins_graph_nodes_in_host_memory_not_tensor_data():
    """keeping-loss-tensor-grows-memory and the prompts of the kept-loss tasks: after backward the
    saved activations are gone, so the kept chain holds no tensor data (a GPU's allocated curve
    can stay flat); a kept loss that was never back-propagated keeps every activation."""
    walked, _ = kept_total(backpropagate=True, steps=30)
    never, _ = kept_total(backpropagate=False, steps=30)
    activations_per_step = 128 * 256 * 4  # the tanh output, float32
    assert saved_tensor_bytes(walked) == 0
    assert saved_tensor_bytes(never) >= 30 * activations_per_step


def test_the_host_heap_grows_by_kilobytes_for_a_walked_graph_and_by_the_activations_otherwise():
    try:
        heap = HostHeap()  # the grader's own host probe
    except OSError as exc:
        pytest.skip(str(exc))
    kept_total(backpropagate=True, steps=30, heap=heap)  # warm up torch's one-time allocations
    _, walked = kept_total(backpropagate=True, steps=60, heap=heap)
    _, never = kept_total(backpropagate=False, steps=60, heap=heap)
    activations_per_step = 128 * 256 * 4
    assert 0 < walked < 20_000
    assert never > activations_per_step
    assert walked < never / 10


def test_an_index_or_slice_keeps_the_whole_batch_storage_until_cloned():
    """kept-predictions-and-attention-maps: `weights[0].detach()` and `tokens[:, 0, :1]` are views."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, num_heads=2, batch_first=True)
    tokens = torch.randn(16, 6, 8)
    _, weights = attention(tokens, tokens, tokens)  # need_weights defaults to True
    first_map = weights[0].detach()
    assert first_map.untyped_storage().nbytes() == 16 * 6 * 6 * 4 == 2304
    assert first_map.clone().untyped_storage().nbytes() == 6 * 6 * 4 == 144
    target = tokens[:, 0, :1]
    assert target.untyped_storage().nbytes() == 16 * 6 * 8 * 4 == 3072
    assert target.clone().untyped_storage().nbytes() == 16 * 4 == 64


def test_need_weights_false_returns_no_attention_weights():
    attention = nn.MultiheadAttention(8, num_heads=2, batch_first=True)
    tokens = torch.randn(2, 6, 8)
    _, weights = attention(tokens, tokens, tokens, need_weights=False)
    assert weights is None


def accumulated_step(optimizer_class, divide_by: int) -> float:
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    before = model.weight.detach().clone()
    optimizer = optimizer_class(model.parameters(), lr=0.01)
    for xs, ys in zip(x.chunk(4), y.chunk(4), strict=True):
        (F.mse_loss(model(xs), ys) / divide_by).backward()
    optimizer.step()
    return (model.weight.detach() - before).norm().item()


def test_an_unscaled_accumulated_loss_quadruples_an_sgd_step_but_not_an_adam_step():
    """gradient-accumulation-memory (follow-up 1) and gradient-accumulation-loss-scale."""
    sgd = accumulated_step(torch.optim.SGD, 1) / accumulated_step(torch.optim.SGD, 4)
    adam = accumulated_step(torch.optim.Adam, 1) / accumulated_step(torch.optim.Adam, 4)
    assert sgd == pytest.approx(4.0, rel=1e-4)
    assert adam == pytest.approx(1.0, rel=1e-3)


def test_memory_summary_says_non_releasable_and_memory_stats_has_inactive_split_keys():
    """diagnosing-memory-growth-patterns: the labels as PyTorch prints and names them (read from
    the source, so no GPU is needed)."""
    summary = inspect.getsource(torch.cuda.memory_summary)
    assert "Non-releasable memory" in summary and "Non-releasable allocs" in summary
    assert "inactive split" not in summary.lower()
    stats_doc = torch.cuda.memory_stats.__doc__
    assert '"inactive_split.{all,large_pool,small_pool}' in stats_doc
    assert '"inactive_split_bytes.{all,large_pool,small_pool}' in stats_doc


def test_an_inference_tensor_can_feed_autograd_but_cannot_be_saved_for_backward():
    """evaluation-no-grad-inference-mode, key point 4."""
    with torch.inference_mode():
        frozen = torch.randn(3)
    weight = torch.randn(3, requires_grad=True)
    (weight + frozen).sum().backward()  # addition saves neither input
    assert weight.grad.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (weight * frozen).sum().backward()  # multiplication must save `frozen`
    (weight * frozen.clone()).sum().backward()  # a clone is an ordinary tensor


# --- the cards added to reach every level: what a graph keeps, frozen layers, in-place ops,
# custom Functions, kept exceptions and graph-liveness tokens -------------------------------


def saved_storage_bytes(model: nn.Module, x: torch.Tensor, backward: bool = False) -> int:
    """Bytes of the distinct storages autograd saves during `model(x)`, parameters left out."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in params:
            kept[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        out = model(x)
        if backward:
            out.sum().backward()
    return sum(kept.values())


def linear_relu_stack(inplace: bool = False) -> nn.Sequential:
    layers: list[nn.Module] = []
    for _ in range(4):
        layers += [nn.Linear(64, 64), nn.ReLU(inplace=inplace)]
    return nn.Sequential(*layers)


def test_a_node_keeps_what_its_derivative_reads_and_backward_frees_it():
    """what-autograd-keeps-and-when-it-frees-it, key points 2 and 3."""
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    product = a * b
    exp = product.exp()
    assert torch.equal(product.grad_fn._saved_self, a)
    assert torch.equal(product.grad_fn._saved_other, b)
    assert torch.equal(exp.grad_fn._saved_result, exp)
    saved = [name for name in dir((a + b).grad_fn) if name.startswith("_saved_")]
    assert saved == ["_saved_alpha"]  # addition keeps no tensor
    exp.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = exp.grad_fn._saved_result  # reading a freed saved tensor raises


def test_a_frozen_prefix_saves_nothing_and_a_frozen_top_saves_as_much_as_training_it():
    """frozen-layers-and-saved-activations: the example's 5, 3 and 5 activations."""
    x = torch.randn(32, 64)
    activation = 32 * 64 * 4
    counts = {}
    for frozen in ("nothing", "bottom", "top"):
        model = linear_relu_stack()
        part = {"nothing": [], "bottom": model[:4], "top": model[4:]}[frozen]
        for module in part:
            module.requires_grad_(False)
        counts[frozen] = saved_storage_bytes(model, x) // activation
    assert counts == {"nothing": 5, "bottom": 3, "top": 5}


def test_a_frozen_linear_keeps_its_weight_and_a_trainable_one_fed_by_data_its_input():
    """frozen-layers-and-saved-activations, key point 3: nodes save conditionally."""
    frozen = nn.Linear(8, 8).requires_grad_(False)
    node = frozen(torch.randn(4, 8, requires_grad=True)).grad_fn
    assert node._saved_mat1 is None and node._saved_mat2 is not None
    node = nn.Linear(8, 8)(torch.randn(4, 8)).grad_fn
    assert node._saved_mat1 is not None and node._saved_mat2 is None


def test_the_reentrant_checkpoint_warns_when_no_input_requires_grad():
    """frozen-layers-and-saved-activations, follow-up 1."""
    embedded = nn.Embedding(10, 8).requires_grad_(False)(torch.tensor([1, 2, 3]))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = torch.utils.checkpoint.checkpoint(nn.Linear(8, 8), embedded, use_reentrant=True)
    assert not out.requires_grad


def test_a_legal_in_place_relu_keeps_the_same_saved_tensors():
    """in-place-operations-and-activation-memory, key point 1 and the example."""
    x = torch.randn(32, 64)
    sizes = []
    for inplace in (False, True):
        torch.manual_seed(0)
        sizes.append(saved_storage_bytes(linear_relu_stack(inplace), x, backward=True))
    assert sizes[0] == sizes[1] == 5 * 32 * 64 * 4


def test_in_place_fails_where_a_saved_value_would_be_lost():
    """in-place-operations-and-activation-memory, key point 3."""
    a = torch.randn(5, requires_grad=True)
    for keeps_its_output in (torch.sigmoid, torch.tanh, torch.exp):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            torch.relu_(keeps_its_output(a)).sum().backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.randn(3, requires_grad=True).add_(1)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True))
    model[0].register_full_backward_hook(lambda module, grad_in, grad_out: None)
    with pytest.raises(RuntimeError, match="BackwardHookFunction is a view"):
        model(torch.randn(2, 4)).sum().backward()
    torch.relu_(nn.BatchNorm1d(8)(torch.randn(4, 8, requires_grad=True))).sum().backward()


def test_an_in_place_relu_overwrites_what_a_forward_hook_stored_detached():
    """in-place-operations-and-activation-memory, key point 4."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(inplace=True))
    seen = []
    model[0].register_forward_hook(lambda module, inputs, output: seen.append(output.detach()))
    x = torch.randn(16, 8)
    model(x)
    assert (model[0](x) < 0).any()
    assert not (seen[0] < 0).any()


class SinOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.x.cos()


class SinSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


@pytest.mark.parametrize(("function", "escapes"), [(SinOnCtx, True), (SinSaved, False)])
def test_a_ctx_attribute_escapes_checkpointing_and_the_version_check(function, escapes):
    """custom-function-save-for-backward, key points 1 to 3 and the example."""
    inner = {}

    def block(x):
        h = x * 2
        inner["h"] = weakref.ref(h)
        return function.apply(h).sum()

    x = torch.randn(100, requires_grad=True)
    out = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
    assert (inner["h"]() is not None) is escapes
    del out

    h = x * 2
    y = function.apply(h)
    with torch.no_grad():
        h.mul_(10)
    if escapes:
        y.sum().backward()  # the edited tensor is used without a word
    else:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


class ExpOutputOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.out = x.exp()
        return ctx.out

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.out


class ExpOutputSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


def test_an_output_stored_on_ctx_is_freed_only_by_the_cycle_collector():
    """custom-function-save-for-backward, key point 4."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for function, needs_gc in ((ExpOutputOnCtx, True), (ExpOutputSaved, False)):
            x = torch.randn(10, requires_grad=True)
            out = function.apply(x)
            out.sum().backward()
            kept = weakref.ref(out)
            del out
            assert (kept() is not None) is needs_gc, function.__name__
            gc.collect()
            assert kept() is None, function.__name__
    finally:
        if was_enabled:
            gc.enable()


def test_a_kept_exception_pins_its_frame_graph_until_its_traceback_is_dropped():
    """slow-leak-in-a-long-running-training-service, key point 4 and the task's tried fixes."""
    model = nn.Linear(8, 8)
    tokens = []

    def failing_step() -> None:
        out = model(torch.randn(4, 8))
        token = type("Token", (), {})()
        out.grad_fn.metadata["token"] = token
        tokens.append(weakref.ref(token))
        raise ValueError("non-finite output")

    kept = []
    for _ in range(3):
        try:
            failing_step()
        except ValueError as err:
            kept.append(err)
    assert all(token() is not None for token in tokens)
    kept = [err.with_traceback(None) for err in kept]
    assert all(token() is None for token in tokens)


def test_a_token_in_node_metadata_dies_with_the_node_which_takes_no_weak_reference():
    """graph-leaks-as-failing-tests, key point 4."""
    loss = nn.Linear(4, 1)(torch.randn(2, 4)).sum()
    with pytest.raises(TypeError, match="cannot create weak reference"):
        weakref.ref(loss.grad_fn)
    token = type("Token", (), {})()
    loss.grad_fn.metadata["token"] = token
    alive = weakref.ref(token)
    del token
    loss.backward()
    assert alive() is not None  # backward frees saved tensors, not the nodes
    del loss
    assert alive() is None


def test_backward_fills_grad_only_on_leaves_and_a_converted_copy_is_not_one():
    """leaf-tensors-and-a-missing-grad: an intermediate keeps its gradient only with
    retain_grad(), a tensor converted after requires_grad=True is a non-leaf copy whose .grad
    stays None (with a warning), and zero_grad() sets .grad to None by default."""
    w = torch.randn(3, requires_grad=True)
    h = w * 2
    h.retain_grad()
    h.sum().backward()
    assert (w.is_leaf, h.is_leaf) == (True, False)
    assert torch.equal(w.grad, torch.full((3,), 2.0)) and torch.equal(h.grad, torch.ones(3))

    v = torch.randn(3, requires_grad=True).double()
    v.sum().backward()
    assert not v.is_leaf and v.grad_fn is not None
    with pytest.warns(UserWarning, match="not a leaf"):
        assert v.grad is None

    model = nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(1, 2)).sum().backward()
    optimizer.zero_grad()
    assert model.weight.grad is None
