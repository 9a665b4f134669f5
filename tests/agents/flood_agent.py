"""A flooding ACP agent: answers initialize and session/new, then floods the client on each
prompt. Stdlib only; a reader thread records what the client sends while the main thread writes
(a client that stops reading blocks only the writes).

Usage: python tests/agents/flood_agent.py KIND COUNT [--transcript FILE] [--forever]

KIND:
  elicitation  COUNT `elicitation/create` form requests at once (ids "e-0".."e-N"); the turn
               ends once every one is answered
  permission   COUNT tool calls, then COUNT `session/request_permission` about them at once
               (ids "p-0"..); the turn ends once every one is answered
  tool_call    COUNT `tool_call` updates flat out (status pending); the turn ends after them;
               with --forever they never stop (a flood still arriving while the user quits)
  files        COUNT files written by the agent itself under `flood/` in its cwd (no fs/*);
               the turn ends after them

With --transcript every frame received is appended to FILE as one JSON line (written at once).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
from pathlib import Path
from typing import IO, Any

SID = "sess-flood"
FIELDS = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


class Flood:
    def __init__(self, kind: str, count: int, transcript: IO[str] | None, forever: bool) -> None:
        self.kind = kind
        self.count = count
        self.transcript = transcript
        self.forever = forever
        self.out = sys.stdout.buffer
        self.incoming: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.lock = threading.Lock()
        self.cwd = Path(os.getcwd())

    def read(self) -> None:
        for raw in sys.stdin.buffer:
            try:
                frame = json.loads(raw)
            except ValueError:
                continue
            if self.transcript is not None:
                self.transcript.write(json.dumps(frame) + "\n")
                self.transcript.flush()
            if not isinstance(frame, dict):
                continue
            if "method" in frame:
                self.incoming.put(frame)
            else:
                self.answers.put(frame)
        os._exit(0)  # the client is gone: stop flooding (a writer blocked on answers too)

    def send(self, frame: dict[str, Any]) -> None:
        self.write([json.dumps(frame, separators=(",", ":"))])

    def write(self, lines: list[str]) -> None:
        with self.lock:
            self.out.write(("\n".join(lines) + "\n").encode())
            self.out.flush()

    def run(self) -> int:
        threading.Thread(target=self.read, daemon=True).start()
        while (frame := self.incoming.get()) is not None:
            method, frame_id = frame.get("method"), frame.get("id")
            if method == "initialize":
                capabilities = {"loadSession": False}
                result = {"protocolVersion": 1, "agentCapabilities": capabilities}
                self.send({"jsonrpc": "2.0", "id": frame_id, "result": result})
            elif method == "session/new":
                self.cwd = Path(frame.get("params", {}).get("cwd") or os.getcwd())
                self.send({"jsonrpc": "2.0", "id": frame_id, "result": {"sessionId": SID}})
            elif method == "session/prompt":
                self.flood()
                end = {"stopReason": "end_turn"}
                self.send({"jsonrpc": "2.0", "id": frame_id, "result": end})
            elif frame_id is not None:
                error = {"code": -32601, "message": f"not supported: {method}"}
                self.send({"jsonrpc": "2.0", "id": frame_id, "error": error})
        return 0

    def flood(self) -> None:
        if self.kind == "elicitation":
            self.requests("e", [elicitation(i) for i in range(self.count)])
        elif self.kind == "permission":
            self.write([update(tool_call(f"call-{i}")) for i in range(self.count)])
            self.requests("p", [permission(i) for i in range(self.count)])
        elif self.kind == "tool_call":
            start = 0
            while True:
                for first in range(start, start + self.count, 500):
                    last = min(first + 500, start + self.count)
                    self.write([update(tool_call(f"call-{i}")) for i in range(first, last)])
                start += self.count
                if not self.forever:
                    break
        elif self.kind == "files":
            folder = self.cwd / "flood"
            folder.mkdir(exist_ok=True)
            for i in range(self.count):
                (folder / f"f{i:05}.txt").write_text(f"file {i}\n")
        else:
            raise SystemExit(f"unknown flood kind: {self.kind}")

    def requests(self, prefix: str, requests: list[tuple[str, dict[str, Any]]]) -> None:
        lines = []
        for index, (method, params) in enumerate(requests):
            frame = {"jsonrpc": "2.0", "id": f"{prefix}-{index}", "method": method}
            lines.append(json.dumps({**frame, "params": params}))
        self.write(lines)
        for _ in requests:
            self.answers.get()


def update(body: dict[str, Any]) -> str:
    params = {"sessionId": SID, "update": body}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params})


def tool_call(call_id: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call_id,
        "title": f"Edit file {call_id}",
        "kind": "edit",
        "status": "pending",
        "rawInput": {"path": f"/tmp/{call_id}.txt"},
    }


def elicitation(index: int) -> tuple[str, dict[str, Any]]:
    params = {"sessionId": SID, "mode": "form", "message": f"Question {index}"}
    return "elicitation/create", {**params, "requestedSchema": FIELDS}


def permission(index: int) -> tuple[str, dict[str, Any]]:
    options = [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    call = {"toolCallId": f"call-{index}", "title": f"Edit file call-{index}", "kind": "edit"}
    return "session/request_permission", {"sessionId": SID, "toolCall": call, "options": options}


def main() -> None:
    parser = argparse.ArgumentParser(description="An ACP agent that floods the client.")
    parser.add_argument("kind", choices=["elicitation", "permission", "tool_call", "files"])
    parser.add_argument("count", type=int)
    parser.add_argument("--transcript", help="append every received frame to this JSONL file")
    parser.add_argument("--forever", action="store_true", help="tool_call: never stop")
    args = parser.parse_args()
    transcript = open(args.transcript, "a") if args.transcript else None  # noqa: SIM115
    try:
        code = Flood(args.kind, args.count, transcript, args.forever).run()
    except (BrokenPipeError, KeyboardInterrupt):
        code = 0
    os._exit(code)


if __name__ == "__main__":
    main()
