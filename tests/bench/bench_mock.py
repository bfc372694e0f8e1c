"""What the mock matcher costs and what it buys over a plain substring search.

Prints, in one run on the shipped autograd-memory cards:
- pre-marking time per answer (all key points and red flags of one card) for the matcher and
  for a case-insensitive substring search over the same signal phrases, with their ratio;
- on a few hand-written answers (paraphrases, a stated red flag, a rejected red flag), how
  many of the expected marks each finds, and how many wrong marks each makes;
- the time to draw 5 questions from 1,000 cards.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.mock.draw import Standing, draw  # noqa: E402
from app.mock.match import pre_mark  # noqa: E402
from questions.library import LoadedCard  # noqa: E402
from questions.loader import load_library  # noqa: E402
from questions.model import Card  # noqa: E402

PACK = ROOT / "questions" / "autograd-memory"

# (card id, answer, key points expected, red flags expected)
ANSWERS = [
    (
        "keeping-loss-tensor-grows-memory",
        "The loss is not just a number: it still carries its grad_fn, so summing it into running_loss "
        "chains each iteration's graph together and memory climbs linearly. Log loss.item() instead.",
        {0, 2, 3, 4},
        set(),
    ),
    (
        "keeping-loss-tensor-grows-memory",
        "It holds the graph that autograd recorded for every step, because we keep accumulating the "
        "raw tensor into the total.",
        {0, 2},
        set(),
    ),
    (
        "keeping-loss-tensor-grows-memory",
        "Don't call empty_cache; the graphs are still referenced by the total.",
        {1},
        set(),
    ),
    (
        "keeping-loss-tensor-grows-memory",
        "Call empty_cache after every step so the memory comes back.",
        set(),
        {3},
    ),
    (
        "backward-twice-retain-graph",
        "After backward the saved tensors are freed, so a second pass has nothing left. Usually a "
        "tensor from the previous iteration is still attached, so detach it; retain_graph=True only "
        "hides that and leaks.",
        {0, 1, 2, 4},
        set(),
    ),
    (
        "backward-twice-retain-graph",
        "I'd just add retain_graph=True to the backward call and move on.",
        {2},
        {0},
    ),
]


def substring_marks(card: Card, answer: str) -> tuple[set[int], set[int]]:
    """The naive baseline: a signal counts when it appears verbatim, ignoring case."""
    text = answer.lower()
    points = {
        i for i, kp in enumerate(card.key_points) if any(s.lower() in text for s in kp.signals)
    }
    flags = {i for i, rf in enumerate(card.red_flags) if any(s.lower() in text for s in rf.signals)}
    return points, flags


def matcher_marks(card: Card, answer: str) -> tuple[set[int], set[int]]:
    marks = pre_mark(card, answer)
    return set(marks.key_points_hit), set(marks.red_flags_said)


def per_call_us(action, cards: list[Card], answer: str, repeats: int = 5) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for card in cards:
            action(card, answer)
        runs.append((time.perf_counter() - start) / len(cards))
    return statistics.median(runs) * 1e6


def timing(cards: list[Card]) -> None:
    words = " ".join(a for _, a, _, _ in ANSWERS).split()
    print(f"{'answer length':>14} {'matcher':>10} {'substring':>10} {'ratio':>7}")
    for length in (50, 200):
        answer = " ".join((words * 10)[:length])
        ours = per_call_us(matcher_marks, cards, answer)
        naive = per_call_us(substring_marks, cards, answer)
        print(f"{length:>9} words {ours:8.0f}µs {naive:8.1f}µs {ours / naive:7.0f}")


def quality(by_id: dict[str, Card]) -> None:
    print(f"{'':40} {'matcher':>14} {'substring':>14}")
    totals = {"matcher": [0, 0], "substring": [0, 0]}
    expected_total = 0
    for card_id, answer, points, flags in ANSWERS:
        card = by_id[card_id]
        expected = {("kp", i) for i in points} | {("rf", i) for i in flags}
        expected_total += len(expected)
        row = []
        for name, marker in (("matcher", matcher_marks), ("substring", substring_marks)):
            got_points, got_flags = marker(card, answer)
            got = {("kp", i) for i in got_points} | {("rf", i) for i in got_flags}
            found, wrong = len(expected & got), len(got - expected)
            totals[name][0] += found
            totals[name][1] += wrong
            row.append(f"{found}/{len(expected)} +{wrong} wrong")
        print(f"{answer[:38] + '…':40} {row[0]:>14} {row[1]:>14}")
    print(
        f"{'total':40} {totals['matcher'][0]}/{expected_total} +{totals['matcher'][1]} wrong"
        f"   {totals['substring'][0]}/{expected_total} +{totals['substring'][1]} wrong"
    )


def draw_time(loaded: list[LoadedCard]) -> None:
    many = [
        LoadedCard(c.card.model_copy(update={"id": f"{c.card.id}-{n}"}), c.path, c.pack)
        for n in range(1000 // len(loaded) + 1)
        for c in loaded
    ][:1000]
    standings = {c.card.id: Standing(seen=True, last_rating="hard") for c in many[::3]}
    runs = []
    for seed in range(20):
        start = time.perf_counter()
        draw(many, 5, level="principal", rng=random.Random(seed), standings=standings)
        runs.append(time.perf_counter() - start)
    print(f"draw 5 of {len(many)} cards: {statistics.median(runs) * 1e3:.2f} ms (median of 20)")


def main() -> None:
    library = load_library([PACK])
    loaded = library.cards
    by_id = {c.card.id: c.card for c in loaded}
    timing(list(by_id.values()))
    quality(by_id)
    draw_time(loaded)


if __name__ == "__main__":
    main()
