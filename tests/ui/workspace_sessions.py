"""Test support: a few real (unstarted) sessions for the overview and compare screens, in the
states a workspace shows, one of them hostile (its agent's name, title and last line carry
`tests.agents.hostile.PAYLOAD`: escape sequences, bidi controls and Rich markup)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.overview import SessionRow, SessionWatch, Worktree
from acp_tui.protocol.models import Implementation
from acp_tui.thread.permission import PermissionAsk
from bench.headless import HeadlessUi
from tests.agents.hostile import hostile
from tests.unit.thread_support import Clock, chunk, notify

PROJECT = Path("/work/project")
WORKTREE = Worktree(Path("/data/acp-tui/worktrees/project-codex"), "acp/codex-1")
SHOP_BEFORE = "def total(price, qty):\n    return price * qty\n\n\ndef greet(name):\n    pass\n"
SHOP_CLAUDE = (
    "def total(price, qty, tax=0.0):\n    return price * qty * (1 + tax)\n\n\n"
    "def greet(name):\n    pass\n"
)
SHOP_CODEX = (
    "def total(price: float, qty: int) -> float:\n    return price * qty\n\n\n"
    "def greet(name):\n    print('hello', name)\n"
)


def usage(session: AgentSession, used: int, size: int, cost: dict[str, Any] | None) -> None:
    update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": used, "size": size}
    if cost is not None:
        update["cost"] = cost
    notify(session.thread, update)


def say(session: AgentSession, text: str) -> None:
    notify(session.thread, chunk("agent_message_chunk", text))


class Workspace:
    """Three sessions: claude working in the project, a hostile agent waiting on a permission
    question, codex in a worktree with a finished turn the user has not seen."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.unread = {2}
        claude = AgentSession(["claude-agent-acp"], PROJECT, HeadlessUi())
        claude.state = SessionState.READY
        claude.thread.begin_turn()
        usage(claude, 12_300, 200_000, {"amount": 0.42, "currency": "USD"})
        say(claude, "I added a tax parameter.\nRunning the tests now")
        claude.change_log.add(PROJECT / "shop.py", SHOP_BEFORE, SHOP_CLAUDE)
        claude.change_log.add(PROJECT / "notes.md", None, "# Notes\n")

        evil = AgentSession(["evil"], PROJECT, HeadlessUi())
        evil.agent_info = Implementation.model_validate(
            {"name": "evil", "version": "1", "title": hostile("agent")}
        )
        evil.state = SessionState.READY
        notify(evil.thread, {"sessionUpdate": "session_info_update", "title": hostile("title")})
        say(evil, f"Working on it.\n{hostile('lastline')}")
        evil.thread.begin_turn()
        evil.thread.ask_permission("c1", PermissionAsk(1))

        codex = AgentSession(["codex-acp"], WORKTREE.path, HeadlessUi())
        codex.state = SessionState.READY
        usage(codex, 3_400, 0, {"amount": 1.5, "currency": "EUR"})
        say(codex, "[bold]Done[/bold]: typed `total`, `greet` says hello.")
        codex.change_log.add(WORKTREE.path / "shop.py", SHOP_BEFORE, SHOP_CODEX)

        self.sessions = [claude, evil, codex]
        self.watches = [
            SessionWatch(claude, clock=clock),
            SessionWatch(evil, clock=clock),
            SessionWatch(codex, worktree=WORKTREE, clock=clock),
        ]
        clock.now += 125

    def rows(self) -> list[SessionRow]:
        return [watch.row(unread=i in self.unread) for i, watch in enumerate(self.watches)]

    def add(self, session: AgentSession) -> None:
        self.sessions.append(session)
        self.watches.append(SessionWatch(session, clock=self.clock))
