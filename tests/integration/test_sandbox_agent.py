"""An agent started by a session runs in its sandbox: what it writes with its own process, with a
shell it starts and through `terminal/create` lands only in the session's roots; in `strict`
mode it cannot read the user's secrets. The probe agent reports each try."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from acp_tui.client.check_steps import StepLimits
from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import Settings
from acp_tui.sandbox import landlock
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry
from bench.headless import HeadlessUi
from tests.sandboxes import needs_landlock

PROBE = [sys.executable, str(Path(__file__).parents[1] / "agents" / "sandbox_probe.py")]
WAYS = ("own", "shell", "terminal")


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project, a directory beside it, a home and the temporary directory, all apart (the
    real temporary directory would hold the project's neighbours)."""
    found = {name: tmp_path / name for name in ("project", "beside", "home", "tmp")}
    for path in found.values():
        path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(found["tmp"]))
    monkeypatch.setenv("HOME", str(found["home"]))
    return found


async def probe_turn(
    cwd: Path, writes: list[Path], reads: Sequence[Path] = (), **settings: object
) -> list[str]:
    """Start the probe in a session in `cwd`, prompt it once; the lines of its reply."""
    env = {"PROBE_WRITES": json.dumps(list(map(str, writes))),
           "PROBE_READS": json.dumps(list(map(str, reads)))}  # fmt: skip
    session = AgentSession(PROBE, cwd, HeadlessUi(), env_extra=env, settings=Settings(**settings))  # type: ignore[arg-type]
    ended = asyncio.Event()
    session.thread.subscribe(
        lambda change: (
            ended.set() if isinstance(change, ch.TurnStateChanged) and not change.running else None
        )
    )
    try:
        assert await session.start(), session.error
        assert session.submit("go") is None
        async with asyncio.timeout(60):
            await ended.wait()
        entries = session.thread.entries
        text = "".join(e.text for e in entries if isinstance(e, MessageEntry) and e.role == "agent")
        return text.splitlines()
    finally:
        await session.close()


def expected(verdict: str, paths: list[Path]) -> list[str]:
    return [f"{way} {verdict} {path}" for way in WAYS for path in paths]


@needs_landlock
async def test_the_agent_its_shell_and_its_terminals_write_only_inside(
    places: dict[str, Path],
) -> None:
    project, beside, home = places["project"], places["beside"], places["home"]
    bashrc, other = home / ".bashrc", beside / "other.txt"
    for path in (bashrc, other):
        path.write_text("original")
    (project / "link-out").symlink_to(other)
    outside = [bashrc, other, Path("/etc/acp-tui-probe"), project / "link-out"]
    inside = [project / "inside.txt", places["tmp"] / "scratch.txt"]

    lines = await probe_turn(project, [*outside, *inside])

    refused = [line for line in lines if " refused " in line]
    wrote = [line for line in lines if " wrote " in line]
    assert sorted(wrote) == sorted(expected("wrote", inside)), lines
    assert len(refused) == len(outside) * len(WAYS), lines
    assert all(
        any(line.startswith(f"{way} refused {path}") for line in refused)
        for way in WAYS
        for path in outside
    ), lines
    assert bashrc.read_text() == other.read_text() == "original"
    assert "acp-tui-probe" not in os.listdir("/etc")


async def test_off_confines_nothing(places: dict[str, Path]) -> None:
    target = places["beside"] / "free.txt"
    lines = await probe_turn(places["project"], [target], sandbox=SandboxMode.OFF)
    assert lines == expected("wrote", [target])


@needs_landlock
async def test_strict_keeps_the_secrets_unreadable_for_the_whole_turn(
    places: dict[str, Path],
) -> None:
    home = places["home"]
    (home / ".ssh").mkdir()
    key = home / ".ssh" / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    plain = home / "notes.txt"
    plain.write_text("plain")
    lines = await probe_turn(places["project"], [], [key, plain], sandbox=SandboxMode.STRICT)
    assert sorted(lines) == sorted(
        [f"own refused-read {key} 13", f"own read {plain}"]
        + [f"{way} refused-read {key}" for way in WAYS[1:]]
        + [f"{way} read {plain}" for way in WAYS[1:]]
    )


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]


@pytest.fixture
def worktree(places: dict[str, Path]) -> Path:
    """A repository beside the project with one commit, and a linked worktree of it."""
    repo, worktree = places["beside"] / "repo", places["beside"] / "wt"
    repo.mkdir()
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    (repo / "main.txt").write_text("main")
    subprocess.run([*GIT, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "one"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "worktree", "add", "-q", str(worktree)], check=True)
    return worktree


