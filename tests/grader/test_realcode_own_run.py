"""The real-code corpus run as its authors run it: `grill run SCRIPT` in a fresh process, from
a folder of its own (unsandboxed: the script writes its checkpoints and logs there), gets the
verdict `grill check` gives it in the sandbox (`realcode/labels.json`, which
tests/grader/test_realcode.py holds `grill check` to), and a leak names the same line.

A sample of the corpus, clean and leaking, keeps the time down; every script of it is graded
by `grill check` in test_realcode.py. Two of the sample run in a fresh `grill` process, as a
user starts it; the two that change nothing of the process they run in (no logging set up, no
files, no arguments read) run in this one, as `grill run` runs a script in its own process, which
spares an interpreter and a torch import each."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound

from app.cli import main

REALCODE = Path(__file__).parent / "realcode"
LABELS = json.loads((REALCODE / "labels.json").read_text(encoding="utf-8"))
FRESH_PROCESS = [
    "timm_train_one_epoch.py",
    "variant_leak_examples_word_language_model_total_loss.py",
]
THIS_PROCESS = [
    "examples_regression.py",
    "variant_leak_llmsfromscratch_ch05_step_losses.py",
]


def run_fresh(path: Path, folder: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "run", "--json", str(path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=bound(30),
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "name,where", [(n, "fresh") for n in FRESH_PROCESS] + [(n, "this") for n in THIS_PROCESS]
)
def test_grill_run_gives_the_verdict_grill_check_gives(tmp_path, capsys, monkeypatch, name, where):
    label = LABELS[name]
    if where == "fresh":
        returncode, stdout, stderr = run_fresh(REALCODE / name, tmp_path)
    else:
        monkeypatch.chdir(tmp_path)
        returncode = main(["run", "--json", str(REALCODE / name)])
        stdout, stderr = capsys.readouterr()
    record = json.loads(stdout)
    assert record["verdict"] == label["label"], record["message"] or stderr[-2000:]
    assert returncode == (1 if label["label"] == "leak" else 0)
    if label["label"] == "leak":
        assert f"(line {label['line']})" in record["message"], record["message"]
    else:
        assert record["retained"] == []
