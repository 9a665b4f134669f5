"""The session-directory boundary: resolution, consent for outside paths, remembered allowances."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from acp_tui.host.asker import FixedAnswer, Question
from acp_tui.host.boundary import ALLOW_ONCE, ALLOW_SESSION, DENY, OUTSIDE_CWD, PathPolicy
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError


class ScriptedAsker:
    """Answers from a list, in order, and records every question."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answers.pop(0)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A session directory and a sibling directory outside it."""
    cwd = tmp_path / "project"
    outside = tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (cwd / "inside.txt").write_text("inside")
    return cwd, outside


async def test_inside_path_is_resolved_without_asking(tree):
    cwd, _ = tree
    asker = FixedAnswer(DENY)
    policy = PathPolicy(cwd, asker)
    assert await policy.check(cwd / "inside.txt", "read") == cwd / "inside.txt"
    assert await policy.check(str(cwd / "sub" / ".." / "new.txt"), "write") == cwd / "new.txt"
    assert await policy.check(cwd, "run") == cwd
    assert asker.asked == []


async def test_relative_path_is_rejected_and_never_resolved(tree, monkeypatch):
    cwd, _ = tree
    monkeypatch.chdir(cwd)  # even though "inside.txt" exists relative to the process cwd
    asker = FixedAnswer(ALLOW_ONCE)
    with pytest.raises(RpcError) as caught:
        await PathPolicy(cwd, asker).check("inside.txt", "read")
    assert caught.value.code == INVALID_PARAMS
    assert "absolute" in caught.value.message
    assert caught.value.data["reason"] == "not_absolute"
    assert asker.asked == []


async def test_nul_byte_is_rejected(tree):
    cwd, _ = tree
    with pytest.raises(RpcError) as caught:
        await PathPolicy(cwd, FixedAnswer(ALLOW_ONCE)).check(f"{cwd}/a\0b", "write")
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.data["reason"] == "nul_byte"


async def test_denied_outside_path_raises_a_clear_error(tree):
    cwd, outside = tree
    asker = FixedAnswer(DENY)
    with pytest.raises(RpcError) as caught:
        await PathPolicy(cwd, asker).check(outside / "secret.txt", "read")
    error = caught.value
    assert error.code == INVALID_PARAMS
    assert "outside the session directory" in error.message
    assert "denied" in error.message
    assert str(outside / "secret.txt") in error.message
    assert error.data == {"path": str(outside / "secret.txt"), "reason": "outside_cwd_denied"}
    [question] = asker.asked
    assert question.kind == OUTSIDE_CWD
    assert [c.id for c in question.choices] == [ALLOW_ONCE, ALLOW_SESSION, DENY]
    assert question.data["action"] == "read"
    assert str(outside / "secret.txt") in question.detail


async def test_allow_once_asks_again_next_time(tree):
    cwd, outside = tree
    asker = ScriptedAsker(ALLOW_ONCE, DENY)
    policy = PathPolicy(cwd, asker)
    assert await policy.check(outside / "secret.txt", "read") == outside / "secret.txt"
    with pytest.raises(RpcError):
        await policy.check(outside / "secret.txt", "read")
    assert len(asker.asked) == 2


async def test_allow_for_session_is_remembered_per_path_and_action(tree):
    cwd, outside = tree
    asker = ScriptedAsker(ALLOW_SESSION, DENY, DENY)
    policy = PathPolicy(cwd, asker)
    target = outside / "secret.txt"
    assert await policy.check(target, "read") == target
    assert await policy.check(str(target), "read") == target  # remembered: no question
    assert len(asker.asked) == 1
    with pytest.raises(RpcError):  # reading was allowed, writing was not
        await policy.check(target, "write")
    with pytest.raises(RpcError):  # another outside file is not covered
        await policy.check(outside / "other.txt", "read")
    assert len(asker.asked) == 3


async def test_dot_dot_escape_counts_as_outside(tree):
    cwd, outside = tree
    asker = FixedAnswer(DENY)
    with pytest.raises(RpcError):
        await PathPolicy(cwd, asker).check(f"{cwd}/../outside/secret.txt", "read")
    assert asker.asked[0].data["resolved"] == str(outside / "secret.txt")


