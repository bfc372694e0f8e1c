"""`grill task list|start|hint|solution` and `grill check --task`'s usage errors: the command
lines that need no sandbox (the graded ones are in tests/grader/test_check_task.py and
tests/e2e/test_task_watch.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pace import bound

from app import paths
from app.cli import main
from app.practice.hints import remember_check
from app.practice.tasks import HEADER_MARK, fix_attempt, strip_header
from app.progress.history import History
from checkers.sandbox import Sandbox
from checkers.verdict import Verdict
from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"
"""The demo pack's one code task: two hints, a 100-step loop that keeps its running total."""


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch, request):
    folder = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(folder))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    monkeypatch.chdir(tmp_path)
    if "shipped" not in request.keywords:  # loading every shipped pack takes a second
        monkeypatch.setattr(paths, "SHIPPED_PACKS", tmp_path / "no-shipped-packs")
    return folder


@pytest.fixture
def card():
    return load_library([FIXTURE_PACKS]).card(TASK)


@pytest.fixture
def no_worker(monkeypatch):
    def start(self):
        raise AssertionError("a worker was started for a command line that cannot run")

    monkeypatch.setattr(Sandbox, "start", start)


def grill(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def record(card, verdict: str, code: str = "code", at: datetime | None = None) -> None:
    with History.open() as history:
        history.record(
            fix_attempt(
                card,
                Verdict(verdict=verdict, device="cpu"),  # type: ignore[arg-type]
                code,
                level="middle",
                started_at=at or datetime.now(UTC),
            )
        )


def graded(card, code: str, verdict: str):
    """The attempt `grill check --task` records for this code graded so (no sandbox)."""
    from app.commands.task import Recorder

    with History.open() as history:
        recorder = Recorder("check", history, card)
        recorder.graded("fix.py", code, Verdict(verdict=verdict, device="cpu"))  # type: ignore[arg-type]
        return recorder.recorded[-1]


def pending():
    from app.practice.solution import pending_view

    with History.open() as history:
        return pending_view(history, TASK)


def attempts() -> int:
    with History.open() as history:
        return len(history.attempts())


# -- list ----------------------------------------------------------------------------------


def test_list_shows_every_code_task_with_its_state_and_a_progress_line(capsys, card):
    record(card, "wrong", at=datetime(2026, 3, 1, 12, tzinfo=UTC))
    status, out, _ = grill(capsys, "task", "list", "--pack", "demo")
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith(f" 1. {TASK}"))
    assert "demo" in row and "junior" in row and "attempted · last wrong 2026-03-01" in row
    assert "0 of 1 task solved · 1 attempted · 0 not started" in out


@pytest.mark.shipped
def test_list_json_counts_solved_once_any_fix_was_clean(capsys, card):
    record(card, "clean", at=datetime(2026, 3, 1, tzinfo=UTC))
    record(card, "leak", at=datetime(2026, 3, 2, tzinfo=UTC))
    status, out, _ = grill(capsys, "task", "list", "--json")
    data = json.loads(out)
    demo = next(t for t in data["tasks"] if t["card_id"] == TASK)
    assert status == 0
    assert demo == {
        "card_id": TASK,
        "pack": "demo",
        "level": "junior",
        "ranks": 0,
        "state": "solved",
        "attempts": 2,
        "last_verdict": "leak",
        "last_at": "2026-03-02T00:00:00+00:00",
    }
    shipped = len(data["tasks"]) - 1
    assert shipped > 0, "the shipped packs' tasks are listed too"
    assert (data["total"], data["solved"], data["not_started"]) == (shipped + 1, 1, shipped)


def test_list_of_a_pack_that_is_not_loaded_exits_2_naming_the_loaded_ones(capsys):
    status, out, err = grill(capsys, "task", "list", "--pack", "nope")
    assert (status, out) == (2, "")
    assert "no pack named 'nope'" in err and "demo" in err


# -- start ---------------------------------------------------------------------------------


def test_start_writes_the_starter_under_a_header_naming_the_task_and_its_commands(
    capsys, tmp_path, card
):
    status, out, _ = grill(capsys, "task", "start", TASK, "work")
    written = (tmp_path / "work" / f"{TASK}.py").read_text()
    assert status == 0 and f"work/{TASK}.py" in out
    assert written.startswith(f"{HEADER_MARK} {TASK} (demo, junior)")
    assert f"grill check --task {TASK} work/{TASK}.py" in written
    assert f"grill task watch {TASK} work/{TASK}.py" in written
    assert "# Fix the loop so the running total no longer keeps graphs alive." in written
    checked = written.split("# Checked when graded, against the reference solution:\n")[1]
    assert checked.startswith("#   - keeps no autograd graph alive from one step to the next")
    assert "#   - leaves `model` as the reference solution does (relative tolerance" in checked
    assert all(len(line) <= 88 for line in written.splitlines()), "wrapped for an editor"
    assert strip_header(written) == card.card.code_task.starter + "\n"
    compile(written, "starter", "exec")


