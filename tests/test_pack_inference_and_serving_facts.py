"""The small experiments behind the inference-and-serving pack's claims, kept so the claims stay
true: a PyTorch upgrade that changes one of these behaviours fails a test here instead of
leaving a card wrong. Each test names the card it backs. What needs a GPU (copies to the host,
the CUDA allocator, kernels chosen per shape) is documented behaviour, cited in the cards'
sources instead.
"""

from __future__ import annotations

import functools
import io
import json
import pickle

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

# --- forgotten-eval-mode-when-serving -------------------------------------------------------


def served_model() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 2))


def test_in_training_mode_two_calls_disagree_and_in_eval_mode_they_agree():
    """forgotten-eval-mode-when-serving: dropout and batch statistics make the same request
    answer differently; eval() makes the answers equal."""
    model, x = served_model(), torch.randn(3, 4)
    with torch.no_grad():
        assert not torch.equal(model(x), model(x))
        model.eval()
        assert torch.equal(model(x), model(x))


def test_batch_norm_in_training_mode_rewrites_its_running_statistics_by_momentum():
    """forgotten-eval-mode-when-serving: each request in training mode moves running_mean by
    momentum (0.1) towards the batch mean; in eval mode nothing changes."""
    norm = nn.BatchNorm1d(3)
    assert norm.momentum == 0.1
    batch = torch.randn(16, 3) + 5.0
    with torch.no_grad():
        norm(batch)
    assert torch.allclose(norm.running_mean, 0.1 * batch.mean(dim=0))
    assert norm.num_batches_tracked.item() == 1
    norm.eval()
    before = norm.running_mean.clone()
    with torch.no_grad():
        norm(batch)
    assert torch.equal(norm.running_mean, before) and norm.num_batches_tracked.item() == 1


def test_batch_norm_refuses_a_single_example_in_training_mode_but_not_in_eval_mode():
    """forgotten-eval-mode-when-serving: one value per channel cannot be normalised by the batch."""
    norm = nn.BatchNorm1d(4)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        norm(torch.randn(1, 4))
    norm.eval()
    assert norm(torch.randn(1, 4)).shape == (1, 4)


def test_batch_norm_without_running_statistics_tracking_keeps_them_but_uses_the_batch():
    """forgotten-eval-mode-when-serving (the tried fix): track_running_stats off in training
    mode leaves the buffers alone, yet normalises with the batch's own statistics."""
    norm = nn.BatchNorm1d(3)
    with torch.no_grad():
        norm.running_mean.fill_(1.0)
    norm.track_running_stats = False
    batch = torch.randn(8, 3)
    with torch.no_grad():
        out = norm(batch)
    assert torch.equal(norm.running_mean, torch.ones(3)) and norm.num_batches_tracked.item() == 0
    assert torch.allclose(out.mean(dim=0), torch.zeros(3), atol=1e-6)


def test_eval_mode_does_not_stop_autograd_and_inference_mode_does_not_set_eval_mode():
    """forgotten-eval-mode-when-serving, no-grad-versus-inference-mode: the two switches are
    independent."""
    model = served_model().eval()
    assert model(torch.randn(2, 4)).grad_fn is not None
    model.train()
    with torch.inference_mode():
        model(torch.randn(2, 4))
    assert model.training


def test_a_custom_layer_calling_functional_dropout_drops_in_eval_mode_too():
    """forgotten-eval-mode-when-serving follow-up: F.dropout trains unless told otherwise."""
    torch.manual_seed(0)
    x = torch.ones(1000)
    assert (F.dropout(x, 0.5) == 0).any()
    assert torch.equal(F.dropout(x, 0.5, training=False), x)


# --- sampling-loop-keeps-every-steps-graph --------------------------------------------------


