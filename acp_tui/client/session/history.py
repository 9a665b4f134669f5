"""Earlier sessions: list them, open one, delete, fork, and remember those an agent cannot list.

What the agent can do is in its `sessionCapabilities` (`list`, `resume`, `close`, `delete`,
unstable `fork`) and `loadSession`. `open_session` opens into a fresh, empty conversation, so it
loads where it can (the agent replays the conversation, tool calls included, and the user sees
it) and resumes otherwise (no replay: a notice says why the screen is empty). For an agent that
cannot list, `RememberedSessions` keeps the ids and titles acp-tui created, per directory and
agent (`remembered`). Where the agent answers the unstable `session/status` (no side effect),
`--continue` and an id to reopen (`--resume ID`, a saved workspace's tabs) skip a session it
no longer knows without loading it, and the picker shows which ones are still open. Nothing
here imports Textual.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from acp_tui.client.events import Notice, SessionState
from acp_tui.client.mcp_offer import servers_for
from acp_tui.client.session.config import error_text
from acp_tui.client.session.remembered import RememberedSessions
from acp_tui.client.session.session_summary import GONE, SessionSummary
from acp_tui.client.system_prompt import system_prompt_param
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RESOURCE_NOT_FOUND, RpcError
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.safe_text import safe_line

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession

RESUMED = (
    "Session resumed: {agent} has the conversation so far, but resuming does not send it again,"
    " so it is not shown here."
)


@dataclass(frozen=True)
class HistoryCapabilities:
    list: bool = False
    resume: bool = False
    load: bool = False
    close: bool = False
    delete: bool = False
    fork: bool = False

    @classmethod
    def of(cls, agent_capabilities: AgentCapabilities) -> HistoryCapabilities:
        """What the agent can do with past sessions (list, load, resume, fork, delete), from
        its capabilities.
        """
        caps = agent_capabilities.session_capabilities
        extra = caps.model_extra or {}
        return cls(
            list=caps.list is not None,
            resume=caps.resume is not None,
            load=agent_capabilities.load_session,
            close=caps.close is not None,
            delete=caps.delete is not None,
            fork=isinstance(extra.get("fork"), dict),  # unstable: not in the model
        )

    @property
    def can_open(self) -> bool:
        """Whether a past session can be opened (resumed or loaded)."""
        return self.resume or self.load


@dataclass
class SessionPage:
    sessions: list[SessionSummary]
    next_cursor: str | None = None
    error: str | None = None


async def list_sessions(
    session: AgentSession, cursor: str | None = None, *, archived: bool = False
) -> SessionPage:
    """One page of the agent's `session/list` for this directory (or the remembered ones);
    `archived`: the archived ones too, where the agent archives (`sessionCapabilities.archive`).
    Where it answers `session/status`, each listed session says whether it is still open."""
    caps = HistoryCapabilities.of(session.agent_capabilities)
    if not caps.list:
        remembered = RememberedSessions().recent(session.cwd, agent_key(session))
        return SessionPage(remembered)
    offered = session.agent_capabilities.session_capabilities
    wanted = "include" if archived and offered.archive is not None else None
    try:
        page = await session.api.list_sessions(str(session.cwd), cursor, archived=wanted)
    except (RpcError, ConnectionClosed) as error:
        return SessionPage([], error=error_text(error))
    children = session.thread.sessions.children  # a subagent session is never opened
    listed = [s for s in page.sessions if s.session_id not in children]
    statuses = await _statuses(session, [s.session_id for s in listed])
    sessions = [
        SessionSummary(s.session_id, s.title, s.updated_at, s.cwd, bool(s.archived),
                       statuses.get(s.session_id))
        for s in listed
    ]  # fmt: skip
    return SessionPage(sessions, page.next_cursor)


MAX_STATUS_ASKS = 20
"""Sessions of a page asked `session/status` (the newest first; the rest say nothing)."""


def offers_status(session: AgentSession) -> bool:
    """Whether the agent answers `session/status` (`sessionCapabilities.status`)."""
    return session.agent_capabilities.session_capabilities.status is not None


async def session_status(session: AgentSession, session_id: str) -> str | None:
    """`session/status` of one session (no side effect on the agent): "open", "saved" (or a
    newer word), `GONE` when the agent does not know it (-32002); None when it does not say."""
    try:
        return await session.api.session_status(session_id)
    except RpcError as error:
        return GONE if error.code == RESOURCE_NOT_FOUND else None
    except ConnectionClosed:
        return None


async def _statuses(session: AgentSession, ids: list[str]) -> dict[str, str]:
    """`session/status` of each session (no side effect on the agent), where it answers it."""
    if not offers_status(session):
        return {}

    async def one(session_id: str) -> tuple[str, str | None]:
        return session_id, await session_status(session, session_id)

    answers = await asyncio.gather(*(one(i) for i in ids[:MAX_STATUS_ASKS]))
    return {session_id: status for session_id, status in answers if status is not None}


async def archive_session(
    session: AgentSession, session_id: str, *, archived: bool = True
) -> str | None:
    """`session/archive` (or `session/unarchive`) where the agent offers it; an error, or None."""
    if session.agent_capabilities.session_capabilities.archive is None:
        return f"{session.agent_name} cannot archive sessions"
    if session_id in session.thread.sessions.children:
        return "a subagent session is not archived on its own"
    try:
        await session.api.archive_session(session_id, archived=archived)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None


async def most_recent(session: AgentSession) -> SessionSummary | None:
    """The last session of this directory (the agent's list, newest `updatedAt` first) that
    the agent still knows: one `session/status` says is gone is skipped, never loaded."""
    page = await list_sessions(session)
    known = [s for s in page.sessions if s.status != GONE]
    if not known:
        return None
    dated = [s for s in known if s.updated_at]
    return max(dated, key=lambda s: s.updated_at or "") if dated else known[0]


async def open_session(session: AgentSession, session_id: str) -> bool:
    """Load (replay) when the agent can, else resume (no replay). False with `session.error`."""
    caps = HistoryCapabilities.of(session.agent_capabilities)
    if not caps.can_open:
        session.error = f"{session.agent_name} cannot open earlier sessions"
        return False
    return await _open(session, session_id, caps)


async def _open(session: AgentSession, session_id: str, caps: HistoryCapabilities) -> bool:
    resume = caps.resume and not caps.load  # loading shows the conversation, resuming does not
    ok = await session.open_existing(session_id, resume=resume)
    if ok and resume and not session.thread.entries:
        # resume sends no history: say why the conversation looks empty
        session.notices.emit(Notice(RESUMED.format(agent=session.agent_name)))
    return ok


async def delete_session(session: AgentSession, session_id: str) -> str | None:
    """`session/delete`; an error message, or None. Also forgets a remembered id."""
    RememberedSessions().forget(session.cwd, agent_key(session), session_id)
    if not HistoryCapabilities.of(session.agent_capabilities).delete:
        return None
    try:
        await session.api.delete_session(session_id)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None


async def fork_session(session: AgentSession, session_id: str) -> tuple[str | None, str | None]:
    """Unstable `session/fork`: (the new session's id, None) or (None, an error message)."""
    prompt, _ = system_prompt_param(session.system_prompt, session.agent_capabilities)
    try:
        fork = await session.api.fork_session(
            session_id, str(session.cwd), servers_for(session), system_prompt=prompt
        )
    except (RpcError, ConnectionClosed) as error:
        return None, error_text(error)
    return fork.session_id, None


@dataclass(frozen=True)
class OpenRequest:
    """Which session to start with: a given id (`--resume ID`), the last one (`--continue`),
    or a choice from the picker (`--resume` alone: no session is opened before the user picks,
    so nothing sent before goes to another one)."""

    resume_id: str | None = None
    continue_last: bool = False
    pick: bool = False


async def start(session: AgentSession, request: OpenRequest) -> bool:
    """Connect and open the session `request` asks for; a new one when there is none to open.
    `pick`: connect only; the app shows the picker and opens the choice (`open_picked`)."""
    if request.pick:
        return await session.connect()
    if request.resume_id is None and not request.continue_last:
        return await session.start()
    if not await session.connect():
        return False
    opened = await _open_requested(session, request)
    session.changes.start_soon()  # as `AgentSession.start` does: an opened session is watched
    return opened


def offers_picker(session: AgentSession) -> bool:
    """Whether `--resume` alone shows the picker on the connected agent: only if the agent can
    open earlier sessions (a notice says it cannot, and a new session is opened instead)."""
    if HistoryCapabilities.of(session.agent_capabilities).can_open:
        return True
    session.notices.emit(
        Notice(f"{session.agent_name} cannot open earlier sessions: a new one.", "warning")
    )
    return False


async def open_picked(session: AgentSession, session_id: str | None, *, fork: bool = False) -> bool:
    """`--resume` alone, once the user chose: open the session picked (a fork of it with
    `fork`), or a new one (`session_id` None: the picker was closed). One the agent refuses is
    said, and a new session opened instead, as for `--resume ID`."""
    if session_id is not None and fork:
        session_id, error = await fork_session(session, session_id)
        if session_id is None:
            session.notices.emit(
                Notice(f"Could not fork: {error}. A new session instead.", "warning")
            )
    if session_id is None:
        opened = await session.open_new()
    else:
        opened = await _open_requested(session, OpenRequest(resume_id=session_id))
    session.changes.start_soon()
    return opened


async def _open_requested(session: AgentSession, request: OpenRequest) -> bool:
    caps = HistoryCapabilities.of(session.agent_capabilities)
    session_id = request.resume_id
    if session_id is None:
        recent = await most_recent(session)
        if recent is None:
            session.notices.emit(Notice("No earlier session in this directory: a new one."))
            return await session.open_new()
        session_id = recent.id
    elif offers_status(session) and await session_status(session, session_id) == GONE:
        # (asked without loading it: a load would fail, or replay part of it and then fail)
        session.notices.emit(
            Notice(
                f"The earlier session {safe_line(session_id[:80])} is gone: the agent no longer "
                "knows it. A new session instead.",
                "warning",
            )
        )
        return await session.open_new()
    if not caps.can_open:
        session.notices.emit(
            Notice(f"{session.agent_name} cannot open earlier sessions: a new one.", "warning")
        )
        return await session.open_new()
    if await _open(session, session_id, caps):
        return True
    if session.state is not SessionState.FAILED:
        return False  # the agent is gone: the crash is shown, there is nothing to fall back on
    # the agent refused this session (expired, not found, ...): say why and start a new one
    reason = session.error or "the agent refused"
    session.error = None
    session.thread.reset()  # anything a failed load replayed before it failed
    session.session_id = None
    session.notices.emit(
        Notice(f"Could not open the earlier session: {reason}. A new session instead.", "warning")
    )
    return await session.open_new()


def remember(session: AgentSession) -> None:
    """Note the current session (id, title, now) for this directory and agent, if the agent
    cannot list its sessions itself."""
    if HistoryCapabilities.of(session.agent_capabilities).list:
        return
    if session.session_id is not None:
        RememberedSessions().add(
            session.cwd,
            agent_key(session),
            SessionSummary(session.session_id, session.thread.title, _now(), str(session.cwd)),
        )


def agent_key(session: AgentSession) -> str:
    """Which agent remembered sessions belong to: its own name, else its command's."""
    from acp_tui.client.session.agent_session import command_name

    info = session.agent_info
    return info.name if info is not None and info.name else command_name(session.argv)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def rename_session(session: AgentSession, session_id: str, title: str) -> str | None:
    """`session/set_title` for an earlier session (F5), where the agent offers it; the one
    open in this tab is renamed with `AgentSession.rename` (its tab follows). An error, or None."""
    if session_id == session.session_id:
        return await session.rename(title)
    title = " ".join(title.split())
    if not title:
        return "a title cannot be empty"
    if session.agent_capabilities.session_capabilities.title is None:
        return f"{session.agent_name} does not rename sessions"
    try:
        await session.api.set_title(session_id, title)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None
