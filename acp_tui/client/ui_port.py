"""What the client core needs from a user interface, as a protocol the UI implements (the port;
`ui/screen_ui.py` is the Textual side)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.host.asker import Asker

if TYPE_CHECKING:
    from acp_tui.thread.diff import FileDiff
    from acp_tui.thread.hunks import ReviewedWrite


class ClientUi(Protocol):
    """Questions only a person can answer. Every method may be awaited for a long time."""

    @property
    def asker(self) -> Asker:
        """Where the host services put their questions (outside paths, overwrites, …)."""
        ...

    async def choose_auth_method(
        self,
        agent: str,
        methods: Sequence[AuthMethodInfo],
        error: str | None,
        *,
        by_user: bool = False,
    ) -> AuthMethodInfo | None:
        """Let the user pick how to log in; None gives up.

        Args:
            agent: the agent's name, for the title.
            methods: the ways to log in the agent offered (texts already safe to show).
            error: why the login is asked for (the agent's error, or the last method's
                failure), or None.
            by_user: the user asked to log in (the sidebar's "Log in…"), the agent did not
                demand it (its answer "authentication required").
        """
        ...

    async def run_login_terminal(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, by_user: bool = False
    ) -> int | None:
        """Run the agent's login command in a terminal; its exit code (None: abandoned).

        Args:
            argv: the command and its arguments (never a shell string).
            env: variables the agent's method adds to the environment.
            cwd: the session directory it runs in.
            by_user: the user asked to log in (as `choose_auth_method` takes it).
        """
        ...

    async def review_write(self, path: Path, diff: FileDiff) -> ReviewedWrite | None:
        """Show a held write; what to write (maybe some hunks only), or None to reject.

        Args:
            path: the real path the agent writes.
            diff: the file now → the agent's proposal, computed once by the gate.
        """
        ...
