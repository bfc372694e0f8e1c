"""`grill lint`: what it prints, its exit codes, `--json`, and `--run` with a grader."""

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest
from pace import bound
from terminal_signals import as_from_a_terminal

from app.cli import main
from app.commands import lint as lint_command
from app.commands.lint import LintWorkers, busy_cores_now, idle_cores
from checkers.verdict import Expectation, Verdict
from questions.lint import grade_code_tasks, lint_paths
from questions.loader import load_card_file

PACKS = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def in_fixture_folder(tmp_path, monkeypatch):
    """Run from the fixtures folder, with an empty user folder and no extra packs."""
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)
    monkeypatch.chdir(PACKS)


def lint(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_clean_pack_exits_0(capsys):
    code, out, _ = lint(capsys, "good")
    assert code == 0
    assert out == "no problems; 2 cards loaded\n"


def test_problems_are_printed_sorted_with_hints_and_exit_1(capsys):
    code, out, _ = lint(capsys, "dup-first", "dup-second", "no-manifest")
    assert code == 1
    assert out.splitlines() == [
        "dup-second/shared-card.yaml:1:5: duplicate card id 'shared-card' (first in dup-first/shared-card.yaml)"
        " (hint: card ids are unique across all packs: choose another id and rename the file)",
        "no-manifest/pack.yaml:1:1: this folder has card files but no pack.yaml"
        " (hint: create pack.yaml with name, title, description and 'format_version: 1' (grill new writes one))",
        "2 problems in 2 files; 2 cards loaded",
    ]


def test_a_single_card_file_is_checked_on_its_own(capsys):
    code, out, _ = lint(capsys, "bad-cards/out-of-range.yaml")
    assert code == 1
    assert out.splitlines()[0].startswith(
        "bad-cards/out-of-range.yaml:5:12: 'frequency' must be at most 100"
    )


def test_a_pack_yaml_path_lints_its_pack(capsys):
    code, out, _ = lint(capsys, "good/pack.yaml")
    assert (code, out) == (0, "no problems; 2 cards loaded\n")


def test_json_lists_every_problem_with_its_location(capsys):
    code, out, _ = lint(capsys, "--json", "bad-cards")
    problems = json.loads(out)
    assert code == 1
    assert len(problems) == len({p["path"] for p in problems}) + 1  # misspelt-field has two
    assert all(set(p) == {"path", "line", "column", "message", "hint"} for p in problems)
    assert {
        "path": "bad-cards/empty-file.yaml",
        "line": 1,
        "column": 1,
        "message": "the file is empty",
        "hint": "write the fields, or delete the file",
    } in problems


def test_json_of_a_clean_pack_is_an_empty_list(capsys):
    code, out, _ = lint(capsys, "--json", "good")
    assert (code, json.loads(out)) == (0, [])


def test_a_path_that_does_not_exist_is_a_usage_error(capsys):
    code, out, err = lint(capsys, "good", "missing-folder")
    assert (code, out) == (2, "")
    assert err == "grill lint: missing-folder: no such file or folder\n"


def test_a_file_that_is_not_a_card_is_a_usage_error(capsys, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("id: nope\n")
    code, _, err = lint(capsys, str(notes))
    assert code == 2
    assert err.endswith("notes.txt: not a card file (cards end in .yaml)\n")


def test_a_pipe_is_a_usage_error_not_a_clean_result(capsys, tmp_path):
    os.mkfifo(tmp_path / "card.yaml")
    code, out, err = lint(capsys, str(tmp_path / "card.yaml"))
    assert (code, out) == (2, "")
    assert (
        err
        == f"grill lint: {tmp_path / 'card.yaml'}: not a plain file or folder (a pipe, socket or device)\n"
    )


def test_a_folder_without_packs_is_a_usage_error(capsys, tmp_path):
    code, _, err = lint(capsys, str(tmp_path))
    assert code == 2
    assert err.endswith("no pack here (no pack.yaml in it or in its sub-folders)\n")


def test_with_no_paths_it_lints_everything_grill_loads(capsys, monkeypatch):
    monkeypatch.setenv("GRILL_PACKS", f"{PACKS / 'dup-first'}:{PACKS / 'dup-second'}")
    code, out, _ = lint(capsys, "--json")
    assert code == 1
    assert "dup-second/shared-card.yaml" in {p["path"] for p in json.loads(out)}


def test_with_no_paths_a_file_in_grill_packs_is_reported_as_the_app_sees_it(
    capsys, monkeypatch, tmp_path
):
    """A search-path entry holds packs; a stray file there is not linted as if it were a card."""
    stray = tmp_path / "notes.txt"
    stray.write_text("shopping list\n")
    monkeypatch.setenv("GRILL_PACKS", f":{stray}::{tmp_path / 'missing'}:")
    code, out, _ = lint(capsys, "--json")
    assert code == 1
    assert [(p["path"], p["message"]) for p in json.loads(out)] == [
        (str(stray), "packs are loaded from folders, not files")
    ]


def test_a_file_name_that_is_not_utf8_is_printed_not_a_crash(tmp_path):
    """Surrogate escapes from the file system would crash a strict UTF-8 stdout, and are not valid JSON."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    open(bytes(pack) + b"/caf\xe9.yaml", "wb").write(b"id: cafe\n")
    shown = f"{pack}/caf\ufffd.yaml"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    outputs = []
    for flag in ([], ["--json"]):
        run = subprocess.run(
            [sys.executable, "-m", "app.cli", "lint", str(pack), *flag],
            env=env,
            cwd=Path(__file__).parents[1],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=bound(3),
        )
        assert run.returncode == 1, run.stderr
        outputs.append(run.stdout)
    assert f"{shown}:1:1: missing required field 'basic'" in outputs[0]
    assert shown in {p["path"] for p in json.loads(outputs[1])}


def fake_grader(verdicts: dict[str, str], calls: list):
    """Grades a snippet by a marker line it contains, recording the task it was graded for."""

    def grade(source, task):
        calls.append((task.grading.device, [c.name for c in task.contract.same_as_solution]))
        kind = next(v for marker, v in verdicts.items() if marker in source)
        return Verdict(verdict=kind, device="cpu", message=f"graded {kind}")

    return grade


def line_of(path: Path, text: str) -> int:
    return next(
        n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(text)
    )


TASK_CARD = PACKS / "good" / "detach-metrics.yaml"
TASK = load_card_file(TASK_CARD)[0].card.code_task
STARTER_LINE, SOLUTION_LINE = line_of(TASK_CARD, "  starter:"), line_of(TASK_CARD, "  solution:")


def pack_with_solution(tmp_path: Path, solution_line: str) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    card.write_text(card.read_text().replace("total = total + loss.item()", solution_line))
    return pack


def test_run_grades_starter_and_solution_with_the_task_settings():
    calls = []
    report = lint_paths([PACKS / "good"])
    grade = fake_grader({"loss.item()": "clean", "total + loss": "leak"}, calls)
    assert grade_code_tasks(report.cards, grade) == []
    assert calls == [("cpu", ["model"]), ("cpu", ["model"])]


def test_run_reports_a_leaking_solution_at_its_key(tmp_path):
    pack = pack_with_solution(tmp_path, "total = total + loss")
    grade = fake_grader({"total + loss": "leak"}, [])
    problems = grade_code_tasks(lint_paths([pack]).cards, grade)
    assert [(p.line, p.column, p.message) for p in problems] == [
        (SOLUTION_LINE, 3, "'code_task.solution' must grade clean but graded leak: graded leak")
    ]


def test_run_reports_a_starter_that_does_not_leak(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    grade = fake_grader({"import torch": "clean"}, [])
    problems = grade_code_tasks(lint_paths([pack]).cards, grade)
    assert [(p.line, p.column, p.message) for p in problems] == [
        (STARTER_LINE, 3, "'code_task.starter' must leak but graded clean: graded clean")
    ]


def test_run_holds_a_starter_that_must_break_the_contract_to_wrong(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    card.write_text(card.read_text().replace("  contract:", "  starter_fails: wrong\n  contract:"))
    grade = fake_grader({"loss.item()": "clean", "total + loss": "leak"}, [])
    problems = grade_code_tasks(lint_paths([pack]).cards, grade)
    assert [p.message for p in problems] == [
        "'code_task.starter' must break the contract (grade wrong) but graded leak: graded leak"
    ]


TRIED_FIXES = """  tried_fixes:
    - name: stores the number
      expect: clean
      why: a number carries no graph
      code: |
        total = total + loss.item()  # the alternative
    - name: still adds the tensor
      expect: wrong
      why: the task keeps the training as it is
      code: |
        total = total + loss  # tried
"""


def test_run_grades_each_tried_fix_and_reports_the_one_the_contract_misses(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    card.write_text(card.read_text().replace("  contract:", TRIED_FIXES + "  contract:"))
    calls = []
    grade = fake_grader({"loss.item()": "clean", "total + loss": "leak"}, calls)
    problems = grade_code_tasks(lint_paths([pack]).cards, grade)
    assert len(calls) == 4  # the starter, the solution and both tried fixes
    second_fix = line_of(card, "    - name: still adds the tensor")
    assert [(p.line, p.message, p.hint) for p in problems] == [
        (
            second_fix,
            "'code_task.tried_fixes[1]' (still adds the tensor) must grade wrong but graded"
            " leak: graded leak",
            "the contract must tell this fix apart: the task keeps the training as it is",
        )
    ]


@pytest.mark.parametrize("used, reported", [(0.2, False), (0.6, True)])
def test_run_reports_a_fix_that_grades_clean_with_little_of_its_tolerance_to_spare(
    tmp_path, used, reported
):
    """Rounding differs between CPUs, and training carries it into every compared value: a
    fix that passes using more than MOST_TOLERANCE_USED of a tolerance may fail elsewhere."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    card.write_text(card.read_text().replace("  contract:", TRIED_FIXES + "  contract:"))
    grade = fake_grader({"loss.item()": "clean", "total + loss": "leak"}, [])

    def close_call(source, task):
        verdict = grade(source, task)
        if "# the alternative" not in source:
            return verdict
        return dataclasses.replace(
            verdict, expectations=(Expectation("same:model", True, "matches", used),)
        )

    problems = grade_code_tasks(lint_paths([pack]).cards, close_call)
    narrow = [p for p in problems if "little to spare" in p.message]
    if not reported:
        assert narrow == []
        return
    assert [(p.line, p.message, p.hint) for p in narrow] == [
        (
            line_of(card, "    - name: stores the number"),
            "'code_task.tried_fixes[0]' (stores the number) grades clean with little to spare:"
            " `model` used 60% of its tolerance (rtol 0.0001, atol 1e-06), and another"
            " machine's rounding could grade it wrong",
            "loosen `model`'s rtol or atol in the contract until this fix uses at most 25% of"
            " it, while the wrong fixes still fail",
        )
    ]


def test_run_reports_a_task_that_cannot_be_graded(tmp_path):
    pack = pack_with_solution(tmp_path, "total = total + loss.item()  # refuse")
    grade = fake_grader({"# refuse": "refused", "total + loss": "leak"}, [])
    problems = grade_code_tasks(lint_paths([pack]).cards, grade)
    assert [p.message for p in problems] == [
        "'code_task.solution' could not be graded (refused): graded refused"
    ]


class FakeSandbox:
    closed = False

    def close(self):
        self.closed = True


def test_run_flag_uses_the_checkers_grader_on_the_shared_warm_worker(capsys, monkeypatch):
    api = types.ModuleType("checkers.api")
    fake = fake_grader({"total + loss.item()": "leak", "total + loss": "leak"}, [])
    shared, started = FakeSandbox(), []
    api.shared_sandbox = lambda device: shared
    api.worker_device = lambda device: device
    api.grading_sandbox = lambda device: started.append(FakeSandbox()) or started[-1]
    api.grade_task = lambda source, spec, sandbox, filename: fake(source, TASK)
    monkeypatch.setitem(sys.modules, "checkers.api", api)
    code, out, err = lint(capsys, "--run", "good")
    assert code == 1
    assert out.splitlines()[0] == (
        f"good/detach-metrics.yaml:{SOLUTION_LINE}:3: 'code_task.solution' must grade clean but graded leak: graded leak"
        " (hint: the reference solution must let each iteration's graph go)"
    )
    assert "grading detach-metrics starter" in err
    assert re.search(r"^graded 1 code task in \d+ s on 1 warm worker$", err, re.MULTILINE), err
    assert started == [] and not shared.closed, "one task: the process's own worker, left open"


def test_the_worker_first_on_a_device_is_the_shared_one_and_only_those_started_are_closed():
    shared = {"cpu": FakeSandbox()}
    workers = LintWorkers(shared.__getitem__, lambda device: FakeSandbox())
    first = workers.own("cpu")
    found: list[FakeSandbox] = []
    other = threading.Thread(target=lambda: found.append(workers.own("cpu")))
    other.start()
    other.join()
    assert first is shared["cpu"] and workers.own("cpu") is first
    assert found[0] is not first and workers.used == 2
    workers.close()
    assert found[0].closed and not first.closed


@pytest.mark.parametrize("cores, busy, expected", [(2, 0.3, 2), (2, 3.9, 1), (16, 1.0, 4)])
def test_run_grades_as_many_tasks_at_once_as_cores_are_idle_now(monkeypatch, cores, busy, expected):
    """The cores busy now decide, not the load average: it lags a minute behind, and read 1.3
    on two cores just left quiet by a test suite."""
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(lint_command, "busy_cores_now", lambda: busy)
    monkeypatch.setattr(os, "getloadavg", lambda: (cores, cores, cores))
    assert idle_cores() == expected


@pytest.mark.parametrize("cores, load, expected", [(2, 0.3, 2), (2, 3.9, 1), (16, 1.0, 4)])
def test_without_a_count_of_busy_cores_the_load_average_decides(monkeypatch, cores, load, expected):
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(lint_command, "busy_cores_now", lambda: None)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert idle_cores() == expected


def test_the_busy_cores_are_read_from_the_system_where_it_counts_them():
    busy = busy_cores_now(0.05)
    if not Path("/proc/stat").exists():
        assert busy is None
    else:
        assert busy is not None and 0.0 <= busy <= (os.cpu_count() or 1)


def test_run_on_several_workers_grades_tasks_at_once_and_reports_in_the_cards_order(tmp_path):
    """Each task's runs stay on one thread (its warm worker), tasks run side by side, and the
    problems come back as one worker would have found them."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    for index in range(6):
        copy = card.read_text().replace("id: detach-metrics", f"id: detach-metrics-{index}")
        (pack / f"detach-metrics-{index}.yaml").write_text(copy)
    cards = lint_paths([pack]).cards
    both_running = threading.Barrier(2, timeout=bound(3))
    threads: dict[int, set[int]] = {}

    def grade(source, task):
        if not threads:
            both_running.wait()  # the first two tasks' first runs are graded at the same time
        return fake_grader({"import torch": "clean"}, [])(source, task)

    def watched(source, task):
        verdict = grade(source, task)
        threads.setdefault(id(task), set()).add(threading.get_ident())
        return verdict

    alone = grade_code_tasks(cards, fake_grader({"import torch": "clean"}, []))
    together = grade_code_tasks(cards, watched, workers=2)
    assert together == alone and len(alone) == sum(1 for c in cards if c.card.code_task) == 7
    assert len(threads) == 7 and all(len(ids) == 1 for ids in threads.values())
    assert len(set().union(*threads.values())) == 2


def test_run_without_a_grader_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "checkers.api", None)  # makes the import fail
    code, _, err = lint(capsys, "--run", "good")
    assert code == 2
    assert "the grader is not available" in err


def test_lint_without_run_imports_neither_torch_nor_textual(imported_after):
    """Checking content must stay fast and headless: only `--run` may load the grader."""
    modules = imported_after(f"from app.cli import main\nmain(['lint', {str(PACKS / 'good')!r}])")
    assert modules.of("torch", "textual") == []


@pytest.mark.parametrize("mode", [0o000, 0o311], ids=["mode 000", "mode 0311"])
@pytest.mark.parametrize(
    "named", [True, False], ids=["named on the command line", "in GRILL_PACKS"]
)
def test_a_pack_folder_the_user_cannot_list_is_one_located_problem(
    tmp_path, unprivileged, mode, named
):
    """Mode 000 raised PermissionError from `is_file()`; mode 0311 let `glob()` find nothing and
    lint said 'no problems; 0 cards loaded'."""
    pack = tmp_path / "locked"
    shutil.copytree(PACKS / "good", pack)
    pack.chmod(mode)
    done = unprivileged.grill(
        "lint",
        *([str(pack)] if named else []),
        env={"GRILL_HOME": str(tmp_path / "home"), "GRILL_PACKS": "" if named else str(pack)},
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert (
        f"{pack}:1:1: cannot read this folder: Permission denied (hint: check its permissions"
        in done.stdout
    )
    assert done.stdout.count("cannot read this folder") == 1


@pytest.mark.parametrize("mode", [0o000, 0o311], ids=["mode 000", "mode 0311"])
def test_stats_with_an_unreadable_pack_says_so_in_one_line(tmp_path, unprivileged, mode):
    pack = tmp_path / "locked"
    shutil.copytree(PACKS / "good", pack)
    pack.chmod(mode)
    done = unprivileged.grill(
        "stats", env={"GRILL_HOME": str(tmp_path / "home"), "GRILL_PACKS": str(pack)}
    )
    assert done.returncode == 0
    assert done.stderr == (
        f"grill stats: note: left out {pack}: cannot read this folder: Permission denied\n"
    )


def test_a_path_inside_a_folder_the_user_cannot_enter_is_a_usage_error(tmp_path, unprivileged):
    locked = tmp_path / "locked"
    shutil.copytree(PACKS / "good", locked / "good")
    locked.chmod(0o000)
    done = unprivileged.grill(
        "lint", str(locked / "good"), env={"GRILL_HOME": str(tmp_path / "home")}
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"grill lint: {locked / 'good'}: cannot be reached (Permission denied)\n"


# -- a pack linted on its own, among the packs grill loads ---------------------------------


def test_a_pack_linted_by_path_hears_of_a_card_id_a_shipped_card_has(capsys, tmp_path):
    from app.paths import SHIPPED_PACKS

    shipped = SHIPPED_PACKS / "autograd-memory" / "keeping-loss-tensor-grows-memory.yaml"
    pack = tmp_path / "mine"
    shutil.copytree(PACKS / "good", pack)
    (pack / shipped.name).write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = lint(capsys, str(pack))
    assert code == 1
    assert (
        f"{pack / shipped.name}:2:5: card id 'keeping-loss-tensor-grows-memory' is also the id"
        f" of {shipped}, which grill loads too: the app keeps only one of them"
    ) in out
    assert "choose another id" in out


def test_a_shipped_pack_linted_by_path_does_not_clash_with_itself(capsys):
    from app.paths import SHIPPED_PACKS

    code, out, _ = lint(capsys, str(SHIPPED_PACKS / "autograd-memory"))
    assert code == 0, out


def test_a_contract_comparing_a_name_the_solution_never_binds_is_a_problem_without_run(
    capsys, tmp_path
):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    card.write_text(card.read_text().replace("- name: model", "- name: modle"))
    code, out, _ = lint(capsys, str(pack))
    assert code == 1
    line = line_of(card, "      - name: modle")
    assert (
        f"{card}:{line}:15: 'code_task.contract.same_as_solution[0].name' compares `modle`,"
        " which the solution never assigns: its own solution would grade wrong (hint: did you"
        " mean `model`? name a value the solution leaves at module level)"
    ) in out


@pytest.mark.parametrize(
    "binding",
    [
        "for total in range(3): pass",
        "import os as total",
        "def total(): pass",
        "globals()['x'] = 1",
    ],
)
def test_a_name_bound_any_way_the_ast_shows_or_bound_dynamically_is_not_reported(
    capsys, tmp_path, binding
):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    text = card.read_text().replace("- name: model", "- name: total2")
    card.write_text(text.replace("total = total + loss.item()", binding.replace("total", "total2")))
    code, out, _ = lint(capsys, str(pack))
    assert "total2" not in out, out


def test_run_says_which_promise_a_wrong_solution_breaks_not_a_hint_about_graphs(tmp_path):
    def grade(source, task):
        broken = Expectation("same:ema", False, "The solution's `ema` cannot be compared.")
        return Verdict(verdict="wrong", device="cpu", message="m", expectations=(broken,))

    problems = grade_code_tasks(lint_paths([PACKS / "good"]).cards, grade)
    solution = next(p for p in problems if "solution" in p.message)
    assert solution.hint == (
        "the contract must hold for its own solution: The solution's `ema` cannot be compared."
    )


def test_watch_lints_again_at_each_save_until_ctrl_c(tmp_path):
    """`grill lint --watch PACK`: the pack linted at once, again when a card is saved broken
    and once more when it is fixed; Ctrl+C ends it with exit 0."""
    import queue
    import signal
    import threading
    import time

    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    card = pack / "detach-metrics.yaml"
    good_text = card.read_text()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "lint", "--watch", str(pack)],
        cwd=Path(__file__).parents[1],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "GRILL_HOME": str(tmp_path / "home")},
        preexec_fn=as_from_a_terminal,  # Ctrl+C reaches it however the suite was started
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout], daemon=True
    ).start()

    def wait_for(text: str) -> None:
        deadline = time.monotonic() + bound(6)  # a lint takes about a second quiet
        while time.monotonic() < deadline:
            try:
                if text in lines.get(timeout=1):
                    return
            except queue.Empty:
                continue
        raise AssertionError(f"never printed: {text}")

    try:
        wait_for("no problems; 2 cards loaded")
        card.write_text(good_text.replace("level: ", "level: wizard # "))
        wait_for("detach-metrics.yaml")
        card.write_text(good_text)
        wait_for("no problems; 2 cards loaded")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=bound(3)) == 0
    finally:
        process.kill()
