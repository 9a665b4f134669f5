"""A minimal ACP agent for benchmarks: streams one text file at a fixed rate, then ends the turn.

    python bench/pipe_agent.py TEXT_FILE --chunk 8 --rate 200 --stamp STAMP_FILE

It answers `initialize` and `session/new`; on `session/prompt` it writes the text as
`agent_message_chunk`s of ``--chunk`` characters (``--rate`` per second, 0 for as fast as the
pipe takes them), writes ``time.monotonic()`` of its last chunk's write to STAMP_FILE (the
clock is shared by every process on the machine), then answers the prompt. Standard library
only, so its own cost is the same whoever reads it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def stream(text: str, chunk: int, rate: float, stamp: str) -> None:
    start = last = time.monotonic()
    offsets = range(0, len(text), chunk)
    for index, offset in enumerate(offsets):
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text[offset : offset + chunk]},
        }
        send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": "bench", "update": update},
            }
        )
        last = time.monotonic()
        if rate and index < len(offsets) - 1:  # the stamp follows the last write at once: a
            # client must not paint the end before the stamp says it was sent
            time.sleep(max(0.0, start + (index + 1) / rate - time.monotonic()))
    with open(stamp, "w") as out:
        out.write(repr(last))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("text_file")
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--stamp", required=True)
    args = parser.parse_args()
    with open(args.text_file) as source:
        text = source.read()
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []},
                }
            )
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": ident, "result": {"sessionId": "bench"}})
        elif method == "session/prompt":
            stream(text, args.chunk, args.rate, args.stamp)
            send({"jsonrpc": "2.0", "id": ident, "result": {"stopReason": "end_turn"}})
        elif ident is not None and method is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32601, "message": "method not found"},
                }
            )


if __name__ == "__main__":
    main()
