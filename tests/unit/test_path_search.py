"""The @-mention picker's search: its ranking against a plain reference, every way of reading
tier 3, answers in steps (results only grow at the end), and narrowing as the user types."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.composer import path_search
from acp_tui.composer.path_search import PathSearch

TREE = [
    "src/app.py",
    "src/App/",
    "src/App/view.ts",
    "lib/apple/x.py",
    "lib/apple/",
    "lib/",
    "src/",
    "docs/map.md",
    "a/p/p.txt",
    "a/",
    "a/p/",
    "README.md",
    "tests/test_app_view.py",
]


def reference(paths: list[str], text: str, limit: int = 50) -> list[str]:
    """The ranking spelled out: tier by where the query is, then shorter paths, then by path."""
    needle = text.replace("\n", "").lower().lstrip("/")
    if not needle:
        return sorted(paths, key=lambda p: (p.count("/"), len(p), p))[:limit]
    ranked = []
    for path in paths:
        lower = path.lower()
        name = lower.rstrip("/").rsplit("/", 1)[-1]
        if name.startswith(needle):
            tier = 0
        elif needle in name:
            tier = 1
        elif needle in lower:
            tier = 2
        elif in_order(needle, lower):
            tier = 3
        else:
            continue
        ranked.append((tier, len(path), path))
    return [path for _, _, path in sorted(ranked)[:limit]]


def in_order(needle: str, text: str) -> bool:
    position = 0
    for char in needle:
        position = text.find(char, position) + 1
        if position == 0:
            return False
    return True


def test_tiers_name_start_then_name_then_path_then_scattered() -> None:
    index = PathSearch(TREE)
    assert (
        index.query("ap")
        == [
            "src/App/",  # the name starts with it (any case), shortest first
            "lib/apple/",
            "src/app.py",
            "docs/map.md",  # in the name
            "tests/test_app_view.py",
            "lib/apple/x.py",  # in the path only
            "src/App/view.ts",
            "a/p/",  # scattered: a then p
            "a/p/p.txt",
        ]
        == reference(TREE, "ap")
    )
    assert index.query("/SRC/app") == ["src/App/", "src/app.py", "src/App/view.ts"]
    assert index.query("app", limit=2) == ["src/App/", "lib/apple/"]
    assert index.query("")[:4] == ["README.md", "a/", "lib/", "src/"] == index.query("/")[:4]
    assert index.query("zz") == [] and index.query("p\n.txt") == ["a/p/p.txt"]


def test_tier_one_full_still_finds_every_name_start() -> None:
    """Tiers 0 and 1 share one pass over the names; tier 0 must not be cut short by it."""
    paths = [f"d/x{i:03}cat.md" for i in range(60)] + ["d/zzzzzzzzzzzzzzzzzzzzcat.md", "cat/"]
    paths += ["d/cats-are-last-alphabetically-and-long.txt"]
    index = PathSearch(paths)
    got = index.query("cat", limit=5)
    assert got == reference(paths, "cat", limit=5)
    assert got[:2] == ["cat/", "d/cats-are-last-alphabetically-and-long.txt"]


@pytest.mark.parametrize("mode", ["first", "last", "line"])
def test_each_anchor_of_the_scattered_tier_agrees(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [f"pkg{i % 7}/sub{i % 3}/file_{i}.{('py', 'md', 'txt')[i % 3]}" for i in range(300)]
    needles = ["pf1y", "k2/b", "s0f9", "qq", "p/f_", "fy", "gbx"]
    for needle in needles:
        index = PathSearch(paths)
        first, last = needle[0], needle[-1]

        def counts(char: str, first: str = first, last: str = last) -> int:
            if mode == "first":
                return 0
            if mode == "last":
                return 0 if char == last and char != first else 10**9
            return 10**9

        monkeypatch.setattr(index, "count", counts)
        search = index.search(needle, limit=20)
        if not search.done and first != last:
            assert search._scattered.mode == mode
        search.run(None)
        assert search.results == reference(paths, needle, limit=20), needle


paths_strategy = st.lists(
    st.lists(st.text("aAb_./z", min_size=1, max_size=5), min_size=1, max_size=3).map(
        lambda parts: "/".join(parts)
    ),
    min_size=1,
    max_size=40,
    unique=True,
)
needle_strategy = st.text("aAb_./zq", min_size=0, max_size=4)


@settings(max_examples=300, deadline=None)
@given(paths_strategy, needle_strategy, st.integers(1, 8))
def test_search_matches_the_reference_also_in_steps(
    paths: list[str], needle: str, limit: int
) -> None:
    index = PathSearch(paths)
    assert index.query(needle, limit) == reference(paths, needle, limit)
    index.complete = None
    search = index.search(needle, limit)
    seen: list[str] = search.results
    while not search.step(lines=2):  # one line at a time: results only ever grow at the end
        assert search.results[: len(seen)] == seen
        seen = search.results
    assert search.results == reference(paths, needle, limit)


@settings(max_examples=200, deadline=None)
@given(paths_strategy, st.lists(needle_strategy, min_size=1, max_size=6), st.integers(1, 8))
def test_narrowing_as_the_user_types_changes_no_answer(
    paths: list[str], needles: list[str], limit: int
) -> None:
    """One snapshot answers a run of queries (typing, deleting, retyping): each answer is what
    a fresh snapshot gives, however the previous one narrowed it."""
    index = PathSearch(paths)
    for needle in needles:
        for end in range(len(needle) + 1):
            assert index.query(needle[:end], limit) == reference(paths, needle[:end], limit)


def test_narrowing_reads_only_the_earlier_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [f"dir{i}/file{i}.txt" for i in range(500)] + ["dir7/zebra-quux.txt"]
    index = PathSearch(paths)
    assert index.query("zbq") == ["dir7/zebra-quux.txt"]
    assert index.complete == ("zbq", (500,))

    def no_scan(*args: object) -> None:
        raise AssertionError("a narrowed query reads no text")

    monkeypatch.setattr(path_search._Scattered, "read", no_scan)
    monkeypatch.setattr(path_search.Search, "_contiguous", no_scan)
    assert index.query("zebraq") == ["dir7/zebra-quux.txt"]
    assert index.query("zebraqu") == ["dir7/zebra-quux.txt"]
    assert index.query("zebraquy") == []


def test_a_case_changing_lowercase_keeps_lines_apart() -> None:
    """`"İ".lower()` is two characters: offsets come from the lowered lines themselves."""
    paths = ["İİİ/a.txt", "b/İx.md", "c/q.txt"]
    index = PathSearch(paths)
    for needle in ["a", "q", "x", "i̇x", "txt", "c"]:
        assert index.query(needle) == reference(paths, needle), needle
