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