def test_start_never_overwrites_a_file(capsys, tmp_path):
    path = tmp_path / f"{TASK}.py"
    path.write_text("my work\n")
    status, _, err = grill(capsys, "task", "start", TASK)
    assert status == 1
    assert "already exists" in err and "never overwrites" in err
    assert path.read_text() == "my work\n"


def test_start_of_an_unknown_id_exits_2_naming_the_closest_ids(capsys, tmp_path):
    status, _, err = grill(capsys, "task", "start", "running-los")
    assert status == 2
    assert "no code task 'running-los'" in err and f"closest: {TASK}" in err
    assert list(tmp_path.glob("*.py")) == []


def test_a_card_without_a_code_task_is_named_as_such(capsys):
    status, _, err = grill(capsys, "task", "start", "no-grad")
    assert status == 2 and "card 'no-grad' (demo) has no code task" in err


# -- hint ----------------------------------------------------------------------------------


def test_hints_come_one_at_a_time_remembered_then_the_graders_own(capsys, card):
    hints = card.card.code_task.hints
    first = grill(capsys, "task", "hint", TASK)[1]
    second = grill(capsys, "task", "hint", TASK)[1]
    assert first.startswith(f"Hint 1 of 2: {hints[0]}") and hints[1] not in first
    assert second.startswith(f"Hint 2 of 2: {hints[1]}") and "last hint" in second
    no_check = grill(capsys, "task", "hint", TASK)[1]
    assert "all shown" in no_check and hints[0] in no_check
    assert f"grill check --task {TASK} FILE" in no_check
    with History.open() as history:
        remember_check(
            history,
            TASK,
            Verdict(verdict="leak", device="cpu", hint="Keep a float: `running += loss.item()`."),
            datetime(2026, 3, 2, tzinfo=UTC),
        )
    graders = grill(capsys, "task", "hint", TASK)[1]
    assert "The grader on your last check (leak, 2026-03-02)" in graders
    assert "Keep a float" in graders


def test_the_graders_hint_when_asked_for_leaves_the_cards_hints_where_they_were(capsys, card):
    out = grill(capsys, "task", "hint", TASK, "--grader")[1]
    assert "there is none yet" in out
    assert grill(capsys, "task", "hint", TASK)[1].startswith("Hint 1 of 2")


# -- solution ------------------------------------------------------------------------------


def test_the_solution_waits_for_a_first_attempt(capsys):
    status, out, err = grill(capsys, "task", "solution", TASK)
    assert (status, out) == (1, "")
    assert "once you have solved the task or graded a fix of your own" in err
    assert f"grill task solution {TASK} --give-up" in err
    assert pending() is None, "nothing was shown, so nothing is kept"


def test_a_graded_starter_does_not_open_the_solution_whatever_its_comments_and_spacing(
    capsys, card
):
    """The unchanged starter, checked once (even with a comment and other spacing), is no try."""
    starter = card.card.code_task.starter
    record(card, "leak", starter)
    record(card, "leak", "# my attempt\n" + starter.replace("running = 0", "running  =  0"))
    status, out, err = grill(capsys, "task", "solution", TASK)
    assert (status, out) == (1, "") and "--give-up" in err


def test_give_up_shows_it_and_caps_the_next_attempt_at_again(capsys, card):
    status, out, err = grill(capsys, "task", "solution", TASK, "--give-up")
    assert status == 0 and out == card.card.code_task.solution + "\n"
    assert "your next attempt on it is recorded as Again" in err
    assert pending().asked
    own_fix = card.card.code_task.solution.replace("running = 0.0", "running = 0.0  # mine")
    recorded = graded(card, own_fix, "clean")
    assert (recorded.rating, recorded.solution_viewed) == ("again", "asked")
    assert "rated Again (the solution was shown before you had solved or tried" in (
        capsys.readouterr().err
    )
    assert pending() is None, "the attempt recorded the view"
    assert graded(card, own_fix + "\n", "clean").rating == "good", "only the next attempt"


