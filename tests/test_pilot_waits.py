"""Pilot tests wait for conditions, not frames: `pilot.pause` lives only in `pilot_wait.py`.

One `pilot.pause()` before an assertion passes on a quiet machine and fails on a busy one (see
`pilot_wait.py`); two of them failed `make test` in a fresh clone that way. This keeps the
whole class out rather than the two instances.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
FIXED_WAITS = re.compile(r"\bpilot\.pause\(|\bwait_for_idle\(|\basyncio\.sleep\(")


def test_no_test_waits_a_fixed_time_for_the_app():
    found = [
        f"{path.relative_to(TESTS)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in {"pilot_wait.py", Path(__file__).name}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FIXED_WAITS.search(line)
    ]
    assert not found, (
        "wait for a condition (pilot_wait.until, until_screen, drained, steady) instead of "
        "pausing:\n" + "\n".join(found)
    )
