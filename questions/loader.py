"""Find and load question packs. Bad content never raises: it becomes a located Problem.

A pack is a folder holding `pack.yaml` (the manifest) and one `<card id>.yaml` file per card.
A card with any problem is left out, and so is a pack whose manifest is broken (its cards are
still checked, so `grill lint` shows everything at once); the rest load normally. Card files
in a pack's sub-folders are not loaded, and each is reported.

Only reading a file needs the YAML reader and the card format (pydantic): `_check_card` and
`_check_manifest` import them, so a start whose files all hold in the pack cache imports
neither (a tenth of a second of the app's start).
"""

from __future__ import annotations

import gc
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from questions.cache import CachedManifest, FolderCache, PackCache, hashing
from questions.folders import Listing, list_folder, searched, unreadable_folder
from questions.library import (
    CardSummary,
    CardUnavailable,
    Library,
    LoadedCard,
    Pack,
    PackInfo,
    Problem,
)

if TYPE_CHECKING:
    from questions.model import Card
    from questions.yamldoc import YamlDocument

MANIFEST_NAME = "pack.yaml"
CARD_SUFFIX = ".yaml"
MISNAMED_SUFFIX = ".yml"


@dataclass
class _CardResult:
    card: LoadedCard | None
    problems: list[Problem]
    id_position: tuple[int, int] = (1, 1)


@dataclass
class _ManifestResult:
    manifest: PackInfo | None
    """None when the manifest has any problem."""
    problems: list[Problem]
    name_position: tuple[int, int] = (1, 1)
    newer: bool = False
    """Written for a newer card format: its cards are not judged by this grill's rules."""


@dataclass
class _PackResult:
    pack: Pack | None
    problems: list[Problem]
    name_position: tuple[int, int] = (1, 1)
    id_positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Where each loaded card's id sits in its file, by id: a duplicate is reported there."""


def load_library(paths: Iterable[Path | str], cache: PackCache | None = None) -> Library:
    """Load every pack found on `paths` (e.g. `app.paths.pack_search_path()`).

    Each entry may be a pack folder or a folder of packs; entries that do not exist are
    skipped, since the user's pack folder usually does not. Card ids must be unique across
    everything loaded: a later duplicate is reported and left out, as is a later pack with a
    name already taken.

    With a `cache` (`questions.cache`), a file whose cache entry still holds is not read: its
    card comes from the entry and is read whole only when opened. The result is the same
    library (tests compare them); `grill lint` reads every file.
    """
    with _cycle_collection_paused():
        return _load_library(paths, cache)


@contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """Loading builds hundreds of thousands of short-lived objects and no reference cycles, and
    each pass of Python's cycle collector walks everything loaded so far: a tenth of `grill lint`'s
    time on 1,000 cards. Reference counting still frees everything as it goes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load_library(paths: Iterable[Path | str], cache: PackCache | None) -> Library:
    library = Library()
    seen_roots: set[Path] = set()
    first_pack: dict[str, Path] = {}
    first_card: dict[str, Path] = {}
    for entry in paths:
        for listing in pack_folders(Path(entry), library.problems):
            root, real = listing.folder, listing.folder.resolve()
            if real in seen_roots:
                continue
            seen_roots.add(real)
            folder_cache = cache.folder(root) if cache is not None else None
            result = _read_pack(listing, folder_cache)
            if folder_cache is not None:
                folder_cache.save()
            library.problems += result.problems
            if result.pack is None:
                continue
            name = result.pack.info.name
            if name in first_pack:
                library.problems.append(
                    Problem(
                        str(root / MANIFEST_NAME),
                        *result.name_position,
                        f"a pack named '{name}' is already loaded from {first_pack[name]}",
                        "give this pack another name, or remove one of the copies",
                    )
                )
                continue
            first_pack[name] = root
            kept = []
            for loaded in result.pack.cards:
                card_id = loaded.id
                if card_id in first_card:
                    library.problems.append(
                        Problem(
                            str(loaded.path),
                            *result.id_positions[card_id],
                            f"duplicate card id '{card_id}' (first in {first_card[card_id]})",
                            "card ids are unique across all packs: choose another id and rename the file",
                        )
                    )
                else:
                    first_card[card_id] = loaded.path
                    kept.append(loaded)
            library.packs.append(replace(result.pack, cards=tuple(kept)))
    return library


def load_card_file(path: Path, pack: str = "") -> tuple[LoadedCard | None, list[Problem]]:
    """One card file on its own: the card (None when it has any problem) and its problems."""
    result = _read_card(path, pack)
    return result.card, result.problems


def pack_folders(entry: Path, problems: list[Problem]) -> list[Listing]:
    """The packs an entry names, as read once here: itself when it holds `pack.yaml`, else its
    sub-folders that do.

    A folder with card files but no manifest is reported rather than silently ignored, and so
    is a folder that cannot be read.
    """
    try:
        mode = entry.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        problems.append(unreadable_folder(entry, error))
        return []
    if not stat.S_ISDIR(mode):
        problems.append(
            Problem(
                str(entry),
                1,
                1,
                "packs are loaded from folders, not files",
                "name the pack folder, or the folder that holds pack folders",
            )
        )
        return []
    listing = list_folder(entry, problems)
    if listing is None:
        return []
    if listing.holds(MANIFEST_NAME):
        return [listing]
    if card_files(listing):
        problems.append(_missing_manifest(entry))
    folders = []
    for child in listing.folders:
        inner = (
            list_folder(child, problems)
            if searched(child) and child.suffix != CARD_SUFFIX
            else None
        )
        if inner is not None and inner.holds(MANIFEST_NAME):
            folders.append(inner)
        elif inner is not None and card_files(inner):
            problems.append(_missing_manifest(child))
    return folders


def card_files(listing: Listing) -> list[Path]:
    """What the loader reads as cards; entries that are not plain files are reported when read."""
    found = []
    for path in (*listing.files, *listing.folders):
        name = path.name
        if name.endswith(CARD_SUFFIX) and name != MANIFEST_NAME and not name.startswith("."):
            found.append((name, path))
    return [path for _, path in sorted(found)]  # one folder's: by name is by path


def _read_pack(listing: Listing, cache: FolderCache | None = None) -> _PackResult:
    """The pack in a folder already listed and known to hold `pack.yaml`."""
    root = listing.folder
    manifest = _manifest_through(cache, root / MANIFEST_NAME)
    if manifest.newer:
        return _PackResult(
            None, manifest.problems
        )  # its cards follow rules this grill does not know
    result = _PackResult(None, manifest.problems, manifest.name_position)
    result.problems += [_misnamed(path) for path in listing.files if path.suffix == MISNAMED_SUFFIX]
    result.problems += _cards_in_sub_folders(root, listing)
    name = manifest.manifest.name if manifest.manifest is not None else ""
    cards = []
    for path in card_files(listing):
        card = _card_through(cache, path, name)
        result.problems += card.problems
        if card.card is not None:
            result.id_positions[card.card.id] = card.id_position
            cards.append(card.card)
    if manifest.manifest is not None:
        result.problems += _track_problems(root / MANIFEST_NAME, manifest.manifest.track, cards)
        result.pack = Pack(manifest.manifest, root, tuple(cards))
    return result


def _track_problems(path: Path, track: tuple[str, ...], cards: list[LoadedCard]) -> list[Problem]:
    """Each entry of the manifest's `track` must name a code task of the pack, once."""
    tasks = {card.id for card in cards if card.summary.code_task}
    found: list[Problem] = []
    for index, card_id in enumerate(track):
        if card_id in tasks and card_id not in track[:index]:
            continue
        from questions.yamldoc import position, read_yaml

        doc, _ = read_yaml(path)
        node = doc.node_at(("track", index)) if doc is not None else None
        line, column = position(node) if node is not None else (1, 1)
        why = (
            "is listed twice"
            if card_id in track[:index]
            else "is not a card of this pack"
            if card_id not in {card.id for card in cards}
            else "has no code task"
        )
        found.append(
            Problem(
                str(path),
                line,
                column,
                f"track entry '{card_id}' {why}",
                "list each of the pack's code tasks (card ids) once, in the order to work"
                " through them",
            )
        )
    return found


def _manifest_through(cache: FolderCache | None, path: Path) -> _ManifestResult:
    """The manifest from its cache entry when that holds, else read (and remembered)."""
    if cache is None:
        return _read_manifest(path)
    cached, status = cache.manifest(path)
    if cached is not None:
        return _ManifestResult(cached.manifest, cached.problems, cached.name_position, cached.newer)
    digest: list[str] = []
    result = _read_manifest(path, seen=hashing(digest))
    cache.remember_manifest(
        path,
        status,
        digest[0] if digest else None,
        CachedManifest(result.manifest, result.problems, result.name_position, result.newer),
    )
    return result


def _card_through(cache: FolderCache | None, path: Path, pack: str) -> _CardResult:
    """The card from its cache entry when that holds (read whole only when opened), else read
    (and remembered)."""
    if cache is None:
        return _read_card(path, pack)
    cached, status = cache.card(path)
    if cached is not None:
        loaded = None
        if cached.summary is not None:
            summary = cached.summary
            loaded = LoadedCard.listed(
                summary, path, pack, lambda: _whole_card(path, pack, summary)
            )
        return _CardResult(loaded, cached.problems, cached.id_position)
    digest: list[str] = []
    result = _read_card(path, pack, seen=hashing(digest))
    cache.remember_card(
        path,
        status,
        digest[0] if digest else None,
        result.card.summary if result.card is not None else None,
        result.problems,
        result.id_position,
    )
    return result


def _whole_card(path: Path, pack: str, summary: CardSummary | None) -> Card:
    """A card listed from the cache, read whole as it is opened. Its file may have changed
    since the start: a card that still loads is taken as it is now; one that no longer does
    (or now has another id) is CardUnavailable, saying why."""
    result = _read_card(path, pack)
    if result.card is None:
        first = result.problems[0] if result.problems else None
        why = f": {first}" if first is not None else ""
        raise CardUnavailable(
            f"{path} changed since grill started and no longer loads{why} (grill lint lists "
            "every problem)"
        )
    if summary is not None and result.card.id != summary.id:
        raise CardUnavailable(
            f"{path} changed since grill started: it now holds the card "
            f"'{result.card.id}', not '{summary.id}'"
        )
    return result.card.card


