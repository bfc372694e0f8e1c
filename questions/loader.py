"""Find and load question packs. Bad content never raises: it becomes a located Problem.

A pack is a folder holding `pack.yaml` (the manifest) and one `<card id>.yaml` file per card.
A card with any problem is left out, and so is a pack whose manifest is broken (its cards are
still checked, so `grill lint` shows everything at once); the rest load normally.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from questions.codecheck import python_problems
from questions.model import FORMAT_VERSION, Card, Library, LoadedCard, Manifest, Pack, Problem
from questions.validation import validate_document
from questions.yamldoc import YamlDocument, position, read_yaml

MANIFEST_NAME = "pack.yaml"
CARD_SUFFIX = ".yaml"


@dataclass
class _CardResult:
    card: LoadedCard | None
    problems: list[Problem]
    id_position: tuple[int, int] = (1, 1)


@dataclass
class _PackResult:
    pack: Pack | None
    problems: list[Problem]
    name_position: tuple[int, int] = (1, 1)
    id_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)


def load_library(paths: Iterable[Path | str]) -> Library:
    """Load every pack found on `paths` (e.g. `app.paths.pack_search_path()`).

    Each entry may be a pack folder or a folder of packs; entries that do not exist are
    skipped, since the user's pack folder usually does not. Card ids must be unique across
    everything loaded: a later duplicate is reported and left out, as is a later pack with a
    name already taken.
    """
    library = Library()
    seen_roots: set[Path] = set()
    first_pack: dict[str, Path] = {}
    first_card: dict[str, Path] = {}
    for entry in paths:
        for root in pack_folders(Path(entry), library.problems):
            if root.resolve() in seen_roots:
                continue
            seen_roots.add(root.resolve())
            result = _read_pack(root)
            library.problems += result.problems
            if result.pack is None:
                continue
            name = result.pack.manifest.name
            if name in first_pack:
                library.problems.append(Problem(
                    str(root / MANIFEST_NAME), *result.name_position,
                    f"a pack named '{name}' is already loaded from {first_pack[name]}",
                    "give this pack another name, or remove one of the copies"))
                continue
            first_pack[name] = root
            kept = []
            for loaded in result.pack.cards:
                card_id = loaded.card.id
                if card_id in first_card:
                    library.problems.append(Problem(
                        str(loaded.path), *result.id_positions[loaded.path],
                        f"duplicate card id '{card_id}' (first in {first_card[card_id]})",
                        "card ids are unique across all packs: choose another id and rename the file"))
                else:
                    first_card[card_id] = loaded.path
                    kept.append(loaded)
            library.packs.append(replace(result.pack, cards=tuple(kept)))
    return library


def load_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """One pack folder on its own: the pack (None when its manifest is broken) and its problems."""
    result = _read_pack(root)
    return result.pack, result.problems


def load_card_file(path: Path, pack: str = "") -> tuple[LoadedCard | None, list[Problem]]:
    """One card file on its own: the card (None when it has any problem) and its problems."""
    result = _read_card(path, pack)
    return result.card, result.problems


def pack_folders(entry: Path, problems: list[Problem]) -> list[Path]:
    """The packs an entry names: itself when it holds `pack.yaml`, else its sub-folders that do.

    A folder with card files but no manifest is reported rather than silently ignored.
    """
    if not entry.exists():
        return []
    if not entry.is_dir():
        problems.append(Problem(str(entry), 1, 1, "packs are loaded from folders, not files",
                                "name the pack folder, or the folder that holds pack folders"))
        return []
    if (entry / MANIFEST_NAME).is_file():
        return [entry]
    try:
        children = sorted(p for p in entry.iterdir() if p.is_dir() and p.name[0] not in "._")
    except OSError as error:
        problems.append(Problem(str(entry), 1, 1, f"cannot read this folder: {error.strerror}",
                                "check its permissions, or remove it from GRILL_PACKS"))
        return []
    folders = []
    for folder in [entry, *children]:
        if (folder / MANIFEST_NAME).is_file():
            folders.append(folder)
        elif card_files(folder):
            problems.append(_missing_manifest(folder))
    return folders


def card_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(f"*{CARD_SUFFIX}") if p.name != MANIFEST_NAME and not p.name.startswith("."))


def _read_pack(root: Path) -> _PackResult:
    manifest_path = root / MANIFEST_NAME
    if not manifest_path.is_file():
        return _PackResult(None, [_missing_manifest(root)])
    doc, problems = read_yaml(manifest_path)
    if doc is not None and (newer := _newer_format(doc)) is not None:
        return _PackResult(None, [newer])  # its cards follow rules this grill does not know
    manifest = None
    if doc is not None:
        manifest, invalid = validate_document(Manifest, doc)
        problems += invalid
    name = manifest.name if manifest is not None and not problems else ""
    result = _PackResult(None, problems)
    if doc is not None:
        result.name_position = position(doc.node_at(("name",)))
    problems += [_misnamed(path) for path in sorted(root.glob("*.yml"))]
    cards = []
    for path in card_files(root):
        card = _read_card(path, name)
        problems += card.problems
        result.id_positions[path] = card.id_position
        if card.card is not None:
            cards.append(card.card)
    if name:
        result.pack = Pack(manifest, root, tuple(cards))  # type: ignore[arg-type]
    return result


def _read_card(path: Path, pack: str) -> _CardResult:
    doc, problems = read_yaml(path)
    if doc is None:
        return _CardResult(None, problems)
    card, invalid = validate_document(Card, doc)
    problems += invalid
    id_node = doc.node_at(("id",))
    if card is not None:
        problems += python_problems(card, doc)
        if path.stem != card.id:
            problems.append(doc.problem(id_node, f"card id '{card.id}' does not match the file name '{path.name}'",
                                        f"rename the file to {card.id}{CARD_SUFFIX}, or change the id"))
    loaded = LoadedCard(card, path, pack) if card is not None and not problems else None
    return _CardResult(loaded, problems, position(id_node))


def _newer_format(doc: YamlDocument) -> Problem | None:
    version = doc.data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version <= FORMAT_VERSION:
        return None
    return doc.problem(doc.node_at(("format_version",)),
                       f"this pack is written for a newer grill (card format {version}; this grill reads "
                       f"format {FORMAT_VERSION})", "update grill to load this pack")


def _missing_manifest(folder: Path) -> Problem:
    return Problem(str(folder / MANIFEST_NAME), 1, 1, "this folder has card files but no pack.yaml",
                   "create pack.yaml with name, title, description and 'format_version: 1' (grill new writes one)")


def _misnamed(path: Path) -> Problem:
    return Problem(str(path), 1, 1, "not loaded: card files end in .yaml", f"rename it to {path.stem}{CARD_SUFFIX}")
