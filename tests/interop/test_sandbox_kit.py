"""The kit's agents in the default sandbox, started the way a user starts them:
`acp-tui -- agent.sh NAME`. agent.sh moves the agent's HOME under the kit
(`~/.cache/acp-tui-interop/home/NAME`), where acp-tui's rule for the agent's own directories
does not look. Without more, the agent is refused its state there and the notice names the
directory it needed; with the kit's homes allowed (`--sandbox-writable`, as a user passes it),
every agent completes its turn, its own state written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.events import Notice
from acp_tui.client.sandbox_setup import sandbox_request
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.launch_options import sandbox_writable
from tests.interop.agents import AGENTS, install_dir
from tests.interop.conftest import FakeLlm, agent_for
from tests.interop.session_driver import (
    InteropUi,
    permission_answerer,
    sandbox_report,
    switch_mode,
    wait_turn_end,
)

TURN_SECONDS = 240.0
REFUSED_AT_FIRST = {
    # the agent: its directory below its kit HOME, as each one was seen refused
    "gemini": ".gemini",  # agent.sh writes its settings there
    "codex": ".codex",
    "opencode": ".config/opencode",
    "kimi": ".kimi",
    "vibe": ".vibe",
    "vibe-new": ".vibe",
    "claude-code-acp": ".claude",  # its debug log (Node's EACCES, then it exits)
    "qwen-new": ".qwen",
    "claude-agent-acp": ".claude",  # its Bash tool's session-env: only in the tool's result
}


def user_session(
    kit: Path, name: str, workdir: Path, env: dict[str, str], *more: str
) -> AgentSession:
    agent = agent_for(name)
    argv = [str(kit / "agent.sh"), name]
    settings = Settings(hold_writes=HoldWrites.NEVER)
    request = sandbox_request(settings, None, argv, writable=sandbox_writable(list(more)))
    return AgentSession(
        argv,
        workdir,
        InteropUi(agent.auth),
        env_extra={**env, **agent.env()},
        settings=settings,
        sandbox=request,
    )


async def one_turn(session: AgentSession, mode: str | None) -> str | None:
    """Start, switch mode if the agent needs one, prompt once: the stop reason (None: it did
    not start)."""
    session.permissions.subscribe(permission_answerer([]))
    if not await session.start():
        return None
    if mode is not None:
        assert (await switch_mode(session, mode))[0] == mode
    session.submit("Please do the task.")
    return await wait_turn_end(session, TURN_SECONDS)


@pytest.mark.parametrize("name", [agent.name for agent in AGENTS])
async def test_sandbox_with_the_kits_homes_writable_each_agent_completes_its_turn(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    home = install_dir() / "home"
    session = user_session(kit, name, workdir, fake_llm.env, str(home))
    notices: list[Notice] = []
    session.notices.subscribe(notices.append)
    try:
        stop = await one_turn(session, agent_for(name).mode)
        assert stop == "end_turn", f"{session.error or session.crash}\n{sandbox_report(session)}"
        assert session.sandbox is not None and home.resolve() in session.sandbox.writable
        assert not [n.text for n in notices if "sandbox refused" in n.text]
    finally:
        await session.close()


@pytest.mark.parametrize("name", list(REFUSED_AT_FIRST))
async def test_sandbox_refusal_of_an_agents_own_state_names_its_directory(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    if install_dir() != Path.home() / ".cache" / "acp-tui-interop":
        pytest.skip("the kit is installed elsewhere: the notice names it without ~")
    needed = f"~/.cache/acp-tui-interop/home/{name}/{REFUSED_AT_FIRST[name]}"
    session = user_session(kit, name, workdir, fake_llm.env)
    notices: list[str] = []
    session.notices.subscribe(lambda notice: notices.append(notice.text))
    try:
        await one_turn(session, agent_for(name).mode)  # (most end at start: None)
        said = [text for text in notices if f"the directory {needed}," in text]
        assert len(said) == 1, f"{notices}\n{sandbox_report(session)}"
        assert f"--sandbox-writable {needed}," in said[0]
        assert f'sandbox_writable = ["{needed}"] in config.toml' in said[0]
    finally:
        await session.close()
