"""The order to work through a pack's code tasks (its `track` in pack.yaml, else easy before
hard, ranked runs last), `grill task next`, and `grill task list` marking ranked tasks."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app import paths
from app.cli import main
from app.practice.tasks import fix_attempt
from app.progress.history import History
from checkers.verdict import Verdict
from questions.loader import load_library

SHIPPED = paths.SHIPPED_PACKS


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)


def grill(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def pack_with_track(tmp_path: Path, track: list[str]) -> Path:
    """A copy of the shipped distributed-training pack (ranked and single-run tasks) with
    `track` in its manifest."""
    pack = tmp_path / "distributed-training"
    shutil.copytree(SHIPPED / "distributed-training", pack)
    manifest = pack / "pack.yaml"
    entries = "".join(f"  - {card_id}\n" for card_id in track)
    manifest.write_text(manifest.read_text() + ("track:\n" + entries if track else ""))
    return pack


def test_without_a_track_tasks_go_by_level_and_a_ranked_run_after_a_single_one(
    capsys, monkeypatch, tmp_path
):
    monkeypatch.setattr(paths, "SHIPPED_PACKS", pack_with_track(tmp_path, []))
    status, out, _ = grill(capsys, "task", "list", "--json")
    tasks = json.loads(out)["tasks"]
    order = [(task["level"], task["ranks"] > 0) for task in tasks]
    levels = ["junior", "middle", "senior", "principal"]
    assert order == sorted(order, key=lambda key: (levels.index(key[0]), key[1]))
    assert any(task["ranks"] for task in tasks) and not all(task["ranks"] for task in tasks)


def test_a_track_sets_the_order_and_the_tasks_it_leaves_out_follow(capsys, monkeypatch, tmp_path):
    track = ["gradients-all-reduced-by-hand", "data-parallel-replicas-and-gradient-averaging"]
    monkeypatch.setattr(paths, "SHIPPED_PACKS", pack_with_track(tmp_path, track))
    _, out, _ = grill(capsys, "task", "list")
    rows = [line.split()[1] for line in out.splitlines()[1:] if line[:3].strip().endswith(".")]
    assert rows[:2] == track and len(rows) > 2
    assert " 1. gradients-all-reduced-by-hand" in out and "middle · ranked ×4" in out


def test_next_is_the_first_task_not_solved_and_says_how_to_start_it(capsys):
    track = load_library([SHIPPED]).packs[0].info.track
    first, second = track[0], track[1]
    card = load_library([SHIPPED]).card(first)
    with History.open() as history:
        history.record(
            fix_attempt(
                card,
                Verdict(verdict="clean", device="cpu"),
                "code",
                level="middle",
                started_at=datetime.now(UTC),
            )
        )
    status, out, _ = grill(capsys, "task", "next", "--pack", "autograd-memory")
    assert status == 0
    assert out.splitlines()[0].startswith(f"Next: {second} (autograd-memory, ")
    assert "1 of 9 tasks solved" in out
    assert f"grill task start {second} [DIR]" in out


def test_a_track_entry_that_is_no_code_task_of_the_pack_is_a_lint_problem(capsys, tmp_path):
    pack = pack_with_track(
        tmp_path,
        [
            "gradients-all-reduced-by-hand",
            "no-such-card",
            "zero-fsdp-sharding-memory-per-rank",
            "gradients-all-reduced-by-hand",
        ],
    )
    status, out, _ = grill(capsys, "lint", str(pack))
    assert status == 1
    messages = [line.split(": ", 1)[1] for line in out.splitlines() if "track entry" in line]
    assert messages == [
        "track entry 'no-such-card' is not a card of this pack (hint: list each of the pack's"
        " code tasks (card ids) once, in the order to work through them)",
        "track entry 'zero-fsdp-sharding-memory-per-rank' has no code task (hint: list each of"
        " the pack's code tasks (card ids) once, in the order to work through them)",
        "track entry 'gradients-all-reduced-by-hand' is listed twice (hint: list each of the"
        " pack's code tasks (card ids) once, in the order to work through them)",
    ]
