"""The current screen's commands, for the command palette and the help dialog alike.

Generated from the bindings, so the palette, the help and the footer can never disagree. Each
binding's `tooltip` is its sentence of description. Bindings of the focused widget (cursor
keys, undo...) are left out: they are not commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

# Textual's own bindings on every screen (tab, shift+tab, copy, quit) and the palette's own key:
# not this screen's commands, and Quit is already among the palette's system commands.
_NOT_COMMANDS = {b.action for b in [*Screen.BINDINGS, *App.BINDINGS] if isinstance(b, Binding)} | {
    "command_palette"
}


@dataclass(frozen=True)
class Command:
    name: str
    """The binding's short description, as the footer shows it."""
    keys: str
    """Every key that runs it, as the footer writes them (`^n`, `enter, p`)."""
    description: str
    """The sentence saying what it does."""
    run: partial


def screen_commands(screen: Screen) -> list[Command]:
    """The enabled commands of `screen` and of the app, one per description, in binding order."""
    app = screen.app
    found: dict[str, tuple[list[str], str, partial]] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if active.node not in (screen, app) or not binding.description or not active.enabled:
            continue
        if binding.action in _NOT_COMMANDS:
            continue
        key = app.get_key_display(binding)
        if binding.description in found:
            found[binding.description][0].append(key)
        else:
            run = partial(active.node.call_later, active.node.run_action, binding.action)
            found[binding.description] = ([key], binding.tooltip, run)
    return [
        Command(name, ", ".join(dict.fromkeys(keys)), tooltip, run)
        for name, (keys, tooltip, run) in found.items()
    ]


class ScreenCommands(Provider):
    """Offers every command of the screen under the palette, with its key and what it does."""

    def _commands(self) -> list[Command]:
        return sorted(screen_commands(self.screen), key=lambda command: command.name)

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.name, command.run, help=_help(command))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = matcher.match(f"{command.name} {command.description}")
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, help=_help(command))


class PaletteCommands(ScreenCommands):
    """The palette's one provider: the screen's commands first, then the system commands grill
    keeps (Quit, Maximize, Screenshot...). One provider, so the order is fixed: with Textual's
    own provider beside it, the palette listed whichever answered first, usually Textual's."""

    def _system(self) -> list[tuple[str, str, partial]]:
        return [
            (command.title, command.help, partial(self.app.call_later, command.callback))
            for command in self.app.get_system_commands(self.screen)
        ]

    async def discover(self) -> Hits:
        async for hit in super().discover():
            yield hit
        for title, help, run in self._system():
            yield DiscoveryHit(title, run, help=help)

    async def search(self, query: str) -> Hits:
        async for hit in super().search(query):
            yield hit
        matcher = self.matcher(query)
        for title, help, run in self._system():
            score = matcher.match(f"{title} {help}")
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help)


def _help(command: Command) -> str:
    return f"{command.keys} · {command.description}" if command.description else command.keys
