"""`grill lint --run` end to end through the real sandbox."""

from pathlib import Path

from app.cli import main

PACKS = Path(__file__).resolve().parents[1] / "fixtures" / "packs"


def test_run_with_the_real_grader_accepts_the_fixture_task(capsys, tmp_path, monkeypatch):
    """The fixture's starter fails its contract and its solution keeps it."""
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)
    monkeypatch.chdir(PACKS)
    assert main(["lint", "--run", "good"]) == 0
    assert capsys.readouterr().out == "no problems; 2 cards loaded\n"
