"""The loader: every bad card is reported at the exact line and column, and never stops the others."""

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from pack_loading import load_pack

from app.paths import SHIPPED_PACKS, pack_search_path
from questions import validation, yamldoc
from questions.library import UnknownPack
from questions.loader import load_card_file, load_library
from questions.yamldoc import parse_yaml

PACKS = Path(__file__).parent / "fixtures" / "packs"
BAD = PACKS / "bad-cards"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"

# One fixture file per failure mode, and exactly what the loader must say about it.
BAD_CARDS = {
    "unknown-field": ["7:1: unknown field 'colour'"],
    "misspelt-field": ["1:1: missing required field 'question'", "2:1: unknown field 'quesiton'"],
    "extra-tier": ["22:3: unknown field 'staff' in 'tiers'"],
    "missing-field": ["1:1: missing required field 'deep_dive'"],
    "missing-nested-field": ["15:3: missing required field 'seconds' in 'solid'"],
    "number-as-text": ["5:12: 'frequency' must be a whole number, not text ('40')"],
    "empty-text": ["2:11: 'question' is empty"],
    "blank-text": ["22:12: 'deep_dive' is empty"],
    "null-text": ["22:11: 'deep_dive' must be text, not nothing (null)"],
    "decimal-frequency": ["5:12: 'frequency' must be a whole number, not a number (40.0)"],
    "out-of-range": ["5:12: 'frequency' must be at most 100, not 140"],
    "seconds-too-short": ["13:12: 'basic.seconds' must be at least 5, not 2"],
    "unknown-level": [
        "3:8: 'level' must be 'junior', 'middle', 'senior' or 'principal', not 'expert'"
    ],
    "too-few-key-points": ["8:3: 'key_points' needs 3 to 7 items, has 2"],
    "too-many-key-points": ["8:3: 'key_points' needs 3 to 7 items, has 8"],
    "bad-tag": ["6:8: 'tags[0]' must be lower-case words joined by hyphens, not 'No Grad'"],
    "yes-no-as-text": ["29:13: 'follow_ups[0].answer' must be text, not a yes/no value (false)"],
    "text-instead-of-list": ["6:7: 'tags' must be a list, not text ('no-grad')"],
    "text-instead-of-mapping": [
        "11:8: 'basic' must be a mapping of fields, not text ('It stops autograd from recording.')"
    ],
    "bad-device": ["67:13: 'code_task.grading.device' must be 'auto', 'cpu' or 'cuda', not 'tpu'"],
    "duplicate-key": ["6:1: duplicate key 'level' (first at line 3)"],
    "unsupported-tag": ["5:12: cannot read this value: the tag !weird is not supported"],
    "bad-python-example": [
        f"29:31: 'examples[0].code' is not valid Python {PY}: '(' was never closed"
    ],
    "bad-python-inline": [
        f"25:11: 'examples[0].code' is not valid Python {PY}: invalid syntax (line 2 of the code)"
    ],
    "bad-python-starter": [
        f"54:7: 'code_task.starter' is not valid Python {PY}: unindent does not match any outer "
        "indentation level"
    ],
    "todo-left": ["2:11: unfinished: 'question' still says TODO"],
    "todo-in-enum": ["3:8: unfinished: 'level' still says TODO"],
    "id-does-not-match": [
        "1:5: card id 'another-name' does not match the file name 'id-does-not-match.yaml'"
    ],
    "tab-indentation": ["18:1: a tab is used for indentation"],
    "colon-in-text": ["2:28: not valid YAML: mapping values are not allowed in this context"],
    "unclosed-bracket": [
        "7:11: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 6)"
    ],
    "control-character": ["2:36: not valid YAML: control characters are not allowed"],
    "plain-text": ["1:1: the top level must be a mapping of fields, not plain text"],
    "top-level-list": ["1:1: the top level must be a mapping of fields, not a list"],
    "empty-file": ["1:1: the file is empty"],
}


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)


def located(problems) -> list[str]:
    return [f"{p.path}:{p.line}:{p.column}: {p.message}" for p in problems]


def test_every_bad_fixture_is_covered():
    """The table above and the fixture folder list the same failure modes."""
    on_disk = {p.stem for p in BAD.glob("*.yaml")} - {"pack", "fine-card"}
    assert on_disk == set(BAD_CARDS)


