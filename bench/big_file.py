"""Peak memory of the file host with a 1 GB file: a small write to it, and a line/limit read.

    uv run python -m bench.big_file [SIZE_MB]

Each case runs in a fresh subprocess on a sparse file made with truncate (no disk space used),
with the default `max_read_bytes` (50 MiB), and prints the child's peak RSS (VmHWM) next to
the same interpreter's baseline after imports. The target is a peak under 200 MB (issue 8; before,
a small write to a 1 GB file peaked at 2.1 GB).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import asyncio, sys
from pathlib import Path
from acp_tui.host.asker import Question
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest

class Overwrite:
    async def ask(self, question: Question) -> str:
        assert question.kind == "large_file", question.kind
        return "overwrite"

def peak_mb() -> float:
    # VmHWM belongs to this process image; ru_maxrss would carry the forking parent's peak
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) / 1024

async def main(case: str, path: Path) -> None:
    host = FileSystemHost(path.parent, Overwrite())
    base = peak_mb()
    if case == "write":
        await host.write_text_file(
            WriteTextFileRequest(session_id="s", path=str(path), content="small\n")
        )
        assert path.read_text() == "small\n"
    else:
        result = await host.read_text_file(
            ReadTextFileRequest(session_id="s", path=str(path), line=1_000_000, limit=10)
        )
        assert result["content"] == "", result
    print(f"{base:.1f} {peak_mb():.1f}")

asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
"""


def run(case: str, size: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "big.txt"
        with open(path, "wb") as file:
            file.truncate(size)  # sparse: NUL bytes are never read by a write, and the read
            # below asks for line 1,000,000 of a file with no newline (streams all of it)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, case, str(path)],
            check=True,
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        ).stdout
    base, peak = (float(value) for value in out.split())
    return base, peak


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    size = size_mb * 1024 * 1024
    print(f"file: {size_mb} MB sparse; target: peak RSS < 200 MB")
    worst = 0.0
    for case, what in (
        ("write", "small write to the file"),
        ("read", "line/limit read past the end"),
    ):
        base, peak = run(case, size)
        worst = max(worst, peak)
        print(f"{what:32} peak {peak:7.1f} MB (baseline {base:.1f} MB, +{peak - base:.1f} MB)")
    print(f"peak {worst:.1f} MB ({worst / 200:.2f} of the 200 MB target)")


if __name__ == "__main__":
    main()
