"""The pack cache: a start from it reads no card file, gives the library
a cold load gives, follows every change to the files, and survives a cache that is damaged,
foreign, or not a file at all."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from questions import cache as cache_module
from questions import loader as loader_module
from questions.cache import PackCache
from questions.library import CardUnavailable, Library
from questions.loader import load_library

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
SHIPPED = Path(__file__).resolve().parents[1] / "questions"


@pytest.fixture
def packs(tmp_path: Path) -> Path:
    """Copies of the fixture packs, good and broken, and of two shipped packs."""
    root = tmp_path / "packs"
    shutil.copytree(FIXTURES, root)
    for name in ("autograd-memory", "gpu-memory"):
        shutil.copytree(SHIPPED / name, root / name)
    return root


@pytest.fixture
def cache(tmp_path: Path) -> PackCache:
    return PackCache(tmp_path / "cache")


@pytest.fixture
def settled(monkeypatch):
    """Files written by the test are no longer 'just changed' (see `cache.RACY_NS`)."""
    monkeypatch.setattr(cache_module, "RACY_NS", 0)


def entries(packs: Path) -> list[Path]:
    return sorted(path for path in packs.rglob("*") if path.is_dir())


def shape(library: Library) -> tuple:
    """What a start shows of a library: packs, cards (summaries) and problems."""
    return (
        [
            (p.info, p.root, [(c.id, c.path, c.pack, c.summary) for c in p.cards])
            for p in library.packs
        ],
        sorted(library.problems, key=lambda p: (p.path, p.line, p.column, p.message)),
    )


def reads_nothing(monkeypatch) -> list[Path]:
    """Make every card read fail the test; returns the reads, for the asserting."""
    reads: list[Path] = []

    def refuse(path, *args, **kwargs):
        reads.append(path)
        raise AssertionError(f"{path} was read")

    monkeypatch.setattr(loader_module, "_read_card", refuse)
    monkeypatch.setattr(loader_module, "_read_manifest", refuse)
    return reads


def cache_files(cache: PackCache) -> list[Path]:
    return sorted(cache.location.glob("*.json"))


def test_a_warm_start_reads_no_card_file_and_gives_the_same_library(
    packs, cache, settled, monkeypatch
):
    cold = load_library([packs], cache=cache)
    uncached = load_library([packs])
    assert cache_files(cache), "the cold load wrote the cache"
    reads_nothing(monkeypatch)
    warm = load_library([packs], cache=cache)
    assert shape(warm) == shape(cold) == shape(uncached)
    assert not any(card.is_read for card in warm.cards)
    assert warm.cards and warm.problems


def test_a_card_listed_from_the_cache_is_read_whole_when_opened(packs, cache, settled):
    load_library([packs], cache=cache)
    warm = load_library([packs], cache=cache)
    card = next(c for c in warm.cards if c.summary.code_task)
    assert not card.is_read
    assert card.card.code_task is not None and card.card.id == card.id
    assert card.is_read


def test_a_card_whose_file_broke_after_the_start_is_unavailable_saying_why(packs, cache, settled):
    load_library([packs], cache=cache)
    warm = load_library([packs], cache=cache)
    card = warm.cards[0]
    card.path.write_text("id: [unclosed\n")
    with pytest.raises(CardUnavailable) as raised:
        _ = card.card
    assert str(card.path) in str(raised.value) and "no longer loads" in str(raised.value)


def test_every_change_to_the_files_is_followed(packs, cache, settled):
    load_library([packs], cache=cache)
    good = packs / "good"
    card = next(path for path in sorted(good.glob("*.yaml")) if path.name != "pack.yaml")
    text = card.read_text()
    before = os.stat(card)
    # One letter changed, same size, and the modification time put back as it was.
    changed = text.replace("?", "!", 1)
    assert len(changed) == len(text) and changed != text
    card.write_text(changed)
    os.utime(card, ns=(before.st_atime_ns, before.st_mtime_ns))
    (good / "pack.yaml").write_text(
        (good / "pack.yaml").read_text().replace("name: good", "name: renamed")
    )
    broken = next(p for p in sorted(good.glob("*.yaml")) if p not in (card, good / "pack.yaml"))
    broken.write_text(broken.read_text() + "unknown_field: 1\n")
    removed = next(
        p for p in sorted((packs / "autograd-memory").glob("*.yaml")) if p.name != "pack.yaml"
    )
    removed.unlink()
    added = packs / "autograd-memory" / "added-card.yaml"
    added.write_text(
        (FIXTURES / "good" / card.name).read_text().replace(f"id: {card.stem}", "id: added-card", 1)
    )
    assert shape(load_library([packs], cache=cache)) == shape(load_library([packs]))


def test_a_file_changed_as_it_was_read_is_checked_by_its_bytes(packs, cache, monkeypatch):
    """Changed within the clock's tick of being read, a file's key may not show a second change;
    until the tick has surely passed, the entry is trusted only if the bytes hash the same."""
    load_library([packs], cache=cache)
    card = next(p for p in sorted((packs / "good").glob("*.yaml")) if p.name != "pack.yaml")
    card.write_text(card.read_text().replace("?", "!", 1))
    # The cache entry as if the second write had left the key as the first read saw it.
    (cache_file,) = [
        f
        for f in cache_files(cache)
        if json.loads(f.read_bytes().partition(b"\n")[2])["folder"]
        == os.path.realpath(packs / "good")
    ]
    document = json.loads(cache_file.read_bytes().partition(b"\n")[2])
    now = os.stat(card)
    entry = document["files"][card.name]
    entry[:4] = [now.st_size, now.st_mtime_ns, now.st_ctime_ns, now.st_ino]
    entry[4] = max(now.st_mtime_ns, now.st_ctime_ns)  # read in the same tick
    write_cache(cache_file, document)
    warm = load_library([packs], cache=cache)
    assert shape(warm) == shape(load_library([packs]))


def write_cache(path: Path, document: dict) -> None:
    body = json.dumps(document, separators=(",", ":")).encode()
    path.write_bytes(f"grill-pack-cache 1 {hashlib.sha256(body).hexdigest()}\n".encode() + body)


def valid_cache(packs: Path, cache: PackCache) -> Path:
    load_library([packs / "good"], cache=cache)
    (only,) = cache_files(cache)
    return only


def fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def device(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def unix_socket(path: Path) -> None:
    path.unlink()
    server = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(path.parent)  # a socket's path is limited to about a hundred bytes
    try:
        server.bind(path.name)
    finally:
        os.chdir(here)
    server.close()


def sparse(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(1 << 30)


def rewrite(change):
    def damage(path: Path) -> None:
        document = json.loads(path.read_bytes().partition(b"\n")[2])
        change(document)
        write_cache(path, document)

    return damage


DAMAGE = {
    "empty": lambda p: p.write_bytes(b""),
    "garbage": lambda p: p.write_bytes(os.urandom(4096)),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "one byte flipped": lambda p: p.write_bytes(
        p.read_bytes()[:-10] + bytes([p.read_bytes()[-10] ^ 1]) + p.read_bytes()[-9:]
    ),
    "wrong hash": lambda p: p.write_bytes(b"grill-pack-cache 1 " + b"0" * 64 + b"\n{}"),
    "another format": lambda p: p.write_bytes(b"something-else 1 abc\n{}"),
    "a newer version": rewrite(lambda d: d.update(version=2)),
    "another grill's rules": rewrite(lambda d: d.update(rules="0" * 64)),
    "another folder's": rewrite(lambda d: d.update(folder="/elsewhere")),
    "files not a mapping": rewrite(lambda d: d.update(files=[1, 2])),
    "entries of wrong types": rewrite(
        lambda d: d["files"].update({name: [None] * 10 for name in d["files"]})
    ),
    "summaries of wrong types": rewrite(
        lambda d: [
            entry[6] and entry.__setitem__(6, [1] * 10)
            for entry in d["files"].values()
            if len(entry) == 10
        ]
    ),
    "a card said fine that has problems": rewrite(
        lambda d: [
            entry.__setitem__(7, [[1, 1, "x", ""]]) for entry in d["files"].values() if entry[6]
        ]
    ),
    "a JSON list": lambda p: write_cache(p, [1, 2, 3]),  # type: ignore[arg-type]
    "nested deep": lambda p: p.write_bytes(
        b"grill-pack-cache 1 "
        + hashlib.sha256(b"[" * 100_000).hexdigest().encode()
        + b"\n"
        + b"[" * 100_000
    ),
    "a named pipe": fifo,
    "/dev/zero": device,
    "a folder": folder,
    "a socket": unix_socket,
    "a sparse 1 GiB file": sparse,
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_or_foreign_cache_is_never_trusted(packs, cache, settled, damage):
    path = valid_cache(packs, cache)
    DAMAGE[damage](path)
    assert shape(load_library([packs / "good"], cache=cache)) == shape(
        load_library([packs / "good"])
    )


def test_a_cache_that_cannot_be_written_only_costs_time(packs, tmp_path, settled):
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    library = load_library([packs], cache=PackCache(blocked / "cache"))
    assert shape(library) == shape(load_library([packs]))


def test_a_folder_reached_by_another_path_shares_its_cache_and_names_problems_by_that_path(
    packs, cache, settled, tmp_path
):
    load_library([packs / "bad-cards"], cache=cache)
    link = tmp_path / "linked"
    link.symlink_to(packs / "bad-cards")
    warm = load_library([link], cache=cache)
    assert len(cache_files(cache)) == 1
    assert shape(warm) == shape(load_library([link]))
    assert all(p.path.startswith(str(link)) for p in warm.problems)


@st.composite
def damaged_bytes(draw) -> tuple[str, int, bytes]:
    kind = draw(st.sampled_from(["flip", "cut", "insert", "replace header digit"]))
    return kind, draw(st.integers(0, 10**9)), draw(st.binary(min_size=1, max_size=8))


@settings(
    max_examples=60,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(damage=damaged_bytes())
def test_any_damage_to_the_cache_file_reads_the_files_instead(tmp_path_factory, damage):
    tmp = tmp_path_factory.mktemp("fuzz")
    root = tmp / "packs"
    shutil.copytree(FIXTURES / "good", root / "good")
    store = PackCache(tmp / "cache")
    cold = shape(load_library([root / "good"]))
    saved, cache_module.RACY_NS = cache_module.RACY_NS, 0
    try:
        load_library([root / "good"], cache=store)
        (path,) = cache_files(store)
        data = bytearray(path.read_bytes())
        kind, at, chunk = damage
        at %= len(data)
        if kind == "flip":
            data[at] ^= chunk[0] or 1
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data[at:at] = chunk
        else:
            data[19 + at % 64] = ord("0") if data[19 + at % 64] != ord("0") else ord("1")
        path.write_bytes(bytes(data))
        assert shape(load_library([root / "good"], cache=store)) == cold
    finally:
        cache_module.RACY_NS = saved


@pytest.mark.parametrize(
    "command, whole",
    [
        (["stats"], []),
        (["stats", "--json"], []),
        (["export"], []),
        (["task", "list"], []),
        (["task", "list", "--json"], []),
        (["task", "hint", "detach-metrics"], ["detach-metrics"]),
        (["task", "solution", "detach-metrics"], ["detach-metrics"]),
    ],
)
def test_every_command_loads_the_packs_through_the_cache(
    tmp_path, packs, settled, monkeypatch, capsys, command, whole
):
    """The app and every command but `grill lint` load the packs one way, through the cache:
    a second run reads no card file whole but the one it works on."""
    from app.cli import main

    monkeypatch.setenv("GRILL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRILL_PACKS", str(packs))
    read: list[str] = []
    real = loader_module._read_card

    def counted(path, *args, **kwargs):
        read.append(path.stem)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(loader_module, "_read_card", counted)
    main(["stats"])
    assert read, "the first run reads the cards, and caches them"
    read.clear()
    main(command)
    capsys.readouterr()
    assert read == whole


@pytest.mark.parametrize("command", [["stats"], ["task", "list"], ["export"]])
def test_a_command_whose_packs_hold_in_the_cache_imports_neither_pydantic_nor_yaml(
    tmp_path, packs, imported_after, command
):
    """Only reading a card file needs the card format and the YAML reader (a tenth of a second
    of every command's start)."""
    env = {
        "GRILL_HOME": str(tmp_path / "home"),
        "GRILL_PACKS": str(packs),
        "PATH": "/usr/bin:/bin",
    }
    run = (
        "import contextlib, io, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "from app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main({command!r})\n"
    )
    cold = imported_after(run, env=env)
    assert "pydantic" in cold, "the first run reads the files, and caches them"
    warm = imported_after(run, env=env)
    assert warm.of("pydantic", "pydantic_core", "yaml", "questions.model") == []