def test_a_bare_no_grad_call_changes_nothing_and_a_with_block_stops_recording():
    """sampling-loop-keeps-every-steps-graph: torch.no_grad() as a statement leaves grad mode on."""
    weight, x = torch.randn(4, 3, requires_grad=True), torch.randn(3)
    torch.no_grad()
    assert torch.is_grad_enabled() and (weight @ x).grad_fn is not None
    with torch.no_grad():
        assert (weight @ x).grad_fn is None


def test_set_grad_enabled_as_a_statement_switches_grad_mode_until_switched_back():
    """sampling-loop-keeps-every-steps-graph: unlike no_grad(), set_grad_enabled(False) acts
    when called."""
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()


def test_a_kept_log_probability_carries_its_steps_graph_and_none_under_no_grad():
    """sampling-loop-keeps-every-steps-graph: the score's grad_fn is the end of the step's graph."""
    torch.manual_seed(0)
    embed, head = nn.Embedding(64, 32), nn.Linear(32, 64)
    assert embed.weight.requires_grad and head.weight.requires_grad
    tokens = torch.tensor([5, 9, 2, 7])

    def score() -> torch.Tensor:
        log_probs = F.log_softmax(head(torch.tanh(embed(tokens).mean(dim=0))), dim=-1)
        return log_probs[torch.multinomial(log_probs.exp(), 1)]

    assert type(score().grad_fn).__name__ == "IndexBackward0"
    with torch.no_grad():
        kept = score()
    assert kept.grad_fn is None and not kept.requires_grad


# --- metrics-log-pins-whole-output-batches --------------------------------------------------


def test_a_kept_column_and_its_detached_copy_hold_the_whole_matrix_and_a_clone_its_own():
    """metrics-log-pins-whole-output-batches: 32 numbers behind 128,000 bytes, unless cloned."""
    probs = torch.rand(32, 1000).softmax(dim=-1)
    column = probs[:, 0]
    assert column.numel() == 32 and column.stride() == (1000,)
    assert column.untyped_storage().nbytes() == 128_000
    assert column.detach().untyped_storage().nbytes() == 128_000
    assert column.detach().untyped_storage().data_ptr() == probs.untyped_storage().data_ptr()
    assert column.clone().untyped_storage().nbytes() == 128
    assert column.contiguous().untyped_storage().nbytes() == 128


def test_contiguous_returns_an_already_contiguous_slice_itself_and_fancy_indexing_copies():
    """metrics-log-pins-whole-output-batches: a row is contiguous, so contiguous() copies
    nothing; indexing with a tensor of indices copies."""
    probs = torch.rand(32, 1000)
    row = probs[3]
    assert row.contiguous() is row and row.untyped_storage().nbytes() == 128_000
    picked = probs[torch.tensor([0, 5])]
    assert picked.untyped_storage().nbytes() == 2 * 1000 * 4


def test_slicing_makes_the_same_view_with_grad_mode_on_or_off():
    """metrics-log-pins-whole-output-batches: no_grad removes graphs, not views."""
    probs = torch.rand(4, 10)
    with torch.no_grad():
        column = probs[:, 0]
    assert column._base is probs


# --- sliding-window-cache-that-keeps-growing ------------------------------------------------


def test_a_cache_trimmed_after_each_append_holds_the_window_in_the_last_cats_storage():
    """sliding-window-cache-that-keeps-growing: 8 positions kept, in the 9 rows cat made."""
    window, dim = 8, 16
    keys = torch.zeros(0, dim)
    for _ in range(100):
        keys = torch.cat([keys, torch.randn(1, dim)])[-window:]
    assert keys.shape == (8, 16)
    assert keys.untyped_storage().nbytes() == 9 * 16 * 4 == 576


def test_windowed_attention_over_a_trimmed_cache_equals_the_window_of_the_full_cache():
    """sliding-window-cache-that-keeps-growing: keys older than the window change no output."""
    torch.manual_seed(0)
    window, dim = 8, 16
    keys, values, q = torch.randn(40, dim), torch.randn(40, dim), torch.randn(1, dim)
    full = F.softmax(q @ keys[-window:].T, dim=-1) @ values[-window:]
    trimmed_keys, trimmed_values = keys[-window:].clone(), values[-window:].clone()
    assert torch.equal(F.softmax(q @ trimmed_keys.T, dim=-1) @ trimmed_values, full)