def test_after_a_fix_of_your_own_pasting_the_solution_back_records_again(capsys, card):
    record(card, "leak", card.card.code_task.starter.replace("running += loss", "x = 1"))
    status, out, _ = grill(capsys, "task", "solution", TASK)
    assert status == 0 and out == card.card.code_task.solution + "\n"
    assert pending() is not None and not pending().asked
    pasted = "# pasted\n" + card.card.code_task.solution.replace("running = 0.0", "running=0.0")
    recorded = graded(card, pasted, "clean")
    assert (recorded.rating, recorded.solution_viewed) == ("again", "copied")


def test_after_solving_a_fix_of_your_own_records_its_rating_and_the_view(capsys, card):
    record(card, "clean", card.card.code_task.solution)
    assert grill(capsys, "task", "solution", TASK)[0] == 0
    own = card.card.code_task.solution.replace("loss.item()", "float(loss)")
    recorded = graded(card, own, "clean")
    assert (recorded.rating, recorded.solution_viewed) == ("good", "earned")
    with History.open() as history:
        assert history.attempts(TASK)[-1].solution_viewed == "earned", "kept in the history"


def test_the_solution_after_an_attempt_and_a_diff_against_a_file(capsys, tmp_path, card):
    record(card, "leak")
    status, out, _ = grill(capsys, "task", "solution", TASK)
    assert status == 0 and out == card.card.code_task.solution + "\n"
    grill(capsys, "task", "start", TASK)
    status, out, _ = grill(capsys, "task", "solution", TASK, f"{TASK}.py")
    assert status == 0
    assert out.startswith(f"--- {TASK}.py\n+++ reference solution\n")
    assert "-running = 0\n+running = 0.0\n" in out
    assert "grill task" not in out, "the header grill wrote is not part of the diff"


# -- check --task: bad input ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "no such file"),
        (b"", "is empty"),
        (b"   \n\n", "is empty"),
        (b"\x00\x01binary\x00", "binary"),
        (b"\xff\xfe not text", "not UTF-8"),
        (b"import torch\nfor i in range(3)\n    pass\n", ":2:"),
        (b"x" * (1_000_000 + 1), "at most 1,000,000 bytes"),
        ("folder", "it is a folder, not a plain file"),
    ],
    ids=["missing", "empty", "blank", "binary", "not-utf8", "syntax", "huge", "directory"],
)
def test_a_file_that_cannot_be_graded_is_one_line_exit_2_and_nothing_recorded(
    capsys, tmp_path, home, no_worker, content, said
):
    path = tmp_path / "fix.py"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    status, out, err = grill(capsys, "check", "--task", TASK, str(path))
    assert (status, out) == (2, "")
    assert said in err and str(path) in err
    assert len(err.strip().splitlines()) == 1
    assert not (home / "history.db").exists(), "nothing was recorded, nor the history opened"


@pytest.mark.shipped
def test_a_task_id_from_a_pack_not_loaded_is_exit_2_and_names_the_closest(
    capsys, tmp_path, home, no_worker
):
    path = tmp_path / "fix.py"
    path.write_text("x = 1\n")
    status, _, err = grill(capsys, "check", "--task", "runing-loss", str(path))
    assert status == 2 and f"closest: {TASK}" in err
    assert not (home / "history.db").exists()


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--steps", "5"], "--steps does not apply"),
        (["--seconds", "9"], "--seconds does not apply"),
    ],
)
def test_a_task_runs_with_its_cards_budget(capsys, tmp_path, no_worker, extra, said):
    path = tmp_path / "fix.py"
    path.write_text("x = 1\n")
    status, _, err = grill(capsys, "check", "--task", TASK, *extra, str(path))
    assert status == 2 and said in err


def test_a_task_grades_one_file(capsys, tmp_path, no_worker):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
    status, _, err = grill(capsys, "check", "--task", TASK, "a.py", "b.py")
    assert status == 2 and "one file, not 2" in err


def test_recording_options_need_a_task(capsys, tmp_path, no_worker):
    (tmp_path / "a.py").write_text("x = 1\n")
    status, _, err = grill(capsys, "check", "--no-record", "a.py")
    assert status == 2 and "--no-record goes with --task" in err


def test_python_m_checkers_refuses_a_task_and_says_which_command_grades_one(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "checkers", "--task", TASK, str(tmp_path / "a.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=bound(3),  # a usage error: no worker starts
    )
    assert done.returncode == 2 and done.stdout == ""
    assert f"grill check --task {TASK} FILE" in done.stderr


def test_the_task_commands_import_no_torch(imported_after, tmp_path):
    modules = imported_after(
        "import contextlib, io, os\nfrom app.cli import main\n"
        f"os.environ['GRILL_HOME'] = {str(tmp_path)!r}\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['task', 'list'])\n"
        "    main(['task', 'hint', 'backward-twice-retain-graph'])"
    )
    assert modules.of("torch", "textual") == []
