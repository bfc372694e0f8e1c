"""How right the grader is: every labelled corpus loop and every benign loop, graded by the
real sandbox, against the label the independent labeler measured (tests/grader/labeler.py).

Prints, per folder: loops, right, false alarms (clean called leak), misses (leak called clean),
not graded (refused, raised, timed out), and the wall time; then every loop it got wrong.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FOLDERS = [ROOT / "tests" / "grader" / "corpus", ROOT / "tests" / "grader" / "benign"]


def main() -> int:
    from checkers.api import grade_file, grading_sandbox

    wrong = []
    print(
        f"{'folder':8} {'loops':>6} {'right':>6} {'false alarms':>13} {'misses':>7} "
        f"{'not graded':>11} {'seconds':>8}"
    )
    with grading_sandbox("cpu") as box:
        for folder in FOLDERS:
            labels = json.loads((folder / "labels.json").read_text())
            counts: Counter = Counter()
            started = time.perf_counter()
            for path in sorted(folder.glob("*.py")):
                label = labels[path.name]["label"]
                verdict = grade_file(path, sandbox=box).verdict
                kind = (
                    "right"
                    if verdict == label
                    else "not graded"
                    if verdict not in ("clean", "leak")
                    else "false alarms"
                    if verdict == "leak"
                    else "misses"
                )
                counts[kind] += 1
                if kind != "right":
                    wrong.append(f"  {folder.name}/{path.name}: labelled {label}, graded {verdict}")
            print(
                f"{folder.name:8} {sum(counts.values()):6} {counts['right']:6} "
                f"{counts['false alarms']:13} {counts['misses']:7} {counts['not graded']:11} "
                f"{time.perf_counter() - started:8.1f}"
            )
    print("\n".join(["wrong:", *wrong]) if wrong else "wrong: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
