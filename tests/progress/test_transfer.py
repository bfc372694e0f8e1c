"""Export and import: the round trip keeps every figure, and importing twice is harmless."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from progress_factories import T0, attempt, loaded_card

from app.progress.attempt import CodeResult
from app.progress.history import History
from app.progress.stats import compute_stats
from app.progress.transfer import ExportFileError, export_document, import_file, read_export

NOW = T0 + timedelta(days=30)
CARDS = [loaded_card("a1", "autograd"), loaded_card("m1", "memory", basic=30, solid=60)]


def busy_history(history: History) -> None:
    leak = CodeResult(
        verdict="leak",
        pattern="sawtooth",
        growth_bytes_per_step=512.0,
        retained_paths=("total",),
        code="total += loss",
    )
    for n in range(12):
        history.record(
            attempt(
                ("a1", "m1", "gone")[n % 3],
                ("good", "again", "hard", "easy")[n % 4],
                at=T0 + timedelta(days=2 * n),
                level=("junior", "senior")[n % 2],
                key_points_missed=("detach",) * (n % 2),
                red_flags_said=("x",) * (n % 3 == 0),
                code=leak if n == 5 else None,
                phase_seconds={"answer": 10.0 + 5 * n},
                session_id="mock-1" if n > 8 else None,
            )
        )


def write_export(history: History, path: Path) -> Path:
    path.write_text(json.dumps(export_document(history, now=NOW)))
    return path


def table(history: History, name: str) -> list[tuple]:
    return history.connection.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()


def test_export_then_import_into_an_empty_home_reproduces_the_stats(tmp_path):
    with History.open(tmp_path / "a" / "history.db") as original:
        busy_history(original)
        exported = write_export(original, tmp_path / "export.json")
        expected = compute_stats(original, CARDS, now=NOW).to_dict()
        expected_states = table(original, "card_state")
    with History.open(tmp_path / "b" / "history.db") as fresh:
        assert import_file(fresh, exported).added == 12
        assert compute_stats(fresh, CARDS, now=NOW).to_dict() == expected
        assert table(fresh, "card_state") == expected_states
        assert fresh.attempts() == original_attempts(tmp_path / "a" / "history.db")


def original_attempts(path: Path):
    with History.open(path) as history:
        return history.attempts()


def test_importing_the_same_file_twice_changes_nothing(tmp_path):
    with History.open(tmp_path / "a.db") as source:
        busy_history(source)
        exported = write_export(source, tmp_path / "export.json")
    with History.open(tmp_path / "b.db") as target:
        first = import_file(target, exported)
        snapshot = {name: table(target, name) for name in ("attempts", "card_state", "misses")}
        second = import_file(target, exported)
        assert (first.added, second.added, second.already_present) == (12, 0, 12)
        assert {name: table(target, name) for name in snapshot} == snapshot


def test_importing_merges_with_attempts_already_here(tmp_path):
    with History.open(tmp_path / "a.db") as laptop:
        laptop.record(attempt("a1", "good", at=T0))
        laptop.record(attempt("a1", "again", at=T0 + timedelta(days=20)))
        exported = write_export(laptop, tmp_path / "laptop.json")
    with History.open(tmp_path / "b.db") as desktop:
        desktop.record(attempt("a1", "easy", at=T0 + timedelta(days=10)))
        assert import_file(desktop, exported).added == 2
        progress = desktop.progress("a1")
    assert (progress.reps, progress.last_rating, progress.last_seen) == (
        3,
        "again",
        T0 + timedelta(days=20),
    )


def valid_document() -> dict:
    return {
        "format": "grill-history",
        "version": 1,
        "exported_at": "2026-01-01T00:00:00+00:00",
        "attempts": [
            {
                "id": "x1",
                "card_id": "a1",
                "mode": "practice",
                "rating": "good",
                "tier": "middle",
                "phase_seconds": {"answer": 20},
                "started_at": "2026-01-01T10:00:00+00:00",
            }
        ],
    }


CODE = {
    "verdict": "leak",
    "pattern": "monotonic",
    "growth_bytes_per_step": 512.0,
    "retained_paths": ["total"],
    "code": "total += loss",
}


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def broken(change) -> str:
    document = valid_document()
    change(document)
    return json.dumps(document)


MALFORMED = {
    "not json": (
        '{"format": "grill-history",\n  "attempts": [',
        "line 2 column 16: not valid JSON",
    ),
    "not an export": (json.dumps({"cards": []}), "not a grill history export"),
    "newer version": (
        broken(lambda d: d.update(version=9)),
        "version: 9 was written by a newer grill",
    ),
    "attempts not a list": (broken(lambda d: d.update(attempts={})), "attempts: expected a list"),
    "bad rating": (
        broken(lambda d: d["attempts"][0].update(rating="great")),
        "attempts[0].rating: Input should be",
    ),
    "bad nested field": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": "long"})),
        "attempts[0].phase_seconds.answer:",
    ),
    "no id": (broken(lambda d: d["attempts"][0].pop("id")), "attempts[0].id: required"),
    "no time": (  # it used to be taken as the moment of the import
        broken(lambda d: d["attempts"][0].pop("started_at")),
        "attempts[0].started_at: required, when the attempt was made",
    ),
    "naive time": (
        broken(lambda d: d["attempts"][0].update(started_at="2026-01-01T10:00:00")),
        "attempts[0].started_at: needs a time zone",
    ),
    "nested without end": ("[" * 100_000 + "]" * 100_000, "nested too deeply to be a grill export"),
    "unpaired surrogate": (
        broken(lambda d: d["attempts"][0].update(card_id="a\ud800")),
        "attempts[0].card_id: text with an unpaired surrogate escape",
    ),
    "infinite seconds": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": float("inf")})),
        "attempts[0].phase_seconds.answer: inf is not a finite number",
    ),
    "not a number": (
        broken(lambda d: d["attempts"][0]["phase_seconds"].update(review=float("nan"))),
        "attempts[0].phase_seconds.review: nan is not a finite number",
    ),
    "year one": (
        broken(lambda d: d["attempts"][0].update(started_at="0001-01-01T00:00:00+05:00")),
        "attempts[0].started_at: 0001-01-01T00:00:00+05:00 is not a time an attempt can have been made",
    ),
    "far future": (
        broken(lambda d: d["attempts"][0].update(started_at="2999-01-01T00:00:00+00:00")),
        "attempts[0].started_at: 2999-01-01T00:00:00+00:00 is not a time an attempt can have been made",
    ),
    "negative seconds": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": -5})),
        "attempts[0].phase_seconds.answer: -5.0 is negative",
    ),
    "nested 600 deep": (
        broken(lambda d: d["attempts"][0].update(answer_text=nested(600))),
        "attempts[0].answer_text[0][0][0][0][0][0][0]: nested deeper than any attempt (8 levels)",
    ),
    "a 5,000-digit number": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": "HUGE"})).replace(
            '"HUGE"', "1" + "0" * 4999
        ),
        "attempts[0].phase_seconds.answer: a number with 5,000 digits, far more than any",
    ),
    "1e308 seconds": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": 1e308})),
        "attempts[0].phase_seconds.answer: 1e+308 s is longer than any phase grill records",
    ),
    "a growth no machine holds": (
        broken(lambda d: d["attempts"][0].update(code=dict(CODE, growth_bytes_per_step=1e300))),
        "attempts[0].code.growth_bytes_per_step: 1e+300 bytes is more than any machine",
    ),
    "version 0": (
        broken(lambda d: d.update(version=0)),
        "version: 0 is not a version grill writes",
    ),
    "version -7": (
        broken(lambda d: d.update(version=-7)),
        "version: -7 is not a version grill writes",
    ),
    "true as seconds": (
        broken(lambda d: d["attempts"][0].update(phase_seconds={"answer": True})),
        "attempts[0].phase_seconds.answer: Input should be a valid number",
    ),
    "a bogus verdict": (
        broken(lambda d: d["attempts"][0].update(code=dict(CODE, verdict="bogus"))),
        "attempts[0].code.verdict: Input should be 'clean', 'leak'",
    ),
    "unix time as started_at": (
        broken(lambda d: d["attempts"][0].update(started_at=1767261600)),
        "attempts[0].started_at: Input should be a valid datetime",
    ),
    "an empty card id": (
        broken(lambda d: d["attempts"][0].update(card_id="")),
        "attempts[0].card_id: empty; an attempt is always on a card",
    ),
    "one id twice": (
        broken(lambda d: d["attempts"].append(dict(d["attempts"][0], rating="again"))),
        "attempts[1].id: 'x1' is also the id of attempts[0]; each attempt has its own id",
    ),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_file_says_what_and_where_and_leaves_the_history_alone(tmp_path, case):
    text, expected = MALFORMED[case]
    path = tmp_path / "export.json"
    path.write_text(text)
    with History.open(tmp_path / "history.db") as history:
        history.record(attempt("a1"))
        before = table(history, "attempts")
        with pytest.raises(ExportFileError) as raised:
            import_file(history, path)
        assert table(history, "attempts") == before
    assert str(raised.value).startswith(f"{path}: ")
    assert expected in str(raised.value)


def test_every_bad_attempt_is_reported_not_just_the_first(tmp_path):
    document = valid_document()
    document["attempts"] = [
        dict(document["attempts"][0], id=f"x{n}", mode="exam") for n in range(3)
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ExportFileError) as raised:
        read_export(path)
    assert [p.split(":")[0] for p in raised.value.problems] == [
        "attempts[0].mode",
        "attempts[1].mode",
        "attempts[2].mode",
    ]


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ExportFileError, match="cannot be read"):
        read_export(tmp_path / "nowhere.json")


def test_one_attempt_the_database_cannot_store_keeps_the_good_ones_out_too(tmp_path):
    """Checked before the merge, so the history is unchanged, not half-imported or rolled back mid-way."""
    document = valid_document()
    document["attempts"].append(dict(document["attempts"][0], id="x2", answer_text="caf\udce9"))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    with History.open(tmp_path / "history.db") as history, pytest.raises(ExportFileError) as raised:
        import_file(history, path)
    assert raised.value.problems == [
        "attempts[1].answer_text: text with an unpaired surrogate escape, "
        "which is not valid Unicode"
    ]
    with History.open(tmp_path / "history.db") as history:
        assert history.attempts() == []


def test_a_pipe_is_refused_instead_of_waited_on(tmp_path):
    os.mkfifo(tmp_path / "export.json")
    with pytest.raises(ExportFileError, match="not a plain file"):
        read_export(tmp_path / "export.json")


def test_bytes_that_are_not_utf8_are_placed_by_line_and_column(tmp_path):
    path = tmp_path / "export.json"
    path.write_bytes(b'{"format": "grill-history",\n  "version": "caf\xe9"}')
    with pytest.raises(ExportFileError) as raised:
        read_export(path)
    assert raised.value.problems == [
        "line 2 column 18: not UTF-8 text (byte 0xe9 cannot be decoded)"
    ]
