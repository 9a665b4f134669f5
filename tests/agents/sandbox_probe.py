"""An ACP agent that tries to write (and read) files when prompted, three ways: with its own
process, with a shell it starts, and through `terminal/create`. Its reply says, per path and
way, "wrote"/"refused" (or "read"/"refused" for PROBE_READS).

The paths come from the environment: PROBE_WRITES and PROBE_READS, JSON lists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

WRITES: list[str] = json.loads(os.environ.get("PROBE_WRITES", "[]"))
READS: list[str] = json.loads(os.environ.get("PROBE_READS", "[]"))
_next_id = 1000


def send(frame: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\n")
    sys.stdout.flush()


def receive() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    return json.loads(line)  # type: ignore[no-any-return]


def call(method: str, params: dict[str, Any]) -> Any:
    """A request to the client; its result (requests from it meanwhile are not expected)."""
    global _next_id
    _next_id += 1
    send({"id": _next_id, "method": method, "params": params})
    while True:
        frame = receive()
        if frame.get("id") == _next_id and "method" not in frame:
            return frame.get("result", frame.get("error"))


def own_process() -> list[str]:
    lines = []
    for path in WRITES:
        try:
            with open(path, "w") as file:
                file.write("changed by the agent")
            lines.append(f"own wrote {path}")
        except OSError as error:
            lines.append(f"own refused {path} {error.errno}")
    for path in READS:
        try:
            with open(path) as file:
                file.read()
            lines.append(f"own read {path}")
        except OSError as error:
            lines.append(f"own refused-read {path} {error.errno}")
    return lines


def shell_script(way: str) -> str:
    tries = [f'if echo changed > "{p}" 2>/dev/null; then echo "{way} wrote {p}"; '
             f'else echo "{way} refused {p}"; fi' for p in WRITES]  # fmt: skip
    tries += [f'if cat "{p}" >/dev/null 2>&1; then echo "{way} read {p}"; '
              f'else echo "{way} refused-read {p}"; fi' for p in READS]  # fmt: skip
    return "; ".join(tries) or "true"


def own_shell() -> list[str]:
    done = subprocess.run(["/bin/sh", "-c", shell_script("shell")], capture_output=True, text=True)
    return done.stdout.splitlines()


def through_terminal(session_id: str) -> list[str]:
    created = call("terminal/create", {"sessionId": session_id, "command": "/bin/sh",
                                       "args": ["-c", shell_script("terminal")]})  # fmt: skip
    terminal = {"sessionId": session_id, "terminalId": created["terminalId"]}
    call("terminal/wait_for_exit", terminal)
    output = call("terminal/output", terminal)
    call("terminal/release", terminal)
    return [line.strip() for line in output["output"].splitlines() if line.strip()]


def main() -> None:
    while True:
        frame = receive()
        method, params = frame.get("method"), frame.get("params") or {}
        if method == "initialize":
            send({"id": frame["id"], "result": {"protocolVersion": 1, "agentCapabilities": {},
                                                 "authMethods": []}})  # fmt: skip
        elif method == "session/new":
            send({"id": frame["id"], "result": {"sessionId": "probe"}})
        elif method == "session/prompt":
            lines = own_process() + own_shell() + through_terminal(params["sessionId"])
            text = "\n".join(lines) + "\n"
            update = {"sessionUpdate": "agent_message_chunk",
                      "content": {"type": "text", "text": text}}  # fmt: skip
            send({"method": "session/update",
                  "params": {"sessionId": params["sessionId"], "update": update}})  # fmt: skip
            send({"id": frame["id"], "result": {"stopReason": "end_turn"}})
        elif "id" in frame and method is not None:
            send({"id": frame["id"], "error": {"code": -32601, "message": "not here"}})


if __name__ == "__main__":
    main()
