"""The footer every screen shows: Textual's, compact, rebuilt only when what it shows changes.

Textual's footer composes all of its keys again on every update of the screen's bindings: each
focus change, each screen shown, each action's state checked, whether anything it shows changed
or not (eleven rebuilds to open a card's code task). And each key it mounts is styled twice,
the compact class being added only once the key is mounted. Here a rebuild happens only when
the keys, their descriptions, whether they are enabled or their tooltips change, and a key is
made compact as it is made.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=True)
        self._composed_for: object = None

    def _shown(self) -> object:
        """What the footer would show for the screen's bindings now."""
        return [
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING
        ]

    def compose(self) -> ComposeResult:
        self._composed_for = self._shown() if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        if self._bindings_ready and self.is_attached and screen is self.screen:
            if self._shown() == self._composed_for:
                return
        super().bindings_changed(screen)
