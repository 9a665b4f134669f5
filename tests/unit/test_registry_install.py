"""Binary agents from the registry: downloaded once into `<cache>/agents/<id>/<version>/` from
each archive format; hostile archives refused with nothing left behind; a new version in a new
directory; sha256 checked."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import subprocess
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from acp_tui.registry.index import BinaryTarget
from acp_tui.registry.install import DownloadControl, Limits, install_binary
from acp_tui.registry.installed import InstallError
from tests.registry_server import SCRIPT, link, serve, tar_bytes, trickle, zip_bytes


def _leftovers(root: Path) -> list[str]:
    agents = root / "agents"
    return sorted(str(p.relative_to(root)) for p in agents.rglob("*")) if agents.exists() else []


@pytest.mark.parametrize(
    ("name", "build"),
    [
        ("agent.zip", lambda: zip_bytes([("bin/agent", SCRIPT), ("README", b"hi")])),
        ("agent.tar.gz", lambda: tar_bytes("w:gz", [("bin/agent", SCRIPT)])),
        ("agent.tgz", lambda: tar_bytes("w:gz", [("./bin/agent", SCRIPT)])),
        ("agent.tar.bz2", lambda: tar_bytes("w:bz2", [("bin/agent", SCRIPT)])),
    ],
)
def test_each_archive_format_installs_and_runs(tmp_path: Path, name: str, build: object) -> None:
    assert callable(build)
    with serve() as server:
        server.files[name] = build()
        target = BinaryTarget(server.url(name), "./bin/agent")
        seen: list[tuple[int, int | None]] = []
        directory = install_binary(
            tmp_path, "tiny", "1.0.0", target, lambda d, t: seen.append((d, t))
        )
    assert directory == tmp_path / "agents" / "tiny" / "1.0.0"
    program = directory / "bin" / "agent"
    assert os.access(program, os.X_OK)
    out = subprocess.run([program, "x"], capture_output=True, text=True, check=True, timeout=30)
    assert out.stdout == "registry-agent x\n"
    assert seen[-1] == (len(server.files[name]), len(server.files[name]))
    assert os.listdir(tmp_path / "agents" / "tiny") == ["1.0.0"]  # no temporary directory left


def test_a_raw_binary_is_the_command(tmp_path: Path) -> None:
    with serve() as server:
        server.files["agent-linux"] = SCRIPT
        target = BinaryTarget(server.url("agent-linux"), "./agent")
        directory = install_binary(tmp_path, "raw", "2.0.0", target)
    out = subprocess.run([directory / "agent"], capture_output=True, text=True, timeout=30)
    assert out.stdout == "registry-agent\n"


def test_installed_once_and_a_new_version_goes_to_a_new_directory(tmp_path: Path) -> None:
    with serve() as server:
        server.files["a.tar.gz"] = tar_bytes("w:gz", [("agent", SCRIPT)])
        target = BinaryTarget(server.url("a.tar.gz"), "agent")
        old = install_binary(tmp_path, "tiny", "1.0.0", target)
        assert install_binary(tmp_path, "tiny", "1.0.0", target) == old
        assert len(server.requests_for("a.tar.gz")) == 1  # not downloaded again
        new = install_binary(tmp_path, "tiny", "1.1.0", target)
    assert new == tmp_path / "agents" / "tiny" / "1.1.0" and new != old
    assert (old / "agent").is_file() and (new / "agent").is_file()


def _device() -> tarfile.TarInfo:
    info = tarfile.TarInfo("agent-dev")
    info.type = tarfile.CHRTYPE
    info.devmajor, info.devminor = 1, 3
    return info


HOSTILE = {
    "dotdot": ([("agent", SCRIPT), ("../x", b"escaped")], "leads out of the archive (`..`)"),
    "absolute": ([("agent", SCRIPT), ("/tmp/abs-x", b"escaped")], "has an absolute path"),
    "symlink-etc": ([("agent", SCRIPT), link("etc", "/etc")], "outside the archive"),
    "symlink-up": ([("agent", SCRIPT), link("d/up", "../../..")], "outside the archive"),
    "hardlink-out": (
        [("agent", SCRIPT), link("pw", "/etc/passwd", hard=True)],
        "points to '/etc/passwd', outside",
    ),
    "hardlink-up": ([("agent", SCRIPT), link("pw", "../../etc/passwd", hard=True)], "outside"),
    "through-link": (
        [("agent", SCRIPT), link("x", "."), link("x/y", "../z")],
        "goes through a symbolic link",
    ),
    "device": ([("agent", SCRIPT), _device()], "device file or FIFO"),
    "chained-link": (
        [("agent", SCRIPT), link("d/l2", "l1/.."), link("d/l1", "..")],
        "through another link of the archive",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_refused_with_nothing_left(tmp_path: Path, case: str) -> None:
    members, reason = HOSTILE[case]
    root = tmp_path / "cache"
    with serve() as server:
        server.files["evil.tar.gz"] = tar_bytes("w:gz", members)  # type: ignore[arg-type]
        target = BinaryTarget(server.url("evil.tar.gz"), "agent")
        with pytest.raises(InstallError, match="refused the archive") as refused:
            install_binary(root, "evil", "1.0.0", target)
    assert reason in str(refused.value)
    assert _leftovers(root) == ["agents/evil"]  # no version directory, no temporary one
    assert not (tmp_path / "x").exists() and not (root / "agents" / "x").exists()
    assert not Path("/tmp/abs-x").exists()


def test_hostile_zip_entries_are_refused(tmp_path: Path) -> None:
    with serve() as server:
        server.files["evil.zip"] = zip_bytes([("agent", SCRIPT), ("../../x", b"escaped")])
        target = BinaryTarget(server.url("evil.zip"), "agent")
        with pytest.raises(InstallError, match=r"leads out of the archive"):
            install_binary(tmp_path / "cache", "evil", "1.0.0", target)
    assert _leftovers(tmp_path / "cache") == ["agents/evil"]
    assert not (tmp_path / "x").exists()


def _zip_link(archive: zipfile.ZipFile, name: str, target: str) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, target)


@pytest.mark.parametrize("order", ["link-first", "link-last"])
def test_a_zip_with_a_chained_link_leading_out_is_refused(tmp_path: Path, order: str) -> None:
    """Issue 40: `d/l1 -> ..` and `d/l2 -> l1/..` each look inside alone; `d/l2` leads out."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        links = [("d/l1", ".."), ("d/l2", "l1/..")]
        for name, points_to in links if order == "link-first" else links[::-1]:
            _zip_link(archive, name, points_to)
        agent = zipfile.ZipInfo("agent")
        agent.external_attr = 0o100755 << 16
        archive.writestr(agent, SCRIPT)
    with serve() as server:
        server.files["evil.zip"] = buffer.getvalue()
        target = BinaryTarget(server.url("evil.zip"), "agent")
        with pytest.raises(InstallError, match="through another link of the archive"):
            install_binary(tmp_path / "cache", "evil", "1.0.0", target)
    assert _leftovers(tmp_path / "cache") == ["agents/evil"]


