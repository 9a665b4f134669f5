"""A scripted ACP agent: plays a JSON list of steps over stdio (for tests, benches, demos).

Steps (one key names the kind):
  {"expect": "initialize", "respond": {...}}      wait for that request and answer it
  {"expect": "session/prompt", "save_as": "p"}    wait for it, answer later with respond_to
      optional: "error": {...} instead of respond, "match": {...params subset...},
      "timeout": seconds (default 30; on timeout the agent exits with code 97)
  {"respond_to": "p", "respond": {...}}           answer a saved request (or "error": {...})
  {"notify": "session/update", "params": {...}}
  {"request": "fs/read_text_file", "params": {...}, "save_as": "r", "id": optional}
      send a request to the client and wait for its answer (saved as the response frame)
  {"stream": {"session_id": "s", "text": "...", "chunk": 8, "rate": 200}}
      agent_message_chunk notifications of `text`, `chunk` chars each, at `rate`/s or flat out
  {"wait_cancel": true} / {"wait_notify": "session/cancel"}
  {"write_file": {"path": "notes.txt", "text": "..."}}   the agent edits a file itself (no fs/*;
      relative paths from the agent's cwd; "text": null deletes the file; instead of "text",
      "symlink": "target" or "fifo": true replaces whatever is there by a link or a FIFO, and
      "size": N makes it N bytes long (sparse, zeros))
  {"wait_file": "go"}   wait until that file exists (a test lets the agent go on: a condition,
      not a delay; relative to the agent's cwd; "timeout" as for expect)
  {"sleep": 0.1}   {"raw": "not json\\n"}   {"stderr": "text", "repeat": N}   {"exit": 3}
  {"close_stdout": true}   close stdout and keep running (an agent whose output is gone)

Strings in respond/params/error are substituted when they are exactly:
  "$session_id"        the last sessionId seen (in a request's params or a session/new result)
  "$request.<path>"    a field of the request being answered, e.g. "$request.params.cwd"
  "$saved.<name>.<path>"  a field of a saved request or response frame
After the last step the agent answers nothing more and exits 0 at stdin EOF. With
`--transcript PATH` every line it receives is appended to PATH as {"frame": ...} or {"raw": ...}.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from acp_tui.protocol import methods

TIMEOUT_EXIT_CODE = 97
DEFAULT_TIMEOUT = 30.0
FILE_POLL = 0.02  # how often `wait_file` looks for its file


class ScenarioError(Exception):
    """The scenario is malformed or the client did not do what it expects."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _lookup(value: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(value, list):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


