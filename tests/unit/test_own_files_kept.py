"""acp-tui's own files the agent's fs/* requests may not touch (`OwnFiles.kept_from_agent`): the
`--log` file inside the project (and every tab's beside it), by its path or a symlink to it,
and its XDG directories but the git worktrees there. An export stays the agent's to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import ALLOW_ONCE
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest

LOG_LINE = '{"dir":"out","t":1.0,"frame":{"method":"authenticate","params":{"token":"s3cret"}}}\n'


def _read(host: FileSystemHost, path: Path) -> object:
    return host.read_text_file(ReadTextFileRequest(sessionId="s", path=str(path)))


def _write(host: FileSystemHost, path: Path, content: str) -> object:
    return host.write_text_file(
        WriteTextFileRequest(sessionId="s", path=str(path), content=content)
    )


async def _refused(request: object) -> RpcError:
    with pytest.raises(RpcError) as refused:
        await request  # type: ignore[misc]
    assert refused.value.code == INVALID_PARAMS
    assert isinstance(refused.value.data, dict) and refused.value.data["reason"] == "own_file"
    return refused.value


async def test_the_log_inside_the_project_is_neither_read_nor_written_for_the_agent(
    tmp_path: Path,
) -> None:
    log = tmp_path / "acp.jsonl"
    log.write_text(LOG_LINE)
    second_tab = tmp_path / "acp.tab2.jsonl"
    second_tab.write_text(LOG_LINE)
    (tmp_path / "alias").symlink_to(log)
    (tmp_path / "notes.md").write_text("mine\n")
    host = FileSystemHost(tmp_path, FixedAnswer(ALLOW_ONCE))
    host.own_files.add_tab_logs(log)
    for path in (log, second_tab, tmp_path / "alias"):
        await _refused(_read(host, path))
        await _refused(_write(host, path, "forged\n"))
    assert log.read_text() == LOG_LINE and second_tab.read_text() == LOG_LINE
    assert (await _read(host, tmp_path / "notes.md")) == {"content": "mine\n"}  # type: ignore[misc]


async def test_acp_tuis_data_directory_is_kept_from_the_agent_but_its_worktrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session in the home directory has acp-tui's data directory inside its boundary: the
    remembered permission rules are not the agent's to write."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    rules = tmp_path / "data" / "acp-tui" / "rules.json"
    rules.parent.mkdir(parents=True)
    rules.write_text("{}")
    worktree_file = tmp_path / "data" / "acp-tui" / "worktrees" / "p" / "a.py"
    worktree_file.parent.mkdir(parents=True)
    host = FileSystemHost(tmp_path, FixedAnswer(ALLOW_ONCE))
    await _refused(_write(host, rules, '{"allow": "everything"}'))
    assert rules.read_text() == "{}"
    await _write(host, worktree_file, "x = 1\n")  # type: ignore[misc]
    assert worktree_file.read_text() == "x = 1\n"