def test_an_ordinary_zip_made_with_writestr_installs(tmp_path: Path) -> None:
    """Python's `writestr(name, data)` stores permission bits only (0o600 << 16, no file type):
    an ordinary file, refused before as "a device file or FIFO"."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bin/agent", SCRIPT)
        archive.writestr("share/", b"")
        archive.writestr("share/README", b"hi")
    modes = [info.external_attr >> 16 for info in zipfile.ZipFile(buffer).infolist()]
    assert modes[0] == modes[2] == 0o600, "the mode bits as writestr writes a file's"
    with serve() as server:
        server.files["plain.zip"] = buffer.getvalue()
        target = BinaryTarget(server.url("plain.zip"), "bin/agent")
        directory = install_binary(tmp_path, "plain", "1.0.0", target)
    out = subprocess.run([directory / "bin" / "agent"], capture_output=True, text=True, timeout=30)
    assert out.stdout == "registry-agent\n"
    assert (directory / "share" / "README").read_bytes() == b"hi"


def test_a_command_leading_out_is_refused_before_any_download(tmp_path: Path) -> None:
    with serve() as server:
        server.files["a.tar.gz"] = tar_bytes("w:gz", [("agent", SCRIPT)])
        target = BinaryTarget(server.url("a.tar.gz"), "../../../bin/sh")
        with pytest.raises(InstallError, match="leads out of its directory"):
            install_binary(tmp_path, "evil", "1.0.0", target)
        assert server.seen == []


def test_an_archive_without_the_command_or_a_bad_checksum_leaves_nothing(tmp_path: Path) -> None:
    body = tar_bytes("w:gz", [("other", SCRIPT)])
    with serve() as server:
        server.files["a.tar.gz"] = body
        with pytest.raises(InstallError, match="has no file 'agent' to run"):
            install_binary(tmp_path, "x", "1.0.0", BinaryTarget(server.url("a.tar.gz"), "agent"))
        wrong = BinaryTarget(server.url("a.tar.gz"), "other", sha256="0" * 64)
        with pytest.raises(InstallError, match="sha256"):
            install_binary(tmp_path, "x", "1.0.0", wrong)
        right = BinaryTarget(
            server.url("a.tar.gz"), "other", sha256=hashlib.sha256(body).hexdigest()
        )
        assert (install_binary(tmp_path, "x", "1.0.0", right) / "other").is_file()
        server.fail_with = 404
        with pytest.raises(InstallError, match=r"could not download .*: HTTP 404"):
            install_binary(tmp_path, "x", "2.0.0", right)
    assert [p for p in _leftovers(tmp_path) if not p.startswith("agents/x/1.0.0")] == ["agents/x"]


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("broken.tar.gz", tar_bytes("w:gz", [("agent", SCRIPT * 500)])[:-40]),
        ("broken.zip", zip_bytes([("agent", SCRIPT * 500)]).replace(b"registry", b"REGISTRY", 1)),
        ("garbage.tar.bz2", b"BZh91AY&SY" + b"\0" * 100),
    ],
    ids=["truncated-gz", "bad-crc-zip", "garbage-bz2"],
)
def test_a_corrupt_archive_is_one_error_with_nothing_left(
    tmp_path: Path, name: str, body: bytes
) -> None:
    with serve() as server:
        server.files[name] = body
        with pytest.raises(InstallError, match="refused the archive"):
            install_binary(tmp_path, "x", "1.0.0", BinaryTarget(server.url(name), "agent"))
    assert _leftovers(tmp_path) == ["agents/x"]


def test_a_download_that_trickles_is_given_up_with_nothing_left(tmp_path: Path) -> None:
    limits = Limits(stall_seconds=0.5, stall_bytes=1024)
    with trickle(0.05) as url:
        with pytest.raises(InstallError, match=r"the download stalled \(\d+ bytes in \d+ s\)"):
            install_binary(tmp_path, "slow", "1.0.0", BinaryTarget(url, "agent"), limits=limits)
        overall = Limits(stall_seconds=60, stall_bytes=1, max_seconds=0.3)
        with pytest.raises(InstallError, match="the download took longer than 0 s"):
            install_binary(tmp_path, "slow", "1.0.0", BinaryTarget(url, "agent"), limits=overall)
    assert _leftovers(tmp_path) == ["agents/slow"]


def test_an_abandoned_download_leaves_nothing_and_a_dead_ones_leftovers_go(tmp_path: Path) -> None:
    control = DownloadControl()
    failed: list[BaseException] = []
    receiving = threading.Event()

    def run(url: str) -> None:
        target = BinaryTarget(url, "agent")
        try:
            install_binary(tmp_path, "slow", "1.0.0", target, lambda *_: receiving.set(),
                           control=control)  # fmt: skip
        except InstallError as error:
            failed.append(error)

    with trickle(0.05) as url:
        worker = threading.Thread(target=run, args=(url,))
        worker.start()
        assert receiving.wait(60), "the download under way"
        parent = tmp_path / "agents" / "slow"
        [partial] = parent.iterdir()
        assert partial.name.startswith(f".1.0.0.partial-{os.getpid()}-")
        control.abandon()  # (the app quits)
        assert not partial.exists(), "removed at once, not when the thread next wakes"
        worker.join()
    assert [str(e) for e in failed] == ["the download was abandoned"]
    assert _leftovers(tmp_path) == ["agents/slow"]

    # what a process killed mid-download left (its pid is gone) goes with the next install
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = parent / f".1.0.0.partial-{dead.pid}-abcd"
    (left / "tree").mkdir(parents=True)
    with serve() as server:
        server.files["a.tar.gz"] = tar_bytes("w:gz", [("agent", SCRIPT)])
        install_binary(tmp_path, "slow", "1.0.0", BinaryTarget(server.url("a.tar.gz"), "agent"))
    assert _leftovers(tmp_path) == ["agents/slow", "agents/slow/1.0.0", "agents/slow/1.0.0/agent"]
