"""The matcher on the shipped autograd-memory cards, with answers written as a candidate would."""

import pytest

from app.mock.match import pre_mark
from app.paths import SHIPPED_PACKS
from questions.loader import load_library

PACK = SHIPPED_PACKS / "autograd-memory"

pytestmark = pytest.mark.skipif(not PACK.is_dir(), reason="the autograd-memory pack is not present")


@pytest.fixture(scope="module")
def shipped():
    library = load_library([PACK])
    return {c.card.id: c.card for c in library.cards}


def test_a_paraphrased_answer_on_the_running_loss_hits_its_key_points(shipped):
    card = shipped["keeping-loss-tensor-grows-memory"]
    answer = (
        "The loss is not just a number: it still carries its grad_fn, so summing it into "
        "running_loss += loss chains each iteration's graph together and memory climbs "
        "linearly. Log loss.item() instead."
    )
    marks = pre_mark(card, answer)
    assert {0, 2, 4} <= marks.key_points_hit
    assert marks.red_flags_said == set()


def test_a_paraphrased_answer_on_backward_twice_hits_its_key_points(shipped):
    card = shipped["backward-twice-retain-graph"]
    answer = (
        "After backward the saved tensors are freed, so a second pass has nothing left. "
        "Usually a tensor from the previous iteration is still attached, so detach it; "
        "retain_graph=True only hides that and leaks."
    )
    marks = pre_mark(card, answer)
    assert {0, 1, 2, 4} <= marks.key_points_hit
    assert marks.red_flags_said == set()


def test_a_red_flag_stated_is_caught(shipped):
    marks = pre_mark(
        shipped["backward-twice-retain-graph"],
        "I'd just add retain_graph=True to the backward call and move on.",
    )
    assert 0 in marks.red_flags_said
    marks = pre_mark(
        shipped["keeping-loss-tensor-grows-memory"],
        "Call empty_cache after every step so the memory comes back.",
    )
    assert 3 in marks.red_flags_said


def test_a_red_flag_the_candidate_rejects_is_not_counted(shipped):
    card = shipped["keeping-loss-tensor-grows-memory"]
    for answer in (
        "To call empty_cache won't help: the graphs are still referenced.",
        "Don't call empty_cache; the graphs are still referenced.",
    ):
        marks = pre_mark(card, answer)
        assert 3 not in marks.red_flags_said, answer
        assert 1 in marks.key_points_hit, answer


def test_an_unrelated_answer_matches_nothing_on_any_shipped_card(shipped):
    answer = (
        "I would ask the product team about the deadline and write a design document "
        "before choosing a database."
    )
    for card in shipped.values():
        marks = pre_mark(card, answer)
        assert marks.key_points_hit == set() and marks.red_flags_said == set(), card.id