async def test_symlink_escape_counts_as_outside(tree):
    cwd, outside = tree
    (cwd / "link.txt").symlink_to(outside / "secret.txt")
    (cwd / "linkdir").symlink_to(outside)
    asker = FixedAnswer(DENY)
    policy = PathPolicy(cwd, asker)
    for path in (cwd / "link.txt", cwd / "linkdir" / "secret.txt", cwd / "linkdir" / "new.txt"):
        with pytest.raises(RpcError):
            await policy.check(path, "write")
    assert [q.data["resolved"] for q in asker.asked] == [
        str(outside / "secret.txt"),
        str(outside / "secret.txt"),
        str(outside / "new.txt"),  # a file that does not exist yet, below a symlinked dir
    ]
    assert "resolves to" in asker.asked[0].detail


async def test_dangling_symlink_to_outside_counts_as_outside(tree):
    cwd, outside = tree
    (cwd / "dangling").symlink_to(outside / "not-yet.txt")
    asker = FixedAnswer(DENY)
    with pytest.raises(RpcError):
        await PathPolicy(cwd, asker).check(cwd / "dangling", "write")
    assert asker.asked[0].data["resolved"] == str(outside / "not-yet.txt")


async def test_symlink_from_outside_into_cwd_is_inside(tree):
    cwd, outside = tree
    (outside / "to-project").symlink_to(cwd)
    asker = FixedAnswer(DENY)
    resolved = await PathPolicy(cwd, asker).check(outside / "to-project" / "inside.txt", "read")
    assert resolved == cwd / "inside.txt"
    assert asker.asked == []


async def test_sibling_with_common_prefix_is_outside(tree, tmp_path):
    cwd, _ = tree
    sibling = tmp_path / "project2"
    sibling.mkdir()
    asker = FixedAnswer(DENY)
    with pytest.raises(RpcError):
        await PathPolicy(cwd, asker).check(sibling / "x.txt", "read")
    assert len(asker.asked) == 1


async def test_extra_roots_and_symlinked_cwd(tree, tmp_path):
    cwd, outside = tree
    link_to_cwd = tmp_path / "cwd-link"
    link_to_cwd.symlink_to(cwd)
    asker = FixedAnswer(DENY)
    policy = PathPolicy(link_to_cwd, asker, extra_roots=[outside])
    assert policy.cwd == cwd
    assert await policy.check(cwd / "inside.txt", "read") == cwd / "inside.txt"
    assert await policy.check(link_to_cwd / "inside.txt", "read") == cwd / "inside.txt"
    assert await policy.check(outside / "secret.txt", "write") == outside / "secret.txt"
    assert asker.asked == []


async def test_concurrent_checks_of_one_path_share_one_question(tree):
    cwd, outside = tree
    release = asyncio.Event()
    asking = asyncio.Event()
    asked: list[Question] = []

    class SlowAsker:
        async def ask(self, question: Question) -> str:
            asked.append(question)
            asking.set()
            await release.wait()
            return ALLOW_SESSION

    policy = PathPolicy(cwd, SlowAsker())
    target = outside / "secret.txt"
    tasks = [asyncio.create_task(policy.check(target, "read")) for _ in range(3)]
    await asyncio.wait_for(asking.wait(), 5)
    release.set()
    assert await asyncio.gather(*tasks) == [target] * 3
    assert len(asked) == 1


async def test_abandoned_question_propagates_cancellation(tree):
    cwd, outside = tree

    class AbandoningAsker:
        async def ask(self, question: Question) -> str:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await PathPolicy(cwd, AbandoningAsker()).check(outside / "secret.txt", "read")


async def test_unknown_answer_is_a_denial(tree):
    cwd, outside = tree
    with pytest.raises(RpcError) as caught:
        await PathPolicy(cwd, FixedAnswer("whatever")).check(outside / "secret.txt", "run")
    assert "run a command in" in caught.value.message


def test_root_of_file_system_as_cwd_contains_everything(tmp_path):
    policy = PathPolicy(Path(os.sep), FixedAnswer(DENY))
    assert policy.inside(tmp_path / "anything")


async def test_path_with_a_lone_surrogate_is_rejected(tree):
    cwd, _ = tree
    with pytest.raises(RpcError) as caught:
        await PathPolicy(cwd, FixedAnswer(ALLOW_ONCE)).check(f"{cwd}/\ud800.txt", "write")
    assert caught.value.code == INVALID_PARAMS
    assert caught.value.data["reason"] == "invalid_unicode"
