"""acp-tui's client core (`AgentSession`, no UI) against each installed real agent.

One fake-LLM turn per agent: write hello.txt, read and edit notes.txt, run
`echo shell-ok && ls`. Asserted: the files on disk, the permission round trip, the command's
output reaching the client, terminals for the agents that use them, a mode switch where the
agent has modes, the prompt shown once, and no crash.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.client.events import Notice, SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from tests.interop.agents import AGENTS
from tests.interop.conftest import NOTES, FakeLlm, agent_for
from tests.interop.session_driver import (
    SHELL_OK,
    InteropUi,
    Wire,
    output_texts,
    permission_answerer,
    sandbox_report,
    switch_mode,
    user_messages,
    wait_turn_end,
)

TURN_SECONDS = 240.0
PROMPT = "Please do the task."


@pytest.mark.parametrize("name", [agent.name for agent in AGENTS])
async def test_one_turn_through_the_client_core(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    agent = agent_for(name)
    ui = InteropUi(agent.auth)
    session = AgentSession(
        [str(kit / "agent.sh"), name],
        workdir,
        ui,
        env_extra={**fake_llm.env, **agent.env()},
        settings=Settings(hold_writes=HoldWrites.NEVER),
        sandbox=agent.sandbox(),
    )
    wire = Wire()
    session.traffic.subscribe(wire.tap)
    answered: list[str] = []
    notices: list[Notice] = []
    session.notices.subscribe(notices.append)
    session.permissions.subscribe(permission_answerer(answered))
    try:
        started = await session.start()
        assert started, (
            f"{name} did not start: {session.error or session.crash}\n{sandbox_report(session)}"
        )
        assert session.state is SessionState.READY

        if agent.mode is not None:  # needed for the turn (codex: its sandbox fails here)
            switched, refusals = await switch_mode(session, agent.mode)
            assert switched == agent.mode, f"{name} refused {agent.mode}: {refusals}"
            assert session.thread.current_mode_id == agent.mode

        session.submit(PROMPT)
        stop_reason = await wait_turn_end(session, TURN_SECONDS)
        assert session.crash is None, f"{name} crashed: {session.crash}\n{sandbox_report(session)}"
        assert stop_reason == "end_turn", sandbox_report(session)
        assert user_messages(session) == [PROMPT], "the prompt is shown once"

        if agent.asks_permission:
            assert answered, f"{name} asked no permission"
        if agent.uses_terminal:
            assert wire.requests_from_agent("terminal/create"), f"{name} made no terminal"
        if agent.mode is None and len(session.thread.modes) > 1:
            # after the turn: another mode could have skipped the permission requests
            switched, refusals = await switch_mode(session, None)
            assert switched is not None, f"{name} refused every mode: {refusals}"
            assert session.thread.current_mode_id == switched
        if not agent.fake_llm:
            return
        if agent.edits_notes:
            assert (workdir / "notes.txt").read_text() == NOTES.replace("old line", "new line")
        if agent.writes_new_file:
            assert (workdir / "hello.txt").read_text().startswith("Hello from the fake LLM!")
        if agent.returns_shell_output:
            texts = output_texts(session, wire)
            assert any(SHELL_OK.search(text) for text in texts), f"no shell output in {texts}"
    finally:
        await session.close()
        print(f"--- {name}: the wire ---\n{wire.summary()}")
        print(f"--- {name}: notices ---\n" + "\n".join(n.text for n in notices))
        print(f"--- {name}: sandbox ---\n{sandbox_report(session)}")


async def test_strict_keeps_a_secret_unreadable_while_a_real_agent_completes_its_turn(
    kit: Path, workdir: Path, fake_llm: FakeLlm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gemini in `strict`, with a private key in the user's home: its turn completes (its own
    state written), and a command run for it (terminal/create) cannot read the key."""
    from acp_tui.protocol.models import CreateTerminalRequest, TerminalRequest
    from acp_tui.sandbox.modes import SandboxMode
    from tests.interop.agents import install_dir

    agent = agent_for("gemini")
    request = agent.sandbox()
    env = {**fake_llm.env, **agent.env(), "ACP_INTEROP_DIR": str(install_dir())}
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    monkeypatch.setenv("HOME", str(home))  # the user's home: its secrets are the ones kept
    session = AgentSession(
        [str(kit / "agent.sh"), "gemini"], workdir, InteropUi(agent.auth), env_extra=env,
        settings=Settings(hold_writes=HoldWrites.NEVER),
        sandbox=replace(request, mode=SandboxMode.STRICT),
    )  # fmt: skip
    session.permissions.subscribe(permission_answerer([]))
    try:
        assert await session.start(), f"{session.error}\n{sandbox_report(session)}"
        assert session.sandbox is not None and session.sandbox.unreadable == (home / ".ssh",)
        session.submit(PROMPT)
        assert await wait_turn_end(session, TURN_SECONDS) == "end_turn", sandbox_report(session)
        assert (workdir / "hello.txt").read_text().startswith("Hello from the fake LLM!")
        created = await session.terminals.create(
            CreateTerminalRequest(
                session_id=session.session_id or "",
                command="/bin/sh",
                args=["-c", f"cat {key} || echo refused"],
            )
        )
        ref = TerminalRequest(
            session_id=session.session_id or "", terminal_id=created["terminalId"]
        )
        await session.terminals.wait_for_exit(ref)
        output = (await session.terminals.output(ref))["output"]
        assert "Permission denied" in output and "refused" in output and "PRIVATE" not in output
    finally:
        await session.close()
