"""`grill import` under mutated export files: whatever the file holds, the command exits 0 or 1,
prints no traceback, places every problem in the file, answers within seconds, and a file it
refuses leaves the history byte for byte as it was."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from progress_factories import T0, attempt

from app.cli import main
from app.progress.history import History

FIELDS = [
    "id",
    "card_id",
    "mode",
    "rating",
    "tier",
    "phase_seconds",
    "key_points_hit",
    "key_points_missed",
    "red_flags_said",
    "answer_text",
    "code",
    "session_id",
    "started_at",
]
CODE_FIELDS = ["verdict", "pattern", "growth_bytes_per_step", "retained_paths", "code"]
PLACE = re.compile(
    r"(attempts\[\d+\]|attempts:|line \d+ column \d+:|version:|not a grill history export|"
    r"nested too deeply|\.\.\. and \d+ more problems)"
)
"""How a problem in an export file says where it is: a path into the JSON, or a line and column."""

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**25), max_value=10**25),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            " ",
            "\ud800",
            "now",
            "yesterday",
            "2026-02-31T10:00:00+00:00",
            "2026-03-01T10:00:00",
            "1970-01-01T00:00:00+00:00",
            "9999-12-31T23:59:59+00:00",
            "clean",
            "leak",
            "bogus",
            "practice",
            "mock",
            "good",
            "again",
            "senior",
            "x1",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def exported_document() -> dict:
    """What `grill export --format json` writes for a small history, code results included."""
    return {
        "format": "grill-history",
        "version": 1,
        "exported_at": "2026-03-10T00:00:00.000000+00:00",
        "attempts": [
            {
                "id": f"a{n}",
                "card_id": f"card-{n % 2}",
                "mode": "practice",
                "rating": "good",
                "tier": "middle",
                "phase_seconds": {"answer": 20.0 + n, "review": 5},
                "key_points_hit": ["one"],
                "key_points_missed": ["two"],
                "red_flags_said": [],
                "answer_text": "detach it",
                "code": {
                    "verdict": "leak",
                    "pattern": "monotonic",
                    "growth_bytes_per_step": 4096.0,
                    "retained_paths": ["total"],
                    "code": "total += loss",
                }
                if n == 1
                else None,
                "session_id": None,
                "started_at": f"2026-03-0{n + 1}T10:00:00.000000+00:00",
            }
            for n in range(3)
        ],
    }


@st.composite
def mutated_exports(draw) -> str:
    document = exported_document()
    attempts = document["attempts"]
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(attempts) - 1)) if attempts else 0
        kind = draw(
            st.sampled_from(["field", "drop", "code", "phase", "envelope", "duplicate", "attempt"])
        )
        if kind == "envelope":
            document[draw(st.sampled_from(["format", "version", "attempts", "exported_at"]))] = (
                draw(values)
            )
        elif (
            not isinstance(attempts, list) or not attempts or not isinstance(attempts[index], dict)
        ):
            continue
        elif kind == "field":
            attempts[index][draw(st.sampled_from(FIELDS))] = draw(values)
        elif kind == "drop":
            attempts[index].pop(draw(st.sampled_from(FIELDS)), None)
        elif kind == "code":
            original = (
                attempts[1].get("code")
                if len(attempts) > 1 and isinstance(attempts[1], dict)
                else None
            )
            code = dict(original) if isinstance(original, dict) else {}
            code[draw(st.sampled_from(CODE_FIELDS))] = draw(values)
            attempts[index]["code"] = code
        elif kind == "phase":
            attempts[index]["phase_seconds"] = {
                draw(st.sampled_from(["answer", "review", ""])): draw(values)
            }
        elif kind == "duplicate":
            attempts.append(dict(attempts[index]))
        else:
            attempts[index] = draw(values)
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    edit = draw(st.sampled_from(["none", "cut", "insert", "huge number", "deep"]))
    at = draw(st.integers(0, len(text)))
    if edit == "cut":
        text = text[:at]
    elif edit == "insert":
        text = (
            text[:at] + draw(st.text(alphabet='{}[]",:0123456789eE.-tn \\', max_size=6)) + text[at:]
        )
    elif edit == "huge number":
        text = text.replace("20.0", "9" * draw(st.sampled_from([25, 4301, 5000])), 1)
    elif edit == "deep":
        depth = draw(st.sampled_from([20, 600, 5000]))
        text = text.replace('"detach it"', "[" * depth + "]" * depth, 1)
    return text


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@settings(
    max_examples=200,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=mutated_exports())
def test_any_export_file_is_imported_or_refused_with_each_problem_placed(
    home, tmp_path, capsys, text
):
    history_file = home / "history.db"
    if not history_file.exists():
        with History.open() as history:
            history.record(attempt("card-0", at=T0 - timedelta(days=3)))
    export = tmp_path / "export.json"
    export.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = sha256(history_file)
    capsys.readouterr()

    status = main(["import", str(export)])

    captured = capsys.readouterr()
    assert status in (0, 1)
    assert "Traceback" not in captured.err
    if status == 1:
        assert sha256(history_file) == before
        lines = captured.err.splitlines()
        assert lines and lines[0].startswith(f"grill import: {export}: ")
        for line in lines:
            problem = line.removeprefix("grill import: ").removeprefix(f"{export}: ")
            assert PLACE.match(problem), line


def read_whole(path: Path) -> tuple[list, list[str]]:
    """What reading the export whole with `json.loads` finds (grill's reader before it was
    streamed): the oracle the streamed reader must agree with, problem for problem."""
    from app.progress import transfer

    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        line = before.count(b"\n") + 1
        return [], [
            f"line {line} column {column}: not UTF-8 text (byte "
            f"0x{raw[error.start]:02x} cannot be decoded)"
        ]
    try:
        document = json.loads(text, parse_int=transfer._whole_number)
    except json.JSONDecodeError as error:
        return [], [f"line {error.lineno} column {error.colno}: not valid JSON ({error.msg})"]
    except RecursionError:
        return [], ["nested too deeply to be a grill export"]
    try:
        transfer._check_envelope(path, document)
    except transfer.ExportFileError as error:
        return [], error.problems
    attempts, problems, first = [], [], {}
    for index, item in enumerate(document["attempts"]):
        where = f"attempts[{index}]"
        unstorable = transfer._unstorable(item, where)
        if unstorable:
            problems += unstorable
            continue
        attempt_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(attempt_id, str) and attempt_id in first:
            problems.append(
                f"{where}.id: {attempt_id!r} is also the id of attempts[{first[attempt_id]}]; "
                "each attempt has its own id"
            )
            continue
        if isinstance(attempt_id, str):
            first[attempt_id] = index
        attempt, found = transfer._validated(item, where)
        problems += found
        if attempt is not None:
            attempts.append(attempt)
    return ([], problems) if problems else (attempts, [])


@settings(
    max_examples=300,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    text=mutated_exports(),
    chunk=st.sampled_from([1, 2, 3, 5, 7, 64, 1 << 20]),
    layout=st.sampled_from(["as is", "indented", "crlf", "bytes"]),
)
def test_the_streamed_reader_finds_what_reading_the_file_whole_finds(
    tmp_path, monkeypatch, text, chunk, layout
):
    """Chunks as small as a byte cut strings, numbers, words and UTF-8 characters in two."""
    from app.progress import transfer

    monkeypatch.setattr(transfer, "READ_CHUNK", chunk)
    if layout == "indented":
        try:
            text = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
        except (ValueError, RecursionError):
            pass
    elif layout == "crlf":
        text = text.replace(", ", ",\r\n  ")
    export = tmp_path / "export.json"
    data = text.encode("utf-8", "surrogatepass")
    if layout == "bytes":
        data = data.replace(b"detach", b"d\xe9tach", 1)
    export.write_bytes(data)
    expected_attempts, expected_problems = read_whole(export)
    try:
        attempts = transfer.read_export(export)
    except transfer.ExportFileError as error:
        assert error.problems == expected_problems
    else:
        assert expected_problems == []
        assert attempts == expected_attempts


def test_a_byte_that_is_not_utf8_after_what_stops_the_reading_is_still_the_problem(
    tmp_path, monkeypatch
):
    """Found by the fuzz test above: nesting too deep (or a value over its cap) stopped the
    streamed reader at once, so it said 'nested too deeply' where reading the file whole says
    that a byte further on (in a chunk not yet read) is not UTF-8, which outranks every other
    problem."""
    from app.progress import transfer

    monkeypatch.setattr(transfer, "READ_CHUNK", 4096)
    export = tmp_path / "export.json"
    for stops in (b"[" * 100_000, b'"' + b"x" * (transfer.MAX_ATTEMPT_CHARS + 10)):
        export.write_bytes(
            b'{"format": "grill-history", "version": 1, "attempts": [{"answer_text": '
            + stops
            + b" " * 100_000
            + b' "d\xe9tach"}]}'
        )
        _, expected = read_whole(export)
        assert expected and "not UTF-8" in expected[0]
        try:
            transfer.read_export(export)
        except transfer.ExportFileError as error:
            assert error.problems == expected
        else:
            raise AssertionError("read without a problem")
