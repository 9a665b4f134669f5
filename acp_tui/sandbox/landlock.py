"""Linux Landlock through its three system calls (ctypes, no binding, no daemon, no root).

A ruleset is built in acp-tui's own process (`build_ruleset`: one descriptor, a rule per
allowed directory or file); `Ruleset.restrict_thread` makes two system calls,
`prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`, which bind the calling thread: a
thread made to start one agent (`protocol/confined_child.py`), or a terminal command's child
between fork and exec. The restriction holds for every process started from there, across exec.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
"""landlock_create_ruleset, landlock_add_rule, landlock_restrict_self by machine (the generic
numbers; the other machines Linux runs on use them too, but only these two are tried here)."""

CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3

FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
"""The rights a rule on a file (not a directory) may carry."""

SIMULATE_MISSING_VAR = "ACP_TUI_SIMULATE_NO_LANDLOCK"
"""Set to 1: acp-tui behaves as on a kernel without Landlock (for tests and trying it by hand)."""


def write_rights(abi: int) -> int:
    """Every right that changes the file system, as far as the kernel's ABI knows them: ABI 1
    has the makes, removes and writes; ABI 2 adds REFER (links and renames across directories;
    without it they are always refused), ABI 3 TRUNCATE."""
    rights = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG
              | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)  # fmt: skip
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


READ_RIGHTS = READ_FILE | READ_DIR


class LandlockError(OSError):
    """Landlock refused something (the message says what)."""


@dataclass(frozen=True)
class _Calls:
    create_ruleset: int
    add_rule: int
    restrict_self: int


_libc: ctypes.CDLL | None = None


def _syscall() -> Callable[..., int]:
    global _libc  # the C library, loaded once (a process-wide handle, never state of a session)
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    function = _libc.syscall
    function.restype = ctypes.c_long
    return function


def _calls() -> _Calls | None:
    numbers = _SYSCALLS.get(os.uname().machine)
    return _Calls(*numbers) if numbers else None


def abi_version() -> int:
    """The Landlock ABI the kernel offers: 0 when it has none (too old, disabled at boot, a
    container that blocks the call, not Linux, or `ACP_TUI_SIMULATE_NO_LANDLOCK=1`)."""
    if os.environ.get(SIMULATE_MISSING_VAR, "") not in ("", "0"):
        return 0
    calls = _calls()
    if calls is None or not sys.platform.startswith("linux"):
        return 0
    version = _syscall()(calls.create_ruleset, None, 0, CREATE_RULESET_VERSION)
    return max(0, int(version))


@dataclass(frozen=True)
class Rule:
    """Rights granted beneath a path (a directory and everything in it, or one file)."""

    path: str
    rights: int


class Ruleset:
    """A Landlock ruleset descriptor, ready to restrict a spawning thread (`restrict_thread`)."""

    def __init__(self, fd: int, abi: int) -> None:
        self.fd = fd
        self.abi = abi
        calls = _calls()
        assert calls is not None
        self._restrict = calls.restrict_self
        self._syscall = _syscall()
        self._prctl = _libc.prctl if _libc is not None else None

    def restrict_thread(self) -> None:
        """Restrict the calling thread and everything it starts from now on: a thread made for
        one spawn, or a forked child before exec (both kinds of caller are the only thread of
        what they start). Raises OSError on failure, so nothing is started unconfined."""
        assert self._prctl is not None
        if self._prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if self._syscall(self._restrict, self.fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")

    def close(self) -> None:
        """Close the descriptor (children restricted by it stay restricted)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def build_ruleset(abi: int, handled: int, rules: Iterable[Rule]) -> Ruleset:
    """A ruleset that handles `handled` and grants each rule's rights beneath its path (a path
    gone since it was planned is skipped: it grants nothing). Raises LandlockError/OSError."""
    calls = _calls()
    if calls is None or abi < 1:
        raise LandlockError(errno.ENOSYS, "this kernel offers no Landlock")
    syscall = _syscall()
    attr = _packed(struct.pack("=Q", handled))  # struct landlock_ruleset_attr, ABI 1's size
    fd = int(syscall(calls.create_ruleset, attr, len(attr), 0))
    if fd < 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"landlock_create_ruleset: {os.strerror(code)}")
    try:
        for rule in rules:
            _add_rule(syscall, calls.add_rule, fd, rule, handled)
    except BaseException:
        os.close(fd)
        raise
    return Ruleset(fd, abi)


def _add_rule(
    syscall: Callable[..., int], number: int, ruleset: int, rule: Rule, handled: int
) -> None:
    try:
        path_fd = os.open(rule.path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # gone since it was planned: one grant less, never one more
    try:
        rights = rule.rights & handled
        if not stat.S_ISDIR(os.fstat(path_fd).st_mode):
            rights &= FILE_RIGHTS
        if not rights:
            return
        beneath = _packed(struct.pack("=Qi", rights, path_fd))  # landlock_path_beneath_attr
        if syscall(number, ruleset, RULE_PATH_BENEATH, beneath, 0) != 0:
            code = ctypes.get_errno()
            raise LandlockError(code, f"landlock_add_rule {rule.path}: {os.strerror(code)}")
    finally:
        os.close(path_fd)


def _packed(data: bytes) -> ctypes.Array[ctypes.c_char]:
    """A C buffer of exactly these bytes (no terminating NUL)."""
    return ctypes.create_string_buffer(data, len(data))
