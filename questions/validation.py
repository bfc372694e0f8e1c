"""Validate a parsed YAML document against a model and turn every error into a located Problem.

pydantic's own messages ("Input should be a valid integer") name neither the field as the
author wrote it nor the fix; these say what is wrong where, and the hint says what to write.
"""

from __future__ import annotations

import difflib
import math
import types
import typing
from functools import partial
from typing import Any, TypeGuard, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from questions.library import Problem
from questions.model import SLUG_RULE
from questions.problems import ProblemList
from questions.yamldoc import TODO, Loc, YamlDocument, describe_loc

M = TypeVar("M", bound=BaseModel)

_TODO_HINT = "replace the TODO with the real content"


def validate_document(model: type[M], doc: YamlDocument) -> tuple[M | None, list[Problem]]:
    """The model instance, or None with one Problem per error (at most MAX_OF_A_KIND of each
    kind); TODO markers are always reported."""
    problems = ProblemList()
    reported_todos: set[int] = set()
    instance = None
    try:
        instance = model.model_validate(doc.data)
    except ValidationError as error:
        for detail in error.errors(include_url=False, include_input=True):
            node = doc.node_at(detail["loc"])
            if id(node) in doc.unreadable:
                continue
            # A TODO where a value is expected is an unfinished field, whatever type it should have.
            if _is_todo(node) and detail["type"] not in ("missing", "extra_forbidden"):
                reported_todos.add(id(node))
                _, hint = _explain(model, detail)
                problems.add("todo", partial(_todo_problem, doc, detail["loc"], node, hint))
            else:
                problems.add(detail["type"], partial(_locate, model, doc, detail))
    for loc, node in doc.todos:
        if id(node) not in reported_todos:
            problems.add("todo", partial(_todo_problem, doc, loc, node, _TODO_HINT))
    found = problems.problems()
    return (instance if not found else None), found


def _is_todo(node: yaml.Node) -> TypeGuard[yaml.ScalarNode]:
    return isinstance(node, yaml.ScalarNode) and TODO in node.value


def _todo_problem(doc: YamlDocument, loc: Loc, node: yaml.ScalarNode, hint: str) -> Problem:
    lines = node.value.splitlines()
    index = next(i for i, line in enumerate(lines) if TODO in line)
    line, column = doc.text_position(node, index, lines[index].index(TODO) + 1)
    return Problem(
        doc.path, line, column, f"unfinished: '{describe_loc(loc)}' still says TODO", hint
    )


def _locate(model: type[BaseModel], doc: YamlDocument, detail: ErrorDetails) -> Problem:
    loc = detail["loc"]
    message, hint = _explain(model, detail)
    if detail["type"] == "missing":
        return doc.problem(doc.node_at(loc[:-1]), message, hint)
    if detail["type"] == "extra_forbidden":
        key = doc.key_at(loc)
        return doc.problem(key if key is not None else doc.node_at(loc), message, hint)
    return doc.problem(doc.node_at(loc), message, hint)


