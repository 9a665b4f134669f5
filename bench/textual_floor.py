"""The least a Textual app can do with a streaming agent: the floor of any client built on Textual.

`TailApp` is one Line-API widget filling the screen: each chunk's text is appended to a list of
rows (hard-wrapped at the width, no Markdown), the widget shows the last rows and asks Textual
to repaint only the row that changed (the whole widget when a row is added, as it scrolls);
Textual coalesces the repaints into at most one frame per 1/60 s. `run_tail`
talks to the pipe agent like the floor client (`initialize`, `session/new`, one prompt, then
``json.loads`` each frame) from a task of the app, which runs headless like acp-tui in
`bench/floor.py`. What this costs at 200 tok/s is what Textual itself costs: the message pump,
the update timer, the compositor and the frame for a one-widget screen.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget


class Tail(Widget):
    """The last rows of the text, hard-wrapped at the widget's width."""

    DEFAULT_CSS = "Tail { width: 1fr; height: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[str] = [""]

    def append(self, text: str) -> None:
        width = max(self.size.width, 1)
        rows = self._rows
        before = len(rows)
        for index, part in enumerate(text.split("\n")):
            if index:
                rows.append("")
            while part:
                room = width - len(rows[-1])
                if room <= 0:
                    rows.append("")
                    continue
                rows[-1] += part[:room]
                part = part[room:]
        height = self.size.height
        if len(rows) == before and len(rows) >= height:  # only the bottom row changed
            self.refresh(Region(0, height - 1, width, 1))
        elif len(rows) == before:  # not scrolling yet: only the last row changed
            self.refresh(Region(0, len(rows) - 1, width, 1))
        else:
            self.refresh()

    def render_line(self, y: int) -> Strip:
        index = y + max(0, len(self._rows) - self.size.height)
        if index < len(self._rows):
            return Strip([Segment(self._rows[index])], len(self._rows[index]))
        return Strip.blank(self.size.width)


class TailApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Tail()


async def stream_into(
    app: TailApp, argv: list[str], started: Callable[[], None], done: asyncio.Event
) -> None:
    """Run the agent, prompt it once and append every chunk's text to the app's `Tail`."""
    tail = app.query_one(Tail)
    agent = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24
    )
    assert agent.stdin is not None and agent.stdout is not None
    requests: list[tuple[str, dict[str, Any]]] = [
        ("initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
        ("session/new", {"cwd": os.getcwd(), "mcpServers": []}),
        ("session/prompt", {"sessionId": "bench", "prompt": [{"type": "text", "text": "go"}]}),
    ]
    for ident, (method, params) in enumerate(requests):
        frame = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        if method == "session/prompt":
            started()
        agent.stdin.write((json.dumps(frame) + "\n").encode())
        await agent.stdin.drain()
        if method != "session/prompt":
            json.loads(await agent.stdout.readline())
    async for line in agent.stdout:
        message = json.loads(line)
        if message.get("id") == 2:
            break
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_message_chunk":
            tail.append(update["content"]["text"])
    agent.stdin.close()
    await agent.wait()
    done.set()


class TerminalTailApp(TailApp):
    """`TailApp` in a real terminal, streaming from `argv` once mounted (`bench/pty_stream.py`);
    it stays on screen until ctrl+q."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__()
        self.agent_argv = argv
        self.streamed = asyncio.Event()

    def on_mount(self) -> None:
        self.run_worker(stream_into(self, self.agent_argv, lambda: None, self.streamed))


if __name__ == "__main__":
    import sys

    TerminalTailApp(sys.argv[sys.argv.index("--") + 1 :]).run()
