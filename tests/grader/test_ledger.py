"""The ledger sees every node's life, whatever holds it and however backward is called."""

from itertools import pairwise

import torch
import torch.nn as nn

from checkers.measure.ledger import ALIVE, Ledger
from checkers.measure.memory import OffHeap, memory_reader


def run(body, steps: int = 12, **options) -> Ledger:
    """Run `body(step)` once per loop iteration under a ledger, ticking like a loop does."""
    ledger = Ledger(__file__, memory_reader("cpu"), **options)
    with ledger.watching():
        for step in range(steps):
            ledger.tick(1)
            body(step)
    ledger.close_lives()
    return ledger


def model_and_optimizer():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    return model, torch.optim.SGD(model.parameters(), lr=0.01)


def test_a_loop_that_keeps_nothing_has_no_dead_weight():
    model, opt = model_and_optimizer()

    def body(step):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    ledger = run(body)
    assert max(ledger.dead_weight()[0]) == 0
    assert (ledger.backward_calls, ledger.optimizer_steps, ledger.updates) == (12, 12, 12)


def test_kept_losses_add_one_generation_of_dead_weight_per_step():
    model, opt = model_and_optimizer()
    kept = []

    def body(step):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        kept.append(loss)

    series = run(body).dead_weight()[0]
    assert series[-1] == 12
    assert all(b >= a for a, b in pairwise(series))


def test_a_grad_fn_kept_without_its_tensor_still_keeps_its_graph_alive():
    model, _ = model_and_optimizer()
    nodes = []
    ledger = run(lambda step: nodes.append(model(torch.randn(2, 4)).sum().grad_fn))
    assert ledger.dead_weight()[0][-1] == 12
    nodes.clear()


def test_graph_waiting_for_a_later_backward_is_not_dead_weight():
    """Gradient accumulation: four micro-losses summed, one backward per window."""
    model, opt = model_and_optimizer()
    pending = {"total": 0}

    def body(step):
        pending["total"] = pending["total"] + model(torch.randn(8, 4)).pow(2).mean()
        if step % 4 == 3:
            opt.zero_grad()
            pending["total"].backward()
            opt.step()
            pending["total"] = 0

    assert max(run(body, steps=16).dead_weight()[0]) <= 1


def test_the_unfinished_last_window_waits_for_a_backward_the_run_did_not_reach():
    model, opt = model_and_optimizer()
    pending = {"total": 0}

    def body(step):
        pending["total"] = pending["total"] + model(torch.randn(8, 4)).pow(2).mean()
        if step % 8 == 7:
            opt.zero_grad()
            pending["total"].backward()
            pending["total"] = 0

    assert max(run(body, steps=21).dead_weight()[0]) <= 1  # 5 steps of the third window left over


