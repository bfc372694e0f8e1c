"""The experiments behind the corrections of the 2026-12b content review (transformer-memory,
numerics-and-stability and the newest autograd-memory cards), kept so the cards stay true: a
PyTorch upgrade that changes one of these behaviours fails here instead of leaving a card wrong.
Each test names the card it backs. CPU only; the CUDA-only claims are sourced in the cards.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def saved_for_backward(compute) -> tuple[torch.Tensor, list[tuple[tuple[int, ...], torch.dtype]]]:
    """The result of `compute()` and the shape and dtype of each tensor its graph saved."""
    saved: list[tuple[tuple[int, ...], torch.dtype]] = []

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        saved.append((tuple(tensor.shape), tensor.dtype))
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = compute()
    return result, saved


def heads(count: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(1, count, 64, 16, dtype=dtype, requires_grad=True)


# -- transformer-memory ----------------------------------------------------------------------


def test_grouped_query_attention_is_repeated_inside_the_call_only_on_the_math_path():
    """kv-cache-size-and-growth: enable_gqa keeps k and v at their own heads on the flash kernel
    (CPU's default) but the math backend repeats them to the query heads."""
    torch.manual_seed(0)
    q, k, v = heads(8), heads(2), heads(2)

    def attend():
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    out, flash_saved = saved_for_backward(attend)
    assert "Flash" in type(out.grad_fn).__name__
    assert [shape for shape, _ in flash_saved].count((1, 2, 64, 16)) == 2, "k and v as they are"
    with sdpa_kernel(SDPBackend.MATH):
        _, math_saved = saved_for_backward(attend)
    shapes = [shape for shape, _ in math_saved]
    assert (8, 16, 64) in shapes and (8, 64, 16) in shapes, "keys and values repeated to 8 heads"
    assert (1, 8, 64, 64) in shapes, "and the full probabilities"


def test_the_math_path_keeps_float32_probabilities_for_bfloat16_inputs():
    """attention-scores-saved-per-head, sdpa-fused-kernels-save-no-scores: twice the bytes of
    hand-written bfloat16 attention."""
    torch.manual_seed(0)
    q, k, v = (heads(2, torch.bfloat16) for _ in range(3))
    with sdpa_kernel(SDPBackend.MATH):
        out, saved = saved_for_backward(lambda: F.scaled_dot_product_attention(q, k, v))
    assert out.dtype == torch.bfloat16
    assert ((1, 2, 64, 64), torch.float32) in saved


def test_a_fully_masked_row_is_zeros_from_sdpa_on_both_paths_and_nan_from_a_plain_softmax():
    """padding-waste-and-masks: in 2.13 the math path uses a safe softmax too."""
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 1, 4, 8) for _ in range(3))
    mask = torch.ones(4, 4, dtype=torch.bool)
    mask[1] = False  # query 1 sees no key
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    with sdpa_kernel(SDPBackend.MATH):
        math = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.equal(fused[0, 0, 1], torch.zeros(8))
    assert torch.equal(math[0, 0, 1], torch.zeros(8))
    scores = (q @ k.transpose(-1, -2)).masked_fill(~mask, float("-inf"))
    assert torch.isnan(torch.softmax(scores, dim=-1)[0, 0, 1]).all()


# -- numerics-and-stability ------------------------------------------------------------------


def test_grad_scaler_has_no_cap_of_its_own():
    """float16-loss-scaling-and-underflow: without overflows the scale keeps doubling."""
    weight = nn.Parameter(torch.ones(3))
    optimizer = torch.optim.SGD([weight], lr=1e-6)
    scaler = torch.amp.GradScaler("cpu", growth_interval=1)
    for _ in range(40):
        optimizer.zero_grad()
        scaler.scale((weight * 1e-3).sum()).backward()
        scaler.step(optimizer)
        scaler.update()
    assert scaler.get_scale() == 2.0**16 * 2.0**40


@pytest.mark.skipif(torch.cuda.is_available(), reason="the claim is about a machine without CUDA")
def test_a_grad_scaler_with_the_default_device_disables_itself_without_cuda():
    """float16-loss-scaling-and-underflow: the device defaults to "cuda"."""
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = torch.amp.GradScaler()
    loss = torch.tensor(1e-3)
    assert not scaler.is_enabled()
    assert scaler.scale(loss) is loss, "nothing is scaled"