def test_cat_makes_a_new_tensor_each_call():
    """sliding-window-cache-that-keeps-growing: each append copies the whole cache."""
    keys = torch.randn(5, 4)
    grown = torch.cat([keys, torch.randn(1, 4)])
    assert grown.untyped_storage().data_ptr() != keys.untyped_storage().data_ptr()


# --- serving-weights-in-bfloat16 ------------------------------------------------------------


def weight_bytes(module: nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in module.parameters())


def test_autocast_computes_in_bfloat16_but_keeps_the_weights_float32():
    """serving-weights-in-bfloat16: the example's 4,198,400 bytes stay; converting halves them."""
    model = nn.Linear(1024, 1024)
    assert weight_bytes(model) == 4_198_400
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(torch.randn(2, 1024))
    assert out.dtype == torch.bfloat16 and model.weight.dtype == torch.float32
    assert weight_bytes(model) == 4_198_400
    model.to(torch.bfloat16)
    assert model.weight.dtype == torch.bfloat16 and weight_bytes(model) == 2_099_200


def test_module_to_a_dtype_converts_floating_buffers_too_and_leaves_integer_ones():
    """serving-weights-in-bfloat16: parameters and floating-point buffers take two bytes."""
    norm = nn.BatchNorm1d(4).to(torch.bfloat16)
    assert norm.running_mean.dtype == torch.bfloat16
    assert norm.num_batches_tracked.dtype == torch.long


def test_a_float32_batch_into_a_bfloat16_linear_raises_a_dtype_mismatch():
    """serving-weights-in-bfloat16: the inputs must be converted too."""
    model = nn.Linear(8, 2).to(torch.bfloat16)
    with pytest.raises(RuntimeError):
        model(torch.randn(3, 8))
    assert model(torch.randn(3, 8).to(torch.bfloat16)).float().dtype == torch.float32


def test_bfloat16_and_float16_precision_and_range():
    """serving-weights-in-bfloat16, checking-a-served-model-for-drift: eps and largest values."""
    assert torch.finfo(torch.bfloat16).eps == 0.0078125 == 2.0**-7
    assert torch.finfo(torch.float16).eps == 2.0**-10
    assert torch.finfo(torch.float16).max == 65504.0
    assert torch.finfo(torch.bfloat16).max == pytest.approx(torch.finfo(torch.float32).max, 0.01)


# --- batching-requests-of-different-lengths -------------------------------------------------


def test_padding_changes_attention_unless_the_pad_keys_are_masked():
    """batching-requests-of-different-lengths: the example's False True."""
    torch.manual_seed(0)
    x = torch.randn(1, 3, 4)
    padded = torch.cat([x, torch.zeros(1, 2, 4)], 1)
    mask = torch.tensor([[True, True, True, False, False]])
    alone = F.scaled_dot_product_attention(x, x, x)
    plain = F.scaled_dot_product_attention(padded, padded, padded)[:, :3]
    masked = F.scaled_dot_product_attention(padded, padded, padded, attn_mask=mask[:, None, :])
    assert not torch.allclose(alone, plain)
    assert torch.allclose(alone, masked[:, :3], atol=1e-6)


