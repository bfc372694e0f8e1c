"""Command palette: the current screen's key bindings, searchable by what they do."""

from __future__ import annotations

from functools import partial

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

# Textual's own bindings on every screen (tab, shift+tab, ctrl+c, ctrl+q): not this screen's
# commands, and Quit is already among the palette's system commands.
_TEXTUAL_BINDINGS = {(b.key, b.action) for b in [*Screen.BINDINGS, *App.BINDINGS]}


class ScreenCommands(Provider):
    """Offers every enabled binding of the screen under the palette (and the app's), by description.

    Generated from the bindings, so the palette and the footer can never disagree. Bindings of
    the focused widget (cursor keys, undo...) are left out: they are not commands.
    """

    def _commands(self) -> list[tuple[str, partial]]:
        commands: dict[str, partial] = {}
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if active.node not in (self.screen, self.app) or (binding.key, binding.action) in _TEXTUAL_BINDINGS:
                continue
            if active.enabled and binding.description and binding.description not in commands:
                commands[binding.description] = partial(active.node.call_later, active.node.run_action, binding.action)
        return sorted(commands.items())

    async def discover(self) -> Hits:
        for name, run in self._commands():
            yield DiscoveryHit(name, run, help=f"{type(self.screen).__name__.removesuffix('Screen')} command")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, run in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help="on this screen")
