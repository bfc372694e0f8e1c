"""A running answer clock, measured against the card's basic and solid budgets."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static


def mmss(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class AnswerClock(Static):
    """Counts up from when the card was shown until `stop`; turns warning past basic, red past
    solid. `pause` holds it while the candidate is away from the answer (on the code task) and
    `resume` goes on from where it was: the clock times the answer, not the card."""

    DEFAULT_CSS = """
    AnswerClock { width: auto; padding: 0 1; }
    AnswerClock.-over-basic { color: $warning; }
    AnswerClock.-over-solid { color: $error; }
    AnswerClock.-stopped { text-style: dim; }
    """

    def __init__(
        self, clock: Callable[[], float], *, basic: int, solid: int, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._started = clock()
        self._stopped: float | None = None
        self._paused_at: float | None = None
        self._shown: Text | None = None
        self.basic, self.solid = basic, solid

    @property
    def elapsed(self) -> float:
        if self._stopped is not None:
            end = self._stopped
        elif self._paused_at is not None:
            end = self._paused_at
        else:
            end = self._clock()
        return end - self._started

    @property
    def running(self) -> bool:
        return self._stopped is None and self._paused_at is None

    def pause(self) -> None:
        if self.running:
            self._paused_at = self._clock()
            self._tick()

    def resume(self) -> None:
        if self._paused_at is not None and self._stopped is None:
            self._started += self._clock() - self._paused_at
            self._paused_at = None
            self._tick()

    def on_mount(self) -> None:
        self._tick()
        self._timer = self.set_interval(0.5, self._tick)

    def stop(self) -> None:
        if self._stopped is None:
            self._stopped = self._paused_at if self._paused_at is not None else self._clock()
            self._paused_at = None
            self._timer.stop()
            self.add_class("-stopped")
            self._tick()

    def _tick(self) -> None:
        elapsed = self.elapsed
        self.set_class(self.basic <= elapsed < self.solid, "-over-basic")
        self.set_class(elapsed >= self.solid, "-over-solid")
        # ⏸ rather than the word "stopped": the meta line then fits 80 columns either way.
        icon = "⏱" if self.running else "⏸"
        text = Text.assemble(
            (f"{icon} {mmss(elapsed)}", "bold"),
            f" · basic {mmss(self.basic)} · solid {mmss(self.solid)}",
        )
        # It ticks twice a second: a tick that changes nothing shown draws nothing, and a new time
        # as wide as the last lays out nothing (a layout reflows the whole screen).
        if text != self._shown:
            widened = self._shown is None or text.cell_len != self._shown.cell_len
            self.update(text, layout=widened)
            self._shown = text
