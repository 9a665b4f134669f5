"""Compatibility switches for named agents: a missing file reads as "" only for Gemini CLI, only
inside the session roots; everyone else gets -32002 worded as the ACP SDKs word it."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.agent_quirks import missing_reads_empty
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import DENY
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.errors import INVALID_PARAMS, RESOURCE_NOT_FOUND
from acp_tui.protocol.models import Implementation
from tests.unit.test_filesystem_read import read, read_error


def test_only_gemini_cli_reads_missing_files_as_empty() -> None:
    assert missing_reads_empty(Implementation(name="gemini-cli", version="0.61.0"))
    assert not missing_reads_empty(Implementation(name="qwen-code", version="0.15"))
    assert not missing_reads_empty(None)


async def test_missing_file_answers_resource_not_found_in_the_sdk_wording(tmp_path: Path) -> None:
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    missing = tmp_path / "new.txt"
    error = await read_error(host, {"sessionId": "s1", "path": str(missing)})
    assert error.code == RESOURCE_NOT_FOUND
    assert error.message == f"Resource not found: {missing}"


async def test_with_the_switch_a_missing_file_inside_reads_empty(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (project / "out").symlink_to(tmp_path / "outside")
    (project / "file").write_text("x")
    host = FileSystemHost(project, FixedAnswer(DENY), missing_reads_empty=True)
    assert await read(host, project / "new.txt") == ""
    assert await read(host, project / "src" / "deeper" / "new.txt") == ""
    assert await read(host, project / "notes.txt", line=3, limit=2) == ""
    # outside the roots (directly or through a link) the answer is unchanged: ask / refuse
    for path in (tmp_path / "outside" / "new.txt", project / "out" / "new.txt"):
        error = await read_error(host, {"sessionId": "s1", "path": str(path)})
        assert error.code in (RESOURCE_NOT_FOUND, INVALID_PARAMS), path
    # other errors are not touched
    error = await read_error(host, {"sessionId": "s1", "path": str(project / "src")})
    assert error.code == INVALID_PARAMS
    (project / "real.txt").write_text("real\n")
    assert await read(host, project / "real.txt") == "real\n"
