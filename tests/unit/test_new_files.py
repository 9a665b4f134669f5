"""Files acp-tui creates new go through `host/new_files.py`, which follows no symlink on the
way: an archive unpacked into a directory where a link was planted meanwhile puts nothing
outside it (checked where each member is written, not only when the archive was read); links
inside an archive that stay inside still unpack; merge inputs and viewer files are private."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import pytest

from acp_tui.host import new_files
from acp_tui.host.beneath import PathChanged
from acp_tui.output.system_open import media_file
from acp_tui.registry.extract import extract
from acp_tui.worktrees.merge import merge_texts
from tests.registry_server import SCRIPT, link, tar_bytes, zip_bytes


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A target directory whose `bin` is a symlink to a directory outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = tmp_path / "tree"
    target.mkdir()
    (target / "bin").symlink_to(outside)
    return target, outside


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_a_member_is_not_written_through_a_symlink_planted_in_the_target(
    tmp_path: Path, planted: tuple[Path, Path], kind: str
) -> None:
    """(tar's own `data` filter refused this before too, by the real path it computed first;
    zip's members were written through the link.)"""
    target, outside = planted
    archive = tmp_path / "agent.archive"
    member = ("bin/agent", SCRIPT)
    archive.write_bytes(zip_bytes([member]) if kind == "zip" else tar_bytes("w:gz", [member]))
    with pytest.raises(OSError):
        extract(archive, kind, target, "agent")
    assert list(outside.iterdir()) == []


def test_a_raw_binary_is_not_copied_over_a_symlink_at_its_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    target = tmp_path / "tree"
    target.mkdir()
    (target / "agent").symlink_to(victim)
    archive = tmp_path / "download"
    archive.write_bytes(SCRIPT)
    with pytest.raises(PathChanged):
        extract(archive, "raw", target, "agent")
    assert victim.read_bytes() == b"keep"


def test_links_that_stay_inside_an_archive_unpack(tmp_path: Path) -> None:
    members: list[tarfile.TarInfo | tuple[str, bytes]] = [
        ("lib/agent", SCRIPT),
        link("bin", "lib"),
        link("agent-copy", "lib/agent", hard=True),
    ]
    archive = tmp_path / "agent.tar.gz"
    archive.write_bytes(tar_bytes("w:gz", members))
    target = tmp_path / "tree"
    target.mkdir()
    extract(archive, "tar", target, "agent")
    assert (target / "bin").readlink() == Path("lib")
    assert (target / "bin" / "agent").read_bytes() == SCRIPT
    assert os.path.samefile(target / "agent-copy", target / "lib" / "agent")
    assert stat.S_IMODE((target / "lib" / "agent").stat().st_mode) & 0o111


def test_create_file_refuses_a_symlink_on_the_way_and_an_existing_name(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(PathChanged):
        new_files.write_new(tmp_path / "link" / "x", b"data")
    assert list((tmp_path / "real").iterdir()) == []
    new_files.write_new(tmp_path / "made" / "below" / "x", b"data")
    assert (tmp_path / "made" / "below" / "x").read_bytes() == b"data"
    with pytest.raises(FileExistsError):
        new_files.write_new(tmp_path / "made" / "below" / "x", b"again")


async def test_merge_inputs_live_in_a_private_directory_removed_after(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    merged = await merge_texts("a\nb\nc\n", "a\nb\nc\n", "a\nB\nc\n")
    assert merged == "a\nB\nc\n"
    assert os.listdir(tmp_path) == []


def test_a_viewer_file_is_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    path = media_file("aGk=", "image/png")
    assert path.parent == tmp_path and path.suffix == ".png"
    assert path.read_bytes() == b"hi"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_archive_read_through_the_host_is_not_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real.tar").write_bytes(tar_bytes("w", [("agent", SCRIPT)]))
    (tmp_path / "download").symlink_to(tmp_path / "real.tar")
    target = tmp_path / "tree"
    target.mkdir()
    with pytest.raises(PathChanged):
        extract(tmp_path / "download", "tar", target, "agent")
    assert list(target.iterdir()) == []


def test_the_demos_sample_project_is_a_private_tree(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from acp_tui.demo.sample_project import SAMPLE_FILES

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    root = new_files.private_tree("acp-tui-demo-", SAMPLE_FILES)
    assert root.parent == tmp_path and stat.S_IMODE(root.stat().st_mode) == 0o700
    assert {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} == set(
        SAMPLE_FILES
    )
    assert (root / "src" / "app.py").read_text() == SAMPLE_FILES["src/app.py"]
