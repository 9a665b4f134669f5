"""The UI's screens and widgets see a session only as `SessionFacade` (mypy checks the surface)."""

from __future__ import annotations

import ast
from pathlib import Path

import acp_tui
from acp_tui.client.events import QueuedPrompt
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.facade import SessionFacade
from bench.headless import HeadlessUi

UI = Path(acp_tui.__file__).parent / "ui"
# The session picker lists, deletes and forks through `session/history.py`, which needs the session
# itself; the app is the composition root that owns the concrete session.
ALLOWED = {UI / "screens" / "session_picker.py"}


def test_agent_session_is_a_facade(tmp_path: Path) -> None:
    session = AgentSession(["true"], tmp_path, HeadlessUi())
    facade: SessionFacade = session  # mypy: AgentSession implements the protocol
    assert facade.agent_name == "true" and facade.cwd == tmp_path.resolve()
    assert not facade.speaks_v2 and facade.terminal_lookup("t1") is None
    # what its parts answer for it, on a session not started yet: a prompt waits for the
    # session to open and can be taken back; no start under way, no login state, no logout
    told: list[list[QueuedPrompt]] = []
    facade.queue_changed.subscribe(told.append)
    queued = facade.submit("hello")
    assert queued is not None and not facade.turn_running
    assert facade.remove_queued(queued.id) and told[-1] == []
    assert facade.stall is None and facade.starting_since is None
    assert facade.auth_status is None and not facade.can_logout


def test_screens_and_widgets_do_not_import_the_session_class() -> None:
    reaching = [
        path.relative_to(UI)
        for folder in ("screens", "widgets", "markdown", "inspector")
        for path in sorted((UI / folder).rglob("*.py"))
        if path not in ALLOWED and imports_agent_session(path.read_text(encoding="utf-8"))
    ]
    assert reaching == []


def imports_agent_session(source: str) -> bool:
    """Whether `source` imports the module `agent_session` or a name from it (a module whose
    name only contains the word, as `subagent_sessions`, does not count)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if any("agent_session" in name.split(".") for name in names):
            return True
    return False


def test_the_import_check_finds_the_session_module_and_only_it() -> None:
    assert imports_agent_session("from acp_tui.client.session.agent_session import AgentSession")
    assert imports_agent_session("from acp_tui.client.session import agent_session")
    assert imports_agent_session("import acp_tui.client.session.agent_session as s")
    assert not imports_agent_session("from acp_tui.thread.subagent_sessions import Lane")
