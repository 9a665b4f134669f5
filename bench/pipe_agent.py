"""A minimal ACP agent for benchmarks: streams one text file at a fixed rate, then ends the turn.

    python bench/pipe_agent.py TEXT_FILE --chunk 8 --rate 200 --stamp STAMP_FILE

It answers `initialize` and `session/new`; on `session/prompt` it writes the text as
`agent_message_chunk`s of ``--chunk`` characters (``--rate`` per second, 0 for as fast as the
pipe takes them), writes ``time.monotonic()`` of its last chunk's write to STAMP_FILE (the
clock is shared by every process on the machine), then answers the prompt. With ``--numbered``
the Nth prompt's text has its ``END-MARKER`` replaced by ``END{N:05d}MARK`` and the stamp file
gets one line ``N TIME`` per prompt (appended), so a many-turn bench can tell the turns apart.
With ``--think SECONDS`` it waits that long after each prompt before its first chunk (a model's
time to its first token). With ``--opened FILE`` it creates FILE once it has answered
``session/new`` (a bench running
several sessions in one client knows when each is open).
With ``--load N`` it offers ``loadSession`` and answers ``session/load`` by replaying N turns
(each a ``user_message_chunk`` "prompt K" and the text, marker numbered K, as one
``agent_message_chunk``: a stored conversation comes back as stored messages), as fast as the
pipe takes them; its turns then count on from N. With ``--gate FILE`` too, it creates the
``--opened`` file when the load arrives and waits for FILE to exist before replaying (a bench
reads the client's memory before the replay). The replay's last write is stamped as turn 0.
Standard library only, so its own cost is the same whoever reads it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def turn_marker(turn: int) -> str:
    """The end marker of the `turn`th prompt's text with ``--numbered``."""
    return f"END{turn:05d}MARK"


def stream(text: str, chunk: int, rate: float, stamp: str, turn: int = 0) -> None:
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
    if turn:
        with open(stamp, "a") as out:
            out.write(f"{turn} {last!r}\n")
    else:
        with open(stamp, "w") as out:
            out.write(repr(last))


def replay(text: str, turns: int, stamp: str) -> None:
    """A stored conversation of `turns` turns sent back as `session/load` updates."""
    last = time.monotonic()
    for turn in range(1, turns + 1):
        for kind, said in (
            ("user_message_chunk", f"prompt {turn}"),
            ("agent_message_chunk", text.replace("END-MARKER", turn_marker(turn))),
        ):
            update = {"sessionUpdate": kind, "content": {"type": "text", "text": said}}
            params = {"sessionId": "bench", "update": update}
            send({"jsonrpc": "2.0", "method": "session/update", "params": params})
        last = time.monotonic()
    with open(stamp, "a") as out:
        out.write(f"0 {last!r}\n")


def wait_for_file(path: str) -> None:
    while not os.path.exists(path):
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("text_file")
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--stamp", required=True)
    parser.add_argument("--numbered", action="store_true")
    parser.add_argument("--opened")
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--gate")
    args = parser.parse_args()
    turns = 0
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
                    "result": {
                        "protocolVersion": 1,
                        "agentCapabilities": {"loadSession": bool(args.load)},
                        "authMethods": [],
                    },
                }
            )
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": ident, "result": {"sessionId": "bench"}})
            if args.opened:
                with open(args.opened, "w"):
                    pass
        elif method == "session/load" and args.load:
            if args.opened:
                with open(args.opened, "w"):
                    pass
            if args.gate:
                wait_for_file(args.gate)
            replay(text, args.load, args.stamp)
            turns = args.load
            send({"jsonrpc": "2.0", "id": ident, "result": {}})
        elif method == "session/prompt":
            turns += 1
            time.sleep(args.think)  # (a model's time to its first token)
            if args.numbered:
                numbered = text.replace("END-MARKER", turn_marker(turns))
                stream(numbered, args.chunk, args.rate, args.stamp, turns)
            else:
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
