"""The agent's notices as toasts: a few per window, the rest counted until the window ends."""

from __future__ import annotations

from acp_tui.ui.toast_pacer import ToastPacer
from tests.unit.thread_support import Clock


def test_a_few_toasts_a_window_the_rest_held_and_counted() -> None:
    clock = Clock()
    pacer = ToastPacer(clock, burst=3, window=1.0)
    assert [pacer.admit() for _ in range(10)] == [True] * 3 + [False] * 7
    clock.now += 0.25
    assert pacer.until_window_ends() == 0.75
    assert pacer.take_held() == 7 and pacer.take_held() == 0
    clock.now += 0.75
    assert [pacer.admit() for _ in range(4)] == [True, True, True, False]
    assert pacer.held == 1
