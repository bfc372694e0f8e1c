"""Real training code grades as its label says: every script of `realcode/` (training scripts
modeled on public repositories, see `realcode/SOURCES.md`) and of `realcode/unusual/` (ordinary
but unusual constructs, one or a few per file) gets the verdict `realcode/labels.json` gives it,
graded by the process's shared warm sandbox as `grill check` grades a file; a script labelled
`"ranks": N` (written for `torchrun --nproc-per-node N`) as `grill check --ranks N` grades it.

Labels were decided by reading the code and measuring it under plain Python
(`tests/grader/realcode_labeler.py`, which uses nothing from grill), not by what grill says.
None may be refused: each is ordinary code.
"""

import json
import re
from pathlib import Path

import pytest

from checkers.api import grade_file, shared_sandbox
from checkers.sandbox import Sandbox

HERE = Path(__file__).parent / "realcode"
LABELS = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))
FILES = sorted(HERE.glob("*.py")) + sorted((HERE / "unusual").glob("*.py"))
BUDGET_S = 60.0
"""`grill check`'s default budget per file; each file runs in a few seconds under plain Python."""


def name(path: Path) -> str:
    return path.relative_to(HERE).as_posix()


def names_holder(message: str, holder: str) -> bool:
    """Whether a holder the message names in backticks is `holder` or reaches it (`self.losses`,
    `memory.logprobs`, `logger.numbers['Train Loss']` name the labels `losses`, `logprobs` and
    `numbers`)."""
    pattern = re.compile(rf"(?:^|[.\[]){re.escape(holder)}(?:$|[.\[])")
    return any(pattern.search(named) for named in re.findall(r"`([^`]+)`", message))


@pytest.fixture
def sandbox() -> Sandbox:
    return shared_sandbox("cpu")


@pytest.mark.parametrize("path", FILES, ids=[name(path) for path in FILES])
def test_real_training_code_gets_its_label(path, sandbox):
    label = LABELS[name(path)]
    verdict = grade_file(path, sandbox=sandbox, seconds=BUDGET_S, ranks=label.get("ranks"))
    assert verdict.verdict == label["label"], verdict.message or verdict.error
    if label["label"] == "leak":
        assert f"(line {label['line']})" in verdict.message, verdict.message
        assert names_holder(verdict.message, label["holder"]), verdict.message
    else:
        assert verdict.retained == ()
