"""One prompt turn of the demo agent: the tour and the single steps behind the slash commands.

`Turn` talks to the client only through the small `Peer` interface (implemented by
`acp_tui.demo.agent.DemoAgent`), so this module holds the script and nothing about the wire.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Awaitable
from typing import Any, Protocol

from acp_tui.demo import content, v2
from acp_tui.demo.sample_project import APP_PY
from acp_tui.demo.subagent import subagent_demo
from acp_tui.demo.turn_api import (
    JsonObject,
    RpcError,
    Session,
    TurnCancelled,
    has_capability,
    text_block,
    tool_text,
)
from acp_tui.protocol import methods
from acp_tui.protocol.permission_outcome import selected_option_id

TEXT_CHUNK_CHARS = 8
TEXT_CHUNK_DELAY = 1 / 50  # ~50 chunks per second: lively, and a human can still watch
STREAM_BURST = 10  # `/stream` sleeps once per this many chunks...
STREAM_BURST_DELAY = 0.005  # ...this long: about 2,000 chunks per second
STEP_PAUSE = 0.5
TOOL_PAUSE = 0.8
CONTEXT_WINDOW = 200_000


class Peer(Protocol):
    """What a turn needs from the connection to the client."""

    speed: float
    client_capabilities: JsonObject
    protocol: int

    def update(self, session: Session, update: JsonObject) -> Awaitable[None]:
        """Send a session/update for `session`."""

    def spawn(self, coroutine: Awaitable[Any]) -> Any:
        """Run a coroutine as a tracked task."""

    def break_point(self, session: Session, turn: Turn) -> Awaitable[None]:
        """Where the turn handles what arrived meanwhile (v2: prompts queued during it)."""

    def request(self, method: str, params: JsonObject) -> Awaitable[Any]:
        """Send a request to the client and wait for its answer."""

    def request_soon(self, method: str, params: JsonObject) -> None:
        """Send a request to the client without waiting."""

    def crash(self, exit_code: int, stderr_lines: list[str]) -> Awaitable[None]:
        """Write `stderr_lines` and exit with `exit_code` (the crash demo)."""

    def v2_state(self, session: Session) -> v2.V2State:
        """The session's v2 state (message ids, inbox, background work)."""