def test_unused_graph_older_than_any_wait_between_backward_passes_is_dead_weight():
    """An evaluation pass after training, without no_grad, keeping its outputs."""
    model, opt = model_and_optimizer()
    outputs = []

    def body(step):
        if step < 10:
            loss = model(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        else:
            outputs.append(model(torch.randn(8, 4)))

    assert run(body, steps=30).dead_weight()[0][-1] >= 18  # all 20 but the last wait's worth


def test_every_way_of_calling_backward_reaches_the_ledger():
    x = torch.ones(3, requires_grad=True)

    def body(step):
        (x * 2).sum().backward()
        torch.autograd.backward((x * 3).sum())
        torch.autograd.grad((x * 4).sum(), x)
        torch.Tensor.backward((x * 5).sum())

    assert run(body, steps=2).backward_calls == 8


def test_a_carried_state_with_retain_graph_reaches_further_back_every_step():
    cell = nn.Linear(3, 3)
    state = {"h": torch.zeros(1, 3)}

    def body(step):
        state["h"] = torch.tanh(cell(state["h"]))
        state["h"].sum().backward(retain_graph=True)

    reach = run(body, steps=10).reach.values()[1:]
    assert reach == list(range(10))


def test_custom_function_nodes_are_born_in_the_ledger_too():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    chain = {"h": torch.ones(2, requires_grad=True)}
    ledger = run(lambda step: chain.__setitem__("h", Square.apply(chain["h"]) * 0.5), steps=8)
    assert ledger.nodes_created >= 16
    assert ledger.dead_weight()[0][-1] >= 7
    chain.clear()


def test_nodes_made_inside_a_composite_op_are_counted():
    x = torch.randn(4, 3, requires_grad=True)
    ledger = run(lambda step: nn.functional.cross_entropy(x, torch.tensor([0, 1, 2, 0])), steps=1)
    assert ledger.nodes_created >= 2  # log_softmax and nll_loss, seen through their output


def test_an_optimizer_step_without_gradients_is_not_an_update():
    model, opt = model_and_optimizer()

    def body(step):
        opt.zero_grad()
        model(torch.randn(2, 4)).sum().detach()
        opt.step()

    ledger = run(body, steps=5)
    assert (ledger.optimizer_steps, ledger.updates) == (5, 0)


def test_switching_off_torch_function_handling_is_seen():
    def body(step):
        with torch._C.DisableTorchFunction():
            ledger_ref[0].tick(1)
        torch.ones(1, requires_grad=True).sum()

    ledger = Ledger(__file__, None)
    ledger_ref = [ledger]
    with ledger.watching():
        for step in range(3):
            ledger.tick(1)
            body(step)
    assert "switched off" in ledger.problem


def test_a_loop_inside_grills_own_pause_is_not_tampering():
    """An optimizer's step runs with the mode paused by grill: the candidate's own `step()`
    with its loops ticks there, and is the candidate's code, not a switch turned off."""
    ledger = Ledger(__file__, None)
    with ledger.watching():
        for _ in range(3):
            ledger.tick(1)
            torch.ones(1, requires_grad=True).sum()
            with ledger.paused():
                ledger.tick(2)
    assert ledger.problem is None


def test_the_mode_taken_off_the_stack_during_grills_pause_is_seen():
    ledger = Ledger(__file__, None)
    with ledger.watching():
        ledger.tick(1)
        with ledger.paused():
            popped = torch._C._pop_torch_function_stack()
            try:
                ledger.tick(2)
            finally:
                torch._C._push_on_torch_function_stack(popped)
    assert "switched off" in ledger.problem


def test_nodes_still_alive_at_the_end_mark_their_generation_alive():
    kept = []
    ledger = run(lambda step: kept.append((torch.ones(1, requires_grad=True) * 2).sum()), steps=3)
    assert ALIVE in ledger.last_death.values()


def test_peak_memory_is_read_only_when_a_task_asks_for_it():
    def body(step):
        (torch.ones(256, 256, requires_grad=True) * 2).sum()

    untracked = run(body, steps=2)
    assert untracked.peak == untracked.base
    tracked = run(body, steps=2, track_peak=True)
    assert tracked.peak >= tracked.base + 256 * 256 * 4


def test_off_heap_arrays_grow_without_touching_the_heap_they_measure():
    reader = memory_reader("cpu")
    array = OffHeap(fill=-1)
    before = reader.read()[0]
    for index in range(100_000):
        array[index] = index
    assert reader.read()[0] - before < 64 * 1024
    assert (len(array), array[99_999], array.values()[:2]) == (100_000, 99_999, [0, 1])


# -- passes of loops, births torch hides from the mode, graph adopted from scans --


def run_epochs(keep, epochs=4, batches=6, **options):
    """Nested loops marked as the instrumented snippet marks them: the batch loop's passes."""
    model, opt = model_and_optimizer()
    ledger = Ledger(__file__, memory_reader("cpu"), **options)
    with ledger.watching():
        for _epoch in ledger.loop(1, range(epochs), False):
            ledger.tick(1)
            held = keep.reset()
            for _batch in ledger.loop(3, range(batches), False):
                ledger.tick(3)
                loss = model(torch.randn(8, 4)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                keep.add(held, loss)
    ledger.close_lives()
    return ledger


class EpochTotal:
    def reset(self):
        self.total = 0.0
        return self

    def add(self, held, loss):
        self.total = self.total + loss


class Detached(EpochTotal):
    def add(self, held, loss):
        self.total = self.total + loss.detach()


def test_each_pass_of_a_loop_is_recorded_with_its_generations_and_its_enclosing_loop():
    ledger = run_epochs(Detached())
    lines = [ledger.pass_line[i] for i in range(ledger.passes)]
    assert lines == [1, 3, 3, 3, 3]
    inner = [i for i in range(ledger.passes) if ledger.pass_line[i] == 3]
    assert all(ledger.pass_parent[i] == 1 for i in inner)
    spans = [ledger.pass_last[i] - ledger.pass_first[i] + 1 for i in inner]
    assert spans == [6, 6, 6, 6]
    assert all(ledger.pass_end[i] != -1 for i in inner)


def test_a_pass_whose_graph_stays_alive_to_its_end_is_held_and_a_detached_one_is_not():
    from checkers.measure.grade import held_passes

    held = held_passes(run_epochs(EpochTotal()))
    assert [(h["loop"], h["parent"], h["held_passes"], h["passes"]) for h in held] == [(3, 1, 4, 4)]
    assert held[0]["released"]
    assert held_passes(run_epochs(Detached())) == []


def test_the_loop_wrapper_ends_its_pass_when_the_loop_breaks():
    ledger = Ledger(__file__, None)
    for item in ledger.loop(7, range(100), False):
        if item == 3:
            break
    assert ledger.passes == 1 and ledger.pass_end[0] != -1 and ledger._open.get(7) == []


def test_graph_made_in_a_backward_hook_is_born_in_the_ledger():
    weight = torch.ones(3, requires_grad=True)
    kept = []

    def hook(grad):
        with torch.enable_grad():  # backward runs under no_grad; a hook may switch it back
            kept.append(grad + weight)
        return grad

    def body(step):
        x = weight * 2
        x.register_hook(hook)
        x.sum().backward()

    ledger = run(body, steps=10)
    assert ledger.adopted == 0  # seen at birth, not found later
    assert ledger.dead_weight()[0][-1] >= 8
    kept.clear()


def test_graph_made_in_a_saved_tensors_pack_hook_is_born_in_the_ledger():
    weight = torch.ones(3, requires_grad=True)
    stash = []

    def pack(saved):
        with torch.enable_grad():
            stash.append(saved + weight)
        return saved

    def body(step):
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda saved: saved):
            ((weight * 2) * (weight * 3)).sum().backward()

    ledger = run(body, steps=10)
    assert ledger.dead_weight()[0][-1] >= 8
    stash.clear()


def test_unstamped_graph_is_adopted_with_the_birth_of_what_it_was_made_from():
    ledger = Ledger(__file__, None)
    weight = torch.ones(3, requires_grad=True)
    with ledger.watching():
        ledger.tick(1)
        made = weight * 2  # stamped: generation 1
        with ledger.paused():  # as if torch hid the mode
            hidden = made.exp()
        ledger.tick(1)
        ledger.tick(1)
    assert "grill" not in hidden.grad_fn.metadata
    assert ledger.adopt(hidden.grad_fn) == 1
    assert hidden.grad_fn.metadata["grill"].life.born == made.grad_fn.metadata["grill"].life.born


def test_the_sweep_adopts_graph_no_name_reaches():
    ledger = Ledger(__file__, None)
    weight = torch.ones(3, requires_grad=True)
    with ledger.paused():
        hidden = [weight * 2 for _ in range(3)]
    assert ledger.sweep() >= 3
    assert all("grill" in h.grad_fn.metadata for h in hidden)


def test_the_ledgers_own_hooks_keep_nothing_alive_under_activation_checkpointing():
    """torch's checkpoint pushes saved-tensors hooks; the ledger's wrappers around them must
    not outlive the push (they once did, and kept every step's forward graph)."""
    import gc

    from torch.utils.checkpoint import checkpoint

    block = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))

    def body(step):
        x = checkpoint(block, torch.randn(2, 4), use_reentrant=False)
        x.pow(2).mean().backward()

    ledger = run(body, steps=6)
    gc.collect()
    assert max(ledger.dead_weight()[0]) <= 1


