"""Driving one `AgentSession` (no UI) through the fake LLM's turn, and what the turn left."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.permissions import PendingPermission
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.hunks import ReviewedWrite

SHELL_OK = re.compile(r"(?m)^(?:Output: )?shell-ok\s*$")  # a line of `echo shell-ok`'s output


class InteropUi:
    """Logs in with the agent's known method, denies outside paths; writes are never held
    (the tests run with `hold_writes = never`), so a review never comes."""

    def __init__(self, auth: str | None) -> None:
        self.auth = auth
        self.asker = FixedAnswer("deny")
        self.auth_asked: list[str | None] = []

    async def choose_auth_method(
        self,
        agent: str,
        methods: Sequence[AuthMethodInfo],
        error: str | None,
        *,
        by_user: bool = False,
    ) -> AuthMethodInfo | None:
        self.auth_asked.append(error)
        if len(self.auth_asked) > 2:
            return None
        return next((m for m in methods if m.id == self.auth), None)

    async def run_login_terminal(
        self, argv: Any, env: Any, cwd: Any, *, by_user: bool = False
    ) -> None:
        return None

    async def review_write(self, path: Path, diff: Any) -> ReviewedWrite | None:
        raise AssertionError(f"a write to {path} was held for review")


@dataclass
class Wire:
    """The frames of a session, in both directions."""

    frames: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def tap(self, event: TrafficEvent) -> None:
        try:
            frame = json.loads(event.raw)
        except ValueError:
            return
        if isinstance(frame, dict):
            self.frames.append((event.direction, frame))

    def summary(self, width: int = 300) -> str:
        """One line per frame (chunks of text left out), for the report of a failed test."""
        lines = []
        for direction, frame in self.frames:
            update = (frame.get("params") or {}).get("update") if "method" in frame else None
            if isinstance(update, dict) and str(update.get("sessionUpdate")).endswith("_chunk"):
                continue
            lines.append(f"{direction} {json.dumps(frame)[:width]}")
        return "\n".join(lines)

    def requests_from_agent(self, method: str) -> list[dict[str, Any]]:
        return [f for d, f in self.frames if d == "in" and f.get("method") == method and "id" in f]

    def answers_to(self, method: str) -> list[Any]:
        """Our results to the agent's requests of `method`."""
        ids = {json.dumps(f["id"]) for f in self.requests_from_agent(method)}
        return [
            f.get("result")
            for d, f in self.frames
            if d == "out" and "method" not in f and json.dumps(f.get("id")) in ids
        ]


def permission_answerer(answered: list[str]) -> Any:
    """Answers every permission request "allow once" (or the first allowing option)."""

    def answer(pending: PendingPermission) -> None:
        option = pending.option_of_kind("allow_once") or pending.option_of_kind("allow_always")
        if option is None:
            pending.cancel()
            return
        answered.append(option.kind)
        pending.select(option.option_id)

    return answer


async def wait_turn_end(session: AgentSession, seconds: float) -> str | None:
    ended: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    def on_change(change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged) and not change.running and not ended.done():
            ended.set_result(change.stop_reason)

    unsubscribe = session.thread.subscribe(on_change)
    try:
        async with asyncio.timeout(seconds):
            return await ended
    finally:
        unsubscribe()


async def switch_mode(session: AgentSession, wanted: str | None) -> tuple[str | None, list[str]]:
    """Switch to `wanted`, or to the first other mode the agent accepts. Returns the mode
    switched to (None if none) and the agent's refusals."""
    thread = session.thread
    candidates = [wanted] if wanted else [m.id for m in thread.modes]
    refusals: list[str] = []
    for mode_id in candidates:
        if mode_id == thread.current_mode_id and wanted is None:
            continue
        error = await session.set_mode(mode_id)
        if error is None:
            return mode_id, refusals
        refusals.append(f"{mode_id}: {error}")
    return None, refusals


def output_texts(session: AgentSession, wire: Wire) -> list[str]:
    """What the agent's tool calls returned (text content, raw output) and what its terminals
    printed (our answers to terminal/output)."""
    texts: list[str] = []
    for call in session.thread.tool_calls.values():
        for item in call.content:
            block = getattr(item, "content", None)
            if getattr(block, "type", None) == "text":
                texts.append(str(block.text))  # type: ignore[union-attr]
        raw = call.raw_output
        if isinstance(raw, str):
            texts.append(raw)
        elif isinstance(raw, dict):
            texts += [value for value in raw.values() if isinstance(value, str)]
    for result in wire.answers_to("terminal/output"):
        if isinstance(result, dict) and isinstance(result.get("output"), str):
            texts.append(result["output"])
    return texts


def user_messages(session: AgentSession) -> list[str]:
    entries = session.thread.entries
    return [e.text for e in entries if isinstance(e, MessageEntry) and e.role == "user"]


DENIED = re.compile(
    r"EACCES|EPERM|EROFS|[Pp]ermission denied|[Oo]peration not permitted|[Rr]ead-only"
)


def sandbox_report(session: AgentSession) -> str:
    """The sandbox the agent ran in and the lines of its stderr where something was refused,
    for the report of a failed test: they name the directory the agent needed."""
    policy = session.sandbox
    lines = policy.describe(Path.home()) if policy is not None else [str(session.sandbox_error)]
    process = session._process
    tail = process.stderr_tail(400) if process is not None else []
    if session.crash is not None:
        tail += session.crash.stderr_tail
    lines += [f"  refused: {line}" for line in tail if DENIED.search(line)]
    return "\n".join(lines)
