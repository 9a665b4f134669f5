"""acp-tui's own errors go to a file it names (issue 39, 9: a toast said "Internal error
(logged)" and no log could be found: nothing but Python's last-resort stderr handler, hidden by
the full-screen app, received them)."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.host import error_log
from acp_tui.signal import Signal, set_failure_reporter


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    path = error_log.install(tmp_path / "state" / "acp-tui")
    yield path
    error_log.uninstall()


def test_a_listener_failure_is_written_to_the_named_file(installed: Path) -> None:
    reported: list[str] = []
    previous = set_failure_reporter(lambda failure: reported.append(failure.describe()))
    try:
        signal: Signal[int] = Signal("session state")

        def listener(_value: int) -> None:
            raise LookupError("NoMatches: no node matches '#status'")

        signal.subscribe(listener)
        signal.emit(1)
    finally:
        set_failure_reporter(previous)
    assert reported
    assert error_log.where() == f"logged to {installed}"
    text = installed.read_text()
    assert "session state" in text and "LookupError: NoMatches" in text
    assert "Traceback" in text
    assert stat.S_IMODE(installed.stat().st_mode) == 0o600


def test_nothing_installed_says_logged_only() -> None:
    assert error_log.path() is None and error_log.where() == "logged"
