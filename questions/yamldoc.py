"""Read a YAML file into plain data while keeping the node tree, so problems point at line:column.

PyYAML's `safe_load` throws positions away and silently keeps the last of two equal keys;
composing the node tree ourselves (with the C parser when PyYAML has it) keeps both the
positions and the chance to report duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import cast

import yaml
from yaml.constructor import SafeConstructor

from checkers.inputs import FileRefused
from questions.folders import MAX_FILE_BYTES, read_pack_file
from questions.library import Problem
from questions.problems import ProblemList

try:
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # PyYAML built without libyaml: same results, slower
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

Loc = tuple[str | int, ...]
"""A path into the document, in pydantic's `loc` form: ("key_points", 1, "signals", 0)."""

TODO = "TODO"

MAX_VALUES = 100_000
"""The most values one file may expand to: a card has a few hundred, an alias bomb billions."""

_CORE_TAG_PREFIX = "tag:yaml.org,2002:"
STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_SCALAR_TAGS = {
    "!!null": "null",
    "!!bool": "yes/no value",
    "!!int": "whole number",
    "!!float": "number",
    "!!timestamp": "date or time",
    "!!binary": "base64 value",
}
"""The tags a plain value may carry, and what each reads; PyYAML's constructors for others build collections."""
_COLLECTION_TAGS = frozenset({"!!map", "!!seq", "!!omap", "!!pairs", "!!set"})
_PLAIN_COLLECTION_TAG: dict[type[yaml.Node], str] = {
    yaml.MappingNode: "tag:yaml.org,2002:map",
    yaml.SequenceNode: "tag:yaml.org,2002:seq",
}
"""The one tag a mapping or list may carry; any other (`!!set`, `!custom`, `!!python/...`) is a problem."""
_KEY_TAGS = frozenset(
    f"{_CORE_TAG_PREFIX}{name}" for name in ("str", "int", "float", "bool", "null")
)
"""Keys YAML resolves from plain words: they are read as the names written (`1:` is the field '1')."""
_scalars = SafeConstructor()


class _Loader(_SafeLoader):
    """PyYAML's safe loader, resolving tags from a table built once.

    Composing calls the resolver for every value, and PyYAML's own rebuilds its candidate list
    and tracks path resolvers (the safe loader has none) on each call: a quarter of composing a
    card. The tags are the same (tests compare them over the shipped cards).
    """

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, pattern in _implicit_resolvers(value[:1]):
                    if pattern.match(value):
                        return tag
            return STR_TAG
        return _PLAIN_COLLECTION_TAG[kind]


