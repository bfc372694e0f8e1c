"""Code tasks outside the app: which there are, where the candidate stands on each, the file
`grill task start` writes, and the attempt a graded fix records.

Headless (no Textual, no torch): `grill task ...` and `grill check --task` run it, and the app
shares its header handling when it opens a file the candidate worked on in their own editor.
"""

from __future__ import annotations

import difflib
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from app.progress.attempt import Attempt, CodeResult
from app.progress.rating import Rating, SolutionViewed
from checkers.contract_words import contract_lines
from checkers.verdict import Verdict
from questions.levels import LEVELS, Level
from questions.library import Library, LoadedCard

if TYPE_CHECKING:
    from questions.model import CodeTask

TaskState = Literal["not started", "attempted", "solved"]

HEADER_MARK = "# grill task:"
"""The first line of the header `grill task start` writes; `strip_header` knows it by this."""
HEADER_END = "# " + "-" * 70
HEADER_WIDTH = 88

RATING_FOR_VERDICT: dict[str, Rating] = {"clean": "good", "leak": "hard", "wrong": "hard"}
"""The rating a fix graded from the command line records: it answers the code alone, so a clean
fix is Good, one that leaks or breaks the task Hard (the most it can earn, as in the app), and
code that could not be graded Again."""


class TaskNotFound(ValueError):
    """The id names no code task of the loaded packs; the message names the closest ones."""


def code_tasks(library: Library) -> list[LoadedCard]:
    """Every card with a code task, pack by pack, each pack's in its track order (known from
    the manifest and the summaries: listing ten thousand tasks reads no card file)."""
    return [card for pack in library.packs for card in track_order(pack.cards, pack.info.track)]


def track_order(cards: Sequence[LoadedCard], track: Sequence[str]) -> list[LoadedCard]:
    """A pack's code tasks in the order to work through them, as rustlings and Exercism's
    tracks have it: those the pack's `track` lists, in its order; then the others easy before
    hard, by level, a ranked run (several processes to reason about) after a single one."""
    tasks = {card.id: card for card in cards if card.summary.code_task}
    listed = [tasks[card_id] for card_id in track if card_id in tasks]
    rest = sorted(
        (card for card in tasks.values() if card.id not in set(track)),
        key=lambda card: (LEVELS.index(card.summary.level), card.summary.ranks > 0),
    )
    return listed + rest


def next_task(statuses: Sequence[TaskStatus]) -> TaskStatus | None:
    """The first task in track order not solved yet; None when every one is."""
    return next((status for status in statuses if status.state != "solved"), None)


def find_task(library: Library, card_id: str) -> tuple[LoadedCard, CodeTask]:
    """The card and its code task; TaskNotFound saying what is wrong and the closest ids."""
    found = library.card(card_id)
    if found is not None and found.summary.code_task and found.card.code_task is not None:
        return found, found.card.code_task
    ids = [card.id for card in code_tasks(library)]
    close = difflib.get_close_matches(card_id, ids, n=3, cutoff=0.5)
    if not close:  # a part of an id ("retain") is closer to what was meant than edit distance
        close = [task_id for task_id in ids if card_id and card_id in task_id][:3]
    closest = f"; closest: {', '.join(close)}" if close else ""
    if found is not None:
        raise TaskNotFound(f"card {card_id!r} ({found.pack}) has no code task{closest}")
    packs = ", ".join(pack.info.name for pack in library.packs) or "none"
    raise TaskNotFound(
        f"no code task {card_id!r} in the loaded packs ({packs}){closest}"
        "; `grill task list` lists them"
    )


@dataclass(frozen=True)
class TaskStatus:
    """Where the candidate stands on one code task, from the attempts that graded its code."""

    card_id: str
    pack: str
    level: Level
    state: TaskState
    attempts: int
    """Attempts whose code was graded (in the app or by `grill check --task`)."""
    last_verdict: str | None
    last_at: datetime | None
    ranks: int = 0
    """The ranks its fix runs as; 0 for a single run."""

    def to_dict(self) -> dict[str, object]:
        return {
            "card_id": self.card_id,
            "pack": self.pack,
            "level": self.level,
            "ranks": self.ranks,
            "state": self.state,
            "attempts": self.attempts,
            "last_verdict": self.last_verdict,
            "last_at": self.last_at.isoformat() if self.last_at else None,
        }


