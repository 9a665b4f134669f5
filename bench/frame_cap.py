"""Memory under a runaway agent: a 300 MB line with no newline, then one normal notification.

A child process runs AgentProcess + Connection (the real read path) against an agent that
writes LINE_MB megabytes without a newline, then a newline and a small notification. The child
prints its peak RSS (ru_maxrss) once the notification arrived, and its baseline RSS before the
flood. Runs with the default cap (64 MiB) and with a 1 MiB cap; the last line is
`ratio X` = peak RSS (default cap) / the 200 MB budget (below 1.0 is within budget).

Run: uv run python bench/frame_cap.py [LINE_MB]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MB = 200

AGENT = r"""
import os, sys
total = int(sys.argv[1]) * 1024 * 1024
block = b"x" * (1 << 20)
out = sys.stdout.buffer
out.write(b'{"jsonrpc":"2.0","method":"note","params":"')
written = 0
while written < total:
    out.write(block)
    written += len(block)
out.write(b'"}\n{"jsonrpc":"2.0","method":"note","params":"done"}\n')
out.flush()
sys.stdin.read()
"""

READER = r"""
import asyncio, json, resource, sys
sys.path.insert(0, sys.argv[1])
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.process import AgentProcess

def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

async def main() -> None:
    cap = int(sys.argv[2])
    base = rss_mb()
    process = await AgentProcess.spawn([sys.executable, "-c", sys.argv[3], sys.argv[4]])
    done = asyncio.Event()
    dropped = []
    conn = Connection(process.reader, process.writer, max_frame_bytes=cap,
                      on_oversized_frame=lambda n, c: dropped.append(n))
    conn.on_notification("note", lambda p: done.set() if p == "done" else None)
    conn.start()
    await asyncio.wait_for(done.wait(), 300)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    await conn.close()
    await process.shutdown(grace=0.1)
    print(json.dumps({"base_mb": base, "peak_mb": peak, "dropped": dropped}))

asyncio.run(main())
"""


def run(line_mb: int, cap: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", READER, str(ROOT), str(cap), AGENT, str(line_mb)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    line_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    results = {}
    for label, cap in (("default cap 64 MiB", 64 << 20), ("cap 1 MiB", 1 << 20)):
        result = run(line_mb, cap)
        results[label] = result
        print(
            f"{label:20} {line_mb} MB line: baseline RSS {result['base_mb']:.0f} MB, "
            f"peak RSS {result['peak_mb']:.0f} MB, dropped {result['dropped']}"
        )
    print(f"ratio {results['default cap 64 MiB']['peak_mb'] / BUDGET_MB:.2f}")


if __name__ == "__main__":
    main()
