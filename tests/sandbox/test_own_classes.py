"""The registry of the classes a snippet defined (`refusal.ClassSet`): asked about every object
the policy judges, it must answer by identity alone."""

from __future__ import annotations

import gc

from checkers.policy.refusal import ClassSet


def test_a_registered_class_is_in_and_its_instances_and_other_classes_are_not() -> None:
    classes = ClassSet()

    class Mine:
        pass

    class Other:
        pass

    classes.add(Mine)
    assert Mine in classes
    assert Other not in classes
    assert Mine() not in classes
    assert [] not in classes  # unhashable, unweakrefable: simply not in


def test_asking_runs_no_hash_or_eq_of_the_class_asked_about() -> None:
    calls: list[str] = []

    def hashing(cls: type) -> int:
        calls.append("hash")
        return 0

    def equal(cls: type, other: object) -> bool:
        calls.append("eq")
        return True

    Meta = type("Meta", (type,), {"__hash__": hashing, "__eq__": equal})
    classes = ClassSet()
    Mine = Meta("Mine", (), {})
    Asked = Meta("Asked", (), {})
    classes.add(Mine)
    assert Asked not in classes
    assert Mine in classes
    assert calls == []


def test_a_freed_class_leaves_no_entry_a_new_class_at_its_address_could_match() -> None:
    classes = ClassSet()
    freed = type("Freed", (), {})
    address = id(freed)
    classes.add(freed)
    del freed
    gc.collect()
    assert address not in classes._refs
    reborn = [type(f"New{index}", (), {}) for index in range(200)]  # some may reuse the address
    assert not any(cls in classes for cls in reborn)
