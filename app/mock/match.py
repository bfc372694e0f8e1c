"""Pre-mark key points and red flags in a typed answer from the card's signal phrases.

The marks are a suggestion the candidate confirms or corrects, so the matcher aims to be
forgiving about wording without inventing hits:

- case and light inflection do not matter (`graphs`, `Graph`; `detached`, `detaching`);
- word order does not matter: a phrase matches when all its content words appear close
  together ("graph of the computation" matches "computation graph"); the window is the
  phrase's length plus at most as many words again, so a two-word phrase spread over a
  sentence is not found;
- stop words are ignored, so "the" or "is" never make a match on their own; but a phrase that
  would shrink to a single word keeps them ("if tensor" needs the `if`, or any answer
  mentioning a tensor would match it);
- the shorthand people type (`grads`, `init`, `lr`, `log(C)`) reads as the words it stands for,
  from one list for every card (`app.mock.shorthand`), and `-ize` as `-ise`;
- a call in a phrase (`cpu()`) matches only a call in the answer, not the word ("the CPU
  waits"), and `each` and `every` count as one word ("every iteration", "each iteration");
- a phrase's words must stand in one sentence, a red flag's in one clause (a comma ends it);
- a red flag preceded by a negation ("never call retain_graph=True to silence it") or
  followed closely by one ("empty_cache won't help") is not counted, because saying that a
  wrong thing is wrong is not saying the wrong thing.

The stemmer is a dozen suffix rules rather than a dependency: signals are short technical
phrases, and a full stemmer (or NLTK) would buy little for its weight.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.mock.shorthand import written_out
from questions.model import Card

STOP_WORDS = frozenset(
    """
a an the and or but if so as of to in on at by for with from into onto about over under
is are was were be been being am do does did done have has had having it its it's this that
these those there here then than too very just also only even such which who whom whose what
when where why how i me my we our you your he she they them their his her can could will would
should shall may might must one ones some any each every all both more most other same own
""".split()
)
"""Function words that carry no meaning on their own; dropped from phrases and answers alike."""

NEGATIONS = frozenset({"not", "no", "never", "nor", "without", "avoid", "instead", "neither"})
"""Words that, just before a red-flag phrase, mean the candidate is rejecting it."""

NEGATION_REACH = 4
"""How many words before a red-flag match a negation may stand and still cancel it."""

DENIALS = frozenset({"not", "no", "never"})
"""Negations that also cancel a red flag just after it ("empty_cache won't help")."""
DENIAL_REACH = 3
"""How many content words after a red-flag match a denial may come and still cancel it."""

WINDOW_SLACK = 4
"""Most extra words allowed among a phrase's words: the window is its length plus this, or plus
its length when that is smaller (two words may have at most two others between them)."""

_TOKEN = re.compile(r"[a-z0-9_]+\(?|[.,;:!?](?=\s|$)")
CALL = "()"
"""Marks a word written as a call (`cpu(`), which a phrase's call must find."""
SAME_WORD = {"each": "every"}
"""Words read as another: a phrase that keeps its stop words ("every iteration") should still
find the answer that says it the other way ("each iteration")."""
BOUNDARY = "|"
"""Stands for punctuation that ends a clause (not the dot in `loss.item()`): negation stops there."""
SENTENCE_END = "||"
"""Stands for a full stop, `!` or `?`: negation stops there, and a phrase's words must all be in
one sentence ("...and didn't. log gradients" does not say "don't log gradients")."""
BREAKS = frozenset({BOUNDARY, SENTENCE_END})
_SUFFIXES = ("edly", "ingly", "ings", "ing", "ed", "ly", "es", "s")
_MIN_STEM = 3


def stem(word: str) -> str:
    """Fold a lower-case word to a crude stem so inflected forms compare equal.

    `stores`, `stored`, `storing` and `store` all become `stor`; `memories` becomes `memory`.
    """
    if len(word) <= _MIN_STEM or "_" in word or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ation", "ations")):
        word = word[: word.rindex("ation") + 2]
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < _MIN_STEM:
            continue
        if suffix == "s" and word[-2] in "su":
            break
        word = word[: -len(suffix)]
        if suffix in ("ing", "ings", "ed", "edly", "ingly") and _doubled(word):
            word = word[:-1]
        break
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


def _doubled(word: str) -> bool:
    return len(word) > _MIN_STEM and word[-1] == word[-2] and word[-1] not in "lsz"


def tokens(text: str) -> list[str]:
    """Lower-case word stems of `text`, with `BOUNDARY` for clause-ending punctuation and
    `SENTENCE_END` for a sentence's end.

    Code like `loss.item()` yields `loss`, `item()`.
    """
    text = written_out(text.lower()).replace("’", "'").replace("n't", " not")
    text = text.replace("iz", "is")  # initialize, initialise: one spelling for both sides
    words = (SAME_WORD.get(word, word) for word in _TOKEN.findall(text))
    return [
        SENTENCE_END
        if word[0] in ".!?"
        else BOUNDARY
        if word[0] in ",;:"
        else stem(word[:-1]) + CALL
        if word.endswith("(")
        else stem(word)
        for word in words
    ]