@cache
def _implicit_resolvers(first_character: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return (
        *_SafeLoader.yaml_implicit_resolvers.get(first_character, []),
        *_SafeLoader.yaml_implicit_resolvers.get(None, []),
    )


assert not _SafeLoader.yaml_path_resolvers, (
    "the resolver above assumes PyYAML's safe loader has no path resolvers"
)


@dataclass
class YamlDocument:
    """One parsed file: its data for validation, its nodes for locating problems."""

    path: str
    text: str
    root: yaml.MappingNode
    data: dict[str, object]
    """The values as built from the file, not yet validated."""
    todos: list[tuple[Loc, yaml.ScalarNode]] = field(default_factory=list)
    """Text values that still contain the TODO marker `grill new` writes."""
    unreadable: set[int] = field(default_factory=set)
    """ids of nodes already reported as unreadable, so validation does not report them again."""
    _mappings: dict[int, _MappingIndex] = field(default_factory=dict, repr=False)

    @cached_property
    def lines(self) -> list[str]:
        """Split only when a problem inside a literal block needs its column."""
        return self.text.splitlines()

    def node_at(self, loc: Loc) -> yaml.Node:
        """The deepest node `loc` reaches; steps it cannot follow (pydantic union tags) are skipped."""
        node: yaml.Node = self.root
        for part in loc:
            child = self._child(node, part, frozenset())
            if child is not None:
                node = child
        return node

    def key_at(self, loc: Loc) -> yaml.ScalarNode | None:
        """The key node naming `loc`'s last step, when that step is a mapping key."""
        if not loc or not isinstance(loc[-1], str):
            return None
        parent = self.node_at(loc[:-1])
        if not isinstance(parent, yaml.MappingNode):
            return None
        written = self._index(parent).fields.get(loc[-1])
        return written[0] if written is not None else None

    def _child(self, node: yaml.Node, part: str | int, merging: frozenset[int]) -> yaml.Node | None:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            index = self._index(node)
            if part in index.fields:
                return index.fields[part][1]
            # A key that came in through `<<` is located where it is written.
            for source in index.merged:
                found = (
                    self._child(source, part, merging | {id(node)})
                    if id(source) not in merging
                    else None
                )
                if found is not None:
                    return found
            return None
        if (
            isinstance(node, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(node.value)
        ):
            item: yaml.Node = node.value[part]
            return item
        return None

    def _index(self, node: yaml.MappingNode) -> _MappingIndex:
        """Built once per mapping, so locating each of thousands of problems does not rescan it."""
        index = self._mappings.get(id(node))
        if index is None:
            index = self._mappings[id(node)] = _MappingIndex(node)
        return index

    def problem(self, node: yaml.Node, message: str, hint: str = "") -> Problem:
        line, column = position(node)
        return Problem(self.path, line, column, message, hint)

    def text_position(self, node: yaml.ScalarNode, line_index: int, offset: int) -> tuple[int, int]:
        """Where line `line_index` (0-based) and 1-based `offset` of a scalar's text sit in the file.

        Only a literal block (`|`) keeps its lines as written; it starts on the line after
        the indicator. Other styles fold or escape lines, so they point at the value's start.
        """
        if node.style != "|":
            return position(node)
        line = node.start_mark.line + 1 + line_index
        text_lines = node.value.splitlines()
        written = self.lines[line] if line < len(self.lines) else ""
        content = text_lines[line_index] if line_index < len(text_lines) else ""
        indent = len(written) - len(content) if content and written.endswith(content) else 0
        return line + 1, indent + max(offset, 1)


class _MappingIndex:
    """A mapping's keys as YAML reads them (the last of two equal keys wins), and what `<<` merges."""

    def __init__(self, node: yaml.MappingNode) -> None:
        self.fields: dict[str, tuple[yaml.ScalarNode, yaml.Node]] = {}
        self.merged: list[yaml.Node] = []
        for key, value in node.value:
            if key.tag == _MERGE_TAG:
                self.merged += _merge_sources(value)
            elif isinstance(key, yaml.ScalarNode):
                self.fields[key.value] = (key, value)


def position(node: yaml.Node) -> tuple[int, int]:
    """1-based line and column where a node starts."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def describe_loc(loc: Loc) -> str:
    """`key_points[1].signals[0]`: the way a reader of the YAML file names a value."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def read_yaml(
    path: Path, *, seen: Callable[[bytes], None] | None = None
) -> tuple[YamlDocument | None, list[Problem]]:
    """Parse one file whose top level must be a mapping; never raises for bad content.
    `seen` is handed the file's bytes once read (the pack cache hashes them)."""
    shown = str(path)
    try:
        raw = read_pack_file(path)
    except FileRefused as refusal:
        return None, [_refusal_problem(shown, refusal)]
    except OSError as error:
        return None, [
            Problem(
                shown,
                1,
                1,
                f"cannot read the file: {error.strerror}",
                "check that it exists and is readable",
            )
        ]
    if seen is not None:
        seen(raw)
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark is not part of the first line's columns
    except UnicodeDecodeError as error:
        return None, [_bad_bytes(shown, raw, error)]
    return parse_yaml(text, shown)


def _refusal_problem(path: str, refusal: FileRefused) -> Problem:
    if refusal.too_large:
        message = f"the file is larger than {MAX_FILE_BYTES:,} bytes, far more than a card holds"
        hint = "a card is a few KB of text: check that this is the right file"
    elif refusal.what == "a folder":
        message = "this is a folder, not a file"
        hint = "rename the folder so its name does not end in .yaml"
    else:
        message = "this is not a plain file (a pipe, socket or device)"
        hint = "replace it with a plain text file, or remove it"
    return Problem(path, 1, 1, message, f"{refusal.reason}; {refusal.rule}: {hint}")


def parse_yaml(text: str, path: str) -> tuple[YamlDocument | None, list[Problem]]:
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        return None, [_syntax_problem(path, text.splitlines(), error)]
    except yaml.reader.ReaderError as error:  # a control character: located by offset, not by mark
        # libyaml's offset counts UTF-8 bytes, not characters; the first such character is the culprit.
        found = text.find(chr(error.character)) if isinstance(error.character, int) else -1
        offset = found if found >= 0 else error.position
        before = text[:offset]
        line, column = before.count("\n") + 1, offset - before.rfind("\n")
        return None, [
            Problem(
                path,
                line,
                column,
                f"not valid YAML: {error.reason}",
                "remove the control character (it is invisible in most editors)",
            )
        ]
    if root is None:
        return None, [
            Problem(path, 1, 1, "the file is empty", "write the fields, or delete the file")
        ]
    if not isinstance(root, yaml.MappingNode):
        kind = "a list" if isinstance(root, yaml.SequenceNode) else "plain text"
        line, column = position(root)
        return None, [
            Problem(
                path,
                line,
                column,
                f"the top level must be a mapping of fields, not {kind}",
                "start each line with a field name, like 'id: my-card'",
            )
        ]
    builder = _Builder(path)
    try:
        # A mapping node builds a dict (its tag may be wrong, which is reported, not obeyed).
        data = cast(dict[str, object], builder.value(root, ()))
    except RecursionError:
        return None, [
            Problem(
                path,
                1,
                1,
                "the values are nested too deeply to read",
                "a card needs only a few levels of nesting: flatten the structure",
            )
        ]
    except _TooManyValues as error:
        line, column = position(error.args[0])
        return None, [
            Problem(
                path,
                line,
                column,
                f"the file expands to more than {MAX_VALUES:,} values",
                "a card holds a few hundred: write repeated values out instead of "
                "nesting aliases (*name) of aliases",
            )
        ]
    return YamlDocument(
        path, text, root, data, builder.todos, builder.unreadable
    ), builder.problems.problems()


class _TooManyValues(Exception):
    """Raised with the node at which the value budget ran out."""


class _Builder:
    """Turns nodes into Python values, noting duplicate keys and TODO markers on the way.

    Aliases are expanded where they are used, so values are counted against `MAX_VALUES`:
    nine aliases of nine aliases, nine levels deep, would otherwise build 387 million.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems = ProblemList()
        self.todos: list[tuple[Loc, yaml.ScalarNode]] = []
        self.unreadable: set[int] = set()
        self.building: set[int] = set()
        """ids of the collections being built right now, to stop at a self-referencing alias."""
        self.built = 0

    def value(self, node: yaml.Node, loc: Loc) -> object:
        self.built += 1
        if self.built > MAX_VALUES:
            raise _TooManyValues(node)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, loc)
        if id(node) in self.building:  # an alias inside its own anchor: `&a [*a]`
            self.report(
                "alias loop",
                node,
                "an alias refers to the value that contains it",
                "write the value out instead of using an anchor",
            )
            return None
        if node.tag != _PLAIN_COLLECTION_TAG[type(node)]:
            # Built as plain data all the same, so what is inside is still checked.
            self.report(
                "tag",
                node,
                f"cannot read this value: the tag {_short_tag(node.tag)} is not supported",
                "remove the tag: grill reads plain YAML lists and mappings",
            )
        self.building.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node, loc)
            return [self.value(item, (*loc, index)) for index, item in enumerate(node.value)]
        finally:
            self.building.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, loc: Loc) -> object:
        if node.tag == STR_TAG:
            text: str = node.value
            if TODO in text:
                self.todos.append((loc, node))
            return text
        tag = _short_tag(node.tag)
        construct = _scalars.yaml_constructors.get(node.tag) if tag in _SCALAR_TAGS else None
        if construct is None:
            return self.unreadable_value(
                node,
                f"the tag {tag} is not supported"
                if tag not in _COLLECTION_TAGS
                else f"the tag {tag} needs a collection, not a plain value",
            )
        try:
            return construct(_scalars, node)
        except Exception:  # PyYAML's constructors trust their resolver: `!!bool x` raises KeyError
            return self.unreadable_value(node, f"{node.value!r} is not a valid {_SCALAR_TAGS[tag]}")

    def unreadable_value(self, node: yaml.ScalarNode, reason: str) -> str:
        self.unreadable.add(id(node))
        self.report(
            "tag", node, f"cannot read this value: {reason}", "quote the value to keep it as text"
        )
        text: str = node.value
        return text

    def report(self, kind: str, node: yaml.Node, message: str, hint: str) -> None:
        self.problems.add(kind, lambda: Problem(self.path, *position(node), message, hint))

    def mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[str, object]:
        merged: dict[str, object] = {}
        data: dict[str, object] = {}
        first_seen: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # `<<: *defaults`: its keys, unless written here too
                for source in reversed(_merge_sources(value_node)):
                    if isinstance(source, yaml.MappingNode):
                        fields = self.value(source, loc)
                        if isinstance(fields, dict):  # None: it merges itself
                            merged.update(fields)
                    else:
                        self.report(
                            "merge",
                            source,
                            "'<<' can only merge mappings",
                            "merge a mapping ('<<: *name'), or write the fields out",
                        )
                continue
            if key_node.tag not in _KEY_TAGS:  # a mapping or list used as a key, or a tagged key
                self.report("key", key_node, "a key must be a plain name", "write 'name: value'")
                continue
            key: str = key_node.value
            if key in first_seen:
                earlier = first_seen[key].start_mark.line + 1
                self.report(
                    "duplicate key",
                    key_node,
                    f"duplicate key '{key}' (first at line {earlier})",
                    "YAML would silently keep only the last one: remove or rename one of them",
                )
            first_seen[key] = key_node
            data[key] = self.value(value_node, (*loc, key))
        return {**merged, **data}


def _short_tag(tag: str) -> str:
    return tag.replace(_CORE_TAG_PREFIX, "!!")


def _merge_sources(node: yaml.Node) -> list[yaml.Node]:
    """What a `<<` key merges, first wins: one mapping, or a list of them."""
    return list(node.value) if isinstance(node, yaml.SequenceNode) else [node]


def _syntax_problem(path: str, lines: list[str], error: yaml.MarkedYAMLError) -> Problem:
    mark = error.problem_mark or error.context_mark
    # PyYAML marks every syntax error it raises; one without a mark would be placed at the start.
    mark_line, mark_column = (mark.line, mark.column) if mark is not None else (0, 0)
    line, column = mark_line + 1, mark_column + 1
    written = lines[mark_line] if mark_line < len(lines) else ""
    if "\t" in written[: len(written) - len(written.lstrip())]:
        return Problem(
            path,
            line,
            written.index("\t") + 1,
            "a tab is used for indentation",
            "YAML indents with spaces only: replace the tabs with spaces",
        )
    context = ""
    if error.context:
        since = error.context_mark.line + 1 if error.context_mark else line
        context = f" ({error.context}" + (
            f" that starts at line {since})" if since != line else ")"
        )
    hint = (
        "a ': ' inside plain text starts a new field: put the whole text in quotes"
        if "mapping values are not allowed" in (error.problem or "")
        else "check the quotes, brackets and indentation here and on the lines before"
    )
    return Problem(path, line, column, f"not valid YAML: {error.problem}{context}", hint)


def _bad_bytes(path: str, raw: bytes, error: UnicodeDecodeError) -> Problem:
    before = raw.removeprefix(b"\xef\xbb\xbf")[
        : error.start
    ]  # utf-8-sig counts from after the mark
    line = before.count(b"\n") + 1
    column = (
        len(before[before.rfind(b"\n") + 1 :].decode("utf-8")) + 1
    )  # characters, as editors count
    return Problem(path, line, column, "the file is not UTF-8 text", "save it with UTF-8 encoding")