# -- the peak counts everything, backward included ----------------------------


def _peak_of(forward, steps=2):
    torch.manual_seed(0)
    blocks = nn.ModuleList(
        nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)) for _ in range(6)
    )

    def body(step):
        loss = forward(blocks, torch.randn(512, 64)).pow(2).mean()
        loss.backward()

    return run(body, steps=steps, track_peak=True).peak


def _plain(blocks, x):
    for block in blocks:
        x = x + block(x)
    return x


def _per_block(blocks, x):
    from torch.utils.checkpoint import checkpoint

    for block in blocks:
        x = x + checkpoint(block, x, use_reentrant=False)
    return x


def _whole(blocks, x):
    from torch.utils.checkpoint import checkpoint

    return checkpoint(_plain, blocks, x, use_reentrant=False)


def test_the_peak_counts_what_backward_allocates_a_checkpoints_recomputation_included():
    """One checkpoint around the whole model saves nothing: backward recomputes every
    activation at once (it was read only around the snippet's torch calls, and
    graded 12.3 MB against the solution's 14.9 MB)."""
    plain, per_block, whole = _peak_of(_plain), _peak_of(_per_block), _peak_of(_whole)
    assert per_block < 0.6 * plain
    assert whole > 0.9 * plain


def test_a_loop_inside_backward_opens_no_generation():
    from torch.utils.checkpoint import checkpoint

    block = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))
    ledger_ref = []

    def looped(x):
        for _ in ledger_ref[0].loop(9, range(3), False):
            ledger_ref[0].tick(9)
            x = block(x)
        return x

    ledger = Ledger(__file__, None)
    ledger_ref.append(ledger)
    with ledger.watching():
        for _step in range(3):
            ledger.tick(1)
            x = checkpoint(looped, torch.randn(2, 4), use_reentrant=False)
            before = ledger.generation
            x.sum().backward()  # recomputes `looped`: its loop ticks inside backward
            assert ledger.generation - before <= 1