def test_multihead_attention_key_padding_mask_marks_the_keys_to_ignore():
    """batching-requests-of-different-lengths: True means ignore, the opposite of SDPA's mask."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(1, 3, 8)
    padded = torch.cat([x, torch.randn(1, 2, 8)], 1)
    ignore = torch.tensor([[False, False, False, True, True]])
    with torch.no_grad():
        alone, _ = attention(x, x, x)
        masked, _ = attention(padded, padded, padded, key_padding_mask=ignore)
    torch.testing.assert_close(masked[:, :3], alone)


def test_the_padding_waste_figures():
    """batching-requests-of-different-lengths (40% of 48 positions), and
    choosing-a-batching-policy-for-the-platform (300 and 196 positions for 139 real ones)."""
    assert 1 - (3 + 5 + 9 + 12) / (4 * 12) == pytest.approx(0.40, abs=0.005)
    lengths = [12, 3, 40, 7, 35, 5, 28, 9]

    def padded(groups: list[list[int]]) -> int:
        return sum(len(g) * max(g) for g in groups)

    ordered = sorted(lengths)
    assert sum(lengths) == 139
    assert padded([lengths[:4], lengths[4:]]) == 300
    assert padded([ordered[:4], ordered[4:]]) == 196
    assert round(1 - 139 / 300, 2) == 0.54 and round(1 - 139 / 196, 2) == 0.29


# --- no-grad-versus-inference-mode ----------------------------------------------------------


def test_inference_tensors_cannot_be_saved_for_backward_but_a_clone_can():
    """no-grad-versus-inference-mode: the example's True, refused, True."""
    weight = torch.randn(3, requires_grad=True)
    with torch.inference_mode():
        kept = torch.randn(3) * 2
    assert kept.is_inference() and not kept.requires_grad
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (weight * kept).sum().backward()
    (weight * kept.clone()).sum().backward()
    assert weight.grad is not None and not kept.clone().is_inference()


def test_an_operation_that_saves_no_inference_tensor_is_allowed():
    """no-grad-versus-inference-mode: addition saves nothing for backward, so it may use one."""
    weight = torch.randn(3, requires_grad=True)
    with torch.inference_mode():
        kept = torch.ones(3)
    (weight + kept).sum().backward()
    assert torch.equal(weight.grad, torch.ones(3))


def test_inference_tensors_refuse_in_place_changes_and_version_reads_outside_the_mode():
    """no-grad-versus-inference-mode: immutable outside the mode, no version counter."""
    with torch.inference_mode():
        kept = torch.zeros(3)
        kept.add_(1)  # allowed inside
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        kept.add_(1)
    with pytest.raises(RuntimeError, match="version counter"):
        _ = kept._version


def test_a_view_of_a_normal_tensor_taken_in_inference_mode_stays_normal():
    """no-grad-versus-inference-mode: only new allocations and views of inference tensors are
    inference tensors."""
    normal = torch.randn(4)
    with torch.inference_mode():
        view = normal[:2]
        made = normal * 2
    assert not view.is_inference() and made.is_inference()


def test_a_tensor_made_under_no_grad_is_ordinary_and_may_meet_autograd_later():
    """no-grad-versus-inference-mode: no restriction on no_grad's results."""
    weight = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        cached = torch.randn(3) * 2
    assert not cached.is_inference()
    cached.add_(1)
    (weight * cached).sum().backward()
    assert torch.equal(weight.grad, cached)


def test_inference_mode_also_disables_forward_mode_ad():
    """no-grad-versus-inference-mode (senior tier): dual tensors carry no tangent inside."""
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.ones(2), torch.ones(2))
        with torch.no_grad():
            assert fwAD.unpack_dual(dual * 3).tangent is not None
        with torch.inference_mode():
            assert fwAD.unpack_dual(dual * 3).tangent is None


# --- returning-a-prediction-to-the-client ---------------------------------------------------


def test_json_refuses_a_tensor_and_takes_its_tolist():
    """returning-a-prediction-to-the-client: the example's lines."""
    model = nn.Linear(4, 3)
    output = model(torch.randn(2, 4))
    assert output.grad_fn is not None and "grad_fn=<AddmmBackward0>" in repr(output)
    with pytest.raises(TypeError):
        json.dumps({"scores": output})
    classes = output.argmax(dim=-1).tolist()
    assert json.loads(json.dumps({"classes": classes}))["classes"] == classes


