"""Recognising an agent's echo of the prompt it was just sent.

Some agents (Mistral Vibe) repeat the user's prompt back as `user_message_chunk` updates
during the turn. The thread already shows the prompt, so those chunks must not become a
second user message. `PromptEcho` follows the chunks of one turn: as long as they spell out
the start of the prompt (whitespace differences aside) they are an echo; the first one that
does not is real content, and the text held back so far goes out with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from acp_tui.protocol.models import ContentBlock, TextContent


def _words(text: str) -> str:
    return " ".join(text.split())


class PromptEcho:
    """The text of the prompt just sent, and how much of it the agent has echoed so far."""

    def __init__(self, blocks: Sequence[ContentBlock]) -> None:
        self.expected = _words(" ".join(b.text for b in blocks if isinstance(b, TextContent)))
        self.held = ""  # echoed text not shown (given back if it turns out not to be an echo)

    def absorb(self, text: str) -> bool:
        """True if `text` continues the echo (then it is held back, not shown)."""
        if not self.expected:
            return False
        candidate = _words(self.held + text)
        if not self.expected.startswith(candidate):
            return False
        # a chunk that ends in whitespace must end where a word of the prompt ends
        if text[-1:].isspace() and self.expected[len(candidate) : len(candidate) + 1] not in (
            "",
            " ",
        ):
            return False
        self.held += text
        return True

    def not_an_echo(self) -> str:
        """The text held back, to show after all: none once the whole prompt was echoed."""
        return "" if _words(self.held) == self.expected else self.held
