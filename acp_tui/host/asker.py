"""How the host layer asks the user something without knowing about any UI.

A host service builds a `Question` and awaits `Asker.ask(question)`; the UI (or a test, or a
policy) answers with the id of one of the question's choices. The UI implements `Asker` by
posting a message that carries an `asyncio.Future` and resolving it from a screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from acp_tui.safe_text import is_safe, safe_text


@dataclass(frozen=True)
class Choice:
    """One answer a `Question` offers: `id` is what `Asker.ask` returns, `label` is shown,
    `key` a suggested keyboard shortcut."""

    id: str
    label: str
    key: str | None = None  # a suggested keyboard shortcut


@dataclass(frozen=True)
class Question:
    """`title`, `detail` and the choices' labels are for display: they often quote what the
    agent sent (paths), so they are made safe here (`safe_text`); `data` is kept exact."""

    kind: str  # e.g. "outside_cwd", "overwrite_changed"
    title: str
    detail: str
    choices: tuple[Choice, ...]
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", safe_text(self.title))
        object.__setattr__(self, "detail", safe_text(self.detail))
        if not all(is_safe(c.label) for c in self.choices):
            choices = tuple(replace(c, label=safe_text(c.label)) for c in self.choices)
            object.__setattr__(self, "choices", choices)


class Asker(Protocol):
    """Puts a host service's question to the user (the UI's `ScreenUi`, a test, a policy)."""

    async def ask(self, question: Question) -> str:
        """The id of the `Choice` the user picked.

        Args:
            question: what to ask; its texts are already safe to show.

        Raises `asyncio.CancelledError` if the question is abandoned (the session closes).
        """
        ...


class FixedAnswer:
    """An `Asker` that always answers the same choice id (for tests and headless use)."""

    def __init__(self, choice_id: str) -> None:
        self.choice_id = choice_id
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        """Record the question and answer with the fixed choice (for tests and headless runs)."""
        self.asked.append(question)
        return self.choice_id
