"""What the client core needs from a user interface, as a protocol the UI implements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.host.asker import Asker
from acp_tui.safe_text import safe_text

if TYPE_CHECKING:
    from acp_tui.client.write_review import ReviewedWrite
    from acp_tui.session.diff import FileDiff


@dataclass(frozen=True)
class AuthMethodInfo:
    id: str
    name: str
    description: str | None
    type: str  # "agent" (default) or "terminal" or something newer
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, raw: Any) -> AuthMethodInfo | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            return None
        args = raw.get("args")
        env = raw.get("env")
        description = raw.get("description")
        return cls(
            id=raw["id"],
            name=safe_text(str(raw.get("name") or raw["id"])),
            description=safe_text(description) if isinstance(description, str) else None,
            type=str(raw.get("type") or "agent"),
            args=tuple(a for a in args if isinstance(a, str)) if isinstance(args, list) else (),
            env=(
                {k: v for k, v in env.items() if isinstance(v, str)}
                if isinstance(env, dict)
                else {}
            ),
        )


class ClientUi(Protocol):
    """Questions only a person can answer. Every method may be awaited for a long time."""

    @property
    def asker(self) -> Asker: ...

    async def choose_auth_method(
        self, methods: Sequence[AuthMethodInfo], error: str | None
    ) -> AuthMethodInfo | None:
        """Let the user pick how to log in; None gives up."""
        ...

    async def run_login_terminal(self, argv: Sequence[str], env: Mapping[str, str]) -> int | None:
        """Run the agent's login in a terminal; return its exit code (None: abandoned)."""
        ...

    async def review_write(self, path: Path, diff: FileDiff) -> ReviewedWrite | None:
        """Show a held write (`diff`: the file now → the agent's proposal, computed once by the
        gate); return what to write (maybe some hunks only), or None to reject."""
        ...
