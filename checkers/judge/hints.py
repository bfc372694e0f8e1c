"""The hint of a leak: what to change, drawn from what the culprit is, with the edited line
where grill can build it.

A hint that shows code shows an edit of the snippet's own line, built on its syntax tree and
compiled before it is offered (`checkers.judge.edits`). That the edited code still trains is
known from the run itself: the edit only changes what a container or a running total keeps,
and it is offered only when no backward pass ever ran through a graph after it was seen
stored in that container (a REINFORCE episode's log-probs, read back for the episode's loss,
are never told to be detached). Where either check fails the hint says what to do in words.
An edit that makes a kept value a Python number is also run (`Culprit.numbered`, run by
`checkers.api`): a later line may still use that value as a tensor.

Pure data and AST work, no torch.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING

from checkers.judge.edits import (
    Edit,
    added_expression,
    call_on,
    checked,
    each_detached,
    is_position,
    key_detached,
    navigate,
    replace,
    split_path,
    statement_at,
    statement_code,
    stored_expression,
)
from checkers.judge.source import hook_function_lines

if TYPE_CHECKING:
    from checkers.judge.rule import Culprit
    from checkers.measurements import Holder, Measurements


ITEM_FAILED = "item:failed"
"""What `checkers.api` adds to a verdict's avoided calls when the hint's `.item()` edit, run,
broke the snippet or left the leak: the hint falls to `.detach()` and says why."""


def _no_item(flags: frozenset[str]) -> bool:
    """`.item()` is not to be proposed: the contract refuses it, or its edit failed its run."""
    return "avoid:item" in flags or f"avoid:{ITEM_FAILED}" in flags


def count(number: int, noun: str) -> str:
    """`1 tensor`, `2 tensors`, `3 earlier passes`."""
    if number == 1:
        return f"1 {noun}"
    plural = noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{number} {plural}"


def hint_for(
    culprit: Culprit,
    line: int | None,
    flags: frozenset[str],
    tree: ast.Module | None,
    m: Measurements,
) -> str:
    """What to change, and why what the snippet already tried did not help."""
    return _tried_note(flags, culprit) + _change(culprit, line, flags, tree, m)


def _tried_note(flags: frozenset[str], culprit: Culprit) -> str:
    """Why `gc.collect()`, `torch.cuda.empty_cache()` or a `del` left the graphs alive: each
    frees only what nothing references, and the holder still references them."""
    holder = f"`{culprit.path}`"
    notes = []
    if "tried:collect" in flags:
        notes.append(
            "`gc.collect()` frees only objects nothing reachable refers to (cycles):"
            f" {holder} still references the graphs, so it has nothing to free."
        )
    if "tried:empty_cache" in flags:
        notes.append(
            "`torch.cuda.empty_cache()` hands back only cached memory no tensor uses: the"
            " kept graphs' tensors are still in use."
        )
    if "tried:del" in flags:
        notes.append(
            f"`del` removes one name, not the object: {holder} still references the graph."
        )
    return "".join(note + " " for note in notes)


def _change(
    culprit: Culprit,
    line: int | None,
    flags: frozenset[str],
    tree: ast.Module | None,
    m: Measurements,
) -> str:
    first = culprit.first
    at = f" at line {line}" if line else ""
    if "hook_in_loop" in flags and (
        any("_hooks" in h["path"] for h in culprit.holders)
        or tree is not None
        and line in hook_function_lines(tree)
    ):
        return (
            "The hook is registered again every step, so every copy registered so far runs"
            " on each forward pass. Register the hook once, before the loop; or keep the"
            " handle that `register_..._hook` returns and call `handle.remove()` when the"
            " step is done with it."
        )
    if first["node_only"]:
        return (
            "Keep what you need from a graph node (its name, a number), not the node: a"
            " `grad_fn` holds its whole graph."
        )
    if any(kind.startswith("exception") for kind in first.get("kinds") or []):
        return (
            "A caught exception keeps its traceback, and the traceback keeps the locals of"
            " every frame it passed through (the forward's outputs, the loss, their graph):"
            " keep `str(err)` or `repr(err)`, or `err.with_traceback(None)`, not the"
            " exception as it was raised."
        )
    name = _name(culprit)
    if f"carried:{name}" in flags:
        return (
            f"`{name}` is fed back into the next step with its graph: detach it where one"
            f" sequence or chunk ends ({detach_statement(culprit)}), or start it fresh."
        )
    if (
        first["path"].endswith(".grad")
        or "create_graph" in flags
        and not first["root_used"]
        and first["grad_fn"] != "AddBackward0"
    ):
        number = "" if _no_item(flags) else " (or `.item()`)"
        return (
            "Gradients made with create_graph=True carry a graph of their own: keep"
            f" `g.detach()`{number}, and after `backward(create_graph=True)` set"
            " `p.grad = None` once the step is done, so `.grad` does not hold it."
        )
    tail = _retain_note(flags, culprit)
    if culprit.is_container:
        if not _still_trains_detached(culprit, m):
            return (
                f"A backward pass reads `{culprit.path}` again after an entry is stored{at}:"
                " detaching what is stored would change the gradients. Keep only the entries"
                " that backward still needs (let older ones go, or keep them in a"
                f" `deque(maxlen=...)`), and keep a detached copy of what you log.{tail}"
            )
        return _store_hint(culprit, line, at, tree, flags) + tail
    if first["view"]:
        return (
            "Store `x.detach().clone()`" + at + ": a detached slice still keeps the whole"
            " batch's storage alive, and the original keeps its graph." + tail
        )
    if first["numel"] == 1 and not first["root_used"]:
        return _add_hint(culprit, line, at, tree, flags) + tail
    return (
        f"`{name}` must stay a tensor: write `.detach()`ed values into it{at}, or compute"
        f" what you write under `torch.no_grad()` (a key encoder's forward, an EMA"
        f" update).{tail}"
    )


def detach_statement(culprit: Culprit) -> str:
    """`h = h.detach()`, or for a state kept as a tuple or list of tensors (`(h, c)`)
    `state = tuple(t.detach() for t in state)`; checked to be one valid statement."""
    name = _name(culprit)
    kind = _own_kind(culprit)
    if kind in ("tuple", "list"):
        code = f"{name} = {kind}(t.detach() for t in {name})"
    else:
        code = f"{name} = {name}.detach()"
    checked_code = statement_code(code)
    return f"`{checked_code}`" if checked_code else "`.detach()` it"


def _name(culprit: Culprit) -> str:
    """The name the culprit was stored under: `losses` for `tracker.losses`, `h` for `h`."""
    parts = [p for p in culprit.parts if not is_position(p)]
    last = parts[-1] if parts else culprit.path
    return last.rsplit(".", 1)[-1]  # `total` in `.<locals>.total`, `losses` in `.losses`


def _own_kind(culprit: Culprit) -> str:
    """What the culprit's path itself reaches (`tuple` for a state kept as `(h, c)`)."""
    kinds = culprit.first.get("kinds") or []
    index = len(culprit.parts) - 1
    return kinds[index].split(":")[0] if 0 <= index < len(kinds) else ""