def _explain(model: type[BaseModel], detail: ErrorDetails) -> tuple[str, str]:
    """A message naming the field as written in YAML, and a hint saying how to fix it."""
    loc, kind, ctx, value = (
        detail["loc"],
        detail["type"],
        detail.get("ctx") or {},
        detail.get("input"),
    )
    where = describe_loc(loc)
    if kind == "missing":
        parent = describe_loc(loc[:-1])
        info = _walk(model, loc)[1]
        about = f". {info.description}" if info is not None and info.description else ""
        return (
            f"missing required field '{loc[-1]}'" + (f" in '{parent}'" if parent else ""),
            f"add '{loc[-1]}:'{about}",
        )
    if kind == "extra_forbidden":
        parent = describe_loc(loc[:-1])
        allowed = _allowed_fields(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = (
            f"did you mean '{close[0]}'?"
            if close
            else "remove it; allowed here: " + ", ".join(allowed)
        )
        return f"unknown field '{loc[-1]}'" + (f" in '{parent}'" if parent else ""), hint
    if kind == "string_too_short":
        return f"'{where}' is empty", "write the text, or remove the field if it is optional"
    if kind == "string_too_long":
        return f"'{where}' is longer than {ctx.get('max_length')} characters", "shorten it"
    if kind == "string_type":
        return f"'{where}' must be text, not {_kind(value)}", _as_text_hint(value)
    if kind in ("int_type", "int_parsing", "int_from_float"):
        quoted_number = isinstance(value, str) and value.strip().lstrip("-").isdigit()
        hint = (
            "remove the quotes around the number"
            if quoted_number
            else "write a whole number, like 40"
        )
        return f"'{where}' must be a whole number, not {_kind(value)}", hint
    if kind in ("float_type", "float_parsing"):
        return f"'{where}' must be a number, not {_kind(value)}", _as_number_hint(value)
    if kind in ("greater_than_equal", "less_than_equal"):
        bound = "at least" if kind == "greater_than_equal" else "at most"
        limit = ctx.get("ge", ctx.get("le"))
        if isinstance(value, float) and not math.isfinite(value):
            return (
                f"'{where}' must be a finite number, not {value}",
                f"use a number {bound} {limit}",
            )
        return f"'{where}' must be {bound} {limit}, not {value}", f"use a number {bound} {limit}"
    if kind == "literal_error":
        expected = str(ctx.get("expected"))
        several = " or " in expected
        return (
            f"'{where}' must be {expected}, not {value!r}",
            f"use {'one of: ' if several else ''}{expected}",
        )
    if kind in ("too_short", "too_long"):
        low, high = _length_bounds(_walk(model, loc)[1])
        if low is not None and high is not None:
            needs = f"{low} to {high} items"
        else:
            bound = "at least" if kind == "too_short" else "at most"
            limit = ctx.get("min_length", ctx.get("max_length"))
            needs = f"{bound} {limit} item{'s' if limit != 1 else ''}"
        return (
            f"'{where}' needs {needs}, has {ctx.get('actual_length')}",
            "add items" if kind == "too_short" else "remove items",
        )
    if kind == "string_pattern_mismatch":
        return (
            f"'{where}' must be lower-case words joined by hyphens, not {value!r}",
            f"use {SLUG_RULE}",
        )
    if kind == "list_type":
        return (
            f"'{where}' must be a list, not {_kind(value)}",
            "write each item on its own line, starting with '- '",
        )
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return (
            f"'{where}' must be a mapping of fields, not {_kind(value)}",
            "write 'field: value' lines indented under it",
        )
    return f"'{where}': {detail['msg']}", "see the card format in docs/packs.md"


def _as_number_hint(value: object) -> str:
    """YAML 1.1, which PyYAML reads, takes `1e-3` (an exponent, no decimal point) as text, though
    an editor's YAML 1.2 calls it a number: say how to write it."""
    if isinstance(value, str):
        text = value.strip()
        try:
            float(text)
        except ValueError:
            return "write a number, like 0.5 or 1.0e-3"
        mantissa, e, exponent = text.lower().partition("e")
        if e and "." not in mantissa and mantissa.lstrip("+-").isdigit():
            return (
                f"YAML reads {text} as text (an exponent needs a decimal point before it): "
                f"write {mantissa}.0e{exponent}"
            )
        return "remove the quotes around the number"
    return "write a number, like 0.5 or 1.0e-3"


def _kind(value: object) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a yes/no value ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"text ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__} ({value})"


def _as_text_hint(value: object) -> str:
    if isinstance(value, bool):
        return "YAML reads yes/no/on/off/true/false as yes/no values: put the text in quotes"
    if value is None:
        return "write the text after the colon"
    if isinstance(value, (list, dict)):
        return "write one piece of text here"
    return "put the value in quotes to keep it as text"


def _walk(model: type[BaseModel], loc: Loc) -> tuple[Any, FieldInfo | None]:
    """The type `loc` leads to, and the model field it last named, following nested models and lists."""
    annotation: Any = model
    info = None
    for part in loc:
        if isinstance(part, int):
            annotation, info = _item_type(annotation), None
            continue
        owner = _model_in(annotation)
        if owner is None or part not in owner.model_fields:
            return None, None
        info = owner.model_fields[part]
        annotation = info.annotation
    return annotation, info


def _length_bounds(info: FieldInfo | None) -> tuple[int | None, int | None]:
    """A list field's (min_length, max_length), so a message can give the whole range."""
    metadata = info.metadata if info is not None else []
    low = next((m.min_length for m in metadata if hasattr(m, "min_length")), None)
    high = next((m.max_length for m in metadata if hasattr(m, "max_length")), None)
    return low, high


def _allowed_fields(model: type[BaseModel], loc: Loc) -> list[str]:
    owner = _model_in(_walk(model, loc)[0])
    return list(owner.model_fields) if owner is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class inside `Model`, `Model | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return next((m for m in map(_model_in, typing.get_args(annotation)) if m is not None), None)
    return None


def _item_type(annotation: Any) -> Any:
    args = typing.get_args(annotation)
    return args[0] if typing.get_origin(annotation) is list and args else None
