"""Setting up a mock interview: which cards, checks on the numbers, the draw, the session.

Shared by `grill mock` and the app's `m` key, so both draw the same way and refuse the same
things with the same words. Keyword arguments rather than the command line's namespace, so
the app does not have to pretend to be a command line.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from app.mock.draw import ProgressSource, draw, eligible, standings_from
from app.mock.limits import MINUTES, QUESTIONS, SEED
from app.mock.session import MockSession
from checkers.inputs import OutOfRange
from questions.levels import Level
from questions.library import CardUnavailable, Library, LoadedCard, UnknownPack


class MockSetupError(Exception):
    """The mock asked for cannot be built; the message says why in the user's terms."""


def cards_for(library: Library, pack_names: Sequence[str]) -> list[LoadedCard]:
    """The cards of the named packs (all packs when none is named)."""
    try:
        return library.only(pack_names).cards
    except UnknownPack as error:
        raise MockSetupError(str(error)) from None


def build_session(
    cards: Sequence[LoadedCard],
    *,
    level: Level,
    questions: int = 5,
    minutes: float | None = None,
    seed: int | None = None,
    interviewer: bool = False,
    history: ProgressSource | None = None,
    now: datetime | None = None,
) -> MockSession:
    """Draw the questions and wrap them in a session ready to start; MockSetupError, saying
    the range, for a number out of it (`app.mock.limits`).

    With a `history` (anything with `.progress(card_id)`) and `now`, due and weak cards are
    drawn more often.
    """
    try:
        QUESTIONS.check(questions)
        if minutes is not None:
            MINUTES.check(minutes)
        if seed is not None:
            SEED.check(seed)
    except OutOfRange as error:
        raise MockSetupError(str(error)) from None
    if not eligible(cards, level):
        raise MockSetupError(f"no card at {level} level or below in the chosen packs")
    standings = None
    if history is not None and now is not None:
        standings = standings_from(history, [c.id for c in cards], now)
    chosen = draw(cards, questions, level=level, rng=random.Random(seed), standings=standings)
    try:
        return MockSession(
            chosen,
            level=level,
            role="interviewer" if interviewer else "candidate",
            minutes=minutes,
            seed=seed,
        )
    except CardUnavailable as error:  # a drawn card's file stopped loading since the start
        raise MockSetupError(str(error)) from None
