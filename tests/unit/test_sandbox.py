"""The agent's sandbox: a child restricted by the policy's Landlock ruleset writes only where the
policy allows, whatever way it tries, and reads no secret in `strict` mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.sandbox import landlock
from acp_tui.sandbox.policy import (
    SandboxError,
    SandboxMode,
    SandboxPolicy,
    SandboxRequest,
    plan_sandbox,
)
from acp_tui.sandbox.readable import readable_around

needs_landlock = pytest.mark.skipif(
    landlock.abi_version() < 1, reason="this kernel offers no Landlock"
)


class Layout:
    """A project, a directory beside it, a home, a temporary directory: all apart."""

    def __init__(self, base: Path) -> None:
        self.project = base / "project"
        self.beside = base / "beside"
        self.home = base / "home"
        self.temp = base / "tmp"
        for path in (self.project, self.beside, self.home, self.temp):
            path.mkdir()

    def policy(self, mode: SandboxMode = SandboxMode.PROJECT, **request: object) -> SandboxPolicy:
        policy = plan_sandbox(
            SandboxRequest(mode, "agent", **request),  # type: ignore[arg-type]
            [self.project],
            ["agent"],
            home=self.home,
            environ={},
            temp=[self.temp],
        )
        assert policy.mode is mode
        return policy


def run_confined(
    policy: SandboxPolicy, argv: list[str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    ruleset = policy.ruleset()
    assert ruleset is not None
    try:
        return subprocess.run(
            argv, cwd=cwd, preexec_fn=ruleset.restrict_thread, capture_output=True, text=True,
            check=False,
        )  # fmt: skip
    finally:
        ruleset.close()


WRITER = """
import os, sys
for path in sys.argv[1:]:
    try:
        with open(path, "w") as f:
            f.write("changed")
        print("wrote", path)
    except OSError as error:
        print("refused", path, error.errno)
