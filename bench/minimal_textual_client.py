"""The minimal Textual client of issue 36: Textual's `Log` widget and the same agent.

    python bench/minimal_textual_client.py [--ready TEXT] -- AGENT_ARGV...

A Textual app with one `Log`. Once mounted it spawns the agent (an asyncio subprocess, as any
Textual client would from its event loop), writes `initialize` and `session/new` as JSON lines,
reads the agent's lines until each answer (by id; notifications in between are skipped), and
writes TEXT ("session ready") to the Log when the session is open. Nothing else: no settings,
no models, no validation beyond `json.loads`. Its "session ready" on screen is the reference
for acp-tui's "● ready" (sidebar, footer and the agent's session drawn). The agent is stopped
on quit (ctrl+q).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Log


class MinimalClient(App[None]):
    def __init__(self, argv: list[str], ready: str) -> None:
        super().__init__()
        self.argv = argv
        self.ready = ready
        self.agent: asyncio.subprocess.Process | None = None

    def compose(self) -> ComposeResult:
        yield Log()

    def on_mount(self) -> None:
        self.run_worker(self.open_session(), exclusive=True)

    async def open_session(self) -> None:
        log = self.query_one(Log)
        self.agent = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 24,
        )
        requests: list[tuple[str, dict[str, Any]]] = [
            ("initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
            ("session/new", {"cwd": os.getcwd(), "mcpServers": []}),
        ]
        for ident, (method, params) in enumerate(requests):
            answer = await self.request(ident, method, params)
            if answer is None:
                log.write_line(f"the agent ended before answering {method}")
                return
            if "error" in answer:
                log.write_line(f"{method} failed: {answer['error']}")
                return
        log.write_line(self.ready)

    async def request(self, ident: int, method: str, params: dict[str, Any]) -> Any:
        """Write one request and read lines until its answer (None: the agent's output ended)."""
        agent = self.agent
        assert agent is not None and agent.stdin is not None and agent.stdout is not None
        frame = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        agent.stdin.write((json.dumps(frame) + "\n").encode())
        await agent.stdin.drain()
        while line := await agent.stdout.readline():
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if (
                    isinstance(message, dict)
                    and message.get("id") == ident
                    and "method" not in message
                ):
                    return message
        return None

    async def on_unmount(self) -> None:
        agent = self.agent
        if agent is not None and agent.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                agent.terminate()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(agent.wait(), 5)


def main() -> None:
    split = sys.argv.index("--")
    argv, options = sys.argv[split + 1 :], sys.argv[1:split]
    ready = options[options.index("--ready") + 1] if "--ready" in options else "session ready"
    MinimalClient(argv, ready).run()


if __name__ == "__main__":
    main()
