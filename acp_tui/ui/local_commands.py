"""acp-tui's own slash commands (typed `//name`, shown in the completion list labelled acp-tui;
see `composer/slash.py`) and the command palette entries for them."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

from acp_tui.composer.slash import SlashCommand

LOCAL_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("export", "Write the conversation as Markdown", "[path]", local=True),
    SlashCommand(
        "copy",
        "Copy the last agent message (//copy code: its last code block)",
        "[code]",
        local=True,
    ),
    SlashCommand("editor", "Edit the prompt in $EDITOR (ctrl+g)", None, local=True),
    SlashCommand("sessions", "Earlier sessions: open, fork, delete (f5)", None, local=True),
    SlashCommand("model", "Pick the model (f6)", None, local=True),
    SlashCommand("clear", "Start a new session in this directory", None, local=True),
    SlashCommand("rewind", "Edit an earlier prompt, files as they were (e)", None, local=True),
    SlashCommand(
        "all", "Send the prompt to every open session (ctrl+t opens one)", "PROMPT", local=True
    ),
)


class LocalCommandsProvider(Provider):
    """The local commands in the command palette (ctrl+p)."""

    def _commands(self) -> list[tuple[str, str, str]]:
        return [
            ("Export conversation as Markdown", "export", "to .acp-tui/ in the session dir"),
            ("Copy last agent message", "copy", "system clipboard or OSC 52"),
            ("Copy last code block", "copy code", "from the last agent message"),
            ("Edit prompt in $EDITOR", "editor", "reads it back when the editor exits"),
            ("New session (//clear)", "clear", "a new session in this directory"),
            ("Rewind to an earlier prompt (//rewind)", "rewind", "files as they were, edit, go"),
        ]

    def _run(self, line: str) -> None:
        from acp_tui.ui.widgets.composer import Composer

        name, _, args = line.partition(" ")
        self.screen.post_message(Composer.LocalCommand(name, args))

    async def discover(self) -> Hits:
        """Every local command, for the palette before anything is typed."""
        for title, line, help_text in self._commands():
            yield DiscoveryHit(title, lambda line=line: self._run(line), help=help_text)

    async def search(self, query: str) -> Hits:
        """The local commands whose title matches `query`, best first."""
        matcher = self.matcher(query)
        for title, line, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), lambda line=line: self._run(line),
                          help=help_text)  # fmt: skip
