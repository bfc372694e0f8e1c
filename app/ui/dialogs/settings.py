"""Settings: the tier you practise at, where code runs, new cards per day, the scheduler's
settings (Anki's: desired retention, when the day starts, learning steps), and the theme."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.validation import Integer, Number
from textual.widgets import Button, Input, Label, Select

from app.progress.scheduler import RETENTION, parse_steps
from app.ui.base import GrillDialog
from app.ui.code_runner import cuda_device_present
from app.ui.settings import DEVICES, THEMES, Settings
from questions.levels import LEVELS

NO_CUDA_HERE = "This machine has no CUDA device: code tasks set to cuda will not run."


class SettingsDialog(GrillDialog[Settings | None]):
    """Returns the edited Settings, or None when cancelled."""

    HELP = (
        "What grill remembers between runs: the tier whose answer practice reveals, where code "
        "tasks run, how many new cards join each day's queue, how the scheduler spaces them "
        "(as Anki's options: steps such as 1m 10m; the hour a new day starts), and the theme."
    )
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True, tooltip="Keep these settings."),
        Binding("escape", "cancel", "Cancel", tooltip="Close without changing anything."),
    ]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        s = self.settings
        with Vertical(id="settings", classes="dialog"):
            yield Label("Settings", id="settings-title", classes="dialog-title")
            yield Label("Tier you practise at")
            yield Select(
                [(level, level) for level in LEVELS],
                value=s.level,
                allow_blank=False,
                compact=True,
                id="settings-level",
            )
            yield Label("Device for code tasks (auto takes CUDA when present)")
            yield Select(
                [(d, d) for d in DEVICES],
                value=s.device,
                allow_blank=False,
                compact=True,
                id="settings-device",
            )
            yield Label("", id="settings-device-warning", markup=False)
            yield Label("New cards a day, over all packs and per pack; desired retention")
            with Horizontal(id="settings-new-cards", classes="settings-row"):
                yield Input(
                    str(s.new_per_day),
                    id="settings-new-per-day",
                    type="integer",
                    compact=True,
                    tooltip="New cards per day over every pack, 0 to 500.",
                    validators=[Integer(minimum=0, maximum=500)],
                )
                yield Input(
                    str(s.new_per_pack),
                    id="settings-new-per-pack",
                    type="integer",
                    compact=True,
                    tooltip="New cards per day from one pack, 0 to 500.",
                    validators=[Integer(minimum=0, maximum=500)],
                )
                yield Input(
                    f"{s.desired_retention:g}",
                    id="settings-retention",
                    type="number",
                    compact=True,
                    tooltip="The chance to recall a card when it is due, 0.7 to 0.99: "
                    "higher brings cards back sooner.",
                    validators=[Number(minimum=RETENTION.low, maximum=RETENTION.high)],
                )
            yield Label("Hour the day starts at; learning and relearning steps (as 1m 10m)")
            with Horizontal(id="settings-scheduling", classes="settings-row"):
                yield Input(
                    str(s.day_starts_at),
                    id="settings-day-start",
                    type="integer",
                    compact=True,
                    tooltip="The local hour a new day starts at, 0 to 23 (4 by default).",
                    validators=[Integer(minimum=0, maximum=23)],
                )
                yield Input(
                    s.learning_steps,
                    id="settings-learning-steps",
                    compact=True,
                    tooltip="When a new card comes back before it graduates: 1m 10m by default.",
                )
                yield Input(
                    s.relearning_steps,
                    id="settings-relearning-steps",
                    compact=True,
                    tooltip="When a forgotten card comes back: 10m by default.",
                )
            yield Label("Theme")
            yield Select(
                [(t, t) for t in THEMES],
                value=s.theme,
                allow_blank=False,
                compact=True,
                id="settings-theme",
            )
            yield Label("", id="settings-error")
            with Horizontal(id="settings-buttons"):
                yield Button("Save (ctrl+s)", variant="primary", compact=True, id="settings-save")
                yield Button("Cancel (esc)", compact=True, id="settings-cancel")

    def on_mount(self) -> None:
        self._warn_about_device(self.settings.device)

    @on(Select.Changed, "#settings-device")
    def _device_changed(self, event: Select.Changed) -> None:
        self._warn_about_device(event.value)

    def _warn_about_device(self, device: object) -> None:
        warning = self.query_one("#settings-device-warning", Label)
        missing = device == "cuda" and not cuda_device_present()
        warning.update(NO_CUDA_HERE if missing else "")
        warning.display = missing

    @on(Button.Pressed, "#settings-save")
    def action_save(self) -> None:
        new_per_day = self.query_one("#settings-new-per-day", Input)
        new_per_pack = self.query_one("#settings-new-per-pack", Input)
        retention = self.query_one("#settings-retention", Input)
        day_start = self.query_one("#settings-day-start", Input)
        for field, what in (
            (new_per_day, "New cards per day must be a whole number from 0 to 500."),
            (new_per_pack, "New cards per pack must be a whole number from 0 to 500."),
            (retention, "Desired retention must be a number from 0.7 to 0.99."),
            (day_start, "The day must start at a whole hour from 0 to 23."),
        ):
            result = field.validate(field.value)
            if result is not None and not result.is_valid:
                self._refuse(field, what)
                return
        steps = {}
        for name in ("learning", "relearning"):
            field = self.query_one(f"#settings-{name}-steps", Input)
            try:
                parse_steps(field.value, f"{name.capitalize()} steps")
            except ValueError as error:
                self._refuse(field, f"{error}.")
                return
            steps[name] = " ".join(field.value.split())
        self.dismiss(
            replace(
                self.settings,
                level=self._chosen("#settings-level"),
                device=self._chosen("#settings-device"),
                new_per_day=int(new_per_day.value),
                new_per_pack=int(new_per_pack.value),
                desired_retention=float(retention.value),
                learning_steps=steps["learning"],
                relearning_steps=steps["relearning"],
                day_starts_at=int(day_start.value),
                theme=self._chosen("#settings-theme"),
            )
        )

    def _refuse(self, field: Input, message: str) -> None:
        self.query_one("#settings-error", Label).update(message)
        field.focus()

    def _chosen(self, selector: str) -> Any:
        """A select's value; never blank, since none of them allows it (Settings checks the rest)."""
        return self.query_one(selector, Select).selection

    @on(Button.Pressed, "#settings-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
