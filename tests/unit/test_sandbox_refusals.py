"""What an agent says the sandbox refused it, and the notice naming the directory it needed.

The lines are the ones the interop kit's agents wrote when started with
`bash agent.sh NAME` in the default sandbox (agent.sh moves their HOME under
`~/.cache/acp-tui-interop/home/NAME`, outside what the sandbox allows): agent.sh's own
template writes (bash), Node's `Error: EACCES`, and a tool's output (claude-agent-acp's Bash).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.refusal_notices import RefusalNotices
from acp_tui.protocol.models.content import TextContent
from acp_tui.protocol.models.tools import Content
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.sandbox.refusals import (
    find_refusals,
    hint_for,
    needed_directory,
    refusal_hint,
    refused_path,
)
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry

KIT = "/root/.cache/acp-tui-interop/home"
SEEN = {
    # agent: (a refusal line it wrote, the directory it needed below its kit HOME)
    "gemini": (
        "/work/shared/interop/agent.sh: line 18: "
        "KIT/gemini/./.gemini/settings.json: Permission denied",
        "gemini/.gemini",
    ),
    "codex": (
        "/work/shared/interop/agent.sh: line 18: KIT/codex/./.codex/config.toml: Permission denied",
        "codex/.codex",
    ),
    "opencode": (
        "/work/shared/interop/agent.sh: line 18: "
        "KIT/opencode/./.config/opencode/opencode.json: Permission denied",
        "opencode/.config/opencode",
    ),
    "kimi": (
        "/work/shared/interop/agent.sh: line 18: "
        "KIT/kimi/./.kimi/credentials/kimi-code.json: Permission denied",
        "kimi/.kimi",
    ),
    "vibe": (
        "/work/shared/interop/agent.sh: line 18: "
        "KIT/vibe/./.vibe/trusted_folders.toml: Permission denied",
        "vibe/.vibe",
    ),
    "vibe-new": (
        "/work/shared/interop/agent.sh: line 18: "
        "KIT/vibe-new/./.vibe/trusted_folders.toml: Permission denied",
        "vibe-new/.vibe",
    ),
    "claude-code-acp": (
        "Error: EACCES: permission denied, open "
        "'KIT/claude-code-acp/.claude/debug/fa83ad24-6a97-4ea9-93d6-bd43a87e29b8.txt'",
        "claude-code-acp/.claude",
    ),
    "qwen-new": (
        "Error: EACCES: permission denied, open 'KIT/qwen-new/.qwen/extension-store/lock'",
        "qwen-new/.qwen",
    ),
    "claude-agent-acp": (  # its Bash tool's result, the turn went on
        "EACCES: permission denied, mkdir "
        "'KIT/claude-agent-acp/.claude/session-env/29b67a2b-772b-4d68-97a5-74ba6975acfc'",
        "claude-agent-acp/.claude",
    ),
}


@pytest.fixture
def kit(tmp_path: Path) -> Path:
    """The kit's homes below a home of the test's, with what agent.sh makes in each."""
    home = tmp_path / "home"
    kit = home / ".cache/acp-tui-interop/home"
    for _, directory in SEEN.values():
        (kit / directory).mkdir(parents=True, exist_ok=True)
    return kit


def policy(*writable: Path) -> SandboxPolicy:
    return SandboxPolicy(SandboxMode.PROJECT, writable, abi=7)


@pytest.mark.parametrize("agent", list(SEEN))
def test_each_kit_agents_refusal_names_the_directory_it_needed(agent: str, kit: Path) -> None:
    line, directory = SEEN[agent]
    said = line.replace("KIT", str(kit))
    tail = ["starting", said, "    code: 'EACCES',", "    at async Object.open (node:x)"]
    hint = refusal_hint(policy(kit.parent / "project"), tail, home=kit.parents[2])
    assert hint is not None
    shown = f"~/.cache/acp-tui-interop/home/{directory}"
    assert f"If it needs the directory {shown}, allow it" in hint, hint
    assert f"--sandbox-writable {shown}," in hint
    assert f'sandbox_writable = ["{shown}"] in config.toml' in hint


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("/s/agent.sh: line 18: /h/./.gemini/settings.json: Permission denied",
         "/h/.gemini/settings.json"),
        ("Error: EACCES: permission denied, open '/h/.claude/debug/x.txt'",
         "/h/.claude/debug/x.txt"),
        ("PermissionError: [Errno 13] Permission denied: '/h/.kimi/a b.json'", "/h/.kimi/a b.json"),
        ("mkdir: cannot create directory '/h/.new': Permission denied", "/h/.new"),
        ("mkdir: cannot create directory \u2018/h/.new\u2019: Permission denied", "/h/.new"),
        ("    at Object.appendFileSync (file:///h/sdk.mjs:17:1412) EACCES", None),
        ("  code: 'EACCES',", None),
    ],
)  # fmt: skip
def test_the_path_a_refusal_names(line: str, path: str | None) -> None:
    assert refused_path(line) == (Path(path) if path is not None else None)


def test_the_directory_is_the_agents_own_below_the_last_hidden_one() -> None:
    home = Path("/h")
    assert needed_directory(home / ".gemini/tmp/x/chats/s.json") == home / ".gemini"
    assert needed_directory(home / ".config/opencode/opencode.json") == home / ".config/opencode"
    assert needed_directory(home / ".local/share/opencode/log/x") == home / ".local/share/opencode"
    assert needed_directory(home / ".claude.json.lock") == home  # a file beside the others
    assert needed_directory(home / ".claude/session-env/u", is_dir=True) == home / ".claude"
    assert needed_directory(home / ".newagent", is_dir=True) == home / ".newagent"
    assert needed_directory(Path("/srv/data/out.txt")) == Path("/srv/data")
    assert needed_directory(Path("/out.txt")) is None


def test_a_directory_not_there_yet_is_named_with_how_to_make_it(tmp_path: Path) -> None:
    line = f"Error: EACCES: permission denied, mkdir '{tmp_path}/.newagent'"
    hint = refusal_hint(policy(tmp_path / "project"), [line], home=tmp_path)
    assert hint is not None
    assert "If it needs the directory ~/.newagent, make it (mkdir -p ~/.newagent) and allow" in hint


def test_a_place_the_sandbox_allows_or_no_sandbox_names_no_directory(kit: Path) -> None:
    line = f"Error: EACCES: permission denied, open '{kit}/gemini/.gemini/x'"
    (refusal,) = find_refusals(policy(kit), [line])  # allowed: refused for another reason
    assert refusal.path == kit / "gemini/.gemini/x" and refusal.directory is None
    assert find_refusals(SandboxPolicy(SandboxMode.OFF), [line]) == []
    assert find_refusals(None, [line]) == []
    assert find_refusals(policy(), ["starting", "no such file"]) == []


def test_a_refusal_without_a_path_is_quoted_with_the_generic_advice() -> None:
    hint = refusal_hint(policy(), ["fatal: Operation not permitted"])
    assert hint == (
        "The agent ran in the project sandbox and was refused: fatal: Operation not permitted."
        " If it needs that place, add it to sandbox_writable (or start it with --sandbox off)."
    )


def test_the_agents_text_in_a_hint_is_made_safe(kit: Path) -> None:
    line = f"Error: EACCES: permission denied, open '{kit}/gemini/.gemini/\x1b[31mred'"
    (refusal,) = find_refusals(policy(), [line])
    hint = hint_for(policy(), refusal, home=kit.parents[2])
    assert "\x1b" not in hint and "\x1b" not in refusal.line


def text_call(call_id: str, text: str, status: str = "completed") -> ToolCallEntry:
    block = Content(content=TextContent(text=text))
    return ToolCallEntry(call_id, status=status, content=[block])


def test_a_refusal_in_a_tool_result_gets_one_notice_per_directory(kit: Path) -> None:
    """claude-agent-acp's Bash was refused `~/.claude/session-env` in its kit HOME: the turn
    went on, the refusal was only in the tool's result."""
    said: list[str] = []
    notices = RefusalNotices(policy(kit.parent / "project"), said.append, lambda lines: [])
    line = SEEN["claude-agent-acp"][0].replace("KIT", str(kit))
    notices.on_change(ch.EntryChanged(text_call("t1", f"```\n{line}\n```", "in_progress")))
    assert said == []  # (looked at once it ended)
    notices.on_change(ch.EntryChanged(text_call("t1", f"```\n{line}\n```")))
    notices.on_change(ch.EntryChanged(text_call("t1", f"```\n{line}\n```")))
    notices.on_change(ch.EntryAdded(text_call("t2", line.replace("29b67a2b", "other"), "failed")))
    assert len(said) == 1
    assert "~/.cache/acp-tui-interop/home/claude-agent-acp/.claude" in said[0].replace(
        str(kit.parents[2]), "~"
    )
    other = f"Error: EACCES: permission denied, open '{kit}/gemini/.gemini/x'"
    call = ToolCallEntry("t3", status="completed", raw_output={"stderr": other})
    notices.on_change(ch.EntryChanged(call))
    assert len(said) == 2 and f"{kit}/gemini/.gemini" in said[1]