def bare(words: Iterable[str]) -> list[str]:
    """The words with calls written as plain words (`detach()` as `detach`)."""
    return [word.removesuffix(CALL) for word in words]


@lru_cache(maxsize=4096)
def required_words(phrase: str) -> tuple[str, ...]:
    """The stems an answer must contain for `phrase` to match: its content words, or all its
    words when dropping the stop words would leave a several-word phrase with just one (a
    phrase of stop words alone requires nothing, so it never matches)."""
    words = tuple(word for word in tokens(phrase) if word not in BREAKS)
    content = tuple(word for word in words if word not in STOP_WORDS)
    return words if len(words) > 1 and len(content) == 1 else content


@dataclass(frozen=True)
class Mark:
    """One key point or red flag, and the phrase that matched it (None when nothing did)."""

    text: str
    matched_by: str | None = None

    @property
    def hit(self) -> bool:
        return self.matched_by is not None


@dataclass(frozen=True)
class Marks:
    """Pre-marks for one answer, in the card's order of key points and red flags."""

    key_points: tuple[Mark, ...]
    red_flags: tuple[Mark, ...]

    @property
    def key_points_hit(self) -> frozenset[int]:
        return frozenset(i for i, mark in enumerate(self.key_points) if mark.hit)

    @property
    def red_flags_said(self) -> frozenset[int]:
        return frozenset(i for i, mark in enumerate(self.red_flags) if mark.hit)


def find_phrase(
    phrase: str,
    answer: Sequence[str],
    *,
    reject_negated: bool = False,
    plain: Sequence[str] | None = None,
) -> bool:
    """Whether all required words of `phrase` occur within one window of the answer's stems.

    With `reject_negated`, an occurrence preceded closely by a negation does not count, unless
    the phrase itself contains one ("no graph" is then matched literally). `plain` is
    `bare(answer)`, for a caller that tries many phrases on one answer.
    """
    needed = required_words(phrase)
    if not needed:
        return False
    wanted = set(bare(needed))
    calls = {word for word in needed if word.endswith(CALL)}
    plain = bare(answer) if plain is None else plain
    window = len(needed) + min(WINDOW_SLACK, len(needed))
    check_negation = reject_negated and not NEGATIONS.intersection(needed)
    for start, word in enumerate(plain):
        if word not in wanted:
            continue
        end = _break(plain, start, start + window, BREAKS if reject_negated else {SENTENCE_END})
        if not wanted.issubset(plain[start:end]) or not calls.issubset(answer[start:end]):
            continue
        if check_negation and _negated(answer, start, needed, window):
            continue
        return True
    return False


def _break(words: Sequence[str], start: int, end: int, breaks: Iterable[str]) -> int:
    """`end`, or the first of `breaks` from `start` when that comes first: a key point's words
    must be in one sentence, a red flag's (one claim) in one clause."""
    stops = set(breaks)
    return next((i for i in range(start, min(end, len(words))) if words[i] in stops), end)


def _negated(answer: Sequence[str], start: int, needed: Sequence[str], window: int) -> bool:
    """A negation shortly before the match, or a denial shortly after it, in the same clause."""
    before = _clause(reversed(answer[max(0, start - NEGATION_REACH) : start]))
    if NEGATIONS.intersection(before):
        return True
    wanted = set(bare(needed))
    end = max(
        start + i for i, word in enumerate(bare(answer[start : start + window])) if word in wanted
    )
    after = [
        word
        for word in _clause(answer[end + 1 : end + 1 + 3 * DENIAL_REACH])
        if word not in STOP_WORDS
    ]
    return bool(DENIALS.intersection(after[:DENIAL_REACH]))


def _clause(words: Iterable[str]) -> list[str]:
    """The words up to the first clause boundary."""
    result = []
    for word in words:
        if word in BREAKS:
            break
        result.append(word)
    return result


def _first_match(
    phrases: Iterable[str], answer: Sequence[str], plain: Sequence[str], *, reject_negated: bool
) -> str | None:
    return next(
        (p for p in phrases if find_phrase(p, answer, reject_negated=reject_negated, plain=plain)),
        None,
    )


def pre_mark(card: Card, answer: str) -> Marks:
    """Mark which of the card's key points and red flags the typed `answer` seems to state.

    Each is tried by its signal phrases first, then by its own text.
    """
    words = tokens(answer)
    plain = bare(words)
    key_points = tuple(
        Mark(kp.point, _first_match([*kp.signals, kp.point], words, plain, reject_negated=False))
        for kp in card.key_points
    )
    red_flags = tuple(
        Mark(rf.flag, _first_match([*rf.signals, rf.flag], words, plain, reject_negated=True))
        for rf in card.red_flags
    )
    return Marks(key_points, red_flags)
