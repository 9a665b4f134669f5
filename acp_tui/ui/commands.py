"""Command palette entries (ctrl+p) for what the agent offers: model, thought level.

Each entry is offered only when the main screen is the one the palette was opened from and the
agent has what it needs (e.g. a model option or a `models` list).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from acp_tui.thread.config_options import MODEL, THOUGHT_LEVEL, option_by_category

Entry = tuple[str, str, Callable[[], object]]


class SessionCommands(Provider):
    """Palette entries for what the agent offers (the model and thought level pickers, when it has
    them) and the main screen's extra commands."""

    def _entries(self) -> list[Entry]:
        from acp_tui.ui.screens.main import MainScreen

        screen = self.screen
        if not isinstance(screen, MainScreen):
            return []
        thread = screen.session.thread
        entries: list[Entry] = []
        if option_by_category(thread.config_options, MODEL) or thread.models is not None:
            entries.append(
                ("Model: choose…", "Pick the agent's model", partial(screen.pick_setting, MODEL))
            )
        if option_by_category(thread.config_options, THOUGHT_LEVEL):
            entries.append(
                (
                    "Thought level: choose…",
                    "Pick how hard the model thinks",
                    partial(screen.pick_setting, THOUGHT_LEVEL),
                )
            )
        entries.extend(screen.extra_commands())
        return entries

    async def discover(self) -> Hits:
        """Every entry that applies now, for the palette before anything is typed."""
        for name, help_text, callback in self._entries():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:
        """The entries whose name matches `query`, best first."""
        matcher = self.matcher(query)
        for name, help_text, callback in self._entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
