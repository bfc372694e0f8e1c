"""Settings: the tier you practise at, where code runs, new cards per day, and the theme."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.validation import Integer, Number
from textual.widgets import Button, Input, Label, Select

from app.progress.scheduler import RETENTION
from app.ui.base import GrillDialog
from app.ui.code_runner import cuda_device_present
from app.ui.settings import DEVICES, THEMES, Settings
from questions.levels import LEVELS

NO_CUDA_HERE = "This machine has no CUDA device: code tasks set to cuda will not run."


class SettingsDialog(GrillDialog[Settings | None]):
    """Returns the edited Settings, or None when cancelled."""

    HELP = (
        "What grill remembers between runs: the tier whose answer practice reveals, where code "
        "tasks run, how many new cards join each day's queue, and the theme."
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
            yield Label("New cards per day, over every pack and from one pack (0 to 500)")
            with Horizontal(id="settings-new-cards"):
                yield Input(
                    str(s.new_per_day),
                    id="settings-new-per-day",
                    type="integer",
                    compact=True,
                    validators=[Integer(minimum=0, maximum=500)],
                )
                yield Input(
                    str(s.new_per_pack),
                    id="settings-new-per-pack",
                    type="integer",
                    compact=True,
                    validators=[Integer(minimum=0, maximum=500)],
                )
            yield Label("Desired retention: chance to recall a card when due (0.7 to 0.99)")
            yield Input(
                f"{s.desired_retention:g}",
                id="settings-retention",
                type="number",
                compact=True,
                validators=[Number(minimum=RETENTION.low, maximum=RETENTION.high)],
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
        for field, what in (
            (new_per_day, "New cards per day must be a whole number from 0 to 500."),
            (new_per_pack, "New cards per pack must be a whole number from 0 to 500."),
            (retention, "Desired retention must be a number from 0.7 to 0.99."),
        ):
            result = field.validate(field.value)
            if result is not None and not result.is_valid:
                self.query_one("#settings-error", Label).update(what)
                field.focus()
                return
        self.dismiss(
            replace(
                self.settings,
                level=self._chosen("#settings-level"),
                device=self._chosen("#settings-device"),
                new_per_day=int(new_per_day.value),
                new_per_pack=int(new_per_pack.value),
                desired_retention=float(retention.value),
                theme=self._chosen("#settings-theme"),
            )
        )

    def _chosen(self, selector: str) -> Any:
        """A select's value; never blank, since none of them allows it (Settings checks the rest)."""
        return self.query_one(selector, Select).selection

    @on(Button.Pressed, "#settings-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
