"""What launching does before anything heavy is imported: the layout skeleton drawn
(`first_frame.py`), the keys typed read as they come (`early_input.py`) into the early prompt
(`early_prompt.py`) that the skeleton shows, automatic garbage collection off while the app loads
(`AcpApp.on_mount` turns it back on, with what was built frozen).

`cli.main` begins it right after the command line is read, before the launch module (asyncio,
the agent's prestart, the process guard) is even imported, so the skeleton is on screen a
little sooner; `launch.run_app` begins it itself when it was not (the agent picker first, or a
direct call). Standard library only, like the two modules it drives.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from acp_tui.client.command_name import command_name
from acp_tui.ui import runtime
from acp_tui.ui.early_input import EarlyInput
from acp_tui.ui.early_prompt import EarlyPrompt
from acp_tui.ui.first_frame import FirstFrame


def demo_argv() -> list[str]:
    """The command line of the demo agent (this Python, `-m acp_tui.demo.agent`)."""
    return [sys.executable, "-m", "acp_tui.demo.agent"]


@dataclass
class EarlyStart:
    """The skeleton on screen, its prompt taking what is typed, the collector off."""

    early_input: EarlyInput
    first_frame: FirstFrame
    prompt: EarlyPrompt
    _typing: threading.Lock = field(default_factory=threading.Lock)
    _taken: bool = False

    @classmethod
    def begin(cls, argv: Sequence[str], name: str | None = None) -> EarlyStart:
        """Draw the skeleton for the agent `argv` runs, start reading keys into its prompt, turn
        collections off (start-up builds objects that live as long as the app: collections would
        walk them again and again meanwhile)."""
        runtime.pause_collections()
        start = cls(EarlyInput(), FirstFrame(), EarlyPrompt())
        start.early_input.start(start._typed)  # before the frame: no key echoed by the tty
        # the layout before Textual even loads, named as the user knows the agent (`name`)
        start.first_frame.show(name or command_name(argv))
        start._typed(b"")  # what was typed before the frame, in its prompt
        return start

    def _typed(self, data: bytes) -> None:
        with self._typing:  # (the reader thread, and `begin` once the frame is drawn)
            self.prompt.feed(data)
            self.first_frame.show_prompt(self.prompt.text, self.prompt.cursor, self.prompt.sent)

    def take(self) -> EarlyPrompt:
        """Right before Textual takes the terminal: the early prompt, with what was still
        pending; the terminal's attributes back, the skeleton left to Textual to replace."""
        self.early_input.take()
        self.prompt.finish()
        self.first_frame.handed_over()
        self._taken = True
        return self.prompt

    def end(self) -> None:
        """However launching ended: collections on, the skeleton gone if Textual never took the
        terminal, the terminal's attributes back (idempotent). If the app never got the early
        prompt, what was typed in it is printed on standard error: not lost."""
        runtime.resume_collections()
        self.early_input.restore()
        self.first_frame.restore()
        if not self._taken:
            self._taken = True
            draft = [self.prompt.text] if self.prompt.text.strip() else []
            for text in [*self.prompt.sent, *draft]:
                print(f"acp-tui: not sent: {text}", file=sys.stderr)
