"""How the composer's drop-downs look: the slash-command list and the @-mention picker."""

from __future__ import annotations

from acp_tui.client.events import SessionState
from acp_tui.ui.widgets.completion_list import CompletionList
from acp_tui.ui.widgets.composer import Composer
from tests.snapshot.test_app_snapshots import initialize, make_snapshot, until
from tests.ui.app_harness import MODES, SID, upd

__all__ = ["make_snapshot"]  # the fixture

COMMANDS = [
    {"name": "review", "description": "Review the current changes [not markup]",
     "input": {"hint": "what to review"}},
    {"name": "init", "description": "Write an AGENTS.md for this project"},
]  # fmt: skip


def test_slash_command_list(snap_compare, make_snapshot) -> None:
    steps = [initialize(), {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}},
             upd("available_commands_update", availableCommands=COMMANDS)]  # fmt: skip
    snapshot = make_snapshot(steps)

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY and session.thread.commands)
        await pilot.press("slash")
        completion = pilot.app.screen.query_one(CompletionList)
        await until(pilot, lambda: len(completion.items) == 10)  # 2 of the agent, then 8 of acp-tui
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(100, 30), run_before=run)


def test_mention_picker(snap_compare, make_snapshot) -> None:
    steps = [initialize(), {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}}]
    snapshot = make_snapshot(steps)
    (snapshot.cwd / "src").mkdir()
    for name in ("src/app.py", "src/app_test.py", "notes.txt", "README.md"):
        (snapshot.cwd / name).write_text("x\n")

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await until(pilot, lambda: pilot.app.screen.query_one(Composer).index.built)
        await pilot.press("@", "a", "p")
        completion = pilot.app.screen.query_one(CompletionList)
        await until(pilot, lambda: completion.items)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(100, 30), run_before=run)