def test_tolist_and_item_give_python_numbers_even_for_a_tensor_that_requires_grad():
    """returning-a-prediction-to-the-client: plain numbers, no graph kept."""
    weight = torch.randn(2, 3, requires_grad=True)
    output = weight * 2
    values = output.tolist()
    assert [[type(v) for v in row] for row in values] == [[float] * 3] * 2
    assert type(output.sum().item()) is float
    assert type(output.argmax().item()) is int


def test_detach_shares_memory_and_cpu_of_a_cpu_tensor_is_itself():
    """returning-a-prediction-to-the-client: detach() is not a copy; cpu() copies only from
    another device."""
    output = torch.randn(3, requires_grad=True) * 2
    assert output.detach().data_ptr() == output.data_ptr()
    assert output.cpu() is output


def test_numpy_refuses_a_tensor_that_requires_grad():
    """returning-a-prediction-to-the-client: detach first."""
    pytest.importorskip("numpy")
    output = torch.randn(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="requires grad"):
        output.numpy()
    assert output.detach().numpy().shape == (3,)


# --- loading-a-checkpoint-to-serve ----------------------------------------------------------


def saved(obj: object) -> io.BytesIO:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


def test_a_loaded_model_is_in_training_mode_until_eval():
    """loading-a-checkpoint-to-serve: the mode is not in the state_dict."""
    trained = nn.Linear(4, 2).eval()
    state = torch.load(saved(trained.state_dict()), map_location="cpu")
    assert set(state) == {"weight", "bias"}
    model = nn.Linear(4, 2)
    model.load_state_dict(state)
    assert model.training and torch.equal(model.weight, trained.weight)


def test_load_state_dict_is_strict_and_strict_false_returns_the_keys():
    """loading-a-checkpoint-to-serve: the example's missing and unexpected keys."""
    state = nn.Linear(4, 2).state_dict()
    wrapped = nn.Sequential(nn.Linear(4, 2))
    with pytest.raises(RuntimeError, match="Missing key"):
        wrapped.load_state_dict(state)
    result = wrapped.load_state_dict(state, strict=False)
    assert result.missing_keys == ["0.weight", "0.bias"]
    assert result.unexpected_keys == ["weight", "bias"]


class NotATensor:
    """An object torch.load's weights-only unpickler does not know."""


def test_torch_load_refuses_arbitrary_objects_by_default_and_loads_tensors():
    """loading-a-checkpoint-to-serve: weights_only=True is the default."""
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(saved({"box": NotATensor()}))
    assert torch.equal(torch.load(saved({"w": torch.ones(2)}))["w"], torch.ones(2))


# --- outputs-that-change-with-the-batch -----------------------------------------------------


def test_float32_addition_is_not_associative():
    """outputs-that-change-with-the-batch: the example's 1.0 0.0."""
    big, small = torch.tensor(1e8), torch.tensor(1.0)
    assert ((big + -big) + small).item() == 1.0
    assert (big + (-big + small)).item() == 0.0


def test_assert_close_defaults_per_dtype():
    """outputs-that-change-with-the-batch: float32 1.3e-6, bfloat16 1.6e-2 relative."""
    a = torch.tensor([1.0, 2.0])
    torch.testing.assert_close(a, a + torch.tensor([1e-6, -1e-6]))
    with pytest.raises(AssertionError):
        torch.testing.assert_close(a, a * 1.001)
    low = a.to(torch.bfloat16)
    torch.testing.assert_close(low, low * 1.01)


# --- checking-a-served-model-for-drift ------------------------------------------------------


def stability_index(reference: torch.Tensor, current: torch.Tensor, eps: float = 1e-6) -> float:
    p = reference / reference.sum() + eps
    q = current / current.sum() + eps
    return ((q - p) * torch.log(q / p)).sum().item()


