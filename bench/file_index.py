"""Index a 100,000-file tree for the @-mention picker and answer queries; print ratios.

    uv run python -m bench.file_index [FILES]

Builds a tree of FILES (default 100,000) empty files in nested directories under a temporary
directory, once as a plain directory (the .gitignore-honouring walk) and once as a git work tree
(`git ls-files`). The baseline is listing the same tree recursively with `os.scandir` (no
ignore rules, no index). Printed: the baseline, each build and its ratio to the baseline (the
builds include making the search snapshot, also shown alone), then per query:

- `whole`: the complete answer from cold (the narrowing cache emptied before each run), median
  of 7, wall and CPU time, and its ratio to a 16.7 ms frame;
- `first`: what the picker shows in its first frame (`Search.run(SLICE)`, as the composer does)
  and how many of the final rows that already is;
- `typed`: the query typed one character at a time (each keystroke a whole answer, narrowing
  from the keystrokes before, as in the picker): the slowest keystroke.

The machine's load average is printed first: other processes slow every number alike.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from acp_tui.composer.file_index import FileIndex
from acp_tui.composer.path_search import SLICE, PathSearch

FRAME = 1 / 60
QUERIES = [
    "a",  # one letter
    "m",
    "app",
    "srcmodpy",  # scattered over the path
    "module_4242",  # shares its start with every file name: few whole-run matches
    "module_9",
    "mod3/d123",  # a path fragment
    "lib/mod3",
    "module_99999.txt",  # a whole file name
    "zzz_not_there",  # no match
    "s/m/f",  # no match, scattered
    "mdl",
]
WORDS = ["src", "lib", "tests", "docs", "pkg", "core", "util", "api", "ui", "data"]


def make_tree(root: Path, files: int) -> None:
    per_dir = 50
    for index in range(files):
        directory = index // per_dir
        parts = [WORDS[directory % 10], f"mod{directory // 10 % 40}", f"d{directory}"]
        folder = root.joinpath(*parts)
        if index % per_dir == 0:
            folder.mkdir(parents=True, exist_ok=True)
        suffix = (".py", ".ts", ".md", ".json", ".txt")[index % 5]
        (folder / f"module_{index}{suffix}").touch()
    (root / ".gitignore").write_text("*.log\nbuild/\n")


def scandir_listing(root: Path) -> int:
    count = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git":
                        stack.append(entry.path)
                else:
                    count += 1
    return count


def best_of(runs: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(snapshot: PathSearch, query: str) -> str:
    def whole() -> list[str]:
        snapshot.complete = None  # cold: nothing to narrow from
        return snapshot.query(query)

    runs = [timed(whole) for _ in range(7)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    answer = whole()

    snapshot.complete = None
    first_wall, _ = timed(lambda: snapshot.search(query).run(SLICE))
    snapshot.complete = None
    search = snapshot.search(query)
    search.run(SLICE)
    first = search.results
    right = sum(1 for a, b in zip(first, answer, strict=False) if a == b)

    snapshot.complete = None
    keystrokes = []
    for end in range(1, len(query) + 1):
        start = time.perf_counter()
        snapshot.query(query[:end])
        keystrokes.append(time.perf_counter() - start)
    typed = max(keystrokes)
    return (
        f"query {query!r:18} whole {wall * 1000:6.2f} ms (cpu {cpu * 1000:6.2f})  "
        f"to a frame {wall / FRAME:4.2f}  first {first_wall * 1000:5.2f} ms "
        f"({right}/{len(answer)} rows final)  typed: slowest key {typed * 1000:5.2f} ms"
    )


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), f"({os.cpu_count()} cpus)")
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-") as directory:
        root = Path(directory)
        print(f"making {files} files ...", flush=True)
        make_tree(root, files)
        listed = scandir_listing(root)
        baseline = best_of(3, lambda: scandir_listing(root))
        print(f"os.scandir listing ({listed} files): {baseline * 1000:.1f} ms")

        walk = FileIndex(root, use_git=False)
        walk_time = best_of(3, walk.build)
        print(f"index build, walk + .gitignore: {walk_time * 1000:.1f} ms  "
              f"ratio {walk_time / baseline:.2f}")  # fmt: skip

        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        git = FileIndex(root)
        git_time = best_of(3, git.build)
        assert git.git
        print(f"index build, git ls-files:     {git_time * 1000:.1f} ms  "
              f"ratio {git_time / baseline:.2f}  ({len(git)} entries)")  # fmt: skip
        entries = git.snapshot.lines
        snapshot_time = best_of(3, lambda: PathSearch(entries))
        print(f"  of which the search snapshot: {snapshot_time * 1000:.1f} ms  "
              f"ratio {snapshot_time / baseline:.2f}")  # fmt: skip

        snapshot = git.snapshot
        for query in QUERIES:
            print(measure(snapshot, query), flush=True)
        print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
