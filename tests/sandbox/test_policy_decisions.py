"""The policy remembers a decision that rests on what an object is (`identity._decisions`), and
a remembered decision is never one the policy would no longer make: when a fact it rests on
moves (a class becomes the snippet's own, an object becomes a stand-in, a class is renamed,
a module loads), the object is judged anew, exactly as the first time."""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Iterator

import pytest

from checkers.policy import guards, identity
from checkers.policy.refusal import OWN_CLASSES
from checkers.policy.standins import stand_in

HOME = "checkers._decisions_test_home"
"""A module under grill's own name: what lives there is closed ("grill's own machinery")."""


@pytest.fixture
def home() -> Iterator[types.ModuleType]:
    module = types.ModuleType(HOME)
    sys.modules[HOME] = module
    yield module
    del sys.modules[HOME]


def _placed_class(module: types.ModuleType, name: str) -> type:
    cls = type(name, (), {"__module__": module.__name__})
    setattr(module, name, cls)
    return cls


def test_a_class_and_its_instances_judged_twice_are_judged_alike(home: types.ModuleType) -> None:
    cls = _placed_class(home, "Machinery")
    first = (identity.closed_reason(cls), identity.closed_reason(cls()))
    assert first == ("grill's own machinery", "grill's own machinery")
    assert (identity.closed_reason(cls), identity.closed_reason(cls())) == first


def test_a_class_that_becomes_the_snippets_own_is_open_from_then_on(
    home: types.ModuleType,
) -> None:
    cls = _placed_class(home, "Adopted")
    assert identity.closed_reason(cls()) == "grill's own machinery"
    OWN_CLASSES.add(cls)
    assert identity.closed_reason(cls()) is None
    assert identity.closed_reason(cls) is None


def test_what_becomes_a_stand_in_is_open_from_then_on(home: types.ModuleType) -> None:
    exec("def helper():\n    return 1\n", vars(home))  # its globals are grill's module's
    helper = vars(home)["helper"]
    cls = _placed_class(home, "Helper")
    assert identity.closed_reason(helper) == "grill's own machinery"
    assert identity.closed_reason(cls()) == "grill's own machinery"
    stand_in(helper)
    stand_in(cls)
    assert identity.closed_reason(helper) is None
    assert identity.closed_reason(cls()) is None


def test_a_renamed_class_is_placed_by_its_new_names(home: types.ModuleType) -> None:
    """`functools.update_wrapper` (open to snippets) rewrites a class's `__module__` and
    `__qualname__`: a class no longer found where it says it lives is judged by what it is
    made of, as it would be had it never been judged."""
    cls = _placed_class(home, "Renamed")
    assert identity.closed_reason(cls) == "grill's own machinery"
    assert identity.closed_reason(cls()) == "grill's own machinery"

    def elsewhere() -> None: ...

    with pytest.raises(AttributeError):  # (a class's namespace takes no `__dict__` update)
        functools.update_wrapper(cls, elsewhere)  # type: ignore[arg-type]
    assert cls.__qualname__ == elsewhere.__qualname__
    assert identity.closed_reason(cls) is None
    assert identity.closed_reason(cls()) is None


def test_a_module_loaded_later_places_what_it_holds(home: types.ModuleType) -> None:
    name = "checkers._decisions_test_late"
    cls = type("Late", (), {"__module__": name})
    assert identity.closed_reason(cls()) is None  # not placed: judged by what it is made of
    late = types.ModuleType(name)
    vars(late)["Late"] = cls
    sys.modules[name] = late
    try:
        assert identity.closed_reason(cls()) == "grill's own machinery"
    finally:
        del sys.modules[name]


def test_an_instance_whose_class_claims_another_is_judged_one_by_one() -> None:
    """`isinstance` asks an object's `__class__`: a class that answers it itself is not judged
    once for all its instances."""

    class Claims:
        @property  # type: ignore[misc]
        def __class__(self) -> type:  # noqa: PLE0202
            return type(sys._getframe())

    assert not identity._judged_by_kind(Claims)
    assert identity._judged_by_kind(type(guards.PrintSink(1)))


def test_a_template_formatted_at_every_step_adds_one_stand_in_and_forgets_no_decision() -> None:
    """`'step {}'.format(step)` in a loop: were each read a new stand-in, the stand-ins would
    grow by one per step and every remembered decision would be dropped at each read."""
    from checkers.policy.refusal import FACTS_CHANGED
    from checkers.policy.standins import STAND_INS

    template = "".join(["step {} of ", "{}"])  # made at run time, as a loop's own string is
    guards.policed_formatter(template.format)  # the first read may add its stand-in
    stand_ins, facts = len(STAND_INS), FACTS_CHANGED[0]
    shown = [guards.policed_formatter(template.format)(step, 50) for step in range(50)]
    assert shown[7] == "step 7 of 50"
    assert (len(STAND_INS), FACTS_CHANGED[0]) == (stand_ins, facts)
