"""`grill check --task CARD_ID FILE`: graded as the app grades the task, with the same exit
statuses as `grill check`, and recorded as an attempt that `grill stats` and the schedule see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from warm_worker import lend_shared_worker

from app import paths
from app.cli import main
from app.progress.history import History
from app.ui.code_runner import SandboxRunner
from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"
COMPARED = ("verdict", "message", "hint", "expectations", "retained", "error")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    folder = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(folder))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    monkeypatch.setattr(paths, "SHIPPED_PACKS", tmp_path / "no-shipped-packs")
    monkeypatch.chdir(tmp_path)
    return folder


@pytest.fixture(autouse=True)
def lent_worker(monkeypatch):
    """The command and the app's runner grade on the process's warm worker (`warm_worker`):
    what they say and record is the same on a worker of their own."""
    lend_shared_worker(monkeypatch)


@pytest.fixture(scope="module")
def task():
    task = load_library([FIXTURE_PACKS]).card(TASK).card.code_task
    assert task is not None
    return task


def check(capsys, *argv: str) -> tuple[int, dict, str]:
    status = main(["check", "--task", TASK, "--device", "cpu", "--json", *argv])
    captured = capsys.readouterr()
    return status, json.loads(captured.out), captured.err


def stats(capsys) -> dict:
    assert main(["stats", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_verdict_is_the_apps_and_the_attempt_is_recorded_for_stats(capsys, tmp_path, task):
    (tmp_path / "fix.py").write_text(task.starter)
    status, data, err = check(capsys, "fix.py")
    assert status == 1 and data["verdict"] == "leak"
    assert (data["file"], data["task"]) == ("fix.py", TASK)
    runner = SandboxRunner()
    try:
        app = runner.grade(
            load_library([FIXTURE_PACKS]).card(TASK).card.code_task, task.starter, device="cpu"
        ).to_dict()
    finally:
        runner.close()
    app = json.loads(json.dumps(app))  # tuples as JSON lists, as the command printed them
    assert {k: data[k] for k in COMPARED} == {k: app[k] for k in COMPARED}
    assert "recorded an attempt on running-loss: rated Hard" in err
    figures = stats(capsys)
    assert figures["attempts"] == 1 and figures["cards_seen"] == 1
    demo = next(p for p in figures["packs"] if p["pack"] == "demo")
    assert demo["seen"] == 1
    with History.open() as history:
        (attempt,) = history.attempts(TASK)
        assert history.progress(TASK) is not None, "the card is scheduled"
    assert attempt.code is not None and attempt.code.code == task.starter
    assert (attempt.rating, attempt.code.verdict, attempt.mode) == ("hard", "leak", "practice")
    assert attempt.key_points_missed == (), "no key point was asked, so none counts as missed"


def test_a_clean_fix_exits_0_is_rated_good_and_the_task_is_solved(capsys, tmp_path, task):
    (tmp_path / "fix.py").write_text(task.solution)
    status, data, err = check(capsys, "fix.py")
    assert (status, data["verdict"]) == (0, "clean")
    assert all(e["met"] for e in data["expectations"])
    assert "rated Good" in err
    assert main(["task", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert (listed["tasks"][0]["state"], listed["solved"]) == ("solved", 1)
    status, _, err = check(capsys, "fix.py")  # the same code again
    assert status == 0 and "not recorded again" in err
    assert stats(capsys)["attempts"] == 1


def test_a_fix_that_breaks_the_contract_is_wrong_exit_1(capsys, tmp_path, task):
    broken = task.solution.replace("loss.backward()", "loss.detach()")
    (tmp_path / "fix.py").write_text(broken)
    status, data, _ = check(capsys, "fix.py")
    assert (status, data["verdict"]) == (1, "wrong")
    assert any(not e["met"] for e in data["expectations"])


def test_code_that_raises_is_not_graded_exit_3_and_recorded_as_again(capsys, tmp_path):
    (tmp_path / "fix.py").write_text("import torch\nx = torch.zeros(2)\nx[7] = 1\n")
    status, data, err = check(capsys, "fix.py")
    assert (status, data["verdict"]) == (3, "error")
    assert "rated Again" in err


def test_no_record_grades_and_writes_nothing(capsys, tmp_path, home, task):
    (tmp_path / "fix.py").write_text(task.solution)
    status, data, err = check(capsys, "fix.py", "--no-record")
    assert (status, data["verdict"]) == (0, "clean")
    assert "recorded" not in err
    assert not (home / "history.db").exists()