def _still_trains_detached(culprit: Culprit, m: Measurements) -> bool:
    """Whether detaching what goes into the container leaves training as it is: no backward
    pass ever ran through an entry after a scan saw it stored there."""
    prefix = list(culprit.parts)
    for scan in m["scans"]:
        for holder in scan["holders"]:
            parts = list(holder.get("parts") or split_path(holder["path"]))
            if parts[: len(prefix)] == prefix and holder.get("used_after"):
                return False
    return True


def _store_hint(
    culprit: Culprit, line: int | None, at: str, tree: ast.Module | None, flags: frozenset[str]
) -> str:
    first = culprit.first
    scalar = first["numel"] == 1 and not first["view"] and not _no_item(flags)
    element = culprit.element.split(":")[0]
    edit, leaf = _store_edit(culprit, line, tree, ("item",) if scalar else ("detach",))
    if edit is not None and element in ("tuple", "list", "dict") and not leaf:
        return (
            f"Store what is put in `{culprit.path}`{at} with its tensors detached, so no graph"
            f" comes with it: `{edit.code}`."
        )
    if edit is None:
        if scalar:
            return (
                f"Store its `.item()` (a number) or its `.detach()`{at}, not what is stored"
                " itself, which still points at its graph."
            )
        return f"Store its `.detach()`{at} (a tensor without its graph), not what is stored itself."
    stored = edit.replacement.rsplit(".", 1)[0]
    if first["view"]:
        clone, _ = _store_edit(culprit, line, tree, ("detach", "clone"))
        if clone is not None:
            return (
                f"Store `{clone.replacement}`{at}: a detached slice still keeps the whole"
                f" batch's storage alive, and the original keeps its graph: `{clone.code}`."
            )
    if scalar:
        culprit.numbered.append(edit)
        return (
            f"Store `{edit.replacement}` (a number) or `{stored}.detach()`{at}, not `{stored}`"
            f" itself, which still points at its graph: `{edit.code}`."
        )
    return (
        f"Store `{edit.replacement}`{at} (a tensor without its graph), not `{stored}` itself:"
        f" `{edit.code}`."
    )