def test_the_stability_index_figures():
    """checking-a-served-model-for-drift: the example's 0.0 and 0.2408."""
    last_month = torch.tensor([500.0, 300.0, 200.0])
    this_week = torch.tensor([300.0, 300.0, 400.0])
    assert round(stability_index(last_month, last_month), 4) == 0.0
    assert round(stability_index(last_month, this_week), 4) == 0.2408


# --- memory-that-creeps-up-in-a-server ------------------------------------------------------


def test_lru_cache_on_tensors_keys_by_identity_and_keeps_every_argument():
    """memory-that-creeps-up-in-a-server: equal tensors never hit; 128 entries by default."""

    @functools.lru_cache(maxsize=None)  # noqa: UP033 -- as the card writes it
    def embed(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    for _ in range(3):
        embed(torch.ones(4))
    assert (embed.cache_info().hits, embed.cache_info().currsize) == (0, 3)
    first, second = torch.ones(2), torch.ones(2)
    assert hash(first) == id(first) and hash(second) == id(second)  # identity, not value

    @functools.lru_cache
    def default(x: int) -> int:
        return x

    assert default.cache_info().maxsize == 128


def test_a_kept_exception_keeps_the_tensors_of_the_frames_it_passed_through():
    """memory-that-creeps-up-in-a-server: the traceback holds the frames' locals."""
    import weakref

    def handler() -> None:
        activations = torch.randn(100)
        refs.append(weakref.ref(activations))
        raise ValueError("bad request")

    refs: list[weakref.ref[torch.Tensor]] = []
    errors = []
    try:
        handler()
    except ValueError as error:
        errors.append(error)
    assert refs[0]() is not None
    errors.clear()
    assert refs[0]() is None


def test_tracemalloc_does_not_see_tensor_storage_and_the_gc_module_finds_the_tensors():
    """memory-that-creeps-up-in-a-server: 20 MB of tensors are a kilobyte or two to tracemalloc,
    whose tracing covers Python's allocators, not PyTorch's."""
    import gc
    import tracemalloc

    def live_tensor_bytes() -> int:
        return sum(
            o.untyped_storage().nbytes() for o in gc.get_objects() if isinstance(o, torch.Tensor)
        )

    tracemalloc.start()
    try:
        before, tensors_before = tracemalloc.take_snapshot(), live_tensor_bytes()
        kept = [torch.empty(1_000_000) for _ in range(5)]
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    traced = sum(stat.size_diff for stat in after.compare_to(before, "lineno"))
    assert traced < 100_000
    assert live_tensor_bytes() - tensors_before >= 20_000_000
    assert len(kept) == 5


# --- embedding-cache-that-never-hits --------------------------------------------------------


def test_two_tensors_with_equal_values_are_two_keys():
    """embedding-cache-that-never-hits: the example's True False, then False."""
    a, b = torch.ones(3), torch.ones(3)
    assert hash(a) == id(a) and hash(a) != hash(b)
    assert b not in {a: "embedding"}
    assert isinstance(a == b, torch.Tensor)  # == is elementwise, not a bool


def test_a_bounded_cache_keyed_by_tensors_still_never_hits_and_an_id_key_does():
    """embedding-cache-that-never-hits: maxsize bounds the entries, the key decides the hits."""
    documents = torch.randn(4, 8)

    @functools.lru_cache(maxsize=2)
    def by_tensor(document: torch.Tensor) -> torch.Tensor:
        return document * 2

    @functools.lru_cache(maxsize=None)  # noqa: UP033 -- as the card writes it
    def by_id(doc_id: int) -> torch.Tensor:
        return documents[doc_id] * 2

    for doc_id in [0, 1, 0, 1, 0, 1]:
        by_tensor(documents[doc_id].clone())
        by_id(doc_id)
    assert (by_tensor.cache_info().hits, by_tensor.cache_info().currsize) == (0, 2)
    assert (by_id.cache_info().hits, by_id.cache_info().misses) == (4, 2)
