"""A command that leaves a pack or a card out says which and why, one line each on standard
error (`app/commands/notes.py`), not a count of problems: only `grill lint` said that a pack
needs a newer grill."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app import paths
from app.cli import main

PACKS = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(paths, "SHIPPED_PACKS", tmp_path / "no-shipped-packs")


def run(capsys, monkeypatch, packs: list[Path], *argv: str) -> tuple[int, str, list[str]]:
    monkeypatch.setenv("GRILL_PACKS", ":".join(str(p) for p in packs))
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


@pytest.mark.parametrize(
    "argv", [["stats"], ["stats", "--json"], ["task", "list"], ["export"]], ids=" ".join
)
def test_a_pack_for_a_newer_grill_is_named_with_the_reason(capsys, monkeypatch, argv):
    newer = PACKS / "manifest-future-version"
    status, _, said = run(capsys, monkeypatch, [PACKS / "good", newer], *argv)
    assert status == 0
    assert said == [
        f"grill {' '.join(argv[:2]) if argv[0] == 'task' else argv[0]}: note: left out the pack"
        f" {newer}: this pack is written for a newer grill (card format 2; this grill reads"
        " format 1)"
    ]


def test_stats_json_stays_clean_and_counts_only_what_loaded(capsys, monkeypatch):
    _, out, said = run(
        capsys, monkeypatch, [PACKS / "good", PACKS / "no-manifest"], "stats", "--json"
    )
    json.loads(out)
    assert said == [
        f"grill stats: note: left out the pack {PACKS / 'no-manifest'}: this folder has card"
        " files but no pack.yaml"
    ]


def test_each_card_left_out_is_one_line_naming_its_file_and_the_first_problem(
    capsys, monkeypatch, tmp_path
):
    pack = tmp_path / "pack"
    pack.mkdir()
    shutil.copy(PACKS / "bad-cards" / "pack.yaml", pack)
    for name in ("bad-device.yaml", "fine-card.yaml", "too-many-key-points.yaml"):
        shutil.copy(PACKS / "bad-cards" / name, pack)
    _, _, said = run(capsys, monkeypatch, [pack], "task", "list")
    assert len(said) == 2
    assert said[0].startswith(f"grill task list: note: left out {pack / 'bad-device.yaml'}: ")
    assert "'tpu'" in said[0]
    assert said[1].startswith(
        f"grill task list: note: left out {pack / 'too-many-key-points.yaml'}: "
    )


def test_past_ten_lines_the_rest_is_a_count_and_lint_lists_them(capsys, monkeypatch):
    _, _, said = run(capsys, monkeypatch, [PACKS / "bad-cards"], "stats")
    assert len(said) == 11
    assert all(" note: left out " in line for line in said[:10])
    assert said[10].startswith("grill stats: note: ... and ")
    assert said[10].endswith(" more left out; `grill lint` lists every problem")
