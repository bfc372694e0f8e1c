"""The real-code corpus run as its authors run it: `grill run SCRIPT` in a fresh process, from
a folder of its own (unsandboxed: the script writes its checkpoints and logs there), gets the
verdict `grill check` gives it in the sandbox (`realcode/labels.json`, which
tests/grader/test_realcode.py holds `grill check` to), and a leak names the same line.

A sample of the corpus, clean and leaking, keeps the time down; every script of it is graded
by `grill check` in test_realcode.py."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

REALCODE = Path(__file__).parent / "realcode"
LABELS = json.loads((REALCODE / "labels.json").read_text(encoding="utf-8"))
SAMPLE = [
    "examples_regression.py",
    "timm_train_one_epoch.py",
    "variant_leak_examples_word_language_model_total_loss.py",
    "variant_leak_llmsfromscratch_ch05_step_losses.py",
]


@pytest.mark.parametrize("name", SAMPLE)
def test_grill_run_gives_the_verdict_grill_check_gives(tmp_path, name):
    label = LABELS[name]
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "run", "--json", str(REALCODE / name)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=bound(30),
    )
    record = json.loads(done.stdout)
    assert record["verdict"] == label["label"], record["message"] or done.stderr[-2000:]
    assert done.returncode == (1 if label["label"] == "leak" else 0)
    if label["label"] == "leak":
        assert f"(line {label['line']})" in record["message"], record["message"]
    else:
        assert record["retained"] == []