class Turn:
    """Runs the script for one `session/prompt` and remembers what is still open."""

    def __init__(self, peer: Peer, session: Session, prompt: list[Any]) -> None:
        self.peer = peer
        self.session = session
        self.prompt = prompt
        self.said: list[str] = []  # agent_message_chunk texts, for session/load replays
        self.open_tool_calls: dict[str, str] = {}  # toolCallId -> status, while not finished
        self.plan: list[str] = []  # statuses of content.PLAN_ENTRIES

    # ---- small helpers --------------------------------------------------------------------

    async def send(self, update: JsonObject) -> None:
        """Send one session update of this turn."""
        await self.peer.update(self.session, update)

    async def pause(self, seconds: float = STEP_PAUSE) -> None:
        """Wait a step's pause, scaled by the demo's speed (a cancel gets in even at speed 0)."""
        await asyncio.sleep(seconds * self.peer.speed)  # sleep(0) still lets a cancel in

    async def stream(self, kind: str, text: str, *, fast: bool = False) -> None:
        """Stream `text` as `kind` chunks, pausing between chunks unless `fast`."""
        for index, start in enumerate(range(0, len(text), TEXT_CHUNK_CHARS)):
            piece = text[start : start + TEXT_CHUNK_CHARS]
            await self.send({"sessionUpdate": kind, "content": text_block(piece)})
            if kind == "agent_message_chunk":
                self.said.append(piece)
            if not fast:
                await self.pause(TEXT_CHUNK_DELAY)
            elif index % STREAM_BURST == STREAM_BURST - 1:
                await self.pause(STREAM_BURST_DELAY)

    async def say(self, text: str, *, fast: bool = False) -> None:
        """Stream an agent message."""
        await self.stream("agent_message_chunk", text, fast=fast)

    def path(self, relative: str) -> str:
        """An absolute path inside the session directory."""
        return posixpath.join(self.session.cwd, relative)

    async def tool_start(self, title: str, kind: str, status: str, **fields: Any) -> str:
        """Announce a tool call; returns its id."""
        tool_call_id = f"call_{next(self.session.tool_ids)}"
        self.open_tool_calls[tool_call_id] = status
        await self.send(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": tool_call_id,
                "title": title,
                "kind": kind,
                "status": status,
                **fields,
            }
        )
        return tool_call_id

    async def tool_update(self, tool_call_id: str, status: str, **fields: Any) -> None:
        """Update a tool call's status and fields."""
        if status in ("completed", "failed"):
            self.open_tool_calls.pop(tool_call_id, None)
        else:
            self.open_tool_calls[tool_call_id] = status
        await self.send(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_call_id,
                "status": status,
                **fields,
            }
        )

    async def tool_failed(self, tool_call_id: str, message: str) -> None:
        """Mark a tool call failed with a message."""
        await self.tool_update(tool_call_id, "failed", content=tool_text(message))

    async def fail_open_tool_calls(self, message: str) -> None:
        """After a cancel: report every tool call that had not finished as failed."""
        for tool_call_id in list(self.open_tool_calls):
            await self.tool_failed(tool_call_id, message)

    async def set_plan(self, *statuses: str) -> None:
        """Send the plan with each step's status."""
        self.plan = list(statuses)
        entries = [
            {"content": text, "priority": priority, "status": status}
            for (text, priority), status in zip(content.PLAN_ENTRIES, self.plan, strict=True)
        ]
        await self.send({"sessionUpdate": "plan", "entries": entries})

    async def usage(self, used: int, cost: float) -> None:
        """Send a usage update (tokens used and cost)."""
        await self.send(
            {
                "sessionUpdate": "usage_update",
                "used": used,
                "size": CONTEXT_WINDOW,
                "cost": {"amount": cost, "currency": "USD"},
            }
        )

    # ---- the script -----------------------------------------------------------------------

    async def run(self, text: str) -> str:
        """Play the script the prompt asks for; return the stop reason."""
        words = text.strip().split()
        command = words[0][1:] if words and words[0].startswith("/") else "tour"
        if command == "tour":
            await self.tour()
        elif command == "stream":
            await self.say(content.stream_markdown(), fast=True)
        elif command == "edit":
            await self.step_edit()
        elif command == "terminal":
            await self.step_terminal()
        elif command == "plan":
            await self.plan_demo()
        elif command == "crash":
            await self.say(content.CRASH_PREFIX)
            await self.peer.crash(3, content.CRASH_STDERR)
        elif command == "refuse":
            await self.say(content.REFUSAL)
            return "refusal"
        elif command == "subagent":
            await subagent_demo(self)
        elif command == "help":
            await self.say(content.help_text())
        else:
            await self.say(content.unknown_command_text(command))
        return "end_turn"

    async def tour(self) -> None:
        """The demo's main turn: thought, plan, read, search, fetch, terminal, edit and a
        summary.
        """
        await self.stream("agent_thought_chunk", content.THOUGHT)
        await self.set_plan("pending", "pending", "pending", "pending")
        if self.peer.protocol >= 2:
            await v2.background_task(self, self.peer.v2_state(self.session))
        await self.usage(1_240, 0.0042)
        await self.pause()
        await self.set_plan("in_progress", "pending", "pending", "pending")
        await self.step_read()
        await self.set_plan("completed", "in_progress", "pending", "pending")
        await self.step_search()
        await self.peer.break_point(self.session, self)  # v2: queued prompts are taken here
        await self.step_fetch()
        await self.set_plan("completed", "completed", "in_progress", "pending")
        await self.usage(3_180, 0.0121)
        await self.peer.break_point(self.session, self)
        await self.step_terminal()
        await self.set_plan("completed", "completed", "completed", "in_progress")
        await self.step_edit()
        await self.peer.break_point(self.session, self)
        await self.pause()
        await self.say(content.TOUR_MESSAGE + self.attachments_note())
        await self.set_plan("completed", "completed", "completed", "completed")
        await self.usage(5_960, 0.0217)

    def attachments_note(self) -> str:
        """A sentence about what the prompt attached (images, files, ...), or ""."""
        kinds = [b.get("type") for b in self.prompt[1:] if isinstance(b, dict)]
        if not kinds:
            return ""
        listed = ", ".join(f"{kinds.count(k)} {k}" for k in sorted({str(k) for k in kinds}))
        return f"\n*Your prompt also carried: {listed}.*\n"

    async def step_read(self) -> None:
        """Read README.md through fs/read_text_file (v2: its own request)."""
        if self.peer.protocol >= 2:
            await v2.step_read(self)
            return
        path = self.path("README.md")
        call = await self.tool_start(
            "Read README.md",
            "read",
            "in_progress",
            locations=[{"path": path}],
            rawInput={"path": path},
        )
        await self.pause(TOOL_PAUSE)
        if not has_capability(self.peer.client_capabilities, "fs", "readTextFile"):
            await self.tool_failed(call, "The client did not offer fs.readTextFile.")
            return
        try:
            answer = await self.peer.request(
                methods.FS_READ_TEXT_FILE, {"sessionId": self.session.id, "path": path}
            )
        except RpcError as error:
            await self.tool_failed(call, f"Could not read {path}: {error.message}")
            return
        text = answer.get("content") if isinstance(answer, dict) else None
        if not isinstance(text, str):
            await self.tool_failed(call, "The client's answer had no text content.")
            return
        lines = len(text.splitlines())
        await self.tool_update(
            call,
            "completed",
            content=tool_text(f"Read {lines} lines ({len(text)} characters)."),
            locations=[{"path": path, "line": 1}],
            rawOutput={"lines": lines},
        )

    async def step_search(self) -> None:
        """A search tool call with its results."""
        call = await self.tool_start(
            "Search the project for classes and functions",
            "search",
            "in_progress",
            rawInput={"pattern": "^(class|def) "},
        )
        await self.pause(TOOL_PAUSE)
        locations = []
        for hit in content.SEARCH_RESULTS.splitlines():
            relative, line, _ = hit.split(":", 2)
            locations.append({"path": self.path(relative), "line": int(line)})
        await self.tool_update(
            call,
            "completed",
            content=tool_text(f"```\n{content.SEARCH_RESULTS}\n```"),
            locations=locations,
        )

    async def step_fetch(self) -> None:
        """A fetch tool call that fails, as an offline agent's would (nothing is fetched)."""
        call = await self.tool_start(
            f"Fetch {content.FETCH_URL}",
            "fetch",
            "in_progress",
            rawInput={"url": content.FETCH_URL},
        )
        await self.pause(TOOL_PAUSE)
        await self.tool_failed(call, content.FETCH_ERROR)

    async def step_terminal(self) -> None:
        """Run `ls -la` in a client terminal and show its output."""
        if self.peer.protocol >= 2:
            await v2.step_terminal(self)
            return
        cwd = self.session.cwd
        call = await self.tool_start(
            "ls -la", "execute", "pending", rawInput={"command": "ls", "args": ["-la"], "cwd": cwd}
        )
        if not has_capability(self.peer.client_capabilities, "terminal"):
            await self.tool_failed(call, "The client did not offer terminals.")
            return
        terminal_id: str | None = None
        try:
            created = await self.peer.request(
                methods.TERMINAL_CREATE,
                {
                    "sessionId": self.session.id,
                    "command": "ls",
                    "args": ["-la"],
                    "cwd": cwd,
                    "outputByteLimit": 64_000,
                },
            )
            terminal_id = str(created["terminalId"])
            ids = {"sessionId": self.session.id, "terminalId": terminal_id}
            await self.tool_update(
                call, "in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
            )
            exited = await self.peer.request(methods.TERMINAL_WAIT_FOR_EXIT, ids)
            output = await self.peer.request(methods.TERMINAL_OUTPUT, ids)
            await self.peer.request(methods.TERMINAL_RELEASE, ids)
            terminal_id = None
        except RpcError as error:
            await self.tool_failed(call, f"Terminal failed: {error.message}")
            return
        except (KeyError, TypeError):
            await self.tool_failed(call, "The client's terminal answer was malformed.")
            return
        finally:
            if terminal_id is not None:  # cancelled or failed half-way: free the terminal
                self.peer.request_soon(
                    methods.TERMINAL_RELEASE,
                    {"sessionId": self.session.id, "terminalId": terminal_id},
                )
        exit_code = exited.get("exitCode") if isinstance(exited, dict) else None
        raw = {
            "exitCode": exit_code,
            "truncated": bool(isinstance(output, dict) and output.get("truncated")),
        }
        status = "completed" if exit_code == 0 else "failed"
        await self.tool_update(call, status, rawOutput=raw)

    async def step_edit(self) -> None:
        """Edit src/app.py: ask permission, then write it through fs/write_text_file."""
        path = self.path("src/app.py")
        current = await self.read_quietly(path)
        new = content.edited_app_py(current)
        first_change = next(
            (
                i
                for i, (a, b) in enumerate(
                    zip(current.splitlines(), new.splitlines(), strict=False)
                )
                if a != b
            ),
            0,
        )
        call = await self.tool_start(
            "Edit src/app.py",
            "edit",
            "pending",
            content=[{"type": "diff", "path": path, "oldText": current, "newText": new}],
            locations=[{"path": path, "line": first_change + 1}],
        )
        if self.session.mode == "architect":
            await self.tool_failed(call, "Architect mode plans only: no edits.")
            return
        allowed = await self.ask_permission(call, path)
        if not allowed:
            await self.tool_failed(call, "Rejected by user")
            return
        if self.peer.protocol >= 2:
            await v2.write_edit(self, call, path, new)
            return
        if not has_capability(self.peer.client_capabilities, "fs", "writeTextFile"):
            await self.tool_failed(call, "The client did not offer fs.writeTextFile.")
            return
        await self.tool_update(call, "in_progress")
        try:
            await self.peer.request(
                methods.FS_WRITE_TEXT_FILE,
                {"sessionId": self.session.id, "path": path, "content": new},
            )
        except RpcError as error:
            await self.tool_failed(call, error.message)
            return
        await self.tool_update(call, "completed")

    async def read_quietly(self, path: str) -> str:
        """The file's current text through the client, or the sample text if it can't be read."""
        if self.peer.protocol >= 2:  # v2: the agent reads it itself
            return v2.read_file(path) or APP_PY
        if has_capability(self.peer.client_capabilities, "fs", "readTextFile"):
            try:
                answer = await self.peer.request(
                    methods.FS_READ_TEXT_FILE, {"sessionId": self.session.id, "path": path}
                )
            except RpcError:
                answer = None
            if isinstance(answer, dict) and isinstance(answer.get("content"), str):
                return str(answer["content"])
        return APP_PY

    async def ask_permission(self, call: str, path: str) -> bool:
        """True if the edit may go ahead; raises TurnCancelled if the client cancelled."""
        if self.session.mode == "code":
            return True
        if self.session.edits_allowed is not None:
            return self.session.edits_allowed
        options = [
            {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "allow-always", "name": "Always allow edits", "kind": "allow_always"},
            {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
            {"optionId": "reject-always", "name": "Always reject edits", "kind": "reject_always"},
        ]
        params = {
            "sessionId": self.session.id,
            "options": options,
            "toolCall": {
                "toolCallId": call,
                "title": "Edit src/app.py",
                "kind": "edit",
                "status": "pending",
                "locations": [{"path": path}],
            },
        }
        if self.peer.protocol >= 2:
            params = v2.permission_params(self, call, path, options)
        try:
            answer = await self.peer.request(methods.SESSION_REQUEST_PERMISSION, params)
        except RpcError:
            return False
        chosen = selected_option_id(answer)
        if chosen is None:
            raise TurnCancelled
        kinds = {option["optionId"]: option["kind"] for option in options}
        kind = kinds.get(chosen, "reject_once")
        if kind.endswith("_always"):
            self.session.edits_allowed = kind == "allow_always"
        return kind.startswith("allow")

    async def plan_demo(self) -> None:
        """Walk the plan's steps from pending to completed."""
        await self.set_plan("in_progress", "pending", "pending", "pending")
        await self.pause()
        await self.set_plan("completed", "in_progress", "pending", "pending")
        items = [
            {"content": text, "priority": priority, "status": "pending"}
            for text, priority in content.EXTRA_PLAN_ENTRIES
        ]
        await self.send(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": content.EXTRA_PLAN_ID, "entries": items},
            }
        )
        await self.pause()
        await self.set_plan("completed", "completed", "in_progress", "pending")
        items[0]["status"] = "completed"
        items[1]["status"] = "in_progress"
        await self.send(
            {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": content.EXTRA_PLAN_ID, "entries": items},
            }
        )
        await self.pause()
        await self.set_plan("completed", "completed", "completed", "in_progress")
        await self.send({"sessionUpdate": "plan_removed", "planId": content.EXTRA_PLAN_ID})
        await self.pause()
        await self.set_plan("completed", "completed", "completed", "completed")
        await self.say("The plan is done, and the extra plan came and went.\n")
