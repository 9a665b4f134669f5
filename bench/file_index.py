"""Index a 100,000-file tree for the @-mention picker and answer queries; print ratios.

    uv run python -m bench.file_index [FILES]

Builds a tree of FILES (default 100,000) empty files in nested directories under a temporary
directory, once as a plain directory (the .gitignore-honouring walk) and once as a git work tree
(`git ls-files`). The baseline is listing the same tree recursively with `os.scandir` (no
ignore rules, no index). Printed: the baseline, each build and its ratio to the baseline, and
for a few queries the median query time, its ratio to the baseline and to a 16.7 ms frame.
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

FRAME = 1 / 60
QUERIES = ["app", "srcmodpy", "module_4242", "zzz_not_there", "s/m/f"]
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


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
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

        git.query("warm")  # the joined copy is built on the first query after a change
        for query in QUERIES:
            times = []
            for _ in range(7):
                start = time.perf_counter()
                hits = git.query(query)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            print(f"query {query!r:18} {median * 1000:7.2f} ms  ratio to listing "
                  f"{median / baseline:.3f}  to a frame {median / FRAME:.2f}  "
                  f"({len(hits)} shown)")  # fmt: skip


if __name__ == "__main__":
    main()
