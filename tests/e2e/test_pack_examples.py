"""Every Python example on every shipped card runs: examples are trusted content, not graded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pace import bound

from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE_RUNNER = """
import contextlib, io, json, sys, traceback
failures = {}
for name, code in json.load(sys.stdin).items():
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, name, "exec"), {"__name__": "__main__"})
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
print(json.dumps(failures))
"""


def test_every_python_example_runs():
    """Examples are trusted content: one interpreter runs them all, each in a fresh namespace."""
    examples = {
        f"{card.id}:example{i}": example.code
        for card in (loaded.card for loaded in load_library([ROOT / "questions"]).cards)
        for i, example in enumerate(card.examples)
        if example.language == "python"
    }
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", EXAMPLE_RUNNER],
        input=json.dumps(examples),
        capture_output=True,
        text=True,
        timeout=bound(10),  # about 5 s on a quiet machine, with torch's import
    )
    assert len(examples) >= 40
    assert json.loads(result.stdout) == {}, result.stderr[-2000:]
