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


def test_a_kept_exception_holds_the_locals_of_the_frames_its_traceback_passed_through():
    """A service that keeps each caught error for its report keeps the forward that raised it;
    the module's own frame is not walked again (its names are roots of their own)."""

    class BadBatch(Exception):
        pass

    def checked(out):
        loss = out.sum()
        raise BadBatch(f"loss is {loss.item()}")

    errors = []
    try:
        checked(graph() * 2)
    except BadBatch as err:
        errors.append((3, err))
    assert paths({"errors": errors}) == [
        "errors[0][1].__traceback__.tb_next.<checked locals>.loss",
        "errors[0][1].__traceback__.tb_next.<checked locals>.out",
    ]
    errors[0][1].with_traceback(None)
    assert paths({"errors": errors}) == []


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


# -- the scan reads real storage and never runs the snippet's code ------------------------------


class Trap(Exception):
    """Raised by every method a hostile object defines: the scan must call none of them."""


def hostile(base):
    """A subclass of `base` whose every overridable reader lies or raises."""

    def refuse(self, *args, **kwargs):
        raise Trap(f"{type(self).__name__} was called")

    namespace = {
        name: refuse
        for name in (
            "__iter__",
            "__len__",
            "__getitem__",
            "__contains__",
            "__repr__",
            "__str__",
            "__eq__",
            "__hash__",
            "__getattribute__",
            "__getattr__",
            "__bool__",
            "items",
            "keys",
            "values",
        )
        if base is not object or name not in ("__getattribute__",)
    }
    return type(f"Hostile{base.__name__.title()}", (base,), namespace)


def test_a_container_whose_every_method_lies_is_read_from_its_storage():
    HostileList, HostileDict = hostile(list), hostile(dict)
    kept = HostileList([graph(), graph()])
    table = HostileDict(loss=graph())
    assert paths({"kept": kept, "table": table}) == ["kept[0]", "kept[1]", "table['loss']"]


class Emptier:
    """A key whose repr, hash or equality empties the list holding the graphs (the attack
    that once graded a leak clean)."""

    def __init__(self, victim):
        self.victim = victim

    def __repr__(self):
        self.victim.clear()
        return "emptied"

    __str__ = __repr__

    def __eq__(self, other):
        self.victim.clear()
        return False

    def __hash__(self):
        return 1


def test_dict_keys_are_shown_without_calling_their_repr_hash_or_eq():
    held = [graph() for _ in range(3)]
    cache = {(Emptier(held), 3): 1.0, Emptier(held): held}
    found = paths({"cache": cache})
    assert len(held) == 3
    assert found == ["cache[<Emptier>][0]", "cache[<Emptier>][1]", "cache[<Emptier>][2]"]


def test_a_graph_held_in_a_dict_key_is_found_there():
    loss = graph()
    assert paths({"by_loss": {(loss, 3): "x"}}) == ["by_loss.<keys>[0][0]"]


def test_a_property_or_getattr_that_deletes_the_list_is_never_called():
    class Tracker:
        def __init__(self):
            self.history = [graph(), graph()]

        @property
        def losses(self):
            self.history.clear()
            return []

        def __getattr__(self, name):
            self.history.clear()
            raise AttributeError(name)

    tracker = Tracker()
    assert paths({"tracker": tracker}) == ["tracker.history[0]", "tracker.history[1]"]
    assert len(tracker.history) == 2


def test_an_instance_dict_property_cannot_hide_the_real_one():
    class Sneaky:
        __dict__ = property(lambda self: {})  # a lying __dict__, and no real descriptor

        def __init__(self):
            self.kept = [graph()]

    assert paths({"sneaky": Sneaky()}) == ["sneaky.<attribute>[0]"]


def test_slots_are_read_through_their_descriptors():
    class Slotted:
        __slots__ = ("a", "b")

    slotted = Slotted()
    slotted.a = graph()
    assert paths({"s": slotted}) == ["s.a"]


def test_a_tensor_subclass_torch_function_is_not_called_by_the_scan():
    calls = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    logged = (torch.ones(2, requires_grad=True) * 2).as_subclass(Logged)
    calls.clear()
    assert paths({"x": logged}) == ["x"]
    assert calls == []


def test_ten_thousand_deep_nesting_ends_without_recursion_and_counts_what_it_left():
    from checkers.measure.retained import MAX_DEPTH, HolderScan

    deep = [graph()]
    for _ in range(MAX_DEPTH):
        deep = [deep]
    scan = HolderScan({"deep": deep}, FILE)
    assert list(scan) == []
    assert scan.capped and scan.unread >= 1


def test_a_five_thousand_deep_tuple_key_is_found_with_its_path_shortened():
    key = (graph(),)
    for _ in range(5000):
        key = (key,)
    found = list(graph_holders({"cache": {key: 1}}, FILE))
    assert len(found) == 1
    assert found[0].path.startswith("cache.<keys>[0][0][0]") and "…" in found[0].path
    assert len(found[0].path) < 80


def test_huge_fan_out_is_read_up_to_a_cap_and_the_rest_counted():
    from checkers.measure.retained import MAX_ITEMS, HolderScan

    wide = list(range(MAX_ITEMS * 5)) + [graph()]
    kept = [graph()]
    scan = HolderScan({"wide": wide, "kept": kept}, FILE)
    assert [f.path for f in scan] == ["kept[0]"]
    assert scan.capped


def test_paths_carry_their_steps_and_what_each_step_reached():
    states = [(graph(), graph())]
    found = sorted(graph_holders({"hidden_history": states}, FILE), key=lambda f: f.path)
    assert found[0].steps == ("hidden_history", "[0]", "[0]")
    assert found[0].kinds == ("list:1", "tuple:2", "tensor")


def test_a_container_entry_also_held_by_a_name_is_counted_in_the_container_too():
    """The last tuple appended is also the local `states`: the container still holds it."""
    history = [(graph(), graph()) for _ in range(3)]
    found = paths({"states": history[-1], "history": history})
    assert [p for p in found if p.startswith("history")] == [
        f"history[{i}][{j}]" for i in range(3) for j in range(2)
    ]


def test_a_name_inside_a_subscripts_key_is_not_where_it_was_stored():
    source = (
        "losses = []\n"
        "for step in range(9):\n"
        "    losses.append(loss)\n"
        "    index[(Tag(losses), 'losses')] = step\n"
    )
    assert assignment_line(ast.parse(source), "losses[3]") == 3
