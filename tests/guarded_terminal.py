"""An acp-tui-like process for tests: the real `ProcessGuard` (installed: subreaper + watchdog)
and the real `TerminalHost` running one command, until it is killed.

Usage: python tests/guarded_terminal.py COMMAND
Prints the watchdog's pid on a line once the terminal is created, then waits forever.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.models import CreateTerminalRequest


async def main(command: str) -> None:
    guard = ProcessGuard()
    guard.install()
    assert guard.watchdog is not None
    host = TerminalHost(Path.cwd(), guard=guard)
    request = {"sessionId": "sess-guarded", "command": command}
    await host.create(CreateTerminalRequest.model_validate(request))
    print(guard.watchdog.pid, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
