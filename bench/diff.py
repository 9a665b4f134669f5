"""Open a 5,000-line modified Python file in the diff viewer, headless, and time it.

    uv run python -m bench.diff

Prints the diff computation time, the time from mount to the first full render, the average
time of a page-down, and, as the last line, `open <seconds>` (diff + mount + first render;
the target is <= 0.3 s). Ratios to the open time are printed for the scroll steps.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.strip import Strip

from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.ui.widgets.diff_view import DiffView

LINES = 5_000
PAGE_DOWNS = 10


def make_source(lines: int, seed: int = 7) -> tuple[str, str]:
    """A Python-looking file and a copy with ~1 change every 40 lines (modify/insert/delete)."""
    rng = random.Random(seed)
    old = []
    for i in range(lines):
        if i % 12 == 0:
            old.append(f"def function_{i}(value, other=None):\n")
        elif i % 12 == 11:
            old.append("\n")
        else:
            old.append(f"    result_{i} = compute(value, {i}) + other_{i % 7}  # step {i}\n")
    new = []
    for i, line in enumerate(old):
        roll = rng.random() if i % 40 == 5 else 1.0
        if roll < 0.5:
            new.append(line.replace("compute(", "compute_fast(").replace("step", "stage"))
        elif roll < 0.75:
            new.append(line)
            new.append(f"    log.debug('inserted after {i}')\n")
        elif roll < 1.0:
            continue  # deleted line
        else:
            new.append(line)
    return "".join(old), "".join(new)


class TimedDiffView(DiffView):
    """Signals when the bottom visible line has been rendered at the current scroll offset."""

    def __init__(self, diff: FileDiff) -> None:
        super().__init__(diff)
        self.frame_done = asyncio.Event()

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if y == self.scrollable_content_region.height - 1:
            self.frame_done.set()
        return strip


class DiffBenchApp(App[None]):
    """Starts empty; the viewer is mounted into the running app, as a review screen would."""

    def compose(self) -> ComposeResult:
        return iter(())


async def timed(view: TimedDiffView, action: Awaitable[object]) -> float:
    view.frame_done.clear()
    start = time.perf_counter()
    await action
    await asyncio.wait_for(view.frame_done.wait(), timeout=5)
    return time.perf_counter() - start


async def timed_press(pilot: Pilot[None], key: str) -> float:
    start = time.perf_counter()
    await pilot.press(key)
    return time.perf_counter() - start


async def run() -> None:
    old, new = make_source(LINES)
    app = DiffBenchApp()
    app.animation_level = "none"  # measure rendering, not the scroll animation's duration
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        t0 = time.perf_counter()
        diff = compute_diff("/bench/module.py", old, new)
        t_diff = time.perf_counter() - t0
        print(f"lines {LINES}  hunks {len(diff.hunks)}  +{diff.added} -{diff.removed}")
        print(f"diff {t_diff:.4f}")
        view = TimedDiffView(diff)
        await app.screen.mount(view)
        await asyncio.wait_for(view.frame_done.wait(), timeout=5)
        t_open = time.perf_counter() - t0
        print(f"mount+first render {t_open - t_diff:.4f}  layout {view.effective_layout}")
        view.focus()
        await pilot.pause()
        pages = [await timed(view, pilot.press("pagedown")) for _ in range(PAGE_DOWNS)]
        avg = sum(pages) / len(pages)
        print(f"page-down avg {avg:.4f}  max {max(pages):.4f}  (scroll_y {view.scroll_y:.0f})")
        jumps = [await timed(view, pilot.press("n")) for _ in range(PAGE_DOWNS)]
        print(f"next-hunk avg {sum(jumps) / len(jumps):.4f}  (current {view.current_hunk})")
        idle = [await timed_press(pilot, "x") for _ in range(PAGE_DOWNS)]
        print(f"baseline: a key press doing nothing {sum(idle) / len(idle):.4f}")
        direct = []
        height = view.scrollable_content_region.height
        view.scroll_to(y=0, animate=False, immediate=True)
        view._strips.clear()  # cold strips; the per-line highlight cache stays warm
        for k in range(PAGE_DOWNS):  # render each page without the pilot's overhead
            start = time.perf_counter()
            view.scroll_to(y=(k + 1) * height, animate=False, immediate=True)
            for y in range(height):
                view.render_line(y)
            direct.append(time.perf_counter() - start)
        print(f"render a new page directly avg {sum(direct) / len(direct):.4f}")
        toggle = await timed(view, pilot.press("s"))
        print(f"toggle layout {toggle:.4f}  ({view.effective_layout})")
        print(f"ratio page-down/open {avg / t_open:.3f}")
    print(f"open {t_open:.4f}")


if __name__ == "__main__":
    asyncio.run(run())
