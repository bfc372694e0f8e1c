"""The settings the app remembers between runs, with defaults, kept in the history database.

Headless: no Textual here. A stored value that is not valid (edited by hand, or from an older
grill) falls back to its default instead of breaking the app. A setting stored under an older
name is read under that name until the settings are next saved, under the new one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Literal, get_args

from app.clock import DEFAULT_DAY_START_HOUR
from app.progress.scheduler import (
    DEFAULT_LEARNING_STEPS,
    DEFAULT_RELEARNING_STEPS,
    DEFAULT_RETENTION,
    Scheduling,
)
from checkers.inputs import Range
from checkers.verdict import DEVICES, Device
from questions.levels import LEVELS, Level

if TYPE_CHECKING:
    from app.progress.history import History

Theme = Literal["dark", "light"]
THEMES: tuple[Theme, ...] = get_args(Theme)
TEXTUAL_THEMES: dict[Theme, str] = {"dark": "textual-dark", "light": "textual-light"}
FORMER_NAMES = {"level": "tier"}
"""Setting -> the name an older grill stored it under."""
NEW_PER_DAY = Range("new cards per day", 0, 500, whole=True)
NEW_PER_PACK = Range("new cards per day per pack", 0, 500, whole=True)
DAY_STARTS_AT = Range("hour the day starts at", 0, 23, whole=True)


@dataclass(frozen=True)
class Settings:
    level: Level = "middle"
    """The seniority whose tier answer is revealed while practising (switchable per card), and
    the level a mock started from home interviews for."""
    device: Device = "auto"
    """Where code tasks run: `auto` takes CUDA when the machine has it."""
    new_per_day: int = 10
    """How many never-seen cards join today's queues each day, over every pack."""
    new_per_pack: int = 10
    """How many of them one pack may give each day (Anki's per-deck limit)."""
    desired_retention: float = DEFAULT_RETENTION
    """The chance of recalling a card when it comes due that the scheduler works to (fsrs's,
    as Anki has it): 0.9 by default, higher brings cards back sooner. The history reads it
    (`History.scheduling`) for every rating it schedules."""
    learning_steps: str = DEFAULT_LEARNING_STEPS
    """Anki's learning steps, e.g. "1m 10m": when a new card is shown again before it
    graduates to review (`app.progress.scheduler.parse_steps`)."""
    relearning_steps: str = DEFAULT_RELEARNING_STEPS
    """The same for a review card rated Again."""
    day_starts_at: int = DEFAULT_DAY_START_HOUR
    """The local hour a new day starts at (Anki's "next day starts at"): today's queue, the
    daily new-card limit, streaks and `grill queue` count days from it (`app.clock`)."""
    theme: Theme = "dark"
    welcomed: bool = False
    """Whether the first-run screen was shown and closed."""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        NEW_PER_DAY.check(self.new_per_day)  # OutOfRange is a ValueError
        NEW_PER_PACK.check(self.new_per_pack)
        Scheduling(self.desired_retention, self.learning_steps, self.relearning_steps)
        DAY_STARTS_AT.check(self.day_starts_at)
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}, not {self.theme!r}")
        if not isinstance(self.welcomed, bool):
            raise ValueError(f"welcomed must be true or false, not {self.welcomed!r}")

    @classmethod
    def load(cls, history: History | None) -> Settings:
        """Read each setting, keeping the default for any missing or invalid one."""
        settings = cls()
        if history is None:
            return settings
        for item in fields(cls):
            default = getattr(settings, item.name)
            if item.name in FORMER_NAMES:
                default = history.get_setting(FORMER_NAMES[item.name], default)
            stored = history.get_setting(item.name, default)
            try:
                settings = replace(settings, **{item.name: stored})
            except ValueError:
                continue
        return settings

    def save(self, history: History) -> None:
        for item in fields(self):
            history.set_setting(item.name, getattr(self, item.name))

    @property
    def textual_theme(self) -> str:
        return TEXTUAL_THEMES[self.theme]
