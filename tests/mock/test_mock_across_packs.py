"""A mock interview drawn across the training-loop, GPU-memory and distributed-training packs
plays from the first question to the recorded report (Pilot, fake clock, fake grader): their
cards carry everything a mock asks of a card, and their own model answers score."""

from __future__ import annotations

import random

import pytest
from mock_helpers import SIZE, app_for
from pilot_wait import until, until_screen

from app.mock.draw import draw
from app.mock.session import MockSession
from app.paths import SHIPPED_PACKS
from app.ui.screens.mock import MockScreen
from app.ui.screens.mock_report import MockReportScreen
from app.ui.screens.mock_review import MockReviewScreen
from questions.loader import load_library

PACKS = ("training-loop-bugs", "gpu-memory", "distributed-training")


@pytest.fixture(scope="module")
def pack_cards():
    library = load_library([SHIPPED_PACKS / name for name in PACKS])
    assert not library.problems
    assert {pack.info.name for pack in library.packs} == set(PACKS)
    return library.cards


def test_a_draw_across_the_packs_includes_a_code_task_and_several_packs(pack_cards):
    chosen = draw(pack_cards, 4, level="principal", rng=random.Random(16))
    assert len(chosen) == 4
    assert any(c.card.code_task for c in chosen)
    assert len({c.pack for c in chosen}) >= 2


async def test_a_mock_across_the_packs_plays_to_a_recorded_report(pack_cards, clock, history):
    chosen = draw(pack_cards, 4, level="principal", rng=random.Random(16))
    session = MockSession(chosen, level="principal", clock=clock, seed=16)
    app, grader = app_for(session, history, clock, MockScreen)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_screen(pilot, MockScreen)
        ran_code = False
        for _ in range(len(session.steps)):
            step = await until(pilot, lambda: screen.shown)
            card = session.cards[step.question].card
            if step.kind == "answer":
                screen.answer.insert(card.solid.text)  # the card's own full answer
            elif step.kind == "follow_up":
                screen.answer.insert(card.follow_ups[step.follow_up].answer)
            else:
                panel = screen.query_one("#mock-code")
                panel.editor.load_text(card.code_task.solution)
                await pilot.press("ctrl+r")
                # The run goes through a worker.
                await until(pilot, lambda panel=panel: panel.verdict is not None)
                ran_code = True
            clock.advance(20)
            await pilot.press("ctrl+n")
            await until(pilot, lambda step=step: screen.shown is not step)
        assert ran_code
        await until_screen(pilot, MockReviewScreen)
        await pilot.press("ctrl+s")
        report = await until_screen(pilot, MockReportScreen)

    questions = report.report.score.questions
    assert len(questions) == 4 and all(q.reached and not q.skipped for q in questions)
    # each card's own answers make most of its points (the matcher, a suggestion the candidate
    # confirms, may still read a model answer that explains a red flag as saying it)
    assert all(len(q.key_points_hit) > len(q.key_points_missed) for q in questions), questions
    recorded = history.attempts()
    assert {a.card_id for a in recorded} == {c.card.id for c in chosen}
    assert {a.mode for a in recorded} == {"mock"}
    assert any(
        card.code_task.solution in source
        for card in (c.card for c in chosen if c.card.code_task)
        for source in grader.graded
    )
