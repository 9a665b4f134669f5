"""An acp-tui-like process for tests: the real `ProcessGuard` (installed: subreaper + watchdog)
and the real `TerminalHost` running one command, until it is killed.

Usage: python tests/guarded_terminal.py COMMAND [--stall-after-spawn]
Prints the watchdog's pid on a line once the terminal is created, then waits forever. With
--stall-after-spawn the pid is printed as soon as the command's process exists and the event
loop is then blocked for good: acp-tui busy (a first frame under load) between starting a
terminal's command and anything it does after the spawn returns.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.models import CreateTerminalRequest


async def main(command: str, stall: bool) -> None:
    guard = ProcessGuard()
    guard.install()
    assert guard.watchdog is not None
    watchdog_pid = guard.watchdog.pid
    if stall:
        spawn = asyncio.create_subprocess_exec

        async def spawn_then_stall(*args: Any, **kwargs: Any) -> Any:
            await spawn(*args, **kwargs)
            print(watchdog_pid, flush=True)
            while True:
                time.sleep(1)  # noqa: ASYNC251 (deliberate: the loop never runs again)

        asyncio.create_subprocess_exec = spawn_then_stall
    host = TerminalHost(Path.cwd(), guard=guard)
    request = {"sessionId": "sess-guarded", "command": command}
    await host.create(CreateTerminalRequest.model_validate(request))
    print(guard.watchdog.pid, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], "--stall-after-spawn" in sys.argv[2:]))
