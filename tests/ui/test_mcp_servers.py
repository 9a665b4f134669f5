"""MCP servers: normalised from the config, filtered by the agent's mcpCapabilities, sent in
session/new (and load/resume), refused ones reported, the passed ones listed in the sidebar."""

from __future__ import annotations

from pathlib import Path

from acp_tui.mcp_servers import merged, normalize_servers, offer_for
from acp_tui.ui.widgets.mcp_section import McpSection
from tests.agents.scenarios import initialize_ok, write_scenario
from tests.ui.app_harness import SID, fixed_cwd, plain, run_app

STDIO = {
    "name": "fs",
    "command": "/usr/bin/mcp-fs",
    "args": ["--ro"],
    "env": [{"name": "A", "value": "1"}],
}
HTTP = {"type": "http", "name": "docs", "url": "https://example.com/mcp", "headers": []}
SSE = {"type": "sse", "name": "events", "url": "https://example.com/sse", "headers": []}


def test_config_entries_become_acp_servers_and_bad_ones_are_reported() -> None:
    servers, problems = normalize_servers(
        [
            {"name": "fs", "command": "/usr/bin/mcp-fs", "args": ["--ro"], "env": {"A": "1"}},
            {"type": "http", "name": "docs", "url": "https://example.com/mcp"},
            {"type": "sse", "name": "h", "url": "u", "headers": {"Authorization": "Bearer x"}},
            {"name": "nourl", "type": "http"},
            {"name": "weird", "type": "ws", "url": "u"},
            {"command": "x"},
            "nope",
        ]
    )
    assert servers[:2] == [STDIO, HTTP]
    assert servers[2]["headers"] == [{"name": "Authorization", "value": "Bearer x"}]
    assert problems == [
        "MCP server 'nourl' (http) needs a `url`; ignored",
        "MCP server 'weird': unknown type 'ws' (stdio, http or sse); ignored",
        "an MCP server needs a `name`; ignored",
        "an MCP server must be a table; ignored",
    ]


def test_offer_keeps_what_the_agent_can_take() -> None:
    offer = offer_for([STDIO, HTTP, SSE], http=False, sse=True)
    assert offer.sent == [STDIO, SSE]
    assert offer.refused == [("docs", "http")]
    assert offer_for([STDIO, HTTP, SSE], http=True, sse=True).refused == []
    replaced = {**STDIO, "command": "/other"}
    assert merged([STDIO, HTTP], [replaced]) == [HTTP, replaced]


async def test_servers_are_filtered_sent_reported_and_listed(tmp_path: Path) -> None:
    steps = [
        initialize_ok(mcpCapabilities={"http": False, "sse": True}),
        {"expect": "session/new", "match": {"mcpServers": [STDIO, SSE]},
         "respond": {"sessionId": SID}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(
        agent.argv, fixed_cwd(tmp_path), session_kwargs={"mcp_servers": [STDIO, HTTP, SSE]}
    ) as h:
        sent = h.sent_methods("session/new")[0]["params"]["mcpServers"]
        assert sent == [STDIO, SSE]
        await h.until(lambda: any("MCP servers not passed" in n for n in h.notified), "notice")
        assert any("docs (http)" in n for n in h.notified)
        section = h.one(McpSection)
        await h.until(lambda: "events" in plain(section), "the sidebar list")
        shown = plain(section)
        assert "fs  stdio" in shown and "/usr/bin/mcp-fs" in shown
        assert "events  sse" in shown
        assert "docs  http: not passed" in shown


async def test_no_servers_no_section(tmp_path: Path) -> None:
    steps = [initialize_ok(), {"expect": "session/new", "match": {"mcpServers": []},
                               "respond": {"sessionId": SID}}]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        assert not h.one(McpSection).display