@pytest.mark.parametrize("name", sorted(BAD_CARDS))
def test_bad_card_is_reported_at_its_exact_position(name):
    path = BAD / f"{name}.yaml"
    card, problems = load_card_file(path)
    assert card is None
    assert located(problems) == [f"{path}:{expected}" for expected in BAD_CARDS[name]]
    assert all(p.hint for p in problems), "every problem says how to fix it"


def test_valid_cards_load_with_every_field():
    pack, problems = load_pack(PACKS / "good")
    assert problems == []
    assert pack.info.name == "fixture-good"
    by_id = {loaded.card.id: loaded for loaded in pack.cards}
    assert sorted(by_id) == ["detach-metrics", "minimal-card"]
    task = by_id["detach-metrics"].card.code_task
    assert (task.grading.device, task.grading.steps) == ("cpu", 60)
    assert by_id["minimal-card"].card.code_task is None
    assert by_id["minimal-card"].pack == "fixture-good"
    assert by_id["minimal-card"].path == PACKS / "good" / "minimal-card.yaml"


def test_one_broken_card_does_not_stop_the_rest_of_its_pack():
    pack, problems = load_pack(BAD)
    assert [loaded.card.id for loaded in pack.cards] == ["fine-card"]
    assert {Path(p.path).stem for p in problems} == set(BAD_CARDS)


def test_a_folder_of_packs_and_a_pack_folder_both_work_as_entries():
    from_parent = load_library([PACKS])
    from_pack = load_library([PACKS / "good"])
    assert "fixture-good" in {p.info.name for p in from_parent.packs}
    assert [p.info.name for p in from_pack.packs] == ["fixture-good"]


def test_missing_entries_are_skipped_silently(tmp_path):
    library = load_library([tmp_path / "no-such-folder", PACKS / "good"])
    assert library.problems == []
    assert len(library.cards) == 2


def test_the_same_folder_listed_twice_loads_once():
    library = load_library([PACKS / "good", PACKS / "good"])
    assert library.problems == []
    assert len(library.packs) == 1


def test_extra_folders_from_grill_packs_join_the_user_folder(tmp_path, monkeypatch):
    user_pack = tmp_path / "home" / "packs" / "mine"
    user_pack.mkdir(parents=True)
    (user_pack / "pack.yaml").write_text(
        "name: mine\ntitle: Mine\ndescription: A user pack.\nformat_version: 1\n"
    )
    monkeypatch.setenv("GRILL_PACKS", f"{PACKS / 'good'}:{PACKS / 'dup-first'}")
    names = {pack.info.name for pack in load_library(pack_search_path()).packs}
    assert {"mine", "fixture-good", "dup-first"} <= names


def test_duplicate_ids_across_packs_keep_the_first_and_report_the_second():
    library = load_library([PACKS / "dup-first", PACKS / "dup-second"])
    first, second = library.packs
    assert [c.card.id for c in first.cards] == ["shared-card"]
    assert [c.card.id for c in second.cards] == ["only-in-second"]
    assert located(library.problems) == [
        f"{PACKS / 'dup-second' / 'shared-card.yaml'}:1:5: duplicate card id 'shared-card' "
        f"(first in {PACKS / 'dup-first' / 'shared-card.yaml'})"
    ]


def test_a_broken_manifest_skips_its_pack_but_not_the_others():
    library = load_library([PACKS / "manifest-missing-title", PACKS / "good"])
    assert [p.info.name for p in library.packs] == ["fixture-good"]
    assert library.card("hidden-card") is None
    assert located(library.problems) == [
        f"{PACKS / 'manifest-missing-title' / 'pack.yaml'}:1:1: missing required field 'title'"
    ]


def test_only_keeps_the_named_packs_and_every_load_problem():
    library = load_library([PACKS / "manifest-missing-title", PACKS / "good"])
    assert library.only([]).packs == library.packs
    chosen = library.only(["fixture-good"])
    assert [p.info.name for p in chosen.packs] == ["fixture-good"]
    assert chosen.problems == library.problems
    with pytest.raises(UnknownPack, match="no pack named 'nope'; loaded packs: fixture-good"):
        library.only(["fixture-good", "nope"])


