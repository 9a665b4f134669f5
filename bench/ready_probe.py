"""acp-tui with a probe from `App.run` to "● ready" painted (run by `bench/ready_cpu.py`).

    python bench/ready_probe.py OUT [--profile] ACP-TUI-ARGS...

Runs acp-tui's command line as `acp-tui` does; once the status bar has drawn "ready" and the
screen has been refreshed after it, writes to OUT one line, `wall W cpu C total T` (seconds
from `App.run`, this process's CPU seconds since `App.run`, its CPU seconds since it began),
and quits the app. With `--profile`, a cProfile of that same stretch (CPU time) goes to
OUT.prof. The acp-tui imported is the first on `sys.path` (`PYTHONPATH` chooses a checkout).
"""

from __future__ import annotations

import cProfile
import sys
import time
from pathlib import Path
from typing import Any


def main() -> int:
    out = Path(sys.argv.pop(1))
    profile = "--profile" in sys.argv[1:2]
    if profile:
        sys.argv.pop(1)
    from textual.app import App

    from acp_tui.cli import main as acp_tui
    from acp_tui.ui.widgets.status_bar import StatusBar

    profiler = cProfile.Profile(time.process_time)
    began: list[float] = []
    run = App.run

    def probed_run(app: App[Any], *args: Any, **kwargs: Any) -> Any:
        began[:] = [time.perf_counter(), time.process_time()]
        if profile:
            profiler.enable()
        return run(app, *args, **kwargs)

    render = StatusBar.render
    done: list[bool] = []

    def probed_render(bar: StatusBar) -> Any:
        shown = render(bar)
        if bar.state == "ready" and not done:
            done.append(True)

            def drawn() -> None:
                cpu = time.process_time()
                if profile:
                    profiler.disable()
                    profiler.dump_stats(str(out) + ".prof")
                wall = time.perf_counter() - began[0]
                out.write_text(f"wall {wall:.4f} cpu {cpu - began[1]:.4f} total {cpu:.4f}\n")
                bar.app.exit()

            bar.app.call_after_refresh(drawn)
        return shown

    App.run = probed_run  # type: ignore[method-assign,assignment]
    StatusBar.render = probed_render  # type: ignore[method-assign,assignment]
    sys.argv[0] = "acp-tui"
    return acp_tui()


if __name__ == "__main__":
    raise SystemExit(main())
