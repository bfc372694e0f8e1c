"""`grill new`: a skeleton with every field, flagged by lint until each TODO is filled, never overwriting."""

import os
import re
from pathlib import Path

import pytest
from pack_loading import load_pack

from app.cli import main
from questions.loader import load_card_file

PACKS = Path(__file__).parent / "fixtures" / "packs"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRILL_PACKS", raising=False)


def fill_in(skeleton: str) -> str:
    """What an author does: real values for the choice and number fields, text for the rest."""
    for field, value in {"level": "senior", "importance": "should know", "frequency": "35"}.items():
        skeleton = re.sub(rf"^{field}: TODO.*$", f"{field}: {value}", skeleton, flags=re.MULTILINE)
    skeleton = skeleton.replace("[TODO]", "[autograd]").replace("# TODO", "model = 1  #")
    return skeleton.replace("TODO", "Written")


def test_new_writes_a_card_and_a_manifest_into_a_new_pack(tmp_path, capsys):
    pack = tmp_path / "my-pack"
    assert main(["new", str(pack), "retained-loss"]) == 0
    assert sorted(p.name for p in pack.iterdir()) == [
        "card.schema.json",
        "pack.schema.json",
        "pack.yaml",
        "retained-loss.yaml",
    ], "the card, its manifest, and the schemas their first lines name"
    out = capsys.readouterr().out
    assert f"wrote {pack / 'retained-loss.yaml'}" in out
    assert "name: my-pack" in (pack / "pack.yaml").read_text()


def test_every_todo_left_is_a_problem_and_nothing_else_is(tmp_path):
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    card_path = pack / "retained-loss.yaml"
    card, problems = load_card_file(card_path)
    todo_lines = {
        n for n, line in enumerate(card_path.read_text().splitlines(), 1) if "TODO" in line
    }
    assert card is None
    assert all(p.message.startswith("unfinished: ") for p in problems)
    assert sorted(p.line for p in problems) == sorted(todo_lines)


def test_a_filled_in_skeleton_loads_cleanly(tmp_path):
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    for path in pack.iterdir():
        path.write_text(fill_in(path.read_text()))
    loaded, problems = load_pack(pack)
    assert problems == []
    card = loaded.cards[0].card
    contract = card.code_task.contract
    assert (card.id, card.level, card.frequency) == ("retained-loss", "senior", 35)
    assert (contract.trains, [c.name for c in contract.same_as_solution]) == (True, ["model"])
    assert [fix.expect for fix in card.code_task.tried_fixes] == ["wrong"], "a tried fix to fill"


def test_new_never_overwrites_a_card(tmp_path, capsys):
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    card = pack / "retained-loss.yaml"
    card.write_text("my work in progress\n")
    capsys.readouterr()
    assert main(["new", str(pack), "retained-loss"]) == 1
    assert card.read_text() == "my work in progress\n"
    assert "already exists; not overwriting it" in capsys.readouterr().err


def test_new_keeps_an_existing_manifest(tmp_path):
    pack = tmp_path / "my-pack"
    pack.mkdir()
    (pack / "pack.yaml").write_text("name: kept\n")
    assert main(["new", str(pack), "second-card"]) == 0
    assert (pack / "pack.yaml").read_text() == "name: kept\n"


def test_an_id_already_loaded_elsewhere_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRILL_PACKS", str(PACKS / "good"))
    assert main(["new", str(tmp_path / "my-pack"), "detach-metrics"]) == 1
    assert "already used by" in capsys.readouterr().err
    assert not (tmp_path / "my-pack").exists()


@pytest.mark.parametrize(
    "card_id", ["Retained Loss", "trailing-hyphen-", "under_score", "x", "a" * 81]
)
def test_an_id_that_is_not_a_slug_is_refused_with_the_whole_rule(tmp_path, capsys, card_id):
    """The rule names length too: 'x' and an 81-letter id are lower-case words, yet refused."""
    assert main(["new", str(tmp_path / "my-pack"), card_id]) == 1
    assert capsys.readouterr().err == (
        f"grill new: '{card_id}' is not a valid card id: use 2 to 80 of a-z, 0-9 "
        "and '-', starting and ending with a letter or digit, like 'retained-graph'\n"
    )


def test_a_file_in_place_of_the_pack_folder_is_refused(tmp_path, capsys):
    (tmp_path / "not-a-folder").write_text("")
    assert main(["new", str(tmp_path / "not-a-folder"), "some-card"]) == 1
    assert "is a file, not a pack folder" in capsys.readouterr().err


def test_a_pack_folder_that_cannot_be_created_is_a_message_not_a_traceback(tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    assert main(["new", str(tmp_path / "a-file" / "my-pack"), "some-card"]) == 1
    assert capsys.readouterr().err == (
        f"grill new: cannot create the folder {tmp_path / 'a-file' / 'my-pack'}: Not a directory\n"
    )


def test_a_card_that_cannot_be_written_is_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert main(["new", str(tmp_path), "some-card"]) == 1
    assert (
        capsys.readouterr().err
        == f"grill new: cannot write {tmp_path / 'pack.yaml'}: Permission denied\n"
    )


def test_the_schema_comment_leads_editors_to_the_shipped_schema(tmp_path):
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    for name, schema in [
        ("retained-loss.yaml", "card.schema.json"),
        ("pack.yaml", "pack.schema.json"),
    ]:
        first_line = (pack / name).read_text().splitlines()[0]
        reference = first_line.removeprefix("# yaml-language-server: $schema=")
        assert reference.endswith(schema)
        assert (pack / reference).resolve().is_file()


def test_a_pack_outside_grill_gets_schemas_beside_its_cards_that_travel_with_it(tmp_path):
    """The `$schema` line named a file in grill's install, which broke once the pack was shared."""
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    assert {"card.schema.json", "pack.schema.json"} <= {p.name for p in pack.iterdir()}
    first_line = (pack / "retained-loss.yaml").read_text().splitlines()[0]
    assert first_line == "# yaml-language-server: $schema=card.schema.json"
    assert (pack / "pack.yaml").read_text().splitlines()[0].endswith("$schema=pack.schema.json")
    moved = tmp_path / "elsewhere" / "my-pack"
    moved.parent.mkdir()
    pack.rename(moved)
    assert (moved / "card.schema.json").is_file(), "the reference still resolves after a move"


def test_new_says_how_grill_will_load_the_pack(tmp_path, capsys, monkeypatch):
    pack = tmp_path / "my-pack"
    main(["new", str(pack), "retained-loss"])
    out = capsys.readouterr().out
    assert "grill does not load packs from" in out
    assert f"export GRILL_PACKS={pack.resolve()}" in out
    monkeypatch.setenv("GRILL_PACKS", str(tmp_path))
    main(["new", str(pack), "second-card"])
    assert "grill loads this pack from" in capsys.readouterr().out


def test_grill_schema_writes_the_schemas_into_a_folder_and_keeps_them_current(tmp_path, capsys):
    from questions.schema_export import CARD_SCHEMA

    folder = tmp_path / "shared-pack"
    assert main(["schema", str(folder)]) == 0
    assert (folder / "card.schema.json").read_text() == CARD_SCHEMA.read_text()
    assert f"wrote {folder / 'card.schema.json'}" in capsys.readouterr().out
    (folder / "card.schema.json").write_text("{}")
    assert main(["schema", str(folder)]) == 0
    assert (folder / "card.schema.json").read_text() == CARD_SCHEMA.read_text(), "refreshed"
    capsys.readouterr()
    assert main(["schema", str(folder)]) == 0
    assert "are up to date" in capsys.readouterr().out
