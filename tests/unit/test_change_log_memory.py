"""The change log keeps a file written every turn in memory linear in what changed, not a whole
copy before and after every write (a log appended each turn made it quadratic), and every
version still reads back exactly."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from acp_tui.host.change_log import ChangeLog
from acp_tui.host.text_versions import TextVersions

TURNS = 150
TURN_TEXT = "".join(f"turn {{n}}: line {line} of what the agent logged\n" for line in range(50))


def grown_log(turns: int) -> list[str]:
    """The log file's text after each turn (about 2 KB appended per turn)."""
    texts, text = [], ""
    for turn in range(turns):
        text += TURN_TEXT.replace("{n}", str(turn))
        texts.append(text)
    return texts


def test_a_file_appended_every_turn_costs_its_changes_not_a_copy_per_write(tmp_path: Path) -> None:
    path = tmp_path / "agent.log"
    log = ChangeLog()
    gc.collect()
    tracemalloc.start()
    try:
        held = tracemalloc.get_traced_memory()[0]
        before: str | None = None
        text = ""
        for turn in range(TURNS):
            after = text + TURN_TEXT.replace("{n}", str(turn))
            # (read back from disk each time: a new string equal to the last write's)
            log.add(path, None if before is None else "".join([before]), after)
            before, text = after, after
        del before, after
        kept = tracemalloc.get_traced_memory()[0] - held - len(text)
    finally:
        tracemalloc.stop()
    assert kept < 8 * len(text), f"{kept / len(text):.0f} times the file's final size"


def test_every_version_reads_back_exactly(tmp_path: Path) -> None:
    path, other = tmp_path / "agent.log", tmp_path / "notes.md"
    log = ChangeLog()
    texts = grown_log(80)
    previous: str | None = None
    for turn, text in enumerate(texts):
        log.add(path, previous, text)
        log.add(other, f"notes {turn - 1}\nend\n" if turn else None, f"notes {turn}\nend\n")
        previous = text
    log.add(path, texts[-1], "rewritten from scratch\n")  # (nothing shared with the last)
    log.add(path, "rewritten from scratch\n", "", deleted=True)
    mine = log.records_for(path)
    assert [record.after for record in mine] == [*texts, "rewritten from scratch\n", ""]
    assert [record.before for record in mine] == [None, *texts, "rewritten from scratch\n"]
    assert [record.after for record in log.records_for(other)][-1] == "notes 79\nend\n"
    assert log.original(path) is None and log.original(other) is None


def test_the_next_writes_before_is_the_last_writes_after_not_a_copy(tmp_path: Path) -> None:
    versions = TextVersions()
    path = tmp_path / "a.txt"
    first = versions.keep(path, "one\ntwo\n")
    assert versions.keep(path, "".join(["one\n", "two\n"])) is first


def test_a_change_in_the_middle_keeps_only_that_part(tmp_path: Path) -> None:
    versions = TextVersions()
    path = tmp_path / "a.txt"
    old = "a" * 1000 + "middle" + "z" * 1000
    versions.keep(path, old)
    changed = versions.keep(path, "a" * 1000 + "MIDDLE!" + "z" * 1000)
    versions.keep(path, "newer")  # (the changed one is no longer the newest: no whole copy)
    assert changed.kept_chars() == len("MIDDLE!")
    assert changed.text() == "a" * 1000 + "MIDDLE!" + "z" * 1000


def test_a_long_chain_of_changes_is_cut_by_a_whole_copy(tmp_path: Path) -> None:
    versions = TextVersions(whole_every=4)
    path = tmp_path / "a.txt"
    kept = [versions.keep(path, "x" * turn) for turn in range(1, 12)]
    assert max(version.depth for version in kept) == 3
    assert [version.text() for version in kept] == ["x" * turn for turn in range(1, 12)]
