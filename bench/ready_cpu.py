"""The stretch from `App.run` to "● ready" painted, measured inside acp-tui, in a real pty.

    uv run python bench/ready_cpu.py [--runs 7] [--demo] [--baseline DIR ...] [--profile]

Beside `bench/first_frame.py` (what the user sees, from the fork), never instead of it: this
one times only the part of start-up that Textual runs (CSS, compose and mount of the main
screen, the first frames, the session opened, the frame that says "ready"), from inside the
process (`bench/ready_probe.py`), so imports and the command line do not blur it. Each run
launches acp-tui in a 160x50 pty with the pipe agent (`bench/pipe_agent.py`, a separate
process; `--demo`: the demo agent); each `--baseline DIR` adds acp-tui from another checkout
(its modules first on `PYTHONPATH`) to the rotation, the order alternating. Medians (min) of
the wall time and of the CPU seconds from `App.run` to ready, and the process's CPU at ready,
with the load average (on a loaded machine the CPU figures are the steadier). `--profile`
writes each run's cProfile (CPU time) beside its result, under a temporary directory named
at the end. The last line is `ratio X`: this checkout's median CPU over the first baseline's
(1 without one).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pty_harness import (
    READY_TEXT,
    PtyRun,
    env_for_terminal,
    interleaved,
    load,
    python_script,
)

HERE = "this checkout"


def launch(
    workdir: Path, out: Path, baseline: Path | None, demo: bool, profile: bool, timeout: float
) -> tuple[float, float, float] | None:
    """One launch: (wall, CPU since `App.run`, process CPU) at ready, None if it never was."""
    probe = python_script("ready_probe.py", str(out), *(["--profile"] if profile else []))
    if demo:
        argv = [*probe, "--cwd", str(workdir), "--demo"]
    else:
        agent = python_script("pipe_agent.py", str(workdir / "text"), "--stamp", str(workdir / "s"))
        argv = [*probe, "--cwd", str(workdir), "--", *agent]
    env = env_for_terminal()
    if baseline is not None:
        env["PYTHONPATH"] = str(baseline)
    with PtyRun(argv, cwd=workdir, env=env) as run:
        run.wait_for(READY_TEXT, timeout)
        run.drain(0.2)
        run.close()
    try:
        fields = out.read_text().split()
    except OSError:
        print(f"  not ready within {timeout} s: {run.text[-300:]!r}")
        return None
    return float(fields[1]), float(fields[3]), float(fields[5])


def main(runs: int, baselines: list[Path], demo: bool, profile: bool, timeout: float) -> float:
    names = [HERE, *(str(path) for path in baselines)]
    where: dict[str, Path | None] = {HERE: None, **{str(path): path for path in baselines}}
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in names}
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        keep = Path(tempfile.mkdtemp(prefix="ready-cpu-")) if profile else workdir
        (workdir / "text").write_text("hello END-MARKER\n")
        for name in names:  # not counted: compiled modules written, caches warm
            launch(workdir, keep / "warm-up", where[name], demo, False, timeout)
        for index, name in interleaved(names, runs):
            out = keep / f"{names.index(name)}-{index}"
            found = launch(workdir, out, where[name], demo, profile, timeout)
            if found is not None:
                results[name].append(found)
    agent = "acp-tui --demo" if demo else "the pipe agent"
    print(f"{runs} interleaved runs in a 160x50 pty ({agent}): App.run to ready painted,")
    print(f"  medians (min); load average {before} before, {load()} after")
    for name in names:
        rows = results[name]
        if not rows:
            print(f"  {name}: no run was ready")
            continue
        columns = []
        for label, values in (
            ("wall", [row[0] for row in rows]),
            ("CPU", [row[1] for row in rows]),
            ("process CPU at ready", [row[2] for row in rows]),
        ):
            columns.append(f"{label} {statistics.median(values):.3f} ({min(values):.3f})")
        print(f"  {name}: " + ", ".join(columns))
    if profile:
        print(f"  profiles (CPU time): {keep}/*.prof (kept)")
    ours = [row[1] for row in results[HERE]]
    other = [row[1] for row in results[names[1]]] if baselines else ours
    ratio = statistics.median(ours) / statistics.median(other) if ours and other else 0.0
    print(f"ratio {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--demo", action="store_true", help="acp-tui with its demo agent")
    parser.add_argument("--profile", action="store_true", help="a cProfile of each run")
    parser.add_argument(
        "--baseline", type=Path, action="append", default=[], metavar="DIR",
        help="also run acp-tui from the checkout DIR (repeatable), interleaved",
    )  # fmt: skip
    args = parser.parse_args()
    main(args.runs, [p.resolve() for p in args.baseline], args.demo, args.profile, args.timeout)
