"""`acp_tui.signal`: one observer list, one error policy (logged, reported once, emit goes on)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from acp_tui.host.change_log import ChangeLog
from acp_tui.signal import ListenerFailure, Signal, set_failure_reporter
from acp_tui.thread.thread import Thread


@pytest.fixture
def reported() -> Iterator[list[ListenerFailure]]:
    failures: list[ListenerFailure] = []
    previous = set_failure_reporter(failures.append)
    yield failures
    set_failure_reporter(previous)


def test_listeners_are_called_in_order_and_unsubscribe_works() -> None:
    signal: Signal[int] = Signal("numbers")
    seen: list[tuple[str, int]] = []
    signal.subscribe(lambda n: seen.append(("a", n)))
    stop_b = signal.subscribe(lambda n: seen.append(("b", n)))
    signal.emit(1)
    stop_b()
    stop_b()  # twice is harmless
    signal.emit(2)
    assert seen == [("a", 1), ("b", 1), ("a", 2)]
    assert signal.listener_count == 1


def test_unsubscribing_during_emit_does_not_skip_the_others() -> None:
    signal: Signal[int] = Signal("numbers")
    seen: list[str] = []
    stops: list[Callable[[], None]] = []

    def first(_: int) -> None:
        seen.append("first")
        stops[0]()

    stops.append(signal.subscribe(first))
    signal.subscribe(lambda _: seen.append("second"))
    signal.emit(0)
    signal.emit(0)
    assert seen == ["first", "second", "second"]


def test_a_raising_listener_is_logged_reported_once_and_the_emit_goes_on(
    reported: list[ListenerFailure], caplog: pytest.LogCaptureFixture
) -> None:
    signal: Signal[int] = Signal("numbers")
    after: list[int] = []

    def broken(n: int) -> None:
        raise ValueError(f"bad {n}")

    signal.subscribe(broken)
    signal.subscribe(after.append)
    with caplog.at_level(logging.ERROR, logger="acp_tui.signal"):
        signal.emit(1)
        signal.emit(2)
    assert after == [1, 2]
    # logged every time, with the traceback
    failures = [r for r in caplog.records if "failed" in r.getMessage()]
    assert len(failures) == 2
    assert all(r.exc_info and r.exc_info[0] is ValueError for r in failures)
    # reported once per (signal, listener, error type)
    assert len(reported) == 1
    assert reported[0].signal == "numbers"
    assert reported[0].listener.endswith("broken")
    assert "ValueError: bad 1" in reported[0].describe()


def test_a_new_kind_of_failure_is_reported_again(reported: list[ListenerFailure]) -> None:
    signal: Signal[int] = Signal("numbers")

    def fussy(n: int) -> None:
        raise (KeyError if n else ValueError)(n)

    signal.subscribe(fussy)
    signal.emit(0)
    signal.emit(1)
    signal.emit(1)
    assert [type(f.error) for f in reported] == [ValueError, KeyError]


def test_a_broken_reporter_does_not_break_the_emit() -> None:
    def reporter(_: ListenerFailure) -> None:
        raise RuntimeError("reporter down")

    previous = set_failure_reporter(reporter)
    try:
        signal: Signal[int] = Signal("numbers")
        seen: list[int] = []
        signal.subscribe(lambda _: 1 // 0)
        signal.subscribe(seen.append)
        signal.emit(5)
        assert seen == [5]
    finally:
        set_failure_reporter(previous)


def test_thread_listeners_failing_are_reported_not_swallowed(
    reported: list[ListenerFailure],
) -> None:
    thread = Thread()
    seen: list[object] = []

    def broken(_: object) -> None:
        raise RuntimeError("widget gone")

    thread.subscribe(broken)
    thread.subscribe(seen.append)
    thread.begin_turn()
    assert seen  # the second listener still saw the change
    assert [f.signal for f in reported] == ["thread change"]


def test_change_log_subscribers_share_the_policy(
    reported: list[ListenerFailure], tmp_path: Path
) -> None:
    log = ChangeLog()
    seen: list[int] = []

    def broken(_: object) -> None:
        raise RuntimeError("nope")

    log.subscribe(broken)
    log.subscribe(lambda record: seen.append(record.id))
    log.add(tmp_path / "a.txt", None, "x")
    assert seen == [1]
    assert [f.signal for f in reported] == ["change log record"]
