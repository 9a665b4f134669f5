"""Continue from a message in a new session ("fork here"), as far as ACP allows.

ACP's unstable `session/fork` copies a whole session: it takes no message id. So there are two
ways, chosen by where the message is and what the agent can do:

- From the conversation's latest message, with an agent that can fork: `session/fork`. The new
  session holds exactly this conversation, so the screen keeps showing it.
- From an earlier message, or with an agent that cannot fork: `session/new`, and the next prompt
  carries the conversation up to that message (Markdown, the export format) as context: an
  embedded resource when the agent takes embedded context, else a text block. The agent reads
  it as context, not as its own history, and says so on the first prompt.

Nothing here imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from acp_tui.client.mcp_offer import servers_for
from acp_tui.client.session.config import error_text
from acp_tui.client.session.history import HistoryCapabilities
from acp_tui.client.session_settings import apply_settings, current_settings
from acp_tui.composer.prompt_content import PromptCapabilities
from acp_tui.output.export import conversation_markdown
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.thread.entries import Entry, MessageEntry, ToolCallEntry

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession

CONTEXT_URI = "acp-tui://conversation/{session}?until={entry}"
CONTEXT_INTRO = (
    "Context: the conversation below comes from an earlier session (up to the message I chose "
    "to continue from). Read it as our history so far; what I ask next follows on from it."
)
PREVIEW = 70
RUNNING = "a turn is running: wait for it, or cancel it (esc), first"


@dataclass(frozen=True)
class ForkPoint:
    """Where to continue from: the entries up to and including `index`; `latest` when nothing of
    the conversation (a message or a tool call) comes after it."""

    index: int
    latest: bool


@dataclass(frozen=True)
class Forked:
    """What `continue_from` did: `fork` (session/fork, the conversation kept on screen) or
    `context` (a new session; `carried` entries go with the next prompt); `new` (`start_fresh`:
    a new session, nothing carried). Each way the earlier session's mode, model and option
    values are set on the new one, and its title kept until the agent gives another."""

    how: Literal["fork", "context", "new"]
    session_id: str
    carried: int = 0
    problems: tuple[str, ...] = ()
    """Settings of the earlier session (mode, model, options) the new one did not take."""


def _counts(entry: Entry) -> bool:
    if isinstance(entry, ToolCallEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.role != "thought"


def fork_point(entries: list[Entry], entry_id: int) -> ForkPoint | None:
    """The fork point at the entry with id `entry_id` (None when the thread has no such entry)."""
    index = next((i for i, entry in enumerate(entries) if entry.id == entry_id), None)
    if index is None:
        return None
    return ForkPoint(index, latest=not any(_counts(e) for e in entries[index + 1 :]))


def messages(entries: list[Entry]) -> list[MessageEntry]:
    """The messages one can continue from (the user's and the agent's, with text), newest first."""
    found = [
        e for e in entries if isinstance(e, MessageEntry) and e.role != "thought" and e.text.strip()
    ]
    return found[::-1]


def preview(entry: MessageEntry, agent_name: str) -> str:
    """One line for a picker: who, then the message's first words."""
    who = "You" if entry.role == "user" else agent_name
    line = " ".join(entry.text.split())
    return f"{who}: {line[:PREVIEW]}{'…' if len(line) > PREVIEW else ''}"


def context_blocks(
    entries: list[Entry],
    *,
    session_id: str,
    entry_id: int,
    caps: PromptCapabilities,
    agent: str = "agent",
) -> list[dict[str, Any]]:
    """The conversation `entries` as prompt content: an intro and the transcript (embedded
    resource, or text for an agent without embedded context)."""
    transcript = conversation_markdown(entries, title="Earlier conversation", agent_name=agent)
    if caps.embedded_context:
        uri = CONTEXT_URI.format(session=quote(session_id, safe=""), entry=entry_id)
        resource = {"uri": uri, "mimeType": "text/markdown", "text": transcript}
        return [{"type": "text", "text": CONTEXT_INTRO}, {"type": "resource", "resource": resource}]
    return [{"type": "text", "text": f"{CONTEXT_INTRO}\n\n{transcript}"}]


async def continue_from(session: AgentSession, entry_id: int) -> Forked | str:
    """Continue from the entry `entry_id` in a new session (see the module docstring).
    Returns what was done, or an error message (the current session then goes on)."""
    entries = list(session.thread.entries)
    point = fork_point(entries, entry_id)
    old_id = session.session_id
    if point is None or old_id is None:
        return "that message is no longer in this session"
    if point.latest and HistoryCapabilities.of(session.agent_capabilities).fork:
        return await fork_whole(session)
    if session.v2 is not None:
        return "only the latest message can be continued from with ACP v2 (session/fork)"
    carried = entries[: point.index + 1]
    caps = PromptCapabilities.from_agent(session.agent_capabilities)
    blocks = context_blocks(
        carried, session_id=old_id, entry_id=entry_id, caps=caps, agent=session.agent_name
    )
    if session.turn_running:
        return RUNNING
    opened = await _reopen(session)
    if isinstance(opened, str):
        return opened
    new_id, problems = opened
    session.carry_into_next_prompt(blocks)
    return Forked("context", new_id, len(carried), problems)


async def start_fresh(session: AgentSession) -> Forked | str:
    """A new session in place of the current one (a rewind to the first prompt): nothing of the
    conversation carried, but its mode, model, option values and title kept. Returns what was
    done, or an error message."""
    if session.turn_running:
        return RUNNING
    opened = await _reopen(session)
    if isinstance(opened, str):
        return opened
    return Forked("new", opened[0], problems=opened[1])


async def _reopen(session: AgentSession) -> tuple[str, tuple[str, ...]] | str:
    """Close the current session and open a new one with the current one's settings and title:
    (its id, the settings it did not take), or an error message."""
    settings = current_settings(session)
    title = session.thread.title
    await session.close_current_session()
    session.thread.reset()
    if not await session.open_new():
        return session.error or "the agent did not open a new session"
    assert session.session_id is not None
    problems = await apply_settings(session, settings)
    session.thread.carry_title(title)
    return session.session_id, tuple(problems)


async def fork_whole(session: AgentSession) -> Forked | str:
    """`session/fork` of the current session; the thread stays (it is the fork's history)."""
    old_id = session.session_id
    if old_id is None:
        return "no session to fork"
    if session.turn_running:
        return RUNNING
    try:
        fork = await session.api.fork_session(old_id, str(session.cwd), servers_for(session))
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    new_id = fork.session_id
    settings = current_settings(session)
    title = session.thread.title
    await session.close_current_session()
    session.adopt_fork(new_id, fork)
    problems = tuple(await apply_settings(session, settings))
    session.thread.carry_title(title)
    return Forked("fork", new_id, problems=problems)
