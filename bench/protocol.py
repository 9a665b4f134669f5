"""Throughput of the wire: 100,000 `agent_message_chunk` notifications from a child process.

Readers of the same stream, each on a fresh child process:
  json.loads only     read blocks, split lines, json.loads each (the floor)
  Connection          AgentProcess + Connection, a notification handler that counts
  Connection+Thread   the same, feeding the session reducer (if acp_tui/thread/thread.py exists)

The child pre-loads the whole stream, waits for "go" on stdin and writes it flat out, so the
clock (started at "go", stopped when the reader has handled the last notification) measures
the reader. Best of 3 runs each. Last line: `ratio X` = json.loads-only rate / full-pipeline rate.

Run: uv run python bench/protocol.py [N]
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acp_tui.protocol.connection import Connection
from acp_tui.protocol.process import AgentProcess

WRITER = (
    "import sys\n"
    "data = open(sys.argv[1], 'rb').read()\n"
    "sys.stdin.readline()\n"
    "sys.stdout.buffer.write(data)\n"
    "sys.stdout.buffer.flush()\n"
)
RUNS = 3


def make_stream(path: Path, count: int) -> None:
    words = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog;", ""]
    with path.open("w") as out:
        for n in range(count):
            text = (words[n % len(words)] + " ")[:8]
            frame = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "bench-session",
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": text},
                    },
                },
            }
            out.write(json.dumps(frame, separators=(",", ":")) + "\n")


async def spawn_writer(stream: Path) -> AgentProcess:
    return await AgentProcess.spawn([sys.executable, "-c", WRITER, str(stream)])


async def read_json_only(stream: Path, count: int) -> float:
    process = await spawn_writer(stream)
    reader = process.reader
    seen = 0
    parts: list[bytes] = []
    process.writer.write(b"go\n")
    start = time.perf_counter()
    while block := await reader.read(256 * 1024):
        lines = block.split(b"\n")
        if parts:
            parts.append(lines[0])
            lines[0] = b"".join(parts)
            parts.clear()
        last = lines.pop()
        if last:
            parts.append(last)
        for line in lines:
            json.loads(line)
            seen += 1
    elapsed = time.perf_counter() - start
    await process.shutdown(grace=1.0)
    assert seen == count, seen
    return elapsed


async def read_connection(
    stream: Path, count: int, make_handler: Callable[[], Callable[[Any], None]]
) -> float:
    process = await spawn_writer(stream)
    conn = Connection(process.reader, process.writer)
    handle = make_handler()
    seen = 0

    def on_update(params: Any) -> None:
        nonlocal seen
        seen += 1
        handle(params)

    conn.on_notification("session/update", on_update)
    conn.start()
    process.writer.write(b"go\n")
    start = time.perf_counter()
    await conn.wait_closed()
    elapsed = time.perf_counter() - start
    await conn.close()
    await process.shutdown(grace=1.0)
    assert seen == count, seen
    return elapsed


def no_reducer() -> Callable[[Any], None]:
    return lambda params: None


def thread_reducer() -> Callable[[Any], None]:
    from acp_tui.thread.thread import Thread

    thread = Thread()
    return thread.apply_notification


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        stream = Path(tmp) / "stream.jsonl"
        make_stream(stream, count)
        size = stream.stat().st_size
        print(f"{count:,} notifications, {size / 1e6:.1f} MB, best of {RUNS} runs")
        readers: list[tuple[str, Callable[[], Any]]] = [
            ("json.loads only", lambda: read_json_only(stream, count)),
            ("Connection", lambda: read_connection(stream, count, no_reducer)),
        ]
        if importlib.util.find_spec("acp_tui.thread.thread") is not None:
            readers.append(
                ("Connection+Thread", lambda: read_connection(stream, count, thread_reducer))
            )
        best: dict[str, float] = {}
        for _ in range(RUNS):
            for name, run in readers:
                elapsed = await run()
                best[name] = min(best.get(name, elapsed), elapsed)
        for name, _ in readers:
            print(f"{name:<18} {count / best[name]:>12,.0f} notifications/s")
        floor = best["json.loads only"]
        print(f"ratio Connection/json.loads {best['Connection'] / floor:.2f}")
        print(f"ratio {best[readers[-1][0]] / floor:.2f}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
