"""An optimizer as a compared value: fingerprinted by its groups' settings and its state, so a
fix that keeps the weights but changes the learning rate, or the state the solution builds,
does not match (`checkers.measure.fingerprint`, run in-process: the tests are trusted)."""

import pytest
import torch

from checkers.measure.fingerprint import fingerprint


def trained(make, steps: int = 3, scale: float = 1.0, seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, 1)
    optimizer = make(model.parameters())
    for _ in range(steps):
        optimizer.zero_grad()
        (model(torch.randn(8, 4)).pow(2).mean() * scale).backward()
        optimizer.step()
    return model, optimizer


def sgd(lr=0.1, **kw):
    return lambda params: torch.optim.SGD(params, lr=lr, **kw)


def test_an_optimizer_is_compared_by_its_settings_and_its_state():
    found = fingerprint(trained(sgd(momentum=0.9))[1])
    assert found["shape"].startswith("optimizer group 0 of 2 ")
    assert " lr number " in found["shape"] and found["shape"].count("momentum_buffer") == 2
    assert 0.1 in found["numbers"] and 0.9 in found["numbers"]
    assert fingerprint(trained(sgd(momentum=0.9))[1]) == found  # the same run, the same print


def test_a_smaller_learning_rate_with_a_larger_gradient_keeps_the_weights_not_the_optimizer():
    """Plain SGD cannot tell lr / 4 on four times the gradient from the original: the weights
    agree, the optimizers do not."""
    model, optimizer = trained(sgd(lr=0.1))
    other_model, other = trained(sgd(lr=0.025), scale=4.0)
    torch.testing.assert_close(other_model.weight, model.weight)
    assert fingerprint(other)["numbers"] != fingerprint(optimizer)["numbers"]


def test_momentum_buffers_tell_apart_what_the_weights_do_not():
    _, optimizer = trained(sgd(momentum=0.9))
    _, other = trained(sgd(momentum=0.9), seed=1)
    assert fingerprint(other)["shape"] == fingerprint(optimizer)["shape"]
    assert fingerprint(other)["numbers"] != fingerprint(optimizer)["numbers"]


def test_implementation_switches_and_the_class_are_left_out():
    _, adamw = trained(lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1))
    _, adam = trained(
        lambda p: torch.optim.Adam(
            p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, foreach=False
        )
    )
    assert fingerprint(adam) == fingerprint(adamw)


def test_groups_count_their_parameters_and_unstepped_parameters_have_empty_state():
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(
        [{"params": [model.weight]}, {"params": [model.bias], "lr": 0.0}], lr=0.1, momentum=0.9
    )
    found = fingerprint(optimizer)
    assert found["shape"].startswith("optimizer group 0 of 1 ")
    assert " group 1 of 1 " in found["shape"]
    assert "momentum_buffer" not in found["shape"]


@pytest.mark.parametrize("container", [list, tuple])
def test_optimizers_in_a_list_are_compared_one_by_one(container):
    _, first = trained(sgd())
    _, second = trained(sgd(lr=0.2))
    found = fingerprint(container([first, second]))
    assert found["shape"].startswith(f"{container.__name__}[2] optimizer group 0 of 2")
    assert found["numbers"].count(0.2) >= 1
