"""`seq 1 200000` through terminal/create + wait_for_exit + output, shown live in a TerminalView,
against reading the same command from a bare PTY. Run: `uv run python -m bench.terminal`.

Prints the median of several runs of each and, last, `ratio <ours / bare>` (target ≤ 2).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Vertical

from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.models import CreateTerminalRequest, TerminalRequest
from acp_tui.ui.widgets.terminal_view import TerminalView

COMMAND = ["seq", "1", "200000"]
RUNS = 5


def bare_pty() -> tuple[float, int]:
    """Seconds to run COMMAND on a fresh PTY and read all its output; bytes read."""
    start = time.perf_counter()
    master, slave = os.openpty()
    process = subprocess.Popen(
        COMMAND, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    total = 0
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the PTY
            break
        if not chunk:
            break
        total += len(chunk)
    process.wait()
    os.close(master)
    return time.perf_counter() - start, total


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Vertical(id="terminals")


async def through_acp_tui(cwd: Path) -> list[tuple[float, float, int]]:
    """Per run: seconds to output returned, seconds until the view shows the end, text size."""
    results = []
    app = BenchApp()
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(RUNS):
            host = TerminalHost(cwd, default_output_byte_limit=10_000_000)
            start = time.perf_counter()
            created = await host.create(
                CreateTerminalRequest(session_id="bench", command=COMMAND[0], args=COMMAND[1:])
            )
            terminal = host.get(created["terminalId"])
            assert terminal is not None
            view = TerminalView(terminal)
            await app.query_one("#terminals").mount(view)
            ref = TerminalRequest(session_id="bench", terminal_id=created["terminalId"])
            await host.wait_for_exit(ref)
            output = await host.output(ref)
            done = time.perf_counter() - start
            while not view.text_lines() or view.text_lines()[-1] != "200000":
                await pilot.pause(0.001)
            shown = time.perf_counter() - start
            assert output["output"].endswith("199999\n200000\n"), output["output"][-30:]
            results.append((done, shown, len(output["output"])))
            await view.remove()
            await host.close_all()
    return results


def main() -> None:
    bare_runs = [bare_pty() for _ in range(RUNS)]
    with tempfile.TemporaryDirectory() as cwd:
        ours_runs = asyncio.run(through_acp_tui(Path(cwd)))
    bare = statistics.median(t for t, _ in bare_runs)
    ours = statistics.median(t for t, _, _ in ours_runs)
    shown = statistics.median(s for _, s, _ in ours_runs)
    print(f"bare pty read        {bare * 1000:8.1f} ms  ({bare_runs[0][1]} bytes)")
    print(f"create+wait+output   {ours * 1000:8.1f} ms  ({ours_runs[0][2]} chars of text)")
    print(f"view shows the end   {shown * 1000:8.1f} ms")
    bare_ms = [round(t * 1000) for t, _ in bare_runs]
    ours_ms = [round(t * 1000) for t, _, _ in ours_runs]
    print(f"runs (ms): bare {bare_ms}, ours {ours_ms}")
    print(f"ratio {ours / bare:.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
