"""`grill mock` and the app's `m` key build a session the same way; the command line fails clearly
before the app opens."""

from datetime import UTC

import pytest
from mock_helpers import FIXTURE_PACK

from app.cli import main
from app.mock.setup import MockSetupError, build_session
from app.ui.app import mock_screen


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRILL_PACKS", str(FIXTURE_PACK))


def drawn_ids(session):
    return [c.card.id for c in session.cards]


def test_the_same_seed_gives_the_same_session(cards):
    pool = list(cards.values())
    first = build_session(pool, seed=11, questions=3, level="principal")
    again = build_session(pool[::-1], seed=11, questions=3, level="principal")
    assert drawn_ids(first) == drawn_ids(again)
    assert len(first.cards) == 3 and first.seed == 11


def test_arguments_shape_the_session(cards):
    session = build_session(list(cards.values()), level="senior", minutes=12, interviewer=True)
    assert session.level == "senior" and session.minutes == 12 and session.role == "interviewer"
    assert type(mock_screen(session, None)).__name__ == "MockInterviewerScreen"
    assert (
        type(mock_screen(build_session(list(cards.values()), level="middle"), None)).__name__
        == "MockScreen"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"questions": 0}, "the number of questions must be at least 1, not 0"),
        ({"minutes": -2}, "the time limit must be a positive number of minutes, not -2"),
    ],
)
def test_bad_numbers_are_refused(cards, options, message):
    with pytest.raises(MockSetupError, match=message):
        build_session(list(cards.values()), level="middle", **options)


def test_no_card_at_the_level_is_refused(cards):
    with pytest.raises(MockSetupError, match="no card at junior level or below"):
        build_session([cards["memory-metrics"]], level="junior")


def test_due_and_weak_cards_are_drawn_more_often_when_a_history_is_given(cards, history):
    from datetime import datetime

    from app.progress.attempt import Attempt

    weak = "retain-graph-error"
    history.record(
        Attempt(
            card_id=weak,
            mode="practice",
            rating="again",
            level="middle",
            phase_seconds={},
            started_at=datetime(2026, 3, 1, tzinfo=UTC),
        )
    )
    now = datetime(2026, 3, 2, tzinfo=UTC)

    def times_drawn(**options) -> int:
        return sum(
            weak
            in [
                c.card.id
                for c in build_session(
                    list(cards.values()), level="principal", questions=2, seed=seed, **options
                ).cards
            ]
            for seed in range(200)
        )

    assert times_drawn(history=history, now=now) > times_drawn()


def test_an_unknown_pack_exits_2_with_a_clear_message(capsys):
    assert main(["mock", "--pack", "no-such-pack"]) == 2
    err = capsys.readouterr().err
    assert "grill mock: no pack named 'no-such-pack'; loaded packs:" in err
    assert "mockpack" in err
    assert "Traceback" not in err


def test_a_bad_number_exits_2_before_the_app_opens(capsys):
    assert main(["mock", "--pack", "mockpack", "--questions", "0"]) == 2
    assert "grill mock: the number of questions must be at least 1" in capsys.readouterr().err


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
