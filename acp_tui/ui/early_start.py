"""What launching does before anything heavy is imported: the terminal set to keep typed keys
(`early_input.py`), the layout skeleton drawn (`first_frame.py`), automatic garbage collection
off while the app loads (`AcpApp.on_mount` turns it back on, with what was built frozen).

`cli.main` begins it right after the command line is read, before the launch module (asyncio,
the agent's prestart, the process guard) is even imported, so the skeleton is on screen a
little sooner; `launch.run_app` begins it itself when it was not (the agent picker first, or a
direct call). Standard library only, like the two modules it drives.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from acp_tui.client.command_name import command_name
from acp_tui.ui.early_input import EarlyInput
from acp_tui.ui.first_frame import FirstFrame


def demo_argv() -> list[str]:
    """The command line of the demo agent (this Python, `-m acp_tui.demo.agent`)."""
    return [sys.executable, "-m", "acp_tui.demo.agent"]


@dataclass
class EarlyStart:
    """The keys typed so far kept, the skeleton on screen, the collector off."""

    early_input: EarlyInput
    first_frame: FirstFrame

    @classmethod
    def begin(cls, argv: Sequence[str]) -> EarlyStart:
        """Start keeping keys, draw the skeleton for the agent `argv` runs, turn collections
        off (start-up builds objects that live as long as the app: collections would walk them
        again and again meanwhile)."""
        gc.disable()
        early_input = EarlyInput()
        early_input.start()  # what the user types before the UI shows goes to the prompt
        first_frame = FirstFrame()
        first_frame.show(command_name(argv))  # the layout on screen before Textual even loads
        return cls(early_input, first_frame)

    def end(self) -> None:
        """However launching ended: collections on, the skeleton gone if Textual never took the
        terminal, the terminal's attributes back (idempotent)."""
        gc.enable()
        self.first_frame.restore()
        self.early_input.restore()