class _Output:
    """stdout as an async pipe when possible, else plain blocking writes."""

    def __init__(self) -> None:
        self._writer: asyncio.StreamWriter | None = None
        self._file: IO[bytes] = sys.stdout.buffer

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, os.fdopen(os.dup(1), "wb", buffering=0)
            )
        except (OSError, ValueError):
            return
        self._writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def write(self, data: bytes) -> None:
        if self._writer is not None:
            self._writer.write(data)
            await self._writer.drain()
        else:
            self._file.write(data)
            self._file.flush()

    def close(self) -> None:
        """Close stdout for good (every copy of the descriptor)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        with contextlib.suppress(OSError):
            os.close(1)


class ScenarioAgent:
    """A scripted ACP agent: plays the steps the module's text lists, in order, over stdio."""

    def __init__(self, steps: list[dict[str, Any]], *, transcript: Path | None = None) -> None:
        self.steps = steps
        self.out = _Output()
        self.transcript: IO[str] | None = transcript.open("a") if transcript else None
        self.requests: list[dict[str, Any]] = []  # unconsumed incoming requests
        self.notifications: list[dict[str, Any]] = []  # unconsumed incoming notifications
        self.saved: dict[str, Any] = {}
        self.session_id: str | None = None
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._next_id = 0
        self._arrived = asyncio.Event()
        self._eof = asyncio.Event()

    # ---- input --------------------------------------------------------------------------

    async def _read_stdin(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 30)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        pending = b""
        while block := await reader.read(1 << 18):
            lines = (pending + block).split(b"\n")
            pending = lines.pop()
            for line in lines:
                self._receive(line)
        if pending:
            self._receive(pending)
        self._eof.set()
        self._arrived.set()

    def _receive(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace")
        if not text.strip():
            return
        try:
            frame = json.loads(text)
        except ValueError:
            self._record({"raw": text})
            return
        self._record({"frame": frame})
        if not isinstance(frame, dict):
            return
        if "method" in frame:
            params = frame.get("params")
            if isinstance(params, dict) and isinstance(params.get("sessionId"), str):
                self.session_id = params["sessionId"]
            (self.requests if "id" in frame else self.notifications).append(frame)
            self._arrived.set()
        else:
            future = self._answers.pop(_dumps(frame.get("id")), None)
            if future is not None and not future.done():
                future.set_result(frame)

    def _record(self, entry: dict[str, Any]) -> None:
        if self.transcript is not None:
            self.transcript.write(_dumps(entry) + "\n")
            self.transcript.flush()

    async def _wait_until(self, found: Callable[[], Any], what: str, seconds: float) -> Any:
        async def wait() -> Any:
            while True:
                result = found()
                if result is not None:
                    return result
                if self._eof.is_set():
                    raise ScenarioError(f"stdin closed while waiting for {what}")
                self._arrived.clear()
                await self._arrived.wait()

        try:
            return await asyncio.wait_for(wait(), seconds)
        except TimeoutError:
            raise ScenarioError(f"timed out after {seconds}s waiting for {what}") from None

    # ---- output -------------------------------------------------------------------------

    async def send(self, frame: dict[str, Any]) -> None:
        """Write one frame as a line."""
        await self.out.write((_dumps(frame) + "\n").encode())

    def substitute(self, value: Any, request: dict[str, Any] | None = None) -> Any:
        """`value` with its placeholders filled in: `$session_id`, `$request.<path>` (the
        request being answered) and `$saved.<name>.<path>` (an earlier saved frame)."""
        if isinstance(value, dict):
            return {k: self.substitute(v, request) for k, v in value.items()}
        if isinstance(value, list):
            return [self.substitute(v, request) for v in value]
        if isinstance(value, str) and value.startswith("$"):
            if value == "$session_id":
                return self.session_id
            head, _, rest = value.partition(".")
            path = rest.split(".") if rest else []
            if head == "$request":
                return _lookup(request, path)
            if head == "$saved" and path:
                return _lookup(self.saved.get(path[0]), path[1:])
        return value

    async def _answer(self, request: dict[str, Any], step: dict[str, Any]) -> None:
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
        if "error" in step:
            frame["error"] = self.substitute(step["error"], request)
        else:
            result = self.substitute(step.get("respond"), request)
            if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                self.session_id = result["sessionId"]
            frame["result"] = result
        await self.send(frame)

    # ---- steps --------------------------------------------------------------------------

    async def run(self) -> int:
        """Play the steps; the exit code the scenario asks for (0 by default)."""
        await self.out.open()
        reader = asyncio.create_task(self._read_stdin())
        try:
            for step in self.steps:
                code = await self._step(step)
                if code is not None:
                    return code
            await self._eof.wait()
            return 0
        except ScenarioError as exc:
            sys.stderr.write(f"scripted agent: {exc}\n")
            sys.stderr.flush()
            return TIMEOUT_EXIT_CODE
        finally:
            reader.cancel()
            if self.transcript is not None:
                self.transcript.close()

    async def _step(self, step: dict[str, Any]) -> int | None:
        timeout = float(step.get("timeout", DEFAULT_TIMEOUT))
        if "expect" in step:
            request = await self._wait_until(
                lambda: self._take_request(step["expect"], step.get("match")),
                f"request {step['expect']!r}",
                timeout,
            )
            if "save_as" in step:
                self.saved[step["save_as"]] = request
            if "respond" in step or "error" in step:
                await self._answer(request, step)
        elif "respond_to" in step:
            await self._answer(self.saved[step["respond_to"]], step)
        elif "notify" in step:
            params = self.substitute(step.get("params"))
            await self.send({"jsonrpc": "2.0", "method": step["notify"], "params": params})
        elif "request" in step:
            await self._request(step, timeout)
        elif "stream" in step:
            await self._stream(step["stream"])
        elif "wait_cancel" in step or "wait_notify" in step:
            method = step.get("wait_notify", methods.SESSION_CANCEL)
            frame = await self._wait_until(
                lambda: self._take_notification(method), f"notification {method!r}", timeout
            )
            if "save_as" in step:
                self.saved[step["save_as"]] = frame
        elif "write_file" in step:
            self._write_file(step["write_file"])
        elif "wait_file" in step:
            await self._wait_file(Path(str(step["wait_file"])), timeout)
        elif "sleep" in step:
            await asyncio.sleep(float(step["sleep"]))
        elif "raw" in step:
            await self.out.write(str(step["raw"]).encode())
        elif "stderr" in step:
            data = str(step["stderr"]).encode() * int(step.get("repeat", 1))
            sys.stderr.buffer.write(data)
            sys.stderr.buffer.flush()
        elif "exit" in step:
            return int(step["exit"])
        elif "close_stdout" in step:
            self.out.close()
        else:
            raise ScenarioError(f"unknown step: {step!r}")
        return None

    def _take_request(self, method: str, match: dict[str, Any] | None) -> dict[str, Any] | None:
        for index, frame in enumerate(self.requests):
            if frame.get("method") != method:
                continue
            params = frame.get("params")
            if match and not (
                isinstance(params, dict) and all(params.get(k) == v for k, v in match.items())
            ):
                continue
            return self.requests.pop(index)
        return None

    def _take_notification(self, method: str) -> dict[str, Any] | None:
        for index, frame in enumerate(self.notifications):
            if frame.get("method") == method:
                return self.notifications.pop(index)
        return None

    async def _wait_file(self, path: Path, seconds: float) -> None:
        async def wait() -> None:
            # another process makes the file: there is no event here to wait on, so look for it
            while not path.exists():  # noqa: ASYNC110, ASYNC240 (one stat: never blocks long)
                await asyncio.sleep(FILE_POLL)

        try:
            await asyncio.wait_for(wait(), seconds)
        except TimeoutError:
            raise ScenarioError(f"timed out after {seconds}s waiting for {path}") from None

    def _write_file(self, spec: dict[str, Any]) -> None:
        path = Path(str(spec["path"]))
        if "symlink" in spec or spec.get("fifo"):
            path.unlink(missing_ok=True)
            if "symlink" in spec:
                path.symlink_to(str(spec["symlink"]))
            else:
                os.mkfifo(path)
            return
        if "size" in spec:
            with path.open("ab") as file:
                file.truncate(int(spec["size"]))
            return
        if spec.get("text") is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(spec["text"]))

    async def _request(self, step: dict[str, Any], seconds: float) -> None:
        if "id" in step:
            request_id = step["id"]
        else:
            request_id = self._next_id
            self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[_dumps(request_id)] = future
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": step["request"]}
        if "params" in step:
            frame["params"] = self.substitute(step["params"])
        await self.send(frame)
        try:
            answer = await asyncio.wait_for(future, seconds)
        except TimeoutError:
            raise ScenarioError(f"no answer to {step['request']!r} after {seconds}s") from None
        if "save_as" in step:
            self.saved[step["save_as"]] = answer

    async def _stream(self, spec: dict[str, Any]) -> None:
        session_id = self.substitute(spec.get("session_id", "$session_id"))
        text = str(spec["text"])
        size = max(1, int(spec.get("chunk", 8)))
        rate = spec.get("rate")
        update = spec.get("update", "agent_message_chunk")
        head = (
            '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":'
            + _dumps(session_id)
            + ',"update":{"sessionUpdate":'
            + _dumps(update)
            + ',"content":{"type":"text","text":'
        )
        lines = [head + _dumps(text[i : i + size]) + "}}}}\n" for i in range(0, len(text), size)]
        if not rate:
            for start in range(0, len(lines), 2000):
                await self.out.write("".join(lines[start : start + 2000]).encode())
            return
        loop = asyncio.get_running_loop()
        begin = loop.time()
        for index, line in enumerate(lines):
            delay = begin + index / float(rate) - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await self.out.write(line.encode())


def load_scenario(path: str | Path) -> list[dict[str, Any]]:
    """Read a scenario file: a JSON list of step objects (ScenarioError otherwise)."""
    steps = json.loads(Path(path).read_text())
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise ScenarioError(f"{path}: a scenario is a JSON list of step objects")
    return steps


def main(argv: list[str] | None = None) -> int:
    """Run a scenario file as an agent over stdio, optionally logging what it received."""
    parser = argparse.ArgumentParser(description="Run a scripted ACP agent over stdio.")
    parser.add_argument("scenario", help="JSON file: a list of steps")
    parser.add_argument("--transcript", help="append every received line to this JSONL file")
    args = parser.parse_args(argv)
    steps = load_scenario(args.scenario)
    transcript = Path(args.transcript) if args.transcript else None
    code = asyncio.run(ScenarioAgent(steps, transcript=transcript).run())
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # do not wait for anything (e.g. a blocked stdin reader thread)


if __name__ == "__main__":
    main()
