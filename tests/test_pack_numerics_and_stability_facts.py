"""The small experiments behind the numerics-and-stability pack's newer claims, kept so the
claims stay true: a PyTorch upgrade that changes one of these behaviours fails a test here
instead of leaving a card wrong."""

from __future__ import annotations

import pytest
import torch
from torch.testing._comparison import default_tolerances


def test_addition_is_not_associative_and_printing_hides_the_last_bits():
    """comparing-floating-point-tensors: the order of a sum changes its last bits, and four
    printed decimals hide the difference."""
    t = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    assert not torch.equal((t[0] + t[1]) + t[2], t[0] + (t[1] + t[2]))
    a, b = torch.tensor(28.9183197), torch.tensor(28.9183178)
    assert a != b and str(a) == str(b) == "tensor(28.9183)"
    assert torch.allclose(a, b)
    torch.testing.assert_close(a, b)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (torch.float64, (1e-7, 1e-7)),
        (torch.float32, (1.3e-6, 1e-5)),
        (torch.float16, (1e-3, 1e-5)),
        (torch.bfloat16, (1.6e-2, 1e-5)),
    ],
)
def test_assert_close_defaults_grow_as_precision_falls(dtype, expected):
    """comparing-floating-point-tensors: the deep dive's table of default (rtol, atol)."""
    assert default_tolerances(torch.zeros(1, dtype=dtype)) == expected


def test_nan_equals_nan_only_when_asked_and_assert_close_checks_the_dtype():
    """comparing-floating-point-tensors: NaN and equal_nan; assert_close refuses a dtype mix."""
    nan = torch.tensor(float("nan"))
    assert not torch.allclose(nan, nan) and torch.allclose(nan, nan, equal_nan=True)
    torch.testing.assert_close(nan, nan, equal_nan=True)
    with pytest.raises(AssertionError, match="dtype"):
        torch.testing.assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64))


def test_autocast_to_bfloat16_keeps_weights_and_gradients_float32():
    """rolling-out-bfloat16-across-teams: mixed precision computes in bfloat16 and trains
    float32 parameters."""
    model = torch.nn.Linear(16, 16)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        y = model(torch.randn(8, 16))
        loss = y.float().pow(2).mean()
    loss.backward()
    assert (y.dtype, model.weight.dtype, model.weight.grad.dtype) == (
        torch.bfloat16,
        torch.float32,
        torch.float32,
    )
