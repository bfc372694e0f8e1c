"""`grill mock` on the command line: the draw it builds, and clear errors before the app opens."""

import pytest

from app.cli import build_parser, main
from app.commands.mock import MockSetupError, build_session, start_screen
from mock_helpers import FIXTURE_PACK


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACK))


def args_for(*argv):
    return build_parser().parse_args(["mock", *argv])


def drawn_ids(session):
    return [c.card.id for c in session.cards]


def test_the_same_seed_gives_the_same_session(cards):
    pool = list(cards.values())
    first = build_session(args_for("--seed", "11", "--questions", "3", "--level", "principal"), pool)
    again = build_session(args_for("--seed", "11", "--questions", "3", "--level", "principal"), pool[::-1])
    assert drawn_ids(first) == drawn_ids(again)
    assert len(first.cards) == 3 and first.seed == 11


def test_arguments_shape_the_session(cards):
    session = build_session(args_for("--level", "senior", "--minutes", "12", "--interviewer"),
                            list(cards.values()))
    assert session.level == "senior" and session.minutes == 12 and session.mode == "interviewer"
    assert type(start_screen(session, None)).__name__ == "MockInterviewerScreen"
    assert type(start_screen(build_session(args_for(), list(cards.values())), None)).__name__ == "MockScreen"


@pytest.mark.parametrize(("argv", "message"), [
    (["--questions", "0"], "--questions must be at least 1, not 0"),
    (["--minutes", "-2"], "--minutes must be positive, not -2"),
])
def test_bad_numbers_are_refused(cards, argv, message):
    with pytest.raises(MockSetupError, match=message):
        build_session(args_for(*argv), list(cards.values()))


def test_no_card_at_the_level_is_refused(cards):
    with pytest.raises(MockSetupError, match="no card at junior level or below"):
        build_session(args_for("--level", "junior"), [cards["memory-metrics"]])


def test_an_unknown_pack_exits_2_with_a_clear_message(capsys):
    assert main(["mock", "--pack", "no-such-pack"]) == 2
    err = capsys.readouterr().err
    assert "grill mock: no pack named 'no-such-pack'; loaded packs:" in err
    assert "mockpack" in err
    assert "Traceback" not in err


def test_a_bad_number_exits_2_before_the_app_opens(capsys):
    assert main(["mock", "--pack", "mockpack", "--questions", "0"]) == 2
    assert "grill mock: --questions must be at least 1" in capsys.readouterr().err


def test_a_corrupt_history_exits_1_with_its_message(tmp_path, capsys):
    home = tmp_path / "home"
    home.mkdir()
    (home / "history.db").write_bytes(b"this is not a database" * 100)
    assert main(["mock", "--pack", "mockpack"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("grill mock: ") and "history.db" in err
    assert "Traceback" not in err


def test_a_report_path_that_is_a_folder_exits_2(tmp_path, capsys):
    assert main(["mock", "--pack", "mockpack", "--report", str(tmp_path)]) == 2
    assert "is a folder; give a file name" in capsys.readouterr().err
