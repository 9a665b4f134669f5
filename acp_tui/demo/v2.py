"""The demo agent speaking ACP v2 (draft): `acp-tui --demo --protocol 2`.

The tour's script (`acp_tui.demo.turn`) is written in v1 updates; `to_v2` rewrites each one the
v2 way (`tool_call` → `tool_call_update`, chunks get a `messageId`, `plan` → `plan_update`,
mode updates → `config_option_update`, diffs → `changes` + a git patch). v2 has no client
`fs/*`/`terminal/*`: the v2 steps read and write the files themselves and run `ls` in a terminal
of their own, reported with `terminal_update`/`terminal_output_chunk`.

The v2 lifecycle: `session/prompt` is answered when the agent takes the prompt. A prompt that
arrives during a turn waits in the session's inbox until the turn reaches a break point, where
the agent announces it with `user_message` and works on it. The turn is reported with
`state_update`. Before the first prompt the agent says hello; after the tour a background task
keeps reporting progress after the turn went idle.

The steps here see the running turn as `turn_api.TurnApi`: `turn.py` imports this module, never
the other way round.
"""

from __future__ import annotations

import asyncio
import base64
import difflib
import itertools
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.demo import content
from acp_tui.demo.turn_api import JsonObject, Session, TurnApi

MODE_CONFIG_ID = "mode"
PLAN_ID = "demo-plan"
GREETING = (
    "Hello! I'm the demo agent, speaking the **ACP v2 draft**. I can talk before you ask "
    "anything, take messages you type while I work, and keep working after a turn ends.\n"
)
BACKGROUND_DONE = "Background indexing finished after the turn: 54 files indexed.\n"
BACKGROUND_STEPS = ("indexed 12 files", "indexed 31 files", "indexed 54 files: done")


@dataclass
class Inbox:
    """Prompts the client sent while a turn ran: (text, future answered when taken, the id of
    the user message it becomes)."""

    waiting: list[tuple[str, asyncio.Future[None], str]] = field(default_factory=list)


@dataclass
class V2State:
    """Per session: message ids, and what kind of update came last (a new message after)."""

    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    last_kind: str | None = None
    message_id: str = ""
    inbox: Inbox = field(default_factory=Inbox)
    background: list[JsonObject] = field(default_factory=list)
    """The background work every state snapshot lists (the whole list each time)."""
    stoppable: dict[str, Callable[[], None]] = field(default_factory=dict)
    """Tool calls that offer `cancel`, and how each is stopped (`tool_call/cancel`)."""
    stop_reason: str = "end_turn"
    """The last turn's stop reason (a later idle snapshot repeats it)."""

    def new_id(self, prefix: str) -> str:
        """A new id with `prefix`, unique in this session."""
        return f"{prefix}-{next(self.ids)}"


def config_options(session: Session) -> list[JsonObject]:
    """The session's config options in the v2 draft's shape (the mode among them)."""
    options = [
        {"value": m["id"], "name": m["name"], "description": m["description"]}
        for m in content.MODES
    ]
    return [
        {
            "configId": MODE_CONFIG_ID,
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": session.mode,
            "options": options,
        }
    ]


def commands() -> list[JsonObject]:
    """The slash commands as the current draft sends them in the session/new answer."""
    return [
        {"type": "command", "name": name, "description": description}
        for name, description in content.COMMANDS
    ]


def initialize_answer(version: str) -> JsonObject:
    """The demo's v2 `initialize` answer."""
    return {
        "protocolVersion": 2,
        "info": {"name": content.AGENT_NAME, "title": "acp-tui demo agent", "version": version},
        "capabilities": {"session": {"prompt": {"image": {}, "embeddedContext": {}}}},
        "authMethods": [
            {
                "type": "agent",
                "methodId": content.AUTH_METHOD_ID,
                "name": "Demo login",
                "description": "Pretend to log in (no key needed)",
            }
        ],
    }


