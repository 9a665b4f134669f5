"""`--log FILE` with several tabs (issue 39, 15b: only the first tab's frames were in the file):
each later tab logs to a file of its own beside it (`log.tab2.jsonl`), named in a notice when
it starts, and every tab's file is an own file of every session (never a change)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from acp_tui.client.events import Notice
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.host.own_files import OwnFiles
from acp_tui.protocol.traffic import is_tab_log_of, tab_log_path
from bench.headless import HeadlessUi

DEMO = [sys.executable, "-m", "acp_tui.demo.agent"]


def test_tab_log_names() -> None:
    log = Path("/p/log.jsonl")
    assert tab_log_path(log, 1) == log
    assert tab_log_path(log, 2) == Path("/p/log.tab2.jsonl")
    assert is_tab_log_of(Path("/p/log.tab12.jsonl"), log)
    assert not is_tab_log_of(Path("/p/log.tabx.jsonl"), log)
    assert not is_tab_log_of(Path("/q/log.tab2.jsonl"), log)
    assert not is_tab_log_of(Path("/p/log.jsonl"), log)
    own = OwnFiles()
    own.add_tab_logs(log)
    assert log in own and Path("/p/log.tab3.jsonl") in own and Path("/p/x.jsonl") not in own


async def test_every_tab_logs_its_frames_and_the_later_ones_say_where(tmp_path: Path) -> None:
    log = tmp_path / "traffic.jsonl"
    first = AgentSession(DEMO, tmp_path, HeadlessUi(), log_path=log,
                         env_extra={"ACP_TUI_DEMO_SPEED": "0"})  # fmt: skip
    second = AgentSession(DEMO, tmp_path, HeadlessUi(), log_path=tab_log_path(log, 2),
                          log_base=log, env_extra={"ACP_TUI_DEMO_SPEED": "0"})  # fmt: skip
    second.announce_log = True
    notices: list[Notice] = []
    second.notices.subscribe(notices.append)
    try:
        assert await first.start() and await second.start()
    finally:
        await first.close()
        await second.close()
    for path, session in ((log, first), (tmp_path / "traffic.tab2.jsonl", second)):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        ids = {line["frame"].get("result", {}).get("sessionId") for line in lines}
        assert session.session_id in ids, f"{path.name} holds its own session's frames"
    assert [n.text for n in notices][:1] == [
        f"This tab's ACP traffic is logged to {tmp_path / 'traffic.tab2.jsonl'}"
    ]
    assert tmp_path / "traffic.tab2.jsonl" in first.fs.own_files


async def test_a_link_planted_at_a_later_tabs_log_is_not_followed_and_said(
    tmp_path: Path,
) -> None:
    """The first tab's agent made `traffic.tab2.jsonl -> victim` before the second tab began."""
    log = tmp_path / "traffic.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    tab_log_path(log, 2).symlink_to(victim)
    second = AgentSession(DEMO, tmp_path, HeadlessUi(), log_path=tab_log_path(log, 2),
                          log_base=log, env_extra={"ACP_TUI_DEMO_SPEED": "0"})  # fmt: skip
    notices: list[Notice] = []
    second.notices.subscribe(notices.append)
    try:
        assert await second.start()
    finally:
        await second.close()
    assert victim.read_text() == "keep\n"
    warned = [n for n in notices if n.severity == "warning"]
    exposed = warned.pop(0)  # (the log is inside the project: `start_notices.py` says so)
    assert exposed.text.startswith(f"The --log file {tab_log_path(log, 2)} is inside")
    assert [n.text for n in warned] == [
        f"This tab's ACP traffic is not logged: {tab_log_path(log, 2)}: "
        "is or goes through a symbolic link: not followed"
    ]
