"""What a session answers on a connection: the agent's requests (each to its host service with
params validated by its model, see `protocol/router.py`), `session/update` straight to the thread
(v2: to its reducer), elicitations to their broker; a permission request to
`permission_route.py`."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.elicitation import ElicitationBroker
from acp_tui.client.session.account import Account
from acp_tui.client.session.permission_route import request_permission
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.permissions import PermissionBroker
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol import methods
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.router import Router
from acp_tui.thread.thread import Thread

if TYPE_CHECKING:
    from acp_tui.client.v2.session import V2Driver  # (imported once an agent speaks v2)


class RoutedSession(Protocol):
    """What answering the agent needs of the session: the thread its updates go to (or v2's
    reducer), the host services that answer, and its login state."""

    @property
    def v2(self) -> V2Driver | None:
        """The v2 driver, when the agent speaks the v2 draft."""

    @property
    def thread(self) -> Thread:
        """The thread the agent's updates are applied to."""

    @property
    def fs(self) -> FileSystemHost:
        """The file host that answers fs/* requests."""

    @property
    def terminals(self) -> TerminalHost:
        """The terminal host that answers terminal/* requests."""

    @property
    def elicitations(self) -> ElicitationBroker:
        """The broker that asks the user the agent's elicitations."""

    @property
    def permissions(self) -> PermissionBroker:
        """The broker that answers `session/request_permission`."""

    @property
    def account(self) -> Account:
        """The login state `auth/status_update` updates."""


def install_handlers(session: RoutedSession, connection: Connection) -> None:
    """Everything the session answers, on a new connection (v1 until `initialize` says v2)."""
    v2 = session.v2
    # the chunk's way in: the connection's consumer calls the reducer, nothing in between
    apply = v2.reducer.apply_notification if v2 is not None else session.thread.apply_notification
    connection.on_notification(methods.SESSION_UPDATE, apply)
    (v2.routes() if v2 is not None else v1_routes(session)).install(connection)
    # elicitation params are checked by the broker (acp_tui/client/elicitation.py)
    connection.on_request(methods.ELICITATION_CREATE, session.elicitations.request)
    connection.on_notification(methods.ELICITATION_COMPLETE, session.elicitations.complete)
    for method in (methods.AUTH_STATUS_UPDATE, methods.CLAUDE_AUTH_STATUS_UPDATE):
        connection.on_notification(method, session.account.on_status_update)


def v1_routes(session: RoutedSession) -> Router:
    """The agent's v1 requests, each to its handler with params validated by the model
    `router.CLIENT_REQUESTS` names (built at the first such request, not at connect)."""
    fs, terminals = session.fs, session.terminals

    router = Router()
    ask = functools.partial(request_permission, session.thread, session.permissions)
    router.route_named(methods.SESSION_REQUEST_PERMISSION, ask)
    router.route_named(methods.FS_READ_TEXT_FILE, fs.read_text_file)
    router.route_named(methods.FS_WRITE_TEXT_FILE, fs.write_text_file)
    router.route_named(methods.TERMINAL_CREATE, terminals.create)
    router.route_named(methods.TERMINAL_OUTPUT, terminals.output)
    router.route_named(methods.TERMINAL_WAIT_FOR_EXIT, terminals.wait_for_exit)
    router.route_named(methods.TERMINAL_KILL, terminals.kill)
    router.route_named(methods.TERMINAL_RELEASE, terminals.release)
    return router
