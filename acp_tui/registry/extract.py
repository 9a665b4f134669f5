"""Unpacking an agent's archive so that nothing lands outside the target directory.

Every member is checked before anything is written: an absolute name, a `..` component, a
symbolic or hard link leading out of the archive's tree, a device file or FIFO refuses the whole
archive (`UnsafeArchive`). Sizes are bounded. zip, tar.gz/tgz, tar.bz2 and tar.xz are read;
anything else is a raw binary.
"""

from __future__ import annotations

import posixpath
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from acp_tui.host import new_files

if TYPE_CHECKING:  # (imported where an archive is opened: listing agents needs neither)
    import tarfile
    import zipfile

MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 100_000


class UnsafeArchive(ValueError):
    """The archive has a member that would land outside the target, or is not an archive."""


def archive_kind(url_path: str) -> str:
    """`zip`, `tar` or `raw` from the archive URL's path."""
    name = url_path.lower().rsplit("/", 1)[-1]
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")):
        return "tar"
    return "raw"


def member_path(name: str) -> str:
    """The member's normalised relative path; raises for an absolute one or one with `..`."""
    if "\0" in name:
        raise UnsafeArchive(f"member {name!r} has a NUL in its name")
    unified = name.replace("\\", "/")
    if unified.startswith("/") or (len(unified) > 1 and unified[1] == ":"):
        raise UnsafeArchive(f"member {name!r} has an absolute path")
    parts = [p for p in unified.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchive(f"member {name!r} leads out of the archive (`..`)")
    return "/".join(parts)


def _link_inside(member: str, target: str, *, hard: bool) -> None:
    """A link's target must stay in the tree (a symlink relative to its directory, a hard link
    relative to the archive's root)."""
    if not target or target.startswith("/") or "\0" in target:
        raise UnsafeArchive(f"link {member!r} points to {target!r}, outside the archive")
    base = "" if hard else posixpath.dirname(member)
    resolved = posixpath.normpath(posixpath.join(base, target))
    if resolved == ".." or resolved.startswith("../"):
        raise UnsafeArchive(f"link {member!r} points to {target!r}, outside the archive")


def _no_chains(links: dict[str, str]) -> None:
    """No symbolic link's target goes *through* another link of the archive (`d/l1 -> ..`, then
    `d/l2 -> l1/..`: each looks inside alone, the second leads out): the checks above read a
    target lexically, which holds only when no directory on its way is a link. Whatever order
    the members come in."""
    for member, target in links.items():
        stack: list[str] = []
        for part in [*posixpath.dirname(member).split("/"), *target.split("/")]:
            if part in ("", "."):
                continue
            if stack and "/".join(stack) in links:  # (going on from a link: down or up)
                raise UnsafeArchive(
                    f"link {member!r} points to {target!r}, through another link of the archive"
                )
            if part != "..":
                stack.append(part)
            elif stack:
                stack.pop()


def _through_link(path: str, links: set[str] | dict[str, str]) -> None:
    """A member under a symbolic link member could land anywhere the link's chain leads."""
    parts = path.split("/")
    for end in range(1, len(parts)):
        if "/".join(parts[:end]) in links:
            raise UnsafeArchive(f"member {path!r} goes through a symbolic link in the archive")


def check_tar(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members = archive.getmembers()
    if len(members) > MAX_MEMBERS:
        raise UnsafeArchive(f"more than {MAX_MEMBERS} members")
    total = 0
    links: dict[str, str] = {}
    for member in members:
        path = member_path(member.name)
        _through_link(path, links)
        if member.issym():
            _link_inside(path, member.linkname, hard=False)
            links[path] = member.linkname
        elif member.islnk():
            _link_inside(path, member.linkname, hard=True)
        elif not (member.isfile() or member.isdir()):
            raise UnsafeArchive(f"member {member.name!r} is a device file or FIFO")
        total += member.size
        if total > MAX_TOTAL_BYTES:
            raise UnsafeArchive(f"unpacks to more than {MAX_TOTAL_BYTES} bytes")
    _no_chains(links)
    return members


def check_zip(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise UnsafeArchive(f"more than {MAX_MEMBERS} members")
    total = 0
    links: dict[str, str] = {}
    for member in members:
        path = member_path(member.filename)
        _through_link(path, links)
        kind = zip_file_type(member)
        if stat.S_ISLNK(kind):
            target = archive.read(member)[:4096].decode("utf-8", "replace")
            _link_inside(path, target, hard=False)
            links[path] = target
        elif kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise UnsafeArchive(f"member {member.filename!r} is a device file or FIFO")
        total += member.file_size
        if total > MAX_TOTAL_BYTES:
            raise UnsafeArchive(f"unpacks to more than {MAX_TOTAL_BYTES} bytes")
    _no_chains(links)
    return members


def zip_file_type(member: zipfile.ZipInfo) -> int:
    """The member's file type bits (`stat.S_IFMT`) from the Unix mode in the high 16 bits of
    `external_attr`; 0 when there are none (no Unix mode, or only permission bits, as Python's
    `writestr` of a name writes: an ordinary file, or a directory when the name ends in /)."""
    return stat.S_IFMT(member.external_attr >> 16)


def extract(archive_file: Path, kind: str, target: Path, raw_name: str) -> None:
    """Unpack `archive_file` into the empty directory `target` (a raw binary is copied there as
    `raw_name`); raises `UnsafeArchive` before writing anything when a member is refused.

    Every member is then created through the host (`new_files`: a walk by directory
    descriptors that follows no symlink, files created ``O_EXCL``), so even a link that the
    checks let through, or one planted meanwhile, cannot carry a member out of `target`."""
    with new_files.open_own(archive_file) as archive:
        if kind == "zip":
            _extract_zip(archive, target)
        elif kind == "tar":
            _extract_tar(archive, target)
        else:
            with new_files.create_file(target / member_path(raw_name), mode=0o755) as out:
                shutil.copyfileobj(archive, out)


def _mode(permissions: int) -> int:
    """A member's file mode: executable for all when it was for anyone, never setuid or
    writable by others."""
    return 0o755 if permissions & 0o111 else 0o644


def _extract_tar(archive_file: BinaryIO, target: Path) -> None:
    import tarfile

    try:
        with tarfile.open(fileobj=archive_file, mode="r:*") as archive:
            for member in check_tar(archive):
                _extract_tar_member(archive, member, target)
    except tarfile.TarError as error:
        raise UnsafeArchive(f"not a readable tar archive ({error})") from None


def _extract_tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    relative = member_path(member.name)
    if not relative:
        return
    destination = target / relative
    if member.isdir():
        new_files.make_directory(destination)
    elif member.issym():
        new_files.make_symlink(destination, member.linkname)
    elif member.islnk():
        new_files.make_hard_link(destination, target / member_path(member.linkname))
    else:
        source = archive.extractfile(member)
        if source is None:
            raise UnsafeArchive(f"member {member.name!r} has no data")
        with source, new_files.create_file(destination, mode=_mode(member.mode)) as out:
            shutil.copyfileobj(source, out)


def _extract_zip(archive_file: BinaryIO, target: Path) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(archive_file) as archive:
            members = check_zip(archive)
            for member in members:
                _extract_zip_member(archive, member, target)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as error:
        raise UnsafeArchive(f"not a readable zip archive ({error})") from None


def _extract_zip_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path) -> None:
    relative = member_path(member.filename)
    if not relative:
        return
    destination = target / relative
    if member.is_dir() or zip_file_type(member) == stat.S_IFDIR:
        new_files.make_directory(destination)
        return
    if stat.S_ISLNK(zip_file_type(member)):
        new_files.make_symlink(destination, archive.read(member).decode("utf-8"))
        return
    mode = _mode(member.external_attr >> 16)
    with archive.open(member) as source, new_files.create_file(destination, mode=mode) as out:
        shutil.copyfileobj(source, out)
