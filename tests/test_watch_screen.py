"""`grill task watch` on a terminal: one screen per verdict, headline on the first line, the
details that fit its height (essential first), the rest named and shown with `--full`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from app.commands.task import WatchView
from app.practice.watch import Graded
from app.practice.watch_screen import fit, rows
from checkers.verdict import Expectation, Retained, Verdict
from questions.loader import load_library

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PACKS = ROOT / "tests" / "ui" / "fixtures" / "packs"


def a_long_leak() -> Verdict:
    """Every section a leak can have, and 15 lines of output: some 70 rows in all."""
    return Verdict(
        verdict="leak",
        device="cpu",
        steps=60,
        pattern="monotonic",
        growth_bytes_per_step=3500.0,
        samples=tuple(3500.0 * i for i in range(60)),
        retained=tuple(Retained(f"losses[{i}]", "MeanBackward0", 6, 0, 14) for i in range(12)),
        message="`losses` holds tensors that still carry their graph.",
        hint="Append `loss.item()` rather than `loss`.",
        expectations=(
            Expectation("trains", True, "the loss falls"),
            Expectation("same:ema", False, "`ema` differs from the solution's"),
        ),
        output="".join(f"step {i}\n" for i in range(40)),
        extra={"retained_total": 12},
    )


@pytest.fixture
def screen(monkeypatch, capsys):
    """What one verdict puts on a terminal of the given size."""

    def show(lines: int, columns: int = 100, *, full: bool = False) -> list[str]:
        card = load_library([FIXTURE_PACKS]).card("running-loss")
        view = WatchView(card, Path("fix.py"), None, full=full)
        view.tty = True
        monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((columns, lines)))
        view.show(Graded("code", a_long_leak(), 1.5))
        out = capsys.readouterr().out
        return out.split("\x1b[3J", 1)[1].split("\n")

    return show


@pytest.mark.parametrize("lines", [24, 30, 40])
def test_the_headline_and_when_it_was_checked_lead_and_the_screen_fits_the_terminal(screen, lines):
    shown = screen(lines)
    assert shown[0].startswith("LEAK:")
    assert "checked at" in shown[1] and "in 1.50 s" in shown[1]
    # the cursor's row, and the line the next save prints, still fit below
    assert rows("\n".join(shown), 100) + 1 <= lines
    assert "Watching fix.py" in shown[-2]


def test_what_was_left_out_is_named_and_the_essentials_are_kept(screen):
    text = "\n".join(screen(30))
    assert "`losses` holds tensors" in text
    assert "Hint: Append `loss.item()`" in text
    assert "NO  `ema` differs" in text
    assert "left out to fit the screen: " in text and "output" in text
    assert "--full shows all" in text
    assert "step 39" not in text


def test_full_shows_every_detail_whatever_the_height(screen):
    text = "\n".join(screen(24, full=True))
    assert "step 39" in text and "losses[9]" in text
    assert "left out" not in text


def test_an_essential_section_taller_than_the_room_left_is_cut_saying_how_much():
    details = [("message", "a\nb\nc\nd\ne\nf"), ("output", "x")]
    fitted = fit(details, frozenset({"message"}), budget=4, width=80)
    assert fitted.text.split("\n") == ["a", "b", "c", "  … 3 more lines"]
    assert fitted.left_out == ("message", "output")


def test_a_section_that_does_not_fit_leaves_room_for_a_smaller_one_after_it():
    details = [("message", "m"), ("memory curve", "1\n2\n3\n4\n5"), ("notes", "n")]
    fitted = fit(details, frozenset({"message"}), budget=3, width=80)
    assert fitted.text == "m\n\nn"
    assert fitted.left_out == ("memory curve",)


def test_a_long_line_counts_the_rows_it_wraps_to():
    assert rows("x" * 250, 100) == 3
    assert rows("a\n\nb", 100) == 3
