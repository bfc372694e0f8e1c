"""The survivor scan finds what holds graph by the path a reader would write; the source tells
which line stored it."""

import ast
from collections import deque

import pytest
import torch

from checkers.judge.source import assignment_line, stored_name
from checkers.measure.retained import graph_holders

FILE = __file__


def graph() -> torch.Tensor:
    return (torch.ones(2, requires_grad=True) * 3).sum()


def paths(roots: dict) -> list[str]:
    return sorted(found.path for found in graph_holders(roots, FILE))


def test_containers_at_any_depth():
    roots = {
        "losses": [1.0, graph()],
        "cache": {"h": [0, 0, 0, graph()]},
        "window": deque([graph()]),
    }
    assert paths(roots) == ["cache['h'][3]", "losses[1]", "window[0]"]


def test_object_and_class_attributes():
    class Tracker:
        shared = []

        def __init__(self):
            self.history = [graph()]

    Tracker.shared.append(graph())
    assert paths({"tracker": Tracker()}) == ["Tracker.shared[0]", "tracker.history[0]"]


def test_closures_and_default_arguments_of_snippet_functions():
    kept = [graph()]

    def record(x, store=[graph()]):  # noqa: B006, B008  (the default itself holds a graph)
        kept.append(x)

    assert paths({"record": record}) == ["record.<closure>.kept[0]", "record.<defaults>[0][0]"]


def test_partial_arguments_and_a_paused_generators_locals():
    """`functools.partial(log, step, loss)` and a coroutine meter's `total` hold tensors too."""
    import functools

    def meter():
        total = 0
        while True:
            total = total + (yield total)

    running = meter()
    next(running)
    running.send(graph())
    roots = {"pending": [functools.partial(print, 3, graph(), end=graph())], "running": running}
    assert paths(roots) == [
        "pending[0].args[1]",
        "pending[0].keywords['end']",
        "running.<locals>.total",
    ]


def test_module_children_read_as_attributes():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    model[0].last_out = model(torch.randn(1, 2))
    assert paths({"model": model}) == ["model.0.last_out"]


def test_parameters_and_detached_tensors_are_not_reported():
    model = torch.nn.Linear(2, 1)
    roots = {"model": model, "w": model.weight, "kept": [graph().detach(), torch.zeros(3)]}
    assert paths(roots) == []


def test_a_gradient_that_carries_a_graph_is_reported_on_its_leaf():
    weight = torch.ones(3, requires_grad=True)
    (weight**3).sum().backward(create_graph=True)
    assert paths({"weight": weight}) == ["weight.grad"]


def test_a_tensor_in_a_container_is_reported_there_too_so_the_container_counts_whole():
    loss = graph()
    assert paths({"loss": loss, "history": [loss]}) == ["history[0]", "loss"]


def test_a_graph_node_kept_without_its_tensor_is_a_holder():
    assert paths({"grad_fns": [graph().grad_fn]}) == ["grad_fns[0]"]


def test_grader_names_are_skipped():
    assert paths({"__grill_tick__": [graph()], "_getattr_": [graph()], "_print": [graph()]}) == []


SNIPPET = """\
running = 0.0
losses = []
class Tracker:
    def __init__(self):
        self.history = []
    def log(self, x):
        self.history.append(x)
for step in range(10):
    loss = f()
    running += loss
    losses.append(loss)
    metrics["loss"].append(loss)
    by_head.setdefault("cls", []).append(loss)
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("running", 10),
        ("losses[3]", 11),
        ("tracker.history[2]", 7),
        ("metrics['loss'][4]", 12),
        ("by_head['cls'][4]", 13),
        ("model.1._forward_hooks[2].<closure>.losses[0]", 11),
        ("nowhere", None),
    ],
)
def test_assignment_line_prefers_the_statement_that_stored_it(path, line):
    assert assignment_line(ast.parse(SNIPPET), path) == line


@pytest.mark.parametrize(
    ("line", "name"),
    [
        (11, "loss"),  # losses.append(loss)
        (12, "loss"),  # metrics["loss"].append(loss)
        (10, None),  # running += loss: not a container
    ],
)
def test_stored_name_is_the_plain_variable_put_in_a_container(line, name):
    assert stored_name(ast.parse(SNIPPET), line) == name