def test_a_manifest_from_a_later_format_is_refused_as_written_for_a_newer_grill():
    """Its cards are not checked: judged by this grill's rules they would only add noise."""
    pack, problems = load_pack(PACKS / "manifest-future-version")
    assert pack is None
    assert located(problems) == [
        f"{PACKS / 'manifest-future-version' / 'pack.yaml'}:4:17: this pack is written for a newer grill "
        "(card format 2; this grill reads format 1)"
    ]
    assert problems[0].hint == "update grill to load this pack"


def test_cards_without_a_manifest_are_reported_not_ignored():
    library = load_library([PACKS / "no-manifest"])
    assert library.packs == []
    assert located(library.problems) == [
        f"{PACKS / 'no-manifest' / 'pack.yaml'}:1:1: this folder has card files but no pack.yaml"
    ]


def test_a_second_pack_with_a_taken_name_is_reported():
    library = load_library([PACKS / "good", PACKS / "same-name"])
    assert len(library.packs) == 1
    assert located(library.problems) == [
        f"{PACKS / 'same-name' / 'pack.yaml'}:1:7: a pack named 'fixture-good' is already loaded from {PACKS / 'good'}"
    ]


def test_a_card_with_the_yml_extension_is_pointed_out(tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text((PACKS / "good" / "pack.yaml").read_text())
    (pack / "minimal-card.yml").write_text((PACKS / "good" / "minimal-card.yaml").read_text())
    _, problems = load_pack(pack)
    assert located(problems) == [
        f"{pack / 'minimal-card.yml'}:1:1: not loaded: card files end in .yaml"
    ]


def test_a_todo_inside_a_literal_block_points_at_its_own_line(tmp_path):
    text = (
        (PACKS / "good" / "minimal-card.yaml")
        .read_text()
        .replace(
            "deep_dive: Autograd records only when grad mode is on.",
            "deep_dive: |\n  Autograd records only when grad mode is on.\n\n  TODO explain inference_mode.",
        )
    )
    path = tmp_path / "minimal-card.yaml"
    path.write_text(text)
    _, problems = load_card_file(path)
    lines = text.splitlines()
    assert [(p.line, p.column) for p in problems] == [(25, 3)]
    assert lines[24].strip().startswith("TODO")


def test_text_that_is_not_utf8_is_reported_at_the_bad_byte(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"id: latin\nquestion: caf\xe9\n")
    _, problems = load_card_file(path)
    assert located(problems) == [f"{path}:2:14: the file is not UTF-8 text"]


def test_the_documented_examples_load_cleanly(tmp_path):
    """The manifest and card shown in docs/packs.md are valid as written."""
    page = (Path(__file__).parents[1] / "docs" / "packs.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in page.split("```yaml\n")[1:]]
    manifest = next(b for b in blocks if "format_version:" in b)
    card = next(b for b in blocks if "\nid: loss-running-total\n" in b)
    pack = tmp_path / "autograd-memory"
    pack.mkdir()
    (pack / "pack.yaml").write_text(manifest)
    (pack / "loss-running-total.yaml").write_text(card)
    loaded, problems = load_pack(pack)
    assert problems == []
    assert [c.card.id for c in loaded.cards] == ["loss-running-total"]


def test_a_file_on_the_search_path_is_reported():
    card = PACKS / "good" / "minimal-card.yaml"
    library = load_library([card])
    assert located(library.problems) == [f"{card}:1:1: packs are loaded from folders, not files"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a: &x [1, *x]\n", "1:4: an alias refers to the value that contains it"),
        ("&root {a: *root}\n", "1:1: an alias refers to the value that contains it"),
        ("a: " + "[" * 900 + "]" * 900 + "\n", "1:1: the values are nested too deeply to read"),
        # PyYAML's own constructors raise AttributeError, KeyError or return a generator for these
        (
            "question: !!timestamp soon\n",
            "1:11: cannot read this value: 'soon' is not a valid date or time",
        ),
        (
            "question: !!bool maybe\n",
            "1:11: cannot read this value: 'maybe' is not a valid yes/no value",
        ),
        (
            "question: 2024-13-45\n",
            "1:11: cannot read this value: '2024-13-45' is not a valid date or time",
        ),
        (
            "question: !!map x\n",
            "1:11: cannot read this value: the tag !!map needs a collection, not a plain value",
        ),
    ],
)
def test_pathological_yaml_is_a_problem_not_a_crash(text, expected):
    _, problems = parse_yaml(text, "card.yaml")
    assert [f"{p.line}:{p.column}: {p.message}" for p in problems] == [expected]


def _laughs(levels: int) -> str:
    """Nine aliases of nine aliases, `levels` deep: 9**levels values from a few hundred bytes."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_expands():
    """A billion-laughs file is reported at the alias that runs over the budget, without building it."""
    _, problems = parse_yaml(_laughs(9), "card.yaml")
    assert [p.message for p in problems] == ["the file expands to more than 100,000 values"]


def test_merge_keys_bring_in_the_fields_they_name():
    """`<<: *defaults` is YAML's merge key: its fields count, and fields written alongside win."""
    doc, problems = parse_yaml(
        "base: &b {junior: a, middle: b}\n"
        "tiers:\n  <<: [*b, {senior: c, junior: z}]\n  middle: own\n",
        "card.yaml",
    )
    assert problems == []
    assert doc.data["tiers"] == {"junior": "a", "senior": "c", "middle": "own"}


def test_a_problem_in_a_merged_field_points_where_the_field_is_written(tmp_path):
    text = (
        (PACKS / "good" / "minimal-card.yaml")
        .read_text()
        .replace("tiers:\n", "tiers:\n  <<: &more {staff: extra}\n", 1)
    )
    path = tmp_path / "minimal-card.yaml"
    path.write_text(text)
    _, problems = load_card_file(path)
    line = text.splitlines().index("  <<: &more {staff: extra}") + 1
    assert [(p.line, p.message) for p in problems] == [(line, "unknown field 'staff' in 'tiers'")]


def test_merging_something_that_is_not_a_mapping_is_reported():
    _, problems = parse_yaml("tiers: {<<: [1, 2]}\n", "card.yaml")
    assert sorted(f"{p.line}:{p.column}: {p.message}" for p in problems) == [
        "1:14: '<<' can only merge mappings",
        "1:17: '<<' can only merge mappings",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("question: 'caf\u00e9 \x07'\n", "1:17"),  # libyaml counts the é as two bytes
        ("\ufeffquestion: '\x07'\n", "1:12"),  # a byte-order mark is not a column
    ],
)
def test_a_control_character_is_located_in_characters_not_bytes(tmp_path, text, expected):
    path = tmp_path / "card.yaml"
    path.write_text(text, encoding="utf-8")
    _, problems = load_card_file(path)
    assert [f"{p.line}:{p.column}: {p.message}" for p in problems] == [
        f"{expected}: not valid YAML: control characters are not allowed"
    ]


@pytest.mark.parametrize(
    "raw, expected",
    [
        (b"id: a\nquestion: caf\xc3\xa9 \xe9\n", "2:16"),
        (b"\xef\xbb\xbfquestion: \xe9\n", "1:11"),
    ],
)
def test_a_bad_byte_is_located_in_characters(tmp_path, raw, expected):
    path = tmp_path / "card.yaml"
    path.write_bytes(raw)
    _, problems = load_card_file(path)
    assert [f"{p.line}:{p.column}: {p.message}" for p in problems] == [
        f"{expected}: the file is not UTF-8 text"
    ]


@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda text: b"\xef\xbb\xbf" + text.encode(), id="byte-order-mark"),
        pytest.param(lambda text: text.replace("\n", "\r\n").encode(), id="crlf"),
    ],
)
def test_a_bom_or_crlf_file_loads_and_problems_keep_their_positions(tmp_path, encode):
    good = (PACKS / "good" / "minimal-card.yaml").read_text()
    path = tmp_path / "minimal-card.yaml"
    path.write_bytes(encode(good))
    card, problems = load_card_file(path)
    assert problems == [] and card is not None
    path.write_bytes(encode(good.replace("frequency: 40", "frequency: 101")))
    _, problems = load_card_file(path)
    line = good.splitlines().index("frequency: 40") + 1
    assert [(p.line, p.column, p.message) for p in problems] == [
        (line, 12, "'frequency' must be at most 100, not 101")
    ]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _huge(path: Path) -> None:
    path.write_text("id: huge\ntags:\n" + "  - a\n" * 200_000)


@pytest.mark.parametrize(
    "make, expected",
    [
        (_fifo, "this is not a plain file (a pipe, socket or device)"),
        (_folder, "this is a folder, not a file"),
        (_huge, "the file is larger than 1,000,000 bytes, far more than a card holds"),
    ],
)
def test_what_is_not_a_card_sized_file_is_reported_without_reading_it(tmp_path, make, expected):
    """A pipe would block the loader forever, and tens of MB of YAML take gigabytes to compose."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    make(pack / "odd.yaml")
    loaded, problems = load_pack(pack)
    assert located(problems) == [f"{pack / 'odd.yaml'}:1:1: {expected}"]
    assert loaded is not None and len(loaded.cards) == len(load_pack(PACKS / "good")[0].cards)


@pytest.mark.parametrize(
    "target, expected",
    [
        ("missing.yaml", "No such file or directory"),
        ("odd.yaml", "Too many levels of symbolic links"),
    ],
)
def test_a_broken_or_looping_symlink_is_reported(tmp_path, target, expected):
    (tmp_path / "odd.yaml").symlink_to(tmp_path / target)
    _, problems = load_card_file(tmp_path / "odd.yaml")
    assert located(problems) == [f"{tmp_path / 'odd.yaml'}:1:1: cannot read the file: {expected}"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the syntax is valid from Python 3.12 on")
def test_code_from_a_newer_python_names_the_python_that_refuses_it(tmp_path):
    text = (PACKS / "good" / "detach-metrics.yaml").read_text()
    text = text.replace(
        "    code: |\n      total = 0.0\n", "    code: |\n      type Vector = list[float]\n", 1
    )
    path = tmp_path / "detach-metrics.yaml"
    path.write_text(text)
    _, problems = load_card_file(path)
    assert [(p.line, p.message) for p in problems] == [
        (34, f"'examples[0].code' is not valid Python {PY}: invalid syntax")
    ]


def _card_in(folder: Path, name: str = "minimal-card", change=lambda text: text) -> Path:
    """A copy of the fixture pack in `folder`, with one card's text changed."""
    shutil.copytree(PACKS / "good", folder, dirs_exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(change(path.read_text()))
    return path


DEEP_CODE = {
    "30,000 unary minuses": "x = " + "-" * 30_000 + "1",
    "50,000 additions": "x = " + "+".join(["1"] * 50_000),
}


@pytest.mark.parametrize("code", DEEP_CODE.values(), ids=DEEP_CODE.keys())
def test_code_too_deep_for_python_to_compile_is_a_problem_at_its_field(tmp_path, code):
    """compile() raises MemoryError or RecursionError there, not SyntaxError."""
    path = _card_in(
        tmp_path / "pack",
        "detach-metrics",
        lambda text: text.replace(
            "      total = 0.0\n      for batch", f"      {code}\n      for batch", 1
        ),
    )
    card, problems = load_card_file(path)
    assert card is None
    assert located(problems) == [
        f"{path}:33:11: 'examples[0].code' is nested too deeply for Python {PY} to compile"
    ]


def test_one_card_too_deep_to_compile_hides_no_other_card_or_pack(tmp_path, monkeypatch):
    """In GRILL_PACKS it crashed `load_library`, so the shipped pack vanished from the app and stats."""
    _card_in(
        tmp_path / "pack",
        "detach-metrics",
        lambda text: text.replace("      total = 0.0\n", "      x = " + "-" * 30_000 + "1\n", 1),
    )
    monkeypatch.setenv("GRILL_PACKS", str(tmp_path / "pack"))
    library = load_library(pack_search_path())
    shipped = load_library([pack_search_path()[0]])
    assert {c.card.id for c in library.cards} == {c.card.id for c in shipped.cards} | {
        "minimal-card"
    }
    assert [Path(p.path).name for p in library.problems] == ["detach-metrics.yaml"]


def test_a_fault_in_a_check_costs_that_file_alone(tmp_path, monkeypatch):
    """Whatever a check raises becomes a problem at the file; the pack's other cards still load."""
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    real = validation.validate_document

    def faulty(model, doc):
        if doc.path.endswith("minimal-card.yaml"):
            raise RuntimeError("a bug in a check")
        return real(model, doc)

    monkeypatch.setattr("questions.validation.validate_document", faulty)
    loaded, problems = load_pack(pack)
    assert [c.card.id for c in loaded.cards] == ["detach-metrics"]
    assert located(problems) == [
        f"{pack / 'minimal-card.yaml'}:1:1: grill failed to check this file (RuntimeError: a bug in a check)"
    ]


@pytest.mark.parametrize(
    "tagged, expected",
    [
        (
            "tags: !!python/object/apply:os.system [echo pwned]",
            [
                "6:7: cannot read this value: the tag !!python/object/apply:os.system is not supported",
                "6:40: 'tags[0]' must be lower-case words joined by hyphens, not 'echo pwned'",
            ],
        ),
        (
            "tags: !custom [no-grad]",
            ["6:7: cannot read this value: the tag !custom is not supported"],
        ),
        (
            "tags: !!set {no-grad: null}",
            [
                "6:7: cannot read this value: the tag !!set is not supported",
                "6:7: 'tags' must be a list, not a mapping",
            ],
        ),
        (
            "tags: !!omap [no-grad: 1]",
            [
                "6:7: cannot read this value: the tag !!omap is not supported",
                "6:15: 'tags[0]' must be text, not a mapping",
            ],
        ),
    ],
)
def test_a_tag_on_a_list_or_mapping_is_a_problem(tmp_path, tagged, expected):
    """Only plain values were checked: these linted clean, against the promise in docs/packs.md.
    What is inside is still read as plain data and checked."""
    path = _card_in(
        tmp_path / "pack", change=lambda text: text.replace("tags: [no-grad]", tagged, 1)
    )
    card, problems = load_card_file(path)
    assert card is None
    assert located(problems) == [f"{path}:{line}" for line in expected]


def test_a_tagged_key_is_a_problem(tmp_path):
    path = _card_in(
        tmp_path / "pack",
        change=lambda text: text.replace("level: middle", "!custom level: middle", 1),
    )
    _, problems = load_card_file(path)
    assert f"{path}:3:1: a key must be a plain name" in located(problems)


def test_thousands_of_unknown_fields_list_a_few_then_say_how_many_more(tmp_path):
    """Each error rescanned every key (15,000 fields took 40 s); now 50 are listed and the rest counted."""
    path = _card_in(
        tmp_path / "pack",
        change=lambda text: text + "".join(f"extra_{n}: {n}\n" for n in range(30_000)),
    )
    _, problems = load_card_file(path)
    first_line = len((PACKS / "good" / "minimal-card.yaml").read_text().splitlines()) + 1
    assert len(problems) == 51
    assert located(problems[:2]) == [
        f"{path}:{first_line}:1: unknown field 'extra_0'",
        f"{path}:{first_line + 1}:1: unknown field 'extra_1'",
    ]
    assert located(problems[-1:]) == [
        f"{path}:{first_line + 50}:1: 29,950 more problems like the 50 above, "
        "from here on: unknown field 'extra_50'"
    ]


def test_cards_in_a_sub_folder_of_a_pack_are_reported_not_ignored(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    (pack / "extra").mkdir()
    shutil.move(pack / "minimal-card.yaml", pack / "extra" / "minimal-card.yaml")
    (pack / "extra" / "deeper").mkdir()
    shutil.copy(PACKS / "good" / "pack.yaml", pack / "extra" / "deeper" / "pack.yaml")
    (pack / "_drafts").mkdir()
    shutil.copy(PACKS / "good" / "minimal-card.yaml", pack / "_drafts" / "minimal-card.yaml")
    loaded, problems = load_pack(pack)
    assert [c.card.id for c in loaded.cards] == ["detach-metrics"]
    assert located(problems) == [
        f"{pack / 'extra' / 'minimal-card.yaml'}:1:1: not loaded: cards are read from the pack's own folder, "
        "not from its sub-folders",
        f"{pack / 'extra' / 'deeper' / 'pack.yaml'}:1:1: not loaded: a pack inside another pack's folder",
    ]


def test_a_folder_linked_back_into_its_pack_is_walked_once(tmp_path):
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "good", pack)
    (pack / "loop").symlink_to(pack)
    _, problems = load_pack(pack)
    assert problems == []


def test_code_is_checked_in_the_same_pass_as_the_other_fields(tmp_path):
    """A syntax error showed only after the schema problems were fixed; lint promises every problem at once."""
    path = _card_in(
        tmp_path / "pack",
        "detach-metrics",
        lambda text: text.replace("frequency: 70", "frequency: often", 1).replace(
            "      total = 0.0\n", "      total = (0.0\n", 1
        ),
    )
    _, problems = load_card_file(path)
    assert [(p.line, p.message) for p in problems] == [
        (6, "'frequency' must be a whole number, not text ('often')"),
        (34, f"'examples[0].code' is not valid Python {PY}: '(' was never closed"),
    ]


def _tags(node, found: list[str]) -> list[str]:
    found.append(node.tag)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _tags(key, found)
            _tags(value, found)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _tags(item, found)
    return found


PLAIN_VALUES = """
a: [yes, No, on, OFF, y, ~, null, Null, '', "", 0, -1, +1, 1_000, 0x1F, 0o17, 0b101, 017, 190:20:30, 1.5, .5, -.5e3,
    1e3, .inf, -.Inf, .NaN, 2024-01-01, 2024-01-01T10:00:00Z, 2024-1-1 10:00:00.5 +01:00, '1', "true", plain text]
b: <<
c: =
d: "- quoted"
e: !!str 10
? [complex, key]
: value
"""


RESOLVED = {"plain values": PLAIN_VALUES} | {
    p.stem: p.read_text()
    for p in sorted([*SHIPPED_PACKS.glob("*/*.yaml"), *(PACKS / "good").glob("*.yaml")])
}


@pytest.mark.parametrize("text", RESOLVED.values(), ids=RESOLVED.keys())
def test_the_table_driven_resolver_tags_every_value_as_pyyaml_does(text):
    theirs = _tags(yaml.compose(text, Loader=yamldoc._SafeLoader), [])
    assert _tags(yaml.compose(text, Loader=yamldoc._Loader), []) == theirs


def test_a_control_character_in_a_key_is_shown_escaped_so_a_problem_stays_one_line(tmp_path):
    path = _card_in(tmp_path / "pack", change=lambda text: text + '"odd\\nkey\\u001b[2J": 1\n')
    _, problems = load_card_file(path)
    assert [p.message for p in problems] == ["unknown field 'odd\\nkey\\x1b[2J'"]


@pytest.mark.parametrize(
    "seconds, expected",
    [
        (
            "1e2",
            "'code_task.grading.seconds' must be a number, not text ('1e2') (hint: YAML reads 1e2"
            " as text (an exponent needs a decimal point before it): write 1.0e2)",
        ),
        (
            "'30'",
            "'code_task.grading.seconds' must be a number, not text ('30') (hint: remove the"
            " quotes around the number)",
        ),
        (
            "soon",
            "'code_task.grading.seconds' must be a number, not text ('soon') (hint: write a"
            " number, like 0.5 or 1.0e-3)",
        ),
        (
            ".nan",
            "'code_task.grading.seconds' must be a finite number, not nan (hint: use a number at"
            " most 600.0)",
        ),
        (
            "-.inf",
            "'code_task.grading.seconds' must be a finite number, not -inf (hint: use a number"
            " at least 5.0)",
        ),
    ],
)
def test_a_number_that_is_text_or_not_finite_says_how_to_write_it(tmp_path, seconds, expected):
    """An editor's YAML 1.2 calls `1e2` a number; PyYAML's YAML 1.1 reads it as text."""
    path = _card_in(
        tmp_path / "pack",
        "detach-metrics",
        lambda text: text.replace("    steps: 60\n", f"    steps: 60\n    seconds: {seconds}\n"),
    )
    _, problems = load_card_file(path)
    assert [str(p).split(": ", 1)[1] for p in problems] == [expected]