def git_patch(path: str, old: str, new: str) -> str:
    """One file's `diff --git` section, as the current draft's patch content carries it: the
    absolute path without Git's `a/` `b/` prefixes, `/dev/null` for a new file's old side."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        path if old else "/dev/null",
        path,
    )
    body = "".join(lines)
    header = f"diff --git {path} {path}\n" + ("" if old else "new file mode 100644\n")
    return header + body


def _tool_content_v2(item: Any) -> Any:
    if isinstance(item, dict) and item.get("type") == "diff" and "path" in item:
        old = item.get("oldText") or ""
        return {
            "type": "diff",
            "changes": [
                {"operation": "modify" if old else "add", "path": item["path"], "fileType": "text"}
            ],
            "patch": {
                "format": "git_patch",
                "text": git_patch(item["path"], old, item.get("newText", "")),
            },
        }
    return item


def to_v2(state: V2State, session: Session, update: JsonObject) -> JsonObject | None:
    """A v1 update of the script as v2 sends it (None: v2 has nothing for it)."""
    kind = update.get("sessionUpdate")
    if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
        if "messageId" in update:  # (the background task's own message)
            return update
        if kind != state.last_kind or not state.message_id:
            state.message_id = state.new_id("msg")
        state.last_kind = kind
        return {**update, "messageId": state.message_id}
    state.last_kind = None
    if kind == "tool_call":
        return {
            **update,
            "sessionUpdate": "tool_call_update",
            "content": [_tool_content_v2(c) for c in update.get("content", [])],
        }
    if kind == "tool_call_update" and "content" in update:
        return {**update, "content": [_tool_content_v2(c) for c in update["content"]]}
    if kind == "plan":
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": PLAN_ID, "entries": update["entries"]},
        }
    if kind == "current_mode_update":
        return {"sessionUpdate": "config_option_update", "configOptions": config_options(session)}
    return update


# ---- the v2 steps (the agent does its own file and terminal work) ------------------------------


async def step_read(turn: TurnApi) -> None:
    """The read step in the v2 draft."""
    path = turn.path("README.md")
    call = await turn.tool_start(
        "Read README.md", "read", "in_progress", locations=[{"path": path}], rawInput={"path": path}
    )
    await turn.pause(0.8)
    try:
        text = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        await turn.tool_failed(call, f"Could not read {path}: {error}")
        return
    lines = len(text.splitlines())
    await turn.tool_update(
        call,
        "completed",
        content=[
            {
                "type": "content",
                "content": {
                    "type": "text",
                    "text": f"Read {lines} lines ({len(text)} characters).",
                },
            }
        ],
        locations=[{"path": path, "line": 1}],
        rawOutput={"lines": lines},
    )


async def step_terminal(turn: TurnApi) -> None:
    """The terminal step in the v2 draft."""
    cwd = turn.session.cwd
    call = await turn.tool_start(
        "ls -la", "execute", "in_progress", rawInput={"command": "ls", "args": ["-la"], "cwd": cwd}
    )
    terminal_id = f"term-{call}"
    await turn.send(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "command": "ls -la --color=always",
            "cwd": cwd,
        }
    )
    await turn.tool_update(
        call, "in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
    )
    try:
        process = await asyncio.create_subprocess_exec(
            "ls",
            "-la",
            "--color=always",
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, "COLUMNS": "80"},
        )
    except OSError as error:
        await turn.tool_failed(call, f"Could not run ls: {error}")
        return
    assert process.stdout is not None
    while data := await process.stdout.read(256):
        await turn.send(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": terminal_id,
                "data": base64.b64encode(data.replace(b"\n", b"\r\n")).decode(),
            }
        )
        await turn.pause(0.05)
    code = await process.wait()
    exit_status: JsonObject = {"exitCode": code} if code >= 0 else {"signal": f"SIG{-code}"}
    await turn.send(
        {"sessionUpdate": "terminal_update", "terminalId": terminal_id, "exitStatus": exit_status}
    )
    await turn.tool_update(
        call, "completed" if code == 0 else "failed", rawOutput={"exitCode": code}
    )


async def write_edit(turn: TurnApi, call: str, path: str, new: str) -> None:
    """After the permission: the agent writes the file itself (v2 has no fs/write_text_file)."""
    await turn.tool_update(call, "in_progress")
    try:
        await asyncio.to_thread(Path(path).write_text, new, encoding="utf-8")
    except OSError as error:
        await turn.tool_failed(call, f"Could not write {path}: {error}")
        return
    await turn.tool_update(call, "completed")


def read_file(path: str) -> str | None:
    """The file's text, or None when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def permission_params(turn: TurnApi, call: str, path: str, options: list[JsonObject]) -> JsonObject:
    """The v2 permission request's parameters for editing `path`."""
    title = f"Edit {posixpath.relpath(path, turn.session.cwd)}"
    return {
        "sessionId": turn.session.id,
        "title": title,
        "options": options,
        "subject": {
            "type": "tool_call",
            "toolCall": {
                "toolCallId": call,
                "title": title,
                "kind": "edit",
                "status": "pending",
                "locations": [{"path": path}],
            },
        },
    }


async def background_task(turn: TurnApi, state: V2State) -> None:
    """Started in the tour; keeps reporting after the turn went idle, then says it's done.

    It is background work as the current draft has it: listed in every state snapshot while it
    runs, and offering `cancel` (`tool_call/cancel` stops it: reported `cancelled`)."""
    call = await turn.tool_start(
        "Index the project (in the background)",
        "search",
        "in_progress",
        capabilities={"cancel": {}},
    )
    turn.open_tool_calls.pop(call, None)  # not the turn's: it outlives it
    state.background.append({"type": "tool_call", "toolCallId": call})

    async def finish(status: str) -> None:
        state.stoppable.pop(call, None)
        await turn.send(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call,
                "status": status,
                "capabilities": None,
            }
        )
        state.background[:] = [w for w in state.background if w.get("toolCallId") != call]
        running = turn.session.turn
        if running is None or running.done():  # idle: a snapshot without it says it is over
            await turn.send(
                {
                    "sessionUpdate": "state_update",
                    "state": "idle",
                    "stopReason": state.stop_reason,
                    "background": list(state.background),
                }
            )

    async def run() -> None:
        await turn.pause(1.5)
        await turn.send(
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": call,
                "content": {"type": "content", "content": {"type": "text", "text": "started\n"}},
            }
        )
        running = turn.session.turn
        if running is not None:
            await asyncio.wait([running])  # it reports the rest after the turn ended
        for step in BACKGROUND_STEPS:
            await turn.pause(1.0)
            await turn.send(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": call,
                    "content": {
                        "type": "content",
                        "content": {"type": "text", "text": f"{step}\n"},
                    },
                }
            )
        await finish("completed")
        await turn.send(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": f"bg-{call}",
                "content": {"type": "text", "text": BACKGROUND_DONE},
            }
        )

    task = turn.peer.spawn(run())

    def stop() -> None:
        if not task.done():
            task.cancel()
            turn.peer.spawn(finish("cancelled"))

    state.stoppable[call] = stop