@needs_landlock
async def test_a_worktree_session_writes_its_worktree_and_git_but_not_the_main_checkout(
    places: dict[str, Path], worktree: Path
) -> None:
    repo = places["beside"] / "repo"
    hook = repo / ".git" / "hooks" / "pre-commit"
    targets = [repo / "main.txt", hook, worktree / "new.txt"]
    lines = await probe_turn(worktree, targets)
    assert sorted(line for line in lines if " wrote " in line) == sorted(
        expected("wrote", [worktree / "new.txt"])
    ), lines
    assert (repo / "main.txt").read_text() == "main"
    assert not hook.exists()
    # git itself works in the worktree, under the same sandbox (its index, objects, refs)
    session = AgentSession(["/bin/true"], worktree, HeadlessUi(), settings=Settings())
    assert session.sandbox is not None
    ruleset = session.sandbox.ruleset()
    assert ruleset is not None
    try:
        commit = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", f"git add new.txt && {' '.join(GIT)} commit -qm two",
            cwd=worktree, preexec_fn=ruleset.restrict_thread, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, errors = await commit.communicate()
    finally:
        ruleset.close()
        await session.close()
    assert commit.returncode == 0, errors


async def test_a_forced_sandbox_without_landlock_fails_the_start_with_the_reason(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(landlock.SIMULATE_MISSING_VAR, "1")
    session = AgentSession(PROBE, places["project"], HeadlessUi(),
                           settings=Settings(sandbox=SandboxMode.PROJECT))  # fmt: skip
    try:
        assert not await session.start()
        assert session.state is SessionState.FAILED
        assert session.error is not None and "needs Linux Landlock" in session.error
    finally:
        await session.close()
    default = AgentSession(PROBE, places["project"], HeadlessUi(), settings=Settings())
    try:
        assert default.sandbox is not None and not default.sandbox.active
        assert "unsandboxed" in default.sandbox.notice
    finally:
        await default.close()


async def test_a_missing_writable_path_fails_the_start_with_its_name(
    places: dict[str, Path],
) -> None:
    missing = places["home"] / "nowhere"
    settings = Settings(sandbox_writable=[str(missing)])  # type: ignore[list-item]
    session = AgentSession(PROBE, places["project"], HeadlessUi(), settings=settings)
    try:
        assert not await session.start()
        assert session.error is not None and str(missing) in session.error
    finally:
        await session.close()


@needs_landlock
async def test_an_agent_ended_by_a_refusal_gets_a_notice_naming_it(
    places: dict[str, Path],
) -> None:
    """An agent that cannot make its state directory and exits: the notice names the directory
    it needed and the option and the setting that allow it."""
    wanted = places["home"] / ".newagent"
    argv = ["/bin/sh", "-c", f"mkdir {wanted} || exit 3"]
    session = AgentSession(argv, places["project"], HeadlessUi(), settings=Settings())
    notices: list[str] = []
    session.notices.subscribe(lambda notice: notices.append(notice.text))
    try:
        assert not await session.start()
        assert session.state is SessionState.CRASHED
        hints = [text for text in notices if "sandbox refused the agent" in text]
        assert len(hints) == 1, notices
        assert "If it needs the directory ~/.newagent, make it (mkdir -p ~/.newagent)" in hints[0]
        assert "--sandbox-writable ~/.newagent," in hints[0]
        assert 'sandbox_writable = ["~/.newagent"]' in hints[0]
    finally:
        await session.close()
    assert not wanted.exists()


@needs_landlock
async def test_check_reports_the_directory_a_refused_agent_needed(
    places: dict[str, Path],
) -> None:
    """`acp-tui check` says what the sidebar's notice says: the directory and how to allow it,
    and with that directory allowed for the run the agent starts."""
    from acp_tui.client.check import format_report, run_check
    from acp_tui.client.sandbox_setup import sandbox_request

    state = places["home"] / ".newagent"
    script = (
        f"mkdir -p {state}/cache || exit 3; exec {sys.executable} -c 'import sys; sys.stdin.read()'"
    )
    argv = ["/bin/sh", "-c", script]
    refused = await run_check(argv, cwd=places["project"], limits=StepLimits(step=5.0))
    lines = format_report(refused).splitlines()
    said = [line for line in lines if line.startswith("  refused: ")]
    assert len(said) == 1, lines
    assert "If it needs the directory ~/.newagent, make it (mkdir -p ~/.newagent)" in said[0]
    assert not state.exists()

    state.mkdir()
    request = sandbox_request(Settings(), None, argv, writable=[state])
    allowed = await run_check(
        argv, cwd=places["project"], sandbox=request, limits=StepLimits(step=2.0)
    )
    assert (state / "cache").is_dir()  # it wrote its own state, then waited for initialize
    assert not [line for line in format_report(allowed).splitlines() if "refused:" in line]
    assert "  writable: ~/.newagent" in format_report(allowed).splitlines()
