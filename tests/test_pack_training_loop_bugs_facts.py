"""The small experiments behind the training-loop-bugs pack's claims, kept so the claims stay
true: a PyTorch upgrade that changes one of these behaviours fails a test here instead of
leaving a card wrong. A dtype stands in for a device where the claim is the same for both, so
the tests run without a GPU."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn


def test_module_to_changes_the_module_in_place_and_tensor_to_returns_a_new_tensor():
    """model-and-batch-on-the-same-device: model.to() keeps the module and its Parameter
    objects; x.to() leaves x as it was, and returns x itself when nothing changes."""
    model = nn.Linear(4, 2)
    weight = model.weight
    assert model.to(torch.float64) is model
    assert model.weight is weight and weight.dtype == torch.float64

    x = torch.randn(3, 4)
    moved = x.to(torch.float64)
    assert moved is not x and x.dtype == torch.float32
    assert x.to("cpu") is x


def test_a_plain_tensor_attribute_is_not_moved_but_a_buffer_is():
    """model-and-batch-on-the-same-device, follow-up: model.to() moves registered buffers only."""

    class WithConstants(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.plain = torch.ones(2)
            self.register_buffer("registered", torch.ones(2))

    module = WithConstants().to(torch.float64)
    assert module.plain.dtype == torch.float32
    assert module.registered.dtype == torch.float64


def test_mixing_devices_in_one_operation_is_refused():
    """model-and-batch-on-the-same-device: parameters on one device and a batch on another fail
    (the meta device stands in for a GPU)."""
    model = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="device"):
        model(torch.randn(1, 2, device="meta"))


def test_a_zero_dimensional_cpu_tensor_is_the_one_exception():
    """model-and-batch-on-the-same-device: a 0-d CPU tensor joins another device's tensor like a
    Python number; a CPU tensor with elements does not (meta stands in for a GPU)."""
    assert (torch.randn(2, device="meta") + torch.tensor(1.0)).device.type == "meta"
    with pytest.raises(RuntimeError, match="device"):
        torch.randn(2, device="meta") + torch.ones(2)
