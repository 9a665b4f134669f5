"""What grew between two memory snapshots of `bench/pty_long_session.py --snapshots A,B`.

    uv run python bench/memory_diff.py DIR A B [--top 15]

Prints the `tracemalloc` allocations that grew most between the ends of turns A and B (by
traceback, the innermost frames of acp-tui and Textual shown), then the tracked object types
whose count grew most, each per turn, then the garbage the snapshot's full collection found at
turn B by type (types minus live: what the collector had not reached, mostly frozen when alive).
"""

from __future__ import annotations

import argparse
import tracemalloc
from pathlib import Path


def type_counts(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        if line.endswith(" collected"):  # (the first line of a ``.live`` file)
            continue
        count, _, name = line.partition(" ")
        counts[name] = int(count)
    return counts


def main(directory: Path, first: int, last: int, top: int) -> None:
    turns = last - first
    old = tracemalloc.Snapshot.load(str(directory / f"turn-{first}.tracemalloc"))
    new = tracemalloc.Snapshot.load(str(directory / f"turn-{last}.tracemalloc"))
    print(f"allocations grown from turn {first} to {last} ({turns} turns), per turn:")
    for stat in new.compare_to(old, "traceback")[:top]:
        print(f"  {stat.size_diff / turns / 1024:9.1f} KiB {stat.count_diff / turns:8.1f} blocks")
        for line in stat.traceback.format(limit=8, most_recent_first=True):
            print(f"      {line}")
    before = type_counts(directory / f"turn-{first}.types")
    after = type_counts(directory / f"turn-{last}.types")
    grown = sorted(after, key=lambda name: before.get(name, 0) - after[name])[:top]
    print("tracked objects grown, per turn:")
    for name in grown:
        print(f"  {(after[name] - before.get(name, 0)) / turns:9.1f} {name} ({after[name]})")
    live = type_counts(directory / f"turn-{last}.live")
    garbage = {name: count - live.get(name, 0) for name, count in after.items()}
    print(f"garbage at turn {last} (not collected yet): {sum(garbage.values())} objects")
    for name in sorted(garbage, key=lambda name: -garbage[name])[:top]:
        print(f"  {garbage[name]:9} {name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=Path)
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    main(args.directory, args.first, args.last, args.top)
