"""What `grill lint` checks: every load problem in the given packs or cards, and optionally
whether each code task's starter really fails as the card says (a leak, or a broken contract)
and its solution really passes, graded by the real grader against the task's contract.

Content is tested like code: a starter that already passes, or a reference solution that
fails, would make the exercise meaningless.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from questions.library import Library, LoadedCard, Problem
from questions.loader import MANIFEST_NAME, load_card_file, load_library
from questions.model import CodeTask
from questions.yamldoc import Loc, describe_loc, position, read_yaml

if TYPE_CHECKING:
    from checkers.verdict import Verdict


class TaskGrader(Protocol):
    """Grades `source` as a fix of `task` (the app passes `checkers.api.grade_task` with the
    task's spec); tests can pass a fake one."""

    def __call__(self, source: str, task: CodeTask) -> Verdict: ...


@dataclass
class LintReport:
    problems: list[Problem]
    cards: list[LoadedCard]
    """The cards that loaded cleanly: the ones whose code tasks `--run` grades."""
    packs: int


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """File order, then position; duplicates (a card named directly and through its pack) once."""
    return sorted(set(problems), key=lambda p: (p.path, p.line, p.column, p.message))


def lint_search_path(entries: Iterable[Path]) -> LintReport:
    """Everything grill loads, judged as the app loads it: each entry holds packs, never one card."""
    library = load_library(entries)
    return LintReport(sort_problems(library.problems), library.cards, len(library.packs))


def lint_paths(paths: Sequence[Path]) -> LintReport:
    """Check packs, folders of packs and card files.

    Folders load together, so duplicate ids across them are found; a card file named on its
    own is checked alone.
    """
    folders = [p for p in paths if p.is_dir()] + [
        p.parent for p in paths if p.name == MANIFEST_NAME
    ]
    library = load_library(folders)
    problems, cards = list(library.problems), library.cards
    for path in paths:
        if path.is_file() and path.name != MANIFEST_NAME:
            card, card_problems = load_card_file(path)
            problems += card_problems
            if card is not None and all(card.path.resolve() != c.path.resolve() for c in cards):
                cards.append(card)
    return LintReport(sort_problems(problems), cards, len(library.packs))


def clashes(cards: Iterable[LoadedCard], around: Library) -> list[Problem]:
    """The linted cards whose id a card grill also loads (`around`: the search path) already
    has, in another file: the app keeps one of the two and reports the other, so a pack linted
    on its own must hear of it too."""
    elsewhere = {loaded.id: loaded.path for loaded in around.cards}
    problems = []
    for loaded in cards:
        other = elsewhere.get(loaded.id)
        if other is None or other.resolve() == loaded.path.resolve():
            continue
        problems.append(
            Problem(
                str(loaded.path),
                *_id_position(loaded.path),
                f"card id '{loaded.id}' is also the id of {other}, which grill loads too:"
                " the app keeps only one of them",
                "card ids are unique across all packs: choose another id and rename the file",
            )
        )
    return problems


def grade_code_tasks(
    cards: Iterable[LoadedCard],
    grade: TaskGrader,
    progress: Callable[[LoadedCard, str], None] | None = None,
    *,
    workers: int = 1,
) -> list[Problem]:
    """Grade every code task's starter, solution and tried fixes as fixes of the task; each
    unexpected verdict is a Problem at its key. The starter must fail as `starter_fails`
    says, the solution must be clean, and each tried fix must grade as it `expect`s.

    With `workers` above 1, that many tasks are graded at once, each task's runs in turn on one
    thread (so `grade` must be safe to call from several threads); the problems come back in
    the cards' order either way."""
    tasks = [(loaded, loaded.card.code_task) for loaded in cards if loaded.card.code_task]

    def problems_of(loaded_task: tuple[LoadedCard, CodeTask]) -> list[Problem]:
        return _task_problems(*loaded_task, grade, progress)

    if workers <= 1 or len(tasks) <= 1:
        found = map(problems_of, tasks)
        return [problem for problems in found for problem in problems]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [problem for problems in pool.map(problems_of, tasks) for problem in problems]


def _task_problems(
    loaded: LoadedCard,
    task: CodeTask,
    grade: TaskGrader,
    progress: Callable[[LoadedCard, str], None] | None,
) -> list[Problem]:
    # the solution first: its run is then the reference every later fix is held against
    runs: list[tuple[Loc, str, str]] = [
        (("code_task", "solution"), task.solution, "clean"),
        (("code_task", "starter"), task.starter, task.starter_fails),
    ]
    runs += [
        (("code_task", "tried_fixes", i), fix.code, fix.expect)
        for i, fix in enumerate(task.tried_fixes)
    ]
    problems = []
    for loc, source, expected in runs:
        part = describe_loc(loc[1:])
        if progress is not None:
            progress(loaded, part)
        verdict = grade(source, task)
        found = (
            _mismatch(loc, expected, verdict, task)
            if verdict.verdict != expected
            else _narrow_pass(loc, verdict, task)
        )
        if found is not None:
            message, hint = found
            problems.append(
                Problem(str(loaded.path), *_key_position(loaded.path, loc), message, hint)
            )
    return problems


MOST_TOLERANCE_USED = 0.25
"""The share of a compared value's tolerance a fix that must grade clean may use. Rounding
differs between machines (the CPU's vector width, the number of threads), and a task's
numbers carry it through every training step: a fix that passes by less may grade wrong
elsewhere (one did, by 1.2e-6 past atol 1e-6, on another CPU)."""


def _narrow_pass(loc: Loc, verdict: Verdict, task: CodeTask) -> tuple[str, str] | None:
    """A tried fix that grades clean only just: a problem, as a failure on another machine."""
    if loc[1] != "tried_fixes" or verdict.verdict != "clean":
        return None
    closest = max(verdict.expectations, key=lambda e: e.tolerance_used, default=None)
    if closest is None or closest.tolerance_used <= MOST_TOLERANCE_USED:
        return None
    fix = task.tried_fixes[int(loc[2])]
    name = closest.what.removeprefix("same:")
    compared = next(c for c in task.contract.same_as_solution if c.name == name)
    return (
        f"'{describe_loc(loc)}' ({fix.name}) grades clean with little to spare: `{name}` used"
        f" {closest.tolerance_used:.0%} of its tolerance (rtol {compared.rtol:g}, atol"
        f" {compared.atol:g}), and another machine's rounding could grade it wrong",
        f"loosen `{name}`'s rtol or atol in the contract until this fix uses at most"
        f" {MOST_TOLERANCE_USED:.0%} of it, while the wrong fixes still fail",
    )


def _mismatch(loc: Loc, expected: str, verdict: Verdict, task: CodeTask) -> tuple[str, str]:
    where = describe_loc(loc)
    part = loc[1]
    detail = f": {verdict.message}" if verdict.message else ""
    if not verdict.graded:
        return (
            f"'{where}' could not be graded ({verdict.verdict}){detail}",
            verdict.hint or f"run it with 'grill check' to see why; it must grade {expected}",
        )
    if part == "tried_fixes":
        fix = task.tried_fixes[int(loc[2])]
        return (
            f"'{where}' ({fix.name}) must grade {expected} but graded {verdict.verdict}{detail}",
            f"the contract must tell this fix apart: {fix.why}",
        )
    if part == "starter":
        what = {
            "leak": "leak",
            "hang": "hang (its ranks waiting on each other)",
            "error": "raise an error",
        }.get(expected, "break the contract (grade wrong)")
        return (
            f"'{where}' must {what} but graded {verdict.verdict}{detail}",
            "the starter must show the bug the task is about, so the candidate has something"
            " to fix: graphs that pile up, results that differ from the solution's, or, as"
            " ranks, a hang or torch.distributed's own error",
        )
    broken = [e.message for e in verdict.expectations if not e.met]
    return (
        f"'{where}' must grade clean but graded {verdict.verdict}{detail}",
        "the contract must hold for its own solution: " + " ".join(broken)
        if verdict.verdict == "wrong" and broken
        else "the reference solution must let each iteration's graph go",
    )


def _id_position(path: Path) -> tuple[int, int]:
    """Where the card's id is written, as the loader reports a duplicate id."""
    doc, _ = read_yaml(path)
    node = doc.node_at(("id",)) if doc is not None else None
    return position(node) if node is not None else (1, 1)


def _key_position(path: Path, loc: Loc) -> tuple[int, int]:
    doc, _ = read_yaml(path)
    if doc is None:
        return (1, 1)
    node = doc.key_at(loc) if isinstance(loc[-1], str) else doc.node_at(loc)
    return position(node) if node is not None else (1, 1)