"""


@needs_landlock
def test_writes_outside_are_refused_by_the_process_and_by_its_shell(tmp_path: Path) -> None:
    where = Layout(tmp_path)
    outside_home = where.home / "bashrc"
    outside_beside = where.beside / "other.txt"
    real_home_file = Path.home() / f".acp-tui-sandbox-test-{os.getpid()}"
    for path in (outside_home, outside_beside):
        path.write_text("original")
    (where.project / "out-link").symlink_to(outside_beside)
    targets = [outside_home, outside_beside, Path("/etc/acp-tui-sandbox-test"),
               where.project / "out-link", real_home_file]  # fmt: skip
    inside = where.project / "inside.txt"

    own = run_confined(where.policy(), [sys.executable, "-c", WRITER, *map(str, targets),
                                        str(inside)], where.project)  # fmt: skip
    assert own.stdout.splitlines() == [
        *(f"refused {path} 13" for path in targets),
        f"wrote {inside}",
    ]
    script = "; ".join(f"echo changed > {path}" for path in targets) + f"; echo ok > {inside}"
    shell = run_confined(where.policy(), ["/bin/sh", "-c", script], where.project)
    assert shell.stderr.count("Permission denied") == len(targets), shell.stderr
    assert outside_home.read_text() == outside_beside.read_text() == "original"
    assert not real_home_file.exists()
    assert not Path("/etc/acp-tui-sandbox-test").exists()
    assert inside.read_text() == "ok\n"


@needs_landlock
def test_nothing_outside_is_removed_renamed_linked_in_or_made(tmp_path: Path) -> None:
    where = Layout(tmp_path)
    victim = where.beside / "victim.txt"
    victim.write_text("original")
    script = (
        f"rm -f {victim}; mv {victim} {where.project}/moved; ln {victim} {where.project}/hard;"
        f" mkdir {where.beside}/new; ln -s /x {where.beside}/link; touch {where.home}/made"
    )
    result = run_confined(where.policy(), ["/bin/sh", "-c", script], where.project)
    assert result.stderr.count("denied") + result.stderr.count("cross-device") == 6, result.stderr
    assert sorted(p.name for p in where.beside.iterdir()) == ["victim.txt"]
    assert victim.read_text() == "original"
    assert list(where.home.iterdir()) == []
    assert list(where.project.iterdir()) == []


@needs_landlock
def test_a_hard_link_made_before_the_agent_started_is_written_through(tmp_path: Path) -> None:
    """Landlock checks the path, not the inode: a hard link already inside the project to a
    file outside is written like any file of the project (the README says so)."""
    where = Layout(tmp_path)
    outside = where.beside / "shared.txt"
    outside.write_text("original")
    os.link(outside, where.project / "shared.txt")
    result = run_confined(
        where.policy(), ["/bin/sh", "-c", "echo changed > shared.txt"], where.project
    )
    assert result.returncode == 0, result.stderr
    assert outside.read_text() == "changed\n"


@needs_landlock
def test_temp_state_and_user_writable_directories_are_writable(tmp_path: Path) -> None:
    where = Layout(tmp_path)
    (where.home / ".agent").mkdir()
    (where.home / ".cache" / "agent").mkdir(parents=True)
    extra = where.beside / "extra"
    extra.mkdir()
    policy = where.policy(writable=(extra,))
    places = [where.temp, where.home / ".agent", where.home / ".cache" / "agent", extra]
    script = "; ".join(f"echo x > {path}/f && mkdir {path}/d && rm {path}/f" for path in places)
    result = run_confined(policy, ["/bin/sh", "-c", script + "; echo > /dev/null"], where.project)
    assert result.returncode == 0, result.stderr
    assert all((path / "d").is_dir() for path in places)


def test_missing_paths_a_user_gave_are_an_error_missing_defaults_are_skipped(
    tmp_path: Path,
) -> None:
    where = Layout(tmp_path)
    with pytest.raises(SandboxError, match=r"writable path .*nowhere does not exist"):
        plan_sandbox(
            SandboxRequest(SandboxMode.PROJECT, writable=(tmp_path / "nowhere",)),
            [where.project], ["agent"], home=where.home, environ={}, abi=7,
        )  # fmt: skip
    policy = plan_sandbox(
        SandboxRequest(SandboxMode.PROJECT, "agent"),
        [where.project], ["agent"], home=where.home, environ={}, abi=7, temp=[where.temp],
    )  # fmt: skip
    assert where.home / ".agent" in policy.skipped
    assert policy.writable == (where.project, where.temp)


def test_no_landlock_is_a_notice_by_default_and_an_error_when_asked_for_by_name(
    tmp_path: Path,
) -> None:
    where = Layout(tmp_path)
    default = plan_sandbox(SandboxRequest(), [where.project], ["a"], home=where.home,
                           environ={}, abi=0)  # fmt: skip
    assert default.mode is SandboxMode.OFF
    assert "unsandboxed" in default.notice
    for mode in (SandboxMode.PROJECT, SandboxMode.STRICT):
        with pytest.raises(SandboxError, match=f"sandbox {mode} needs Linux Landlock"):
            plan_sandbox(SandboxRequest(mode), [where.project], ["a"], home=where.home,
                         environ={}, abi=0)  # fmt: skip
    off = plan_sandbox(SandboxRequest(SandboxMode.OFF), [where.project], ["a"],
                       home=where.home, environ={}, abi=0)  # fmt: skip
    assert off.mode is SandboxMode.OFF and not off.notice


def test_the_simulation_switch_hides_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(landlock.SIMULATE_MISSING_VAR, "1")
    assert landlock.abi_version() == 0


READER = """
import sys
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            print("read", path, f.read().strip())
    except OSError as error:
        print("refused", path, error.errno)
