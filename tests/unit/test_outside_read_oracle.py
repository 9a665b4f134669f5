"""fs/read_text_file outside the session roots is no existence oracle: a path that does not
exist (or is a directory, or sits below a file) is asked about exactly like one that exists, a
denial answers the same error, and only after the user allowed it does the agent learn more."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.host.asker import FixedAnswer, Question
from acp_tui.host.boundary import ALLOW_ONCE, DENY, OUTSIDE_CWD
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.errors import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError
from tests.unit.test_file_races import fs_write
from tests.unit.test_filesystem_read import read, read_error


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    return project.resolve(), outside.resolve()


async def probe(host: FileSystemHost, path: Path) -> RpcError:
    return await read_error(host, {"sessionId": "s1", "path": str(path)})


async def test_a_missing_outside_path_asks_and_is_refused_like_an_existing_one(tree) -> None:
    project, outside = tree
    asker = FixedAnswer(DENY)
    host = FileSystemHost(project, asker)
    target = outside / "probe.txt"
    missing_error = await probe(host, target)  # nothing there yet
    target.write_text("exists now")
    existing_error = await probe(host, target)
    missing_question, existing_question = asker.asked
    assert missing_question == existing_question, "one question, whatever is there"
    assert missing_question.kind == OUTSIDE_CWD and missing_question.data["action"] == "read"
    assert (missing_error.code, missing_error.message, missing_error.data) == (
        existing_error.code,
        existing_error.message,
        existing_error.data,
    )
    assert missing_error.code == INVALID_PARAMS
    assert missing_error.data == {"path": str(target), "reason": "outside_cwd_denied"}


@pytest.mark.parametrize("shape", ["missing", "directory", "below a file", "missing parent"])
async def test_no_shape_of_outside_path_is_answered_before_the_question(tree, shape) -> None:
    project, outside = tree
    (outside / "file").write_text("x")
    (outside / "dir").mkdir()
    path = {
        "missing": outside / "nothing.txt",
        "directory": outside / "dir",
        "below a file": outside / "file" / "x.txt",
        "missing parent": outside / "no" / "such" / "x.txt",
    }[shape]
    asker = FixedAnswer(DENY)
    error = await probe(FileSystemHost(project, asker), path)
    assert [q.kind for q in asker.asked] == [OUTSIDE_CWD]
    assert error.data["reason"] == "outside_cwd_denied"
    assert error.message == (
        f"{path} is outside the session directory {project} and the user denied permission "
        "to read it"
    )


async def test_after_the_user_allowed_it_a_missing_outside_file_is_not_found(tree) -> None:
    project, outside = tree
    asker = FixedAnswer(ALLOW_ONCE)
    host = FileSystemHost(project, asker)
    missing = outside / "nothing.txt"
    error = await probe(host, missing)
    assert [q.kind for q in asker.asked] == [OUTSIDE_CWD]
    assert error.code == RESOURCE_NOT_FOUND
    assert error.message == f"Resource not found: {missing}"
    (outside / "there.txt").write_text("here\n")
    assert await read(host, outside / "there.txt") == "here\n"
    assert len(asker.asked) == 2


async def test_missing_files_inside_are_still_not_found_without_a_question(tree) -> None:
    project, outside = tree
    (project / "out").symlink_to(outside)
    asker = FixedAnswer(DENY)
    host = FileSystemHost(project, asker)
    error = await probe(host, project / "nothing.txt")
    assert error.code == RESOURCE_NOT_FOUND and asker.asked == []
    # through a link that leads outside: asked, as the real path is outside
    error = await probe(host, project / "out" / "nothing.txt")
    assert error.data["reason"] == "outside_cwd_denied"
    [question] = asker.asked
    assert question.data["resolved"] == str(outside / "nothing.txt")


async def test_gemini_quirk_reads_missing_inside_files_empty_but_still_asks_outside(tree) -> None:
    project, outside = tree
    asker = FixedAnswer(DENY)
    asked: list[Question] = asker.asked
    host = FileSystemHost(project, asker, missing_reads_empty=True)
    assert await read(host, project / "new.txt") == ""
    assert asked == []
    error = await probe(host, outside / "new.txt")
    assert error.data["reason"] == "outside_cwd_denied"
    assert [q.kind for q in asked] == [OUTSIDE_CWD]


async def test_a_write_to_an_outside_directory_asks_before_saying_what_it_is(tree) -> None:
    """fs/write_text_file too: a missing outside path asks (and would create the file); a
    directory there must not be told apart before the same question."""
    project, outside = tree
    (outside / "dir").mkdir()
    asker = FixedAnswer(DENY)
    host = FileSystemHost(project, asker)
    errors = []
    for path in (outside / "new.txt", outside / "dir"):
        with pytest.raises(RpcError) as caught:
            await fs_write(host, {"sessionId": "s1", "path": str(path), "content": "x"})
        errors.append(caught.value)
    assert [q.kind for q in asker.asked] == [OUTSIDE_CWD, OUTSIDE_CWD]
    assert [e.data["reason"] for e in errors] == ["outside_cwd_denied", "outside_cwd_denied"]
    allowing = FixedAnswer(ALLOW_ONCE)
    with pytest.raises(RpcError) as caught:
        await fs_write(FileSystemHost(project, allowing), {
            "sessionId": "s1", "path": str(outside / "dir"), "content": "x"
        })  # fmt: skip
    assert caught.value.data["reason"] == "is_directory" and len(allowing.asked) == 1
