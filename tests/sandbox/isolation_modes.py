"""Which isolation modes run each entry of an escape list.

An entry of the escape lists is decided by the policy, which is the same code in the same
interpreter with bubblewrap ("auto") and without it ("process"): an attack refused in one
mode is refused in the other. What differs between the modes is below the policy (the box,
seccomp, Landlock, the run's folder and the host's paths), and that is held in both modes by
the tests of those layers (test_layers, test_isolation_probes, test_escapes'
files-outside-the-run, the verdict-integrity suite). So every entry runs with bubblewrap,
where users get it; without it run every entry that names a trap on the host (the canary
file, the listener, the parent's secret), whose effect the layers decide if the policy
lets it through, and every `PROCESS_EVERY`-th of the others, from the first: a rule, not a
hand-picked set, that still catches a mode-specific break of the policy.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

PROCESS_EVERY = 5
HOST_TRAPS = ("{canary}", "{port}", "{secret_name}")


def in_modes(cases: Sequence[tuple]) -> list:
    """`(name, *values)` cases as `pytest.param("auto" | "process", *values)`, for a test
    parametrized over `either_sandbox` (indirectly) and the values; ids `MODE-NAME`."""
    others = [case for case in cases if not _names_a_trap(case)]
    sampled = {case[0] for case in others[::PROCESS_EVERY]}
    params = []
    for name, *values in cases:
        modes = ["auto"]
        if name in sampled or _names_a_trap((name, *values)):
            modes.append("process")
        params += [pytest.param(mode, *values, id=f"{mode}-{name}") for mode in modes]
    return params


def _names_a_trap(case: tuple) -> bool:
    return any(trap in value for value in case[1:] if isinstance(value, str) for trap in HOST_TRAPS)
