"""The UI's screens and widgets see a session only as `SessionFacade` (mypy checks the surface)."""

from __future__ import annotations

from pathlib import Path

import acp_tui
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


def test_screens_and_widgets_do_not_import_the_session_class() -> None:
    reaching = [
        path.relative_to(UI)
        for folder in ("screens", "widgets", "markdown", "inspector")
        for path in sorted((UI / folder).rglob("*.py"))
        if path not in ALLOWED and "agent_session" in path.read_text(encoding="utf-8")
    ]
    assert reaching == []