def test_anomaly_mode_lets_an_inf_gradient_through():
    """finding-the-first-nan-or-inf: check_nan looks for NaN only."""
    w = torch.tensor([0.0, 4.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # anomaly mode's own warning that it is slow
        with torch.autograd.detect_anomaly():
            (w.exp() * 1e38).sum().backward()
    assert w.grad[0] == pytest.approx(1e38, rel=1e-6) and torch.isinf(w.grad[1])
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)


def test_isfinite_refuses_a_tuple_output_so_the_hook_walks_it():
    """finding-the-first-nan-or-inf: nn.LSTM returns (output, (h, c))."""
    lstm = nn.LSTM(4, 3)
    output = lstm(torch.randn(2, 1, 4))
    with pytest.raises(TypeError):
        torch.isfinite(output)

    def finite(value) -> bool:
        if isinstance(value, torch.Tensor):
            return bool(torch.isfinite(value).all())
        if isinstance(value, (tuple, list)):
            return all(finite(item) for item in value)
        return True

    assert finite(output)
    with torch.no_grad():
        lstm.weight_ih_l0[0, 0] = float("nan")
    assert not finite(lstm(torch.randn(2, 1, 4)))


def test_shifting_by_the_row_maximum_fixes_the_overflow_without_changing_the_result():
    """log-softmax-not-log-of-softmax, key point 1."""
    row = torch.tensor([1000.0, 999.0, 998.0])
    assert torch.isnan(row.exp() / row.exp().sum()).all(), "inf / inf"
    shifted = (row - row.max()).exp()
    small = torch.tensor([2.0, 1.0, 0.0])
    assert torch.allclose(shifted / shifted.sum(), small.exp() / small.exp().sum())


def test_the_scale_factors_of_a_relu_stack_are_rms_factors():
    """initialisation-and-variance-preservation: std-1 weights on 128-wide ReLU layers grow the
    RMS by 8 (variance 64) per layer; the default weights shrink it by about 0.4, and its
    default biases leave a floor."""
    torch.manual_seed(0)

    def rms_after(layers: list[nn.Linear]) -> float:
        x = torch.randn(4096, 128)
        for layer in layers:
            x = torch.relu(layer(x))
        return x.pow(2).mean().sqrt().item()

    wide = [nn.Linear(128, 128, bias=False) for _ in range(12)]
    for layer in wide:
        nn.init.normal_(layer.weight, std=1.0)
    assert 8**12 / 3 < rms_after(wide) < 8**12 * 3
    no_bias = rms_after([nn.Linear(128, 128, bias=False) for _ in range(12)])
    assert (1 / 6) ** 6 / 3 < no_bias < (1 / 6) ** 6 * 3
    assert 0.01 < rms_after([nn.Linear(128, 128) for _ in range(12)]) < 0.1


def test_adam_cancels_a_constant_gradient_scale_that_sgd_follows():
    """exploding-and-vanishing-gradients: a clip factor that never changes is no learning-rate
    cut under Adam."""

    def moved(optimizer_class, scale: float, steps: int = 20) -> torch.Tensor:
        torch.manual_seed(0)
        model = nn.Linear(8, 1)
        start = model.weight.detach().clone()
        optimizer = optimizer_class(model.parameters(), lr=1e-2)
        for _ in range(steps):
            optimizer.zero_grad()
            model(torch.randn(16, 8)).pow(2).mean().backward()
            for parameter in model.parameters():
                parameter.grad.mul_(scale)
            optimizer.step()
        return model.weight.detach() - start

    assert torch.allclose(moved(torch.optim.Adam, 0.1), moved(torch.optim.Adam, 1.0), rtol=1e-3)
    one_step = moved(torch.optim.SGD, 1.0, 1)
    assert torch.allclose(moved(torch.optim.SGD, 0.1, 1), one_step * 0.1, rtol=1e-3, atol=1e-7)


def test_half_a_bfloat16_spacing_is_two_to_four_tenths_of_a_percent():
    """bfloat16-range-versus-precision: it depends on where the weight sits in its binade."""

    def kept(weight: float, relative_update: float) -> bool:
        w = torch.tensor(weight, dtype=torch.bfloat16)
        return bool(w + torch.tensor(weight * relative_update, dtype=torch.bfloat16) == w)

    assert kept(1.0, 0.003), "0.3% of a weight at 1.0 vanishes (half a spacing is 0.39%)"
    assert not kept(1.0, 0.005)
    assert not kept(1.9, 0.003), "just below 2.0 half a spacing is about 0.2%"
    assert kept(1.9, 0.0019)


# -- autograd-memory -------------------------------------------------------------------------


def test_an_in_place_op_on_a_saved_value_runs_and_backward_refuses_it():
    """in-place-operations-and-activation-memory, key points 1 and 3: the op runs, backward
    fails; a leaf that requires grad, and a full backward hook's output, fail at the op."""
    x = torch.randn(4, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)  # sigmoid's backward reads its output: nothing is raised yet
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.mul_(2)
    linear = nn.Linear(4, 4)
    linear.register_full_backward_hook(lambda module, grad_in, grad_out: None)
    with pytest.raises(RuntimeError, match="BackwardHookFunction"):
        linear(torch.randn(2, 4)).relu_()
