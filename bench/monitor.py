"""The change monitor's cost on a 50k-file tree, as ratios against an idle session without it.

    uv run python -m bench.monitor [FILES] [--git]

A tree of FILES small text files (100 per directory) is made in a temp dir (with `--git` it is
committed to a git repo first). The demo agent is started in it twice, with `watch_changes` off
and on, and the bench prints:

- startup: session start (spawn, initialize, session/new) plus the monitor until its baseline is
  taken, against the same start without the monitor (wall time and CPU time of this process);
  and that the start did one scan (`Baseline.scans`);
- idle: this process's CPU time over 2 s with nothing happening, with and without the monitor;
- per change: CHANGES files rewritten one at a time, each waited for until its record arrives:
  the mean write→record latency, and this process's CPU time per change against the CPU an idle
  session spends over the same wall time.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import Settings
from bench.headless import HeadlessUi

CHANGES = 50
IDLE_SECONDS = 2.0


def make_tree(root: Path, files: int, git: bool) -> None:
    for index in range(files):
        directory = root / f"d{index // 100:04d}"
        if index % 100 == 0:
            directory.mkdir()
        (directory / f"f{index % 100:02d}.txt").write_text(f"file {index}\nline two\n")
    (root / ".gitignore").write_text("*.log\n")
    if git:
        for args in (["init", "-q"], ["add", "-A"]):
            subprocess.run(["git", "-C", str(root), *args], check=True)
        subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "-c",
                "user.name=b",
                "-c",
                "user.email=b@b",
                "commit",
                "-qm",
                "t",
            ],
            check=True,
        )


def session(root: Path, watch: bool) -> AgentSession:
    return AgentSession(
        [sys.executable, "-m", "acp_tui.demo.agent"],
        root,
        HeadlessUi(),
        env_extra={"ACP_TUI_DEMO_SPEED": "0"},
        settings=Settings(watch_changes=watch),
    )


async def measure(root: Path, watch: bool) -> dict[str, float]:
    s = session(root, watch)
    wall, cpu = time.perf_counter(), time.process_time()
    assert await s.start(), s.error
    await s.changes.wait_ready()
    result = {"start_wall": time.perf_counter() - wall, "start_cpu": time.process_time() - cpu}
    monitor = s.changes.monitor
    if monitor is not None and monitor.baseline is not None:
        result["scans"] = monitor.baseline.scans
        result["scanned"] = monitor.baseline.files_scanned
    cpu = time.process_time()
    await asyncio.sleep(IDLE_SECONDS)
    result["idle_cpu"] = time.process_time() - cpu
    if monitor is not None:
        result["idle_batches"] = monitor.batches
    if monitor is not None:
        log = s.fs.changes
        latencies = []
        wall, cpu = time.perf_counter(), time.process_time()
        for index in range(CHANGES):
            path = root / f"d{index:04d}" / "f00.txt"
            before = len(log.records)
            started = time.perf_counter()
            path.write_text(f"changed {index}\n")
            while len(log.records) == before:  # noqa: ASYNC110 (polling is what is measured)
                await asyncio.sleep(0.002)
            latencies.append(time.perf_counter() - started)
        result["changes_wall"] = time.perf_counter() - wall
        result["changes_cpu"] = time.process_time() - cpu
        result["latency"] = sum(latencies) / len(latencies)
    await s.close()
    return result


async def main(files: int, git: bool) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(await asyncio.to_thread(os.path.realpath, directory))
        made = time.perf_counter()
        make_tree(root, files, git)
        where = " in git" if git else ""
        print(f"tree: {files} files{where} (made in {time.perf_counter() - made:.1f}s)")
        off = await measure(root, watch=False)
        on = await measure(root, watch=True)
    print(
        f"startup: {on['start_wall']:.2f}s vs idle session {off['start_wall']:.2f}s wall "
        f"= {on['start_wall'] / off['start_wall']:.1f}x; CPU {on['start_cpu']:.2f}s vs "
        f"{off['start_cpu']:.2f}s = {on['start_cpu'] / max(off['start_cpu'], 1e-6):.1f}x; "
        f"scans at start: {on.get('scans', 0):.0f} ({on.get('scanned', 0):.0f} files looked at)"
    )
    print(
        f"idle: CPU over {IDLE_SECONDS:.0f}s {on['idle_cpu'] * 1000:.1f}ms vs "
        f"{off['idle_cpu'] * 1000:.1f}ms = {on['idle_cpu'] / max(off['idle_cpu'], 1e-6):.1f}x "
        f"(event batches handled by then: {on.get('idle_batches', 0):.0f})"
    )
    idle_rate = off["idle_cpu"] / IDLE_SECONDS
    idle_same_time = idle_rate * on["changes_wall"]
    print(
        f"per change: {on['latency'] * 1000:.0f}ms write→record, "
        f"{on['changes_cpu'] / CHANGES * 1000:.1f}ms CPU; {CHANGES} changes took "
        f"{on['changes_cpu']:.2f}s CPU vs an idle session's {idle_same_time:.3f}s over the same "
        f"{on['changes_wall']:.1f}s = {on['changes_cpu'] / max(idle_same_time, 1e-6):.1f}x"
    )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    asyncio.run(main(int(args[0]) if args else 50_000, "--git" in sys.argv))
