"""`grill check` and `python -m checkers`: exit statuses, one JSON object, readable reports."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pace import bound
from warm_worker import lend_shared_worker

from app.cli import main
from checkers.sandbox import Sandbox

CORPUS = Path(__file__).parent / "corpus"
STABLE_FIELDS = {
    "verdict",
    "device",
    "steps",
    "pattern",
    "growth_bytes_per_step",
    "samples",
    "retained",
    "message",
    "hint",
    "error",
}


@pytest.fixture
def lent_worker(monkeypatch):
    """The command grades on the process's warm worker (`warm_worker`), not one of its own."""
    lend_shared_worker(monkeypatch)


def check(capsys, *argv):
    status = main(["check", "--device", "cpu", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.usefixtures("lent_worker")
def test_a_clean_loop_exits_0_with_the_curve_and_no_table(capsys):
    status, out, _ = check(capsys, str(CORPUS / "clean_item_total.py"))
    assert status == 0
    assert out.startswith("CLEAN")
    assert "Memory above the first step" in out
    assert "Still holding graphs" not in out


@pytest.mark.usefixtures("lent_worker")
def test_a_leak_exits_1_with_the_culprit_table_and_hint(capsys):
    status, out, _ = check(capsys, str(CORPUS / "leak_list_of_losses.py"))
    assert status == 1
    assert out.startswith("LEAK")
    assert "losses[0]" in out and "MeanBackward0" in out
    assert "Hint:" in out


@pytest.mark.usefixtures("lent_worker")
def test_json_is_exactly_one_object_with_the_stable_fields(capsys):
    status, out, _ = check(capsys, "--json", "--steps", "20", str(CORPUS / "leak_running_total.py"))
    data = json.loads(out)
    assert status == 1
    assert STABLE_FIELDS <= set(data)
    assert data["verdict"] == "leak" and data["steps"] == 20 and len(data["samples"]) == 20
    assert "Stopped at the step cap" in data["coverage"]
    assert data["training"]["optimizer_steps"] == 20
    assert data["retained"][0]["path"] == "running"
    assert set(data["retained"][0]) == {
        "path",
        "grad_fn",
        "graph_nodes",
        "saved_bytes",
        "line",
        "steps",
    }
    assert data["error"] is None


def test_several_files_share_one_worker_and_exit_with_the_worst_status(capsys, monkeypatch):
    """The command's own worker: one for all its files, closed when it is done."""
    started: list[Sandbox] = []
    real_start = Sandbox.start

    def start(self):
        started.append(self)
        return real_start(self)

    monkeypatch.setattr(Sandbox, "start", start)
    status, out, _ = check(
        capsys,
        "--json",
        str(CORPUS / "clean_item_total.py"),
        str(CORPUS / "leak_list_of_losses.py"),
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(d["file"].rsplit("/", 1)[-1], d["verdict"]) for d in lines] == [
        ("clean_item_total.py", "clean"),
        ("leak_list_of_losses.py", "leak"),
    ]
    assert status == 1
    assert len(set(map(id, started))) == 1, "the files shared one sandbox"
    assert started[0]._process is None, "its worker was closed"


@pytest.mark.usefixtures("lent_worker")
def test_a_snippet_that_trains_nothing_says_so_instead_of_a_bare_clean(capsys, tmp_path):
    snippet = tmp_path / "nothing.py"
    snippet.write_text("total = 0\nfor i in range(100):\n    total += i\n")
    status, out, _ = check(capsys, "--json", str(snippet))
    data = json.loads(out)
    assert (status, data["verdict"], data["error"]["kind"]) == (3, "error", "NoGraph")
    assert data["training"]["graph_nodes"] == 0


@pytest.mark.usefixtures("lent_worker")
def test_a_refused_snippet_is_not_graded_exit_3_with_its_line(capsys, tmp_path):
    snippet = tmp_path / "escape.py"
    snippet.write_text("import torch\nfor i in range(3):\n    torch.os.system('true')\n")
    status, out, _ = check(capsys, "--json", str(snippet))
    data = json.loads(out)
    assert status == 3
    assert data["verdict"] == "refused"
    assert data["error"]["line"] == 3


@pytest.mark.usefixtures("lent_worker")
def test_an_error_in_the_snippet_shows_only_its_own_traceback(capsys, tmp_path):
    snippet = tmp_path / "broken.py"
    snippet.write_text("import torch\nx = torch.zeros(2)\nfor i in range(3):\n    x[7] = 1\n")
    status, out, _ = check(capsys, str(snippet))
    assert status == 3
    assert "IndexError" in out and "line 4" in out
    assert "checkers/" not in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "no such file"),
        (b"\xff\xfe\x00 not text", "not UTF-8"),
    ],
)
def test_unreadable_files_are_usage_errors_exit_2_before_anything_runs(
    capsys, tmp_path, content, expected, no_worker
):
    path = tmp_path / "snippet.py"
    if content is not None:
        path.write_bytes(content)
    status, out, err = check(capsys, str(CORPUS / "clean_item_total.py"), str(path))
    assert status == 2
    assert out == "", "a usage error anywhere on the line grades no file"
    assert expected in err and str(path) in err


@pytest.mark.parametrize(
    ("option", "value", "said"), [("--steps", "0", "--steps"), ("--seconds", "-1", "time budget")]
)
def test_a_budget_that_cannot_run_anything_is_a_usage_error(capsys, option, value, said, no_worker):
    status, _, err = check(capsys, option, value, str(CORPUS / "clean_item_total.py"))
    assert status == 2
    assert said in err


@pytest.fixture
def no_worker(monkeypatch):
    """Usage errors are found before a worker starts (its torch import alone takes seconds)."""

    def start(self):
        raise AssertionError("a worker was started for a command line that cannot run")

    monkeypatch.setattr(Sandbox, "start", start)


def test_python_dash_m_checkers_gives_the_same_json():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkers",
            "--json",
            "--device",
            "cpu",
            str(CORPUS / "clean_detached_list.py"),
        ],
        capture_output=True,
        text=True,
        timeout=bound(6),  # a worker's start and one corpus file, quiet
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["verdict"] == "clean"
    assert run.stdout.count("\n") == 1
