"""The headless parts of practising in one's own editor: the file `grill task start` writes, the
task's state, the attempt a fix records, drafts, hint progress; and the command lines that fail
before anything runs (an unusable history, a watch on a bad file, `grill task open`)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app import paths
from app.cli import main
from app.practice.drafts import DraftError, Drafts
from app.practice.hints import hints_shown, last_check, record_hints_shown, remember_check
from app.practice.tasks import (
    TaskNotFound,
    code_tasks,
    find_task,
    fix_attempt,
    same_as_last,
    starter_file,
    strip_header,
    task_statuses,
)
from app.progress.history import History
from checkers.sandbox import Sandbox
from checkers.verdict import Verdict
from questions.library import Library
from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"
TASK = "running-loss"
AT = datetime(2026, 3, 2, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    folder = tmp_path / "grill-home"
    monkeypatch.setenv("GRILL_HOME", str(folder))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACKS))
    monkeypatch.setattr(paths, "SHIPPED_PACKS", tmp_path / "no-shipped-packs")
    monkeypatch.chdir(tmp_path)
    return folder


@pytest.fixture
def library():
    return load_library([FIXTURE_PACKS])


@pytest.fixture
def card(library):
    return library.card(TASK)


@pytest.fixture
def no_worker(monkeypatch):
    def start(self):
        raise AssertionError("a worker was started for a command line that cannot run")

    monkeypatch.setattr(Sandbox, "start", start)


def verdict(kind: str) -> Verdict:
    return Verdict(verdict=kind, device="cpu")  # type: ignore[arg-type]


def test_the_header_comes_off_whole_and_only_grills_own(card):
    task = card.card.code_task
    written = starter_file(card, task, "my fix.py")
    assert "grill check --task running-loss 'my fix.py'" in written, "a path a shell can take"
    assert strip_header(written) == task.starter + "\n"
    mine = "# grill task: notes of my own\nx = 1\n"
    assert strip_header(mine) == mine, "no closing line: not grill's header"
    assert strip_header("x = 1\n") == "x = 1\n"


def test_a_task_is_found_by_its_id_and_a_near_miss_names_the_closest(library):
    assert find_task(library, TASK)[0].card.id == TASK
    with pytest.raises(TaskNotFound, match="closest: running-loss"):
        find_task(library, "loss")
    with pytest.raises(TaskNotFound, match="has no code task"):
        find_task(library, "no-grad")


def test_state_is_solved_once_clean_whatever_came_after(card):
    def attempt(kind: str, hours: int):
        return fix_attempt(
            card, verdict(kind), "x", level="junior", started_at=AT + timedelta(hours=hours)
        )

    def status(attempts):
        (found,) = task_statuses([card], attempts)
        return found

    assert status([]).state == "not started"
    last = status([attempt("leak", 0), attempt("clean", 1), attempt("wrong", 2)])
    assert (last.state, last.attempts, last.last_verdict) == ("solved", 3, "wrong")
    assert status([attempt("error", 0)]).state == "attempted"


def test_listing_tasks_reads_no_card_file_and_keeps_each_tasks_own_attempts(library, card):
    """`grill task list` over ten thousand tasks: which cards have a task comes from their
    summaries, and each task's attempts are its own, in the cards' order."""
    from questions.library import LoadedCard

    listed = [
        LoadedCard.listed(c.summary._replace(id=f"{c.id}-{n}"), c.path, c.pack, load=_never_read)
        for n in range(3)
        for c in library.cards
    ]
    tasks = code_tasks(Library(packs=[replace(library.packs[0], cards=tuple(listed))]))
    assert [c.id for c in tasks] == [f"{TASK}-{n}" for n in range(3)]
    made = fix_attempt(card, verdict("clean"), "x", level="junior", started_at=AT)
    tried = fix_attempt(card, verdict("leak"), "x", level="junior", started_at=AT)
    attempts = [replace(made, card_id=f"{TASK}-1"), replace(tried, card_id=f"{TASK}-2")]
    states = [(s.card_id, s.state, s.attempts) for s in task_statuses(tasks, attempts)]
    assert states == [
        (f"{TASK}-0", "not started", 0),
        (f"{TASK}-1", "solved", 1),
        (f"{TASK}-2", "attempted", 1),
    ]
    assert not any(c.is_read for c in listed)


def _never_read():
    raise AssertionError("a card file was read whole")


def test_a_fixs_rating_comes_from_its_verdict_and_a_chosen_one_is_capped(card):
    def rating(kind: str, chosen=None) -> str:
        return fix_attempt(
            card, verdict(kind), "x", level="junior", started_at=AT, rating=chosen
        ).rating

    assert [rating(kind) for kind in ("clean", "leak", "wrong", "timeout")] == [
        "good",
        "hard",
        "hard",
        "again",
    ]
    assert rating("clean", "easy") == "easy" and rating("leak", "easy") == "hard"


def test_the_same_code_with_the_same_verdict_is_the_same_attempt(card):
    earlier = [fix_attempt(card, verdict("leak"), "x = 1", level="junior", started_at=AT)]
    assert same_as_last(earlier, "x = 1", verdict("leak"))
    assert not same_as_last(earlier, "x = 2", verdict("leak"))
    assert not same_as_last(earlier, "x = 1", verdict("clean"))
    assert not same_as_last([], "x = 1", verdict("leak"))


def test_drafts_are_kept_whole_and_the_starter_is_none(tmp_path):
    drafts = Drafts(tmp_path / "drafts")
    assert drafts.load(TASK) is None
    drafts.save(TASK, "mine", starter="start")
    assert drafts.load(TASK).text == "mine"
    assert [p.name for p in (tmp_path / "drafts").iterdir()] == [f"{TASK}.py"], "no temporary left"
    drafts.save(TASK, "start", starter="start")
    assert drafts.load(TASK) is None
    (tmp_path / "file").write_text("")
    with pytest.raises(DraftError, match="cannot be written"):
        Drafts(tmp_path / "file" / "drafts").save(TASK, "mine", starter="start")


def test_hint_progress_only_goes_forward_and_survives_a_hand_edit():
    with History.open() as history:
        assert hints_shown(history, TASK) == 0
        record_hints_shown(history, TASK, 2)
        record_hints_shown(history, TASK, 1)
        assert hints_shown(history, TASK) == 2
        history.set_setting(f"task_hints:{TASK}", "lots")
        assert hints_shown(history, TASK) == 0
        remember_check(history, TASK, Verdict(verdict="leak", device="cpu", hint="h"), AT)
        assert last_check(history, TASK).hint == "h"
        history.set_setting(f"task_check:{TASK}", {"verdict": "leak"})
        assert last_check(history, TASK) is None


def test_an_unusable_history_is_said_before_any_grading(capsys, tmp_path, home, no_worker):
    (home / "history.db").mkdir(parents=True)
    (tmp_path / "fix.py").write_text("x = 1\n")
    assert main(["check", "--task", TASK, "fix.py"]) == 4
    err = capsys.readouterr().err
    assert "history.db" in err and "--no-record grades it without recording" in err
    assert main(["task", "list"]) == 1
    assert main(["task", "hint", TASK]) == 1


@pytest.mark.parametrize(
    ("name", "said"), [("gone.py", "no such file"), (".", "it is a folder, not a plain file")]
)
def test_a_watch_on_a_file_it_cannot_grade_ends_at_once(capsys, no_worker, name, said):
    assert main(["task", "watch", TASK, name]) == 2
    assert said in capsys.readouterr().err


def test_open_starts_the_app_on_the_task_with_the_files_code(monkeypatch, tmp_path, capsys):
    opened = []
    monkeypatch.setattr("app.ui.terminal.run_in_terminal", opened.append)
    monkeypatch.setattr(  # the screen itself needs a running app: its test is in tests/ui/
        "app.ui.screens.practice.PracticeScreen", lambda queue, **options: (queue, options)
    )
    (tmp_path / "fix.py").write_text("# grill task: x\n# " + "-" * 70 + "\nfor i in range(3)\n")
    assert main(["task", "open", TASK, "fix.py"]) == 0
    (app,) = opened
    (card,), options = app._then()
    assert card.card.id == TASK
    assert options == {"code": "for i in range(3)\n", "code_from": "fix.py"}
    assert main(["task", "open", TASK, "missing.py"]) == 2
    assert main(["task", "open", "nope", "fix.py"]) == 2