def test_a_loop_over_layers_is_a_recurrence_and_a_loop_over_batches_around_it_is_not():
    """Each layer starts from the last one's output; each batch starts from new data, though
    a layer loop runs inside it (the generations each iteration starts in tell them apart)."""
    from checkers.measure.grade import held_passes

    torch.manual_seed(0)
    layers = nn.ModuleList(nn.Sequential(nn.Linear(6, 6), nn.Tanh()) for _ in range(4))
    opt = torch.optim.SGD(layers.parameters(), lr=0.01)
    ledger = Ledger(__file__, None)
    outputs = []
    with ledger.watching():
        for _epoch in ledger.loop(1, range(3), False):
            ledger.tick(1)
            outputs = []
            for _batch in ledger.loop(3, range(6), False):
                ledger.tick(3)
                x = torch.randn(2, 6)
                for layer in ledger.loop(6, layers, False):
                    ledger.tick(6)
                    x = x + layer(x)
                loss = x.pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                outputs.append(x * 2)  # kept with its graph until the next epoch
    ledger.close_lives()
    by_line = {ledger.pass_line[i]: ledger.recurrent(i) for i in range(ledger.passes)}
    assert by_line[6] is True and by_line[3] is False
    assert [h["loop"] for h in held_passes(ledger) if h["series"] == "dead_weight"] == [3]
    outputs.clear()


def _forwards_kept_per_pass(items_of):
    """Three passes of an inner loop without backward, each keeping every iteration's output
    with its graph until the next pass: what differs is what the inner loop runs over."""
    from checkers.measure.grade import held_passes

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.Linear(4, 1))
    batch = torch.randn(8, 4)
    ledger = Ledger(__file__, None)
    with ledger.watching():
        for _epoch in ledger.loop(1, range(3), False):
            ledger.tick(1)
            kept = []
            for item in ledger.loop(3, items_of(batch), False):
                ledger.tick(3)
                kept.append(model(item if torch.is_tensor(item) else batch))
    ledger.close_lives()
    return [h["loop"] for h in held_passes(ledger) if h["series"] == "dead_weight"]


def test_forwards_repeated_a_counted_number_of_times_are_not_held_but_forwards_over_data_are():
    """Ten dropout samples of one batch (or one forward per class) repeat work whose count
    the code sets; the same loop over batches of data climbs with the data."""
    assert _forwards_kept_per_pass(lambda batch: range(10)) == []
    assert _forwards_kept_per_pass(lambda batch: [torch.randn(8, 4) for _ in range(10)]) == [3]
    assert _forwards_kept_per_pass(lambda batch: enumerate([(batch, batch)] * 10)) == [3]
