"""The command palette: the actions of the screen it was opened on, searchable."""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

PaletteCommand = tuple[str, Callable[[], object], str]


class MemtuiCommands(Provider):
    """memtui's actions for the screen the palette was opened from (`memory: Archive` on the main screen,
    `review: Archive` on a review card, ...). A screen lists them in `palette_commands()`. A screen without
    any offers none, so a command never acts on a screen that is not shown."""

    def _commands(self) -> list[PaletteCommand]:
        screen = self.screen
        own = getattr(screen, "palette_commands", None)
        return list(own()) if callable(own) else []

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