"""


@needs_landlock
def test_strict_keeps_secrets_unreadable_and_the_rest_readable(tmp_path: Path) -> None:
    where = Layout(tmp_path)
    ssh = where.home / ".ssh"
    ssh.mkdir()
    (ssh / "id_ed25519").write_text("secret key")
    (where.home / ".config" / "gh").mkdir(parents=True)
    (where.home / ".config" / "gh" / "hosts.yml").write_text("token")
    (where.home / ".config" / "other.conf").write_text("plain")
    (where.home / ".netrc").write_text("password")
    (where.home / "keys").symlink_to(ssh)
    (where.project / "a.txt").write_text("project file")
    secrets = [ssh / "id_ed25519", where.home / ".config/gh/hosts.yml", where.home / ".netrc",
               where.home / "keys" / "id_ed25519",
               Path(f"/proc/self/root{ssh}/id_ed25519")]  # fmt: skip
    plain = [where.home / ".config" / "other.conf", where.project / "a.txt"]
    policy = where.policy(SandboxMode.STRICT)
    assert set(policy.unreadable) == {ssh, where.home / ".config/gh", where.home / ".netrc"}
    result = run_confined(policy, [sys.executable, "-c", READER, *map(str, secrets + plain)],
                          where.project)  # fmt: skip
    assert result.stdout.splitlines() == [
        *(f"refused {path} 13" for path in secrets),
        f"read {plain[0]} plain",
        f"read {plain[1]} project file",
    ], result.stderr
    listing = run_confined(policy, ["ls", str(ssh)], where.project)
    assert listing.stdout.split() == ["id_ed25519"]  # names can be listed, not read


def test_readable_around_leaves_out_the_secrets_and_links_to_them(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".ssh"
    secret.mkdir(parents=True)
    (tmp_path / "home" / "notes").mkdir()
    (tmp_path / "home" / "keys").symlink_to(secret)
    (tmp_path / "home" / "up").symlink_to(tmp_path)
    found = readable_around([secret])
    assert str(tmp_path / "home" / "notes") in found
    for path in (secret, tmp_path / "home" / "keys", tmp_path / "home" / "up", tmp_path):
        assert str(path) not in found
    assert not any(secret.is_relative_to(path) for path in found)


@needs_landlock
async def test_an_agent_started_confined_leaves_acp_tui_itself_free(tmp_path: Path) -> None:
    """The restriction binds the thread made for the spawn and the agent, never acp-tui's
    other threads: after a confined start, acp-tui still writes anywhere (a revert, an export)."""
    from acp_tui.protocol.process import AgentProcess

    where = Layout(tmp_path)
    ruleset = where.policy().ruleset()
    assert ruleset is not None
    outside = where.beside / "out.txt"
    script = f"open({str(outside)!r}, 'w')"
    try:
        agent = await AgentProcess.spawn(
            [sys.executable, "-c", script], cwd=str(where.project), confine=ruleset.restrict_thread
        )
    finally:
        ruleset.close()
    exit_ = await agent.wait()
    assert exit_.returncode == 1 and "PermissionError" in "\n".join(agent.stderr_tail())
    outside.write_text("acp-tui writes where it likes")  # this thread: not confined
    assert outside.read_text() == "acp-tui writes where it likes"


async def test_a_confinement_that_fails_starts_nothing(tmp_path: Path) -> None:
    from acp_tui.protocol.process import AgentProcess, AgentSpawnError

    marker = tmp_path / "started"

    def refuse() -> None:
        raise OSError(1, "landlock_restrict_self failed")

    with pytest.raises(AgentSpawnError, match="cannot confine the agent in its sandbox"):
        await AgentProcess.spawn(["/bin/sh", "-c", f"touch {marker}"], confine=refuse)
    assert not marker.exists()


def test_the_rights_handled_follow_the_kernel_abi() -> None:
    assert not landlock.write_rights(1) & (landlock.REFER | landlock.TRUNCATE)
    assert landlock.write_rights(2) & landlock.REFER
    assert not landlock.write_rights(2) & landlock.TRUNCATE
    assert landlock.write_rights(3) & landlock.TRUNCATE
    assert landlock.write_rights(7) == landlock.write_rights(3)


@needs_landlock
def test_a_ruleset_of_the_first_abi_still_confines_on_a_newer_kernel(tmp_path: Path) -> None:
    """An old kernel's ruleset (no REFER, no TRUNCATE handled): writes outside are still refused,
    inside still work."""
    where = Layout(tmp_path)
    policy = plan_sandbox(
        SandboxRequest(SandboxMode.PROJECT, "agent"), [where.project], ["agent"],
        home=where.home, environ={}, temp=[where.temp], abi=1,
    )  # fmt: skip
    outside = where.beside / "x.txt"
    result = run_confined(
        policy, ["/bin/sh", "-c", f"echo a > {outside}; echo b > inside.txt"], where.project
    )
    assert "Permission denied" in result.stderr
    assert not outside.exists()
    assert (where.project / "inside.txt").read_text() == "b\n"
