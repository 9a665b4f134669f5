"""The floor: the least a client can do with a streaming agent.

    python bench/floor_client.py [--ready TEXT [--idle]] -- AGENT_ARGV...

Spawns the agent, sends `initialize`, `session/new` and one `session/prompt`, then reads the
agent's pipe: ``json.loads`` each frame and writes each chunk's text to the terminal (its
stdout). When the prompt's answer arrives it prints, on stderr, one JSON line: the
``time.monotonic()`` of its last chunk's write and the CPU seconds it spent from the prompt on.
With ``--ready TEXT`` it writes TEXT once the session is open (its "usable prompt"); with
``--idle`` too it sends no prompt and waits for a line on stdin instead (the start-up bench).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import IO


def read_answer(lines: IO[bytes], ident: int) -> None:
    """Read the agent's lines until the answer to request `ident` (a real agent may send
    notifications first)."""
    for line in lines:
        message = json.loads(line)
        if isinstance(message, dict) and message.get("id") == ident and "method" not in message:
            return


def main() -> None:
    split = sys.argv.index("--")
    argv, options = sys.argv[split + 1 :], sys.argv[1:split]
    ready = options[options.index("--ready") + 1] if "--ready" in options else None
    idle = "--idle" in options
    agent = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert agent.stdin is not None and agent.stdout is not None
    requests = [
        ("initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
        ("session/new", {"cwd": os.getcwd(), "mcpServers": []}),
        ("session/prompt", {"sessionId": "bench", "prompt": [{"type": "text", "text": "go"}]}),
    ]
    if idle:
        requests = requests[:2]
    for ident, (method, params) in enumerate(requests):
        frame = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        agent.stdin.write((json.dumps(frame) + "\n").encode())
        agent.stdin.flush()
        if method != "session/prompt":
            read_answer(agent.stdout, ident)
        if method == "session/new" and ready is not None:
            sys.stdout.write(ready + "\n")
            sys.stdout.flush()
    if idle:
        sys.stdin.readline()
        agent.stdin.close()
        agent.wait()
        return
    cpu = time.process_time()
    out = sys.stdout
    last_write = 0.0
    for line in agent.stdout:
        message = json.loads(line)
        if message.get("id") == 2:
            break
        update = message.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "agent_message_chunk":
            out.write(update["content"]["text"])
            out.flush()
            last_write = time.monotonic()
    cpu = time.process_time() - cpu
    agent.stdin.close()
    agent.wait()
    print(json.dumps({"last_write": last_write, "cpu": cpu}), file=sys.stderr)


if __name__ == "__main__":
    main()
