"""A system prompt from the settings or a preset (`system_prompt = {mode, text}`): sent with
session/new (load, resume, fork) only where the agent offers that mode; elsewhere a notice says
it was not sent, and the frames stay within the schema."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.events import Notice
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, InvalidSettings, Settings
from acp_tui.presets import parse_preset
from bench.headless import HeadlessUi
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario

pytestmark = pytest.mark.timeout(60)
OVERRIDE = {"mode": "override", "text": "You are terse."}
APPEND = {"mode": "append", "text": "Answer in French."}


async def opened(tmp_path: Path, offer: Any, wanted: dict[str, str]) -> tuple[Any, list[Notice]]:
    session_caps = {"systemPrompt": offer} if offer is not None else {}
    agent = write_scenario(
        tmp_path, [initialize_ok(sessionCapabilities=session_caps), new_session_ok()]
    )
    settings = Settings(hold_writes=HoldWrites.NEVER, system_prompt=wanted)
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), settings=settings)
    told: list[Notice] = []
    session.notices.subscribe(told.append)
    try:
        assert await session.start(), session.error
    finally:
        await session.close()
    await asyncio.sleep(0)
    (new,) = agent.received("session/new")
    return new["params"], told


@pytest.mark.parametrize(
    ("offer", "wanted", "sent"),
    [
        ({}, APPEND, True),  # `{}`: append only
        ({}, OVERRIDE, False),
        ({"mode": {"override": {}}}, OVERRIDE, True),  # what claude-agent-acp 0.101 offers
        (None, APPEND, False),  # no systemPrompt at all
    ],
)
async def test_sent_only_in_a_mode_the_agent_offers(
    tmp_path: Path, offer: Any, wanted: dict[str, str], sent: bool
) -> None:
    params, told = await opened(tmp_path, offer, wanted)
    if sent:
        assert params["systemPrompt"] == {
            "mode": wanted["mode"], "content": [{"type": "text", "text": wanted["text"]}]
        }  # fmt: skip
        assert told == []
    else:
        assert "systemPrompt" not in params
        assert [n.text for n in told if "system prompt" in n.text] == [
            "Your system prompt was not sent: "
            + ("the agent takes no system prompt." if offer is None
               else "the agent does not take one in override mode.")
        ]  # fmt: skip


def test_the_setting_and_a_presets_are_checked() -> None:
    assert Settings(system_prompt={"text": "x"}).system_prompt == {"mode": "append", "text": "x"}
    with pytest.raises(InvalidSettings, match="mode"):
        Settings(system_prompt={"mode": "replace", "text": "x"})
    with pytest.raises(InvalidSettings, match="text"):
        Settings(system_prompt={"mode": "append", "text": " "})
    preset, problems = parse_preset("mine", {"command": "a", "system_prompt": OVERRIDE})
    assert preset is not None and preset.system_prompt == OVERRIDE and problems == []
    preset, problems = parse_preset("mine", {"command": "a", "system_prompt": "be nice"})
    assert preset is not None and preset.system_prompt is None
    assert problems and "system_prompt" in problems[0]
