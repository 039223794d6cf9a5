"""The command palette: every action of the workstation, searchable."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider


class MemtuiCommands(Provider):
    """memtui's actions (`memory: Archive`, `view: History`, ...)."""

    def _commands(self):  # type: ignore[no-untyped-def]
        app = self.app
        return app.palette_commands() if hasattr(app, "palette_commands") else []

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