def _store_edit(
    culprit: Culprit, line: int | None, tree: ast.Module | None, methods: tuple[str, ...]
) -> tuple[Edit | None, bool]:
    """The line that stored the holder, with what it stores detached (or made a number); and
    whether the edit names the stored tensor itself (found in a dict or tuple display on the
    line) rather than rebuilding a container around it."""
    if tree is None or line is None:
        return None, False
    rests = [_below(culprit, holder) for holder in culprit.holders]
    rest = rests[0]
    element = culprit.element.split(":")
    leaf = False

    def change(statement: ast.stmt) -> ast.expr | None:
        nonlocal leaf
        stored = stored_expression(statement)
        if stored is None:
            return None
        target = navigate(stored, rest)
        if target is not None:
            leaf = True
            new = call_on(target, *methods)
            if target is stored:
                return new if replace(statement, stored, new) else None
            return new if replace(statement, target, new) else None
        if not rest or len(rest) > 1:
            return None
        if element[0] in ("tuple", "list"):
            size = int(element[1]) if len(element) > 1 and element[1].isdigit() else -1
            covered = {r[0] for r in rests if r}
            every = covered == {f"[{i}]" for i in range(size)}
            if not every and not _imports_torch(tree):
                return None
            new = each_detached(stored, element[0], every)
        elif element[0] == "dict":
            keys = sorted({r[0][1:-1] for r in rests if r})
            new = key_detached(stored, keys)
        else:
            return None
        return new if replace(statement, stored, new) else None

    return checked(tree, line, change), leaf


def _below(culprit: Culprit, holder: Holder) -> list[str]:
    """A holder's path steps inside the element the container stores (after its position)."""
    parts = list(holder.get("parts") or split_path(holder["path"]))
    below = parts[len(culprit.parts) :]
    return below[1:] if below and is_position(below[0]) else below


def _imports_torch(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Import)
        and any(alias.name == "torch" and alias.asname is None for alias in node.names)
        for node in tree.body
    )


def _add_hint(
    culprit: Culprit, line: int | None, at: str, tree: ast.Module | None, flags: frozenset[str]
) -> str:
    """A running total of losses: add the number (or a detached tensor) instead; only the
    detached tensor where the task's contract refuses `.item()` (`avoid:item`)."""
    name = _name(culprit)
    if _no_item(flags):
        return _add_detached_hint(name, line, at, tree, by_contract="avoid:item" in flags)
    edit = None
    added = None
    if tree is not None and line is not None:
        statement = statement_at(tree, line)
        added = added_expression(statement) if statement is not None else None

        def change(statement: ast.stmt) -> ast.expr | None:
            value = added_expression(statement)
            if value is None:
                return None
            new = call_on(value, "item")
            return new if replace(statement, value, new) else None

        edit = checked(tree, line, change)
    if edit is None or added is None:
        return (
            f"Add `loss.item()` (a number) to `{name}`{at}, or `loss.detach()` to keep a"
            " tensor; what you add still carries its graph."
        )
    culprit.numbered.append(edit)
    detached = ast.unparse(call_on(added, "detach"))
    return (
        f"Add `{edit.replacement}` (a number) to `{name}`{at} (`{edit.code}`), or"
        f" `{detached}` to keep a tensor; what you add still carries its graph."
    )


def _add_detached_hint(
    name: str, line: int | None, at: str, tree: ast.Module | None, *, by_contract: bool
) -> str:
    """A running total kept a tensor, as the task asks (`by_contract`) or because a later line
    uses it as one (the `.item()` edit failed its run): add the detached tensor."""
    edit = None
    if tree is not None and line is not None:

        def change(statement: ast.stmt) -> ast.expr | None:
            value = added_expression(statement)
            if value is None:
                return None
            new = call_on(value, "detach")
            return new if replace(statement, value, new) else None

        edit = checked(tree, line, change)
    keep = (
        " keep the total a tensor on the device (the task reads it on the host once, not"
        " with `.item()` each step); what the line adds now still carries its graph."
        if by_contract
        else f" the snippet still uses `{name}` as a tensor (with `.item()` added, a number,"
        " the edited snippet failed or still leaked when grill ran it); what the line adds"
        " now still carries its graph."
    )
    if edit is None:
        return f"Add `loss.detach()` to `{name}`{at}:{keep}"
    return f"Add `{edit.replacement}` to `{name}`{at} (`{edit.code}`):{keep}"


def _retain_note(flags: frozenset[str], culprit: Culprit) -> str:
    if "retain_graph" in flags and not any(
        h["used"] and h["generations"] > 1 for h in culprit.holders
    ):
        return (
            " retain_graph=True also keeps every kept graph's saved activations: drop it"
            " unless a second backward pass runs through the same graph."
        )
    return ""


__all__: Sequence[str] = ("ITEM_FAILED", "count", "detach_statement", "hint_for")