def _read_manifest(path: Path, seen: Callable[[bytes], None] | None = None) -> _ManifestResult:
    try:
        return _check_manifest(path, seen)
    except Exception as error:  # a fault in a check costs this pack alone, never the others
        return _ManifestResult(None, [_internal_error(path, error)])


def _check_manifest(path: Path, seen: Callable[[bytes], None] | None = None) -> _ManifestResult:
    from questions.model import Manifest
    from questions.validation import validate_document
    from questions.yamldoc import position, read_yaml

    doc, problems = read_yaml(path, seen=seen)
    if doc is None:
        return _ManifestResult(None, problems)
    newer = _newer_format(doc)
    if newer is not None:
        return _ManifestResult(None, [newer], newer=True)
    manifest, invalid = validate_document(Manifest, doc)
    problems += invalid
    info = None
    if manifest is not None and not problems:
        info = PackInfo(manifest.name, manifest.title, manifest.description, tuple(manifest.track))
    return _ManifestResult(info, problems, position(doc.node_at(("name",))))


def _read_card(path: Path, pack: str, seen: Callable[[bytes], None] | None = None) -> _CardResult:
    try:
        return _check_card(path, pack, seen)
    except Exception as error:  # a fault in a check costs this card alone, never the others
        return _CardResult(None, [_internal_error(path, error)])


def _check_card(path: Path, pack: str, seen: Callable[[bytes], None] | None = None) -> _CardResult:
    from questions.codecheck import contract_problems, python_problems
    from questions.model import Card
    from questions.validation import validate_document
    from questions.yamldoc import position, read_yaml

    doc, problems = read_yaml(path, seen=seen)
    if doc is None:
        return _CardResult(None, problems)
    card, invalid = validate_document(Card, doc)
    problems += invalid
    problems += python_problems(doc)
    problems += contract_problems(doc)
    id_node = doc.node_at(("id",))
    card_id = doc.data.get("id")
    if isinstance(card_id, str) and card_id and path.stem != card_id:
        problems.append(
            doc.problem(
                id_node,
                f"card id '{card_id}' does not match the file name '{path.name}'",
                f"rename the file to {card_id}{CARD_SUFFIX}, or change the id",
            )
        )
    loaded = LoadedCard(card, path, pack) if card is not None and not problems else None
    return _CardResult(loaded, problems, position(id_node))


def _cards_in_sub_folders(root: Path, listing: Listing) -> list[Problem]:
    """Cards are read from the pack's own folder only: each card file or manifest further down
    is reported, so a card filed in a sub-folder is never silently missing."""
    problems: list[Problem] = []
    seen = {root.resolve()}
    pending = [
        folder for folder in listing.folders if searched(folder) and folder.suffix != CARD_SUFFIX
    ]
    while pending:
        folder = pending.pop(0)
        if folder.resolve() in seen:  # a link back up the tree
            continue
        seen.add(folder.resolve())
        inner = list_folder(folder, problems)
        if inner is None:
            continue
        for path in inner.files:
            if path.name == MANIFEST_NAME:
                problems.append(
                    Problem(
                        str(path),
                        1,
                        1,
                        "not loaded: a pack inside another pack's folder",
                        f"move {folder} out of {root}, beside it",
                    )
                )
            elif path.suffix in (CARD_SUFFIX, MISNAMED_SUFFIX) and not path.name.startswith("."):
                problems.append(
                    Problem(
                        str(path),
                        1,
                        1,
                        "not loaded: cards are read from the pack's own folder, "
                        "not from its sub-folders",
                        f"move it into {root}",
                    )
                )
        pending += [
            child for child in inner.folders if searched(child) and child.suffix != CARD_SUFFIX
        ]
    return problems


def _internal_error(path: Path, error: Exception) -> Problem:
    return Problem(
        str(path),
        1,
        1,
        f"grill failed to check this file ({type(error).__name__}: {error})",
        "this is a bug in grill: please report it with the file; the other files were checked",
    )


def _newer_format(doc: YamlDocument) -> Problem | None:
    from questions.model import FORMAT_VERSION

    version = doc.data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version <= FORMAT_VERSION:
        return None
    return doc.problem(
        doc.node_at(("format_version",)),
        f"this pack is written for a newer grill (card format {version}; this grill reads "
        f"format {FORMAT_VERSION})",
        "update grill to load this pack",
    )


def _missing_manifest(folder: Path) -> Problem:
    return Problem(
        str(folder / MANIFEST_NAME),
        1,
        1,
        "this folder has card files but no pack.yaml",
        "create pack.yaml with name, title, description and 'format_version: 1' (grill new writes one)",
    )


def _misnamed(path: Path) -> Problem:
    return Problem(
        str(path),
        1,
        1,
        "not loaded: card files end in .yaml",
        f"rename it to {path.stem}{CARD_SUFFIX}",
    )
