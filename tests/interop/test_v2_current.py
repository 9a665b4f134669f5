"""The newest claude-agent-acp (0.101, `claude-agent-acp-new` in the kit) under `--protocol 2`,
where it speaks the current ACP v2 draft, against acp-tui's client core: nothing v1 shows is
lost, and the inspector marks none of its frames.

- its slash commands come in the `session/new` answer; `providers/*` is offered and answers;
- its diffs are `git_patch` texts: read into file diffs (the edit of notes.txt, the new
  hello.txt);
- its shell runs in an agent-owned terminal whose output has LF without CR: drawn as lines;
- every frame fits the current v2 draft (no mark; `check` would say v2 draft).
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.host.terminal_emulator import TerminalEmulator
from acp_tui.protocol.models import PatchDiff, Terminal
from acp_tui.protocol.schema_fit import SchemaLevel
from acp_tui.thread.git_patch import patch_diffs
from acp_tui.thread.v2.agent_terminals import AgentTerminal
from tests.interop.conftest import NOTES, start_fake_llm
from tests.interop.session_driver import InteropUi, permission_answerer, wait_turn_end
from tests.interop.test_current_schema import TURN_SECONDS, new_agent


async def test_claude_agent_acp_new_under_protocol_2(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    agent = new_agent()
    async with start_fake_llm(kit, workdir, tmp_path / "llm.jsonl") as llm:
        session = AgentSession(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            InteropUi(None),
            env_extra={**llm.env, **agent.env()},
            settings=Settings(hold_writes=HoldWrites.NEVER, protocol_version=2),
        )
        answered: list[str] = []
        session.permissions.subscribe(permission_answerer(answered))
        try:
            assert await session.start(), session.error or session.crash
            assert session.protocol_version == 2
            thread = session.thread
            # the commands came with the session (v2: in the session/new answer)
            assert thread.commands, "no slash commands before the first prompt"
            assert session.agent_capabilities.providers is not None
            _providers, error = await session.list_providers()
            assert error is None, error
            assert await session.set_mode("default") is None  # Manual: it asks
            assert session.submit("Please do the task.") is None
            assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"
            assert answered, "the agent asked nothing"
            assert (workdir / "notes.txt").read_text() == NOTES.replace("old line", "new line")

            calls = thread.tool_calls.values()
            diffs = [
                diff
                for call in calls
                for item in call.content
                if isinstance(item, PatchDiff)
                for diff in patch_diffs(item)
            ]
            edits = {Path(d.path).name: d for d in diffs}
            assert edits["hello.txt"].is_new_file and edits["hello.txt"].added == 1
            notes = edits["notes.txt"]
            assert (notes.added, notes.removed) == (1, 1)
            assert "new line" in notes.new_text and "old line" in (notes.old_text or "")
            assert not any(call.disk_notes for call in calls)  # what landed is what they showed

            (shell,) = [c for c in calls if c.name == "Bash"]
            (terminal_id,) = [i.terminal_id for i in shell.content if isinstance(i, Terminal)]
            terminal = session.terminal_lookup(terminal_id)
            assert isinstance(terminal, AgentTerminal)
            assert b"\r\n" not in terminal.output_bytes()  # LF alone: not written through a PTY
            emulator = TerminalEmulator(80, 10, newline_mode=True)  # as the terminal view feeds it
            emulator.feed(terminal.output_bytes())
            lines = [line.rstrip() for line in emulator.screen.display]
            assert lines[:3] == ["shell-ok", "hello.txt", "notes.txt"]

            store = session.traffic_store
            assert store.mark_counts.total() == 0, [str(m) for f in store.marked() for m in f.marks]
            assert store.schema_fit.level == SchemaLevel.V2_DRAFT
        finally:
            await session.close()