def task_statuses(cards: Sequence[LoadedCard], attempts: Sequence[Attempt]) -> list[TaskStatus]:
    """Each card's status, in the cards' order: the attempts are sorted by card once, so ten
    thousand tasks and as many attempts take one pass over each, not one over the attempts
    per task."""
    graded: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        if attempt.code is not None:
            graded.setdefault(attempt.card_id, []).append(attempt)
    return [_status(card, graded.get(card.id, [])) for card in cards]


def _status(card: LoadedCard, graded: list[Attempt]) -> TaskStatus:
    """`solved` once any attempt's code graded clean; `attempted` once any was graded."""
    last = max(graded, key=lambda a: a.started_at) if graded else None
    solved = any(a.code is not None and a.code.verdict == "clean" for a in graded)
    state: TaskState = "solved" if solved else "attempted" if graded else "not started"
    return TaskStatus(
        card_id=card.id,
        pack=card.pack,
        level=card.summary.level,
        state=state,
        attempts=len(graded),
        last_verdict=last.code.verdict if last is not None and last.code is not None else None,
        last_at=last.started_at if last is not None else None,
        ranks=card.summary.ranks,
    )


def starter_file(card: LoadedCard, task: CodeTask, filename: str) -> str:
    """The starter with a header naming the task, its prompt, what is checked (its contract in
    plain words) and the commands that check it."""
    card_id = card.card.id
    shown = shlex.quote(filename)
    lines = [
        f"{HEADER_MARK} {card_id} ({card.pack}, {card.card.level})",
        f"# Check:    grill check --task {card_id} {shown}",
        f"# Watch:    grill task watch {card_id} {shown}",
        f"# Hint:     grill task hint {card_id}",
        "#",
    ]
    for paragraph in task.prompt.split("\n\n"):
        wrapped = textwrap.wrap(
            " ".join(paragraph.split()), HEADER_WIDTH - 2, break_on_hyphens=False
        )
        lines += [f"# {line}" for line in wrapped] + ["#"]
    lines.append("# Checked when graded, against the reference solution:")
    for promise in contract_lines(task.contract):
        lines += textwrap.wrap(
            promise,
            HEADER_WIDTH,
            initial_indent="#   - ",
            subsequent_indent="#     ",
            break_on_hyphens=False,
        )
    lines.append(HEADER_END)
    return "\n".join(lines) + "\n" + task.starter.rstrip("\n") + "\n"


def strip_header(source: str) -> str:
    """`source` without the header `starter_file` wrote (up to its closing line), if it has one."""
    lines = source.splitlines(keepends=True)
    if not lines or not lines[0].startswith(HEADER_MARK):
        return source
    for index, line in enumerate(lines):
        if line.rstrip("\r\n") == HEADER_END:
            return "".join(lines[index + 1 :])
        if not line.startswith("#"):
            break
    return source


def rating_for_fix(verdict: Verdict) -> Rating:
    return RATING_FOR_VERDICT.get(verdict.verdict, "again")


def fix_attempt(
    card: LoadedCard,
    verdict: Verdict,
    code: str,
    *,
    level: Level,
    started_at: datetime,
    rating: Rating | None = None,
    code_seconds: float | None = None,
    solution_viewed: SolutionViewed | None = None,
) -> Attempt:
    """The attempt a fix graded outside the app records: its code and verdict, as the app's
    self-grade keeps them, and a rating from the verdict (or the one asked for, capped by the
    verdict as every attempt is, and by how the solution was seen before it:
    `app.practice.solution`). No key point was asked, so none counts as made or missed."""
    return Attempt(
        card_id=card.card.id,
        mode="practice",
        rating=rating or rating_for_fix(verdict),
        level=level,
        phase_seconds={} if code_seconds is None else {"code": round(code_seconds, 1)},
        code=CodeResult(
            verdict=verdict.verdict,
            pattern=verdict.pattern,
            growth_bytes_per_step=verdict.growth_bytes_per_step,
            retained_paths=tuple(item.path for item in verdict.retained),
            code=code,
        ),
        solution_viewed=solution_viewed,
        started_at=started_at,
    )


def same_as_last(attempts: Sequence[Attempt], code: str, verdict: Verdict) -> bool:
    """Whether the card's latest attempt holds this very code with this verdict: checking a
    file again without changing it records nothing more."""
    if not attempts:
        return False
    last = max(attempts, key=lambda a: a.started_at).code
    return last is not None and last.code == code and last.verdict == verdict.verdict