def test_a_turn_that_ends_looks_at_its_error_and_the_agents_stderr(kit: Path) -> None:
    said: list[str] = []
    stderr = [f"Error: EACCES: permission denied, open '{kit}/qwen-new/.qwen/extension-store/lock'"]
    notices = RefusalNotices(policy(), said.append, lambda lines: stderr)
    notices.on_change(ch.TurnStateChanged(running=False, stop_reason=None, error="failed"))
    notices.on_change(ch.TurnStateChanged(running=False, stop_reason="end_turn"))
    assert len(said) == 1 and f"{kit}/qwen-new/.qwen," in said[0]
    crash = notices.crash_hint([])  # a crash is told again: its banner quotes it
    assert crash is not None and f"{kit}/qwen-new/.qwen," in crash


def test_no_notice_without_a_sandbox(kit: Path) -> None:
    said: list[str] = []
    line = SEEN["claude-agent-acp"][0].replace("KIT", str(kit))
    notices = RefusalNotices(SandboxPolicy(SandboxMode.OFF), said.append, lambda lines: [line])
    notices.on_change(ch.EntryChanged(text_call("t1", line)))
    notices.on_change(ch.TurnStateChanged(running=False, stop_reason="end_turn"))
    assert said == [] and notices.crash_hint([line]) is None
