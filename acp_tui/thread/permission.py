"""A permission request as part of its tool call's state (as Zed's `WaitingForConfirmation`).

The agent asks before running a tool call; while the question is open the tool call carries a
`PermissionAsk` with the options and the responder that answers the agent. Once answered, the
ask stays on the tool call with the answer as shown ("✓ answered: Allow", "✓ allowed by rule:
edit src/app.py"). Views render this; they never watch the request themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

EntryT = TypeVar("EntryT")
"""What the queue keeps per question (the thread's `ToolCallEntry`; entries.py imports this
module, so the queue does not name it)."""

Responder = Callable[[str | None], None]
"""Answers the agent: an option id, or None for "cancelled"."""


class OptionLike(Protocol):
    """A permission option (the host's or the protocol model's)."""

    @property
    def option_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...


@dataclass(eq=False)
class PermissionAsk:
    """One permission request about a tool call.

    `options` are the ones to offer (in the agent's order); `covers` says what an "always"
    answer remembers (None: no "always" answer is offered for this call). `answer` is None
    while the question is open; `asked` is False for a request answered without asking
    (a remembered rule, the permission policy).
    """

    request_id: int
    options: Sequence[OptionLike] = ()
    respond: Responder | None = field(default=None, repr=False)
    covers: str | None = None
    answer: str | None = None
    asked: bool = True
    asked_at: float | None = None
    """When the question was put (the thread's clock), set by `Thread.ask_permission`."""
    answered_at: float | None = None
    """When the answer was recorded, set by `Thread.settle_permission`."""
    queue: PermissionQueue[Any] | None = field(default=None, repr=False)
    """The open questions this one waits in (set by the thread when it is asked)."""

    @property
    def open(self) -> bool:
        return self.answer is None

    def waited(self, now: float) -> float:
        """Seconds the user took to answer (until `now` while open); 0 when not asked."""
        if not self.asked or self.asked_at is None:
            return 0.0
        end = self.answered_at if self.answered_at is not None else now
        return max(end - self.asked_at, 0.0)

    @property
    def waiting_before(self) -> int:
        """How many open questions were asked before this one (0: it is the one to answer)."""
        if self.queue is None or not self.open:
            return 0
        return self.queue.before(self.request_id)

    @property
    def current(self) -> bool:
        """The open question to answer now: the oldest (the others wait their turn)."""
        return self.asked and self.open and self.waiting_before == 0

    def choose(self, option_id: str | None) -> None:
        """Answer the agent (the thread records the answer once the host has it)."""
        if self.open and self.respond is not None:
            self.respond(option_id)


class PermissionQueue(Generic[EntryT]):
    """The permission questions waiting for the user, oldest first: only the oldest is asked
    (shown as a live prompt); the others wait as state of their tool calls."""

    def __init__(self) -> None:
        self._open: dict[int, EntryT] = {}

    def __len__(self) -> int:
        return len(self._open)

    def add(self, ask: PermissionAsk, entry: EntryT) -> None:
        ask.queue = self
        self._open[ask.request_id] = entry

    def remove(self, request_id: int) -> EntryT | None:
        """Take an answered question out; returns the entry of the new oldest one when the
        oldest changed because of it (it is now the one asked), else None."""
        head = self.oldest()
        self._open.pop(request_id, None)
        new_head = self.oldest()
        if new_head is None or new_head == head:
            return None
        return self._open[new_head]

    def oldest(self) -> int | None:
        return min(self._open) if self._open else None

    def before(self, request_id: int) -> int:
        """How many open questions are older than `request_id`."""
        return sum(1 for other in self._open if other < request_id)

    def waiting(self) -> list[tuple[int, EntryT]]:
        """(request id, entry) of every open question, oldest first."""
        return sorted(self._open.items(), key=lambda pair: pair[0])
