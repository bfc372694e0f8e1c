"""The graph census: nodes stamped with their step, counted by age at the top of each step."""

import torch
import torch.nn as nn

from checkers.probes import MAX_AGE, GraphTracker, HostHeap, summarize_graph, walk_graph


def run_loop(keep, steps=12):
    """A tiny training loop; `keep(loss, out, state)` decides what survives each step."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    tracker = GraphTracker(steps)
    state = {}
    with tracker:
        while tracker.begin_step():
            out = model(torch.randn(8, 4))
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            keep(loss, out, state)
    return tracker, state


def ages_at(tracker, step):
    width = MAX_AGE + 1
    return list(tracker.ages[step * width:(step + 1) * width])


def test_a_clean_loop_only_ever_holds_the_previous_steps_graph():
    tracker, _ = run_loop(lambda loss, out, state: None)
    for step in range(1, tracker.samples):
        ages = ages_at(tracker, step)
        assert ages[1] > 0
        assert sum(ages[2:]) == 0


def test_a_running_total_holds_nodes_from_every_earlier_step():
    def accumulate(loss, out, state):
        state["running"] = state.get("running", 0) + loss

    tracker, state = run_loop(accumulate)
    last = ages_at(tracker, tracker.samples - 1)
    assert all(last[age] > 0 for age in range(1, tracker.samples - 1))
    assert tracker.nodes[tracker.samples - 1] > tracker.nodes[2]
    assert tracker.culprit.grad_fn == "AddBackward0"


def test_backward_span_measures_how_far_back_backward_reaches():
    torch.manual_seed(0)
    w = torch.ones(3, requires_grad=True)
    tracker = GraphTracker(8)
    with tracker:
        total = 0
        while tracker.begin_step():
            total = total + (w * torch.randn(3)).sum()
            total.backward(retain_graph=True)
    assert list(tracker.backward_span) == list(range(8))


def test_nodes_are_stamped_with_their_step_and_line():
    tracker = GraphTracker(3)
    w = torch.ones(2, requires_grad=True)
    with tracker:
        tracker.begin_step()
        tracker.begin_step()
        y = (w * 2).sum()
    stamps = [node.metadata.get("grill_step") for node in walk_graph([y.grad_fn])]
    assert 1 in stamps
    summary = summarize_graph(y.grad_fn)
    assert summary.oldest_step == 1
    assert summary.line is None  # the tracker only attributes lines in the snippet's file


def test_saved_bytes_count_tensors_kept_for_backward_until_it_runs():
    x = torch.randn(256, requires_grad=True)
    y = (x * x).sum()
    assert summarize_graph(y.grad_fn).saved_bytes == 256 * 4
    y.backward()
    assert summarize_graph(y.grad_fn).saved_bytes == 0


def test_the_host_heap_counter_sees_an_allocation():
    heap = HostHeap()
    before, _ = heap.read()
    block = torch.empty(4 * 1024 * 1024, dtype=torch.uint8)
    after, _ = heap.read()
    assert after - before >= block.numel()


def test_a_graph_through_a_create_graph_gradient_is_marked_higher_order():
    """So the hint speaks of create_graph only for what it made, not for a kept loss beside it."""
    weight = torch.ones(3, requires_grad=True)
    with GraphTracker(4):
        loss = (weight ** 3).sum()
        (grad,) = torch.autograd.grad(loss, weight, create_graph=True)
        norm = grad.pow(2).sum()
    assert summarize_graph(norm.grad_fn).higher_order
    assert not summarize_graph(loss.grad_fn).higher_order
