"""Reading a `--log` recording for `--replay`: streamed with the frame cap, bad lines skipped
with a note, never a crash and never the whole file in memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from acp_tui.client.replay import ReplayError, load_log
from acp_tui.protocol.line_reader import LineSplitter


def entry(text: str, t: float = 1.0) -> str:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    frame = {"jsonrpc": "2.0", "method": "session/update", "params": {"update": update}}
    return json.dumps({"dir": "in", "t": t, "frame": frame})


def write_log(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_line_nested_100000_deep_is_skipped_with_a_note(tmp_path: Path) -> None:
    deep_frame = '{"dir": "in", "t": 2, "frame": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = write_log(
        tmp_path / "log.jsonl", entry("before"), "[" * 100_000, deep_frame, entry("after")
    )
    problems: list[str] = []
    frames = load_log(path, problems=problems)
    assert [json.loads(f.raw)["params"]["update"]["content"]["text"] for f in frames] == [
        "before",
        "after",
    ]
    assert len(problems) == 1
    assert "2 lines" in problems[0] and "2, 3" in problems[0]


def test_a_line_over_the_cap_is_skipped_with_a_note(tmp_path: Path) -> None:
    big = entry("x" * 5000)
    path = write_log(tmp_path / "log.jsonl", entry("before"), big, entry("after"))
    problems: list[str] = []
    frames = load_log(path, max_frame_bytes=1000, problems=problems)
    assert len(frames) == 2
    assert len(problems) == 1
    assert "longer than the 1,000-byte frame limit" in problems[0] and "line 2" in problems[0]


def test_an_over_cap_line_is_never_held_in_memory(tmp_path: Path) -> None:
    cap, block = 4096, 64 * 1024
    path = tmp_path / "log.jsonl"
    with path.open("w") as file:
        file.write(entry("before") + "\n")
        file.write('{"dir": "in", "t": 1, "frame": "' + "y" * (32 << 20) + '"}\n')  # 32 MiB
        file.write(entry("after") + "\n")
    problems: list[str] = []
    tracemalloc.start()
    try:
        frames = load_log(path, max_frame_bytes=cap, problems=problems, block_size=block)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(frames) == 2 and len(problems) == 1
    assert peak < 4 * (cap + block) + (1 << 20)  # blocks, not the 32 MiB line


def test_the_splitter_holds_at_most_the_cap() -> None:
    cap, block = 100, 64
    lines: list[bytes] = []
    discarded: list[int] = []
    splitter = LineSplitter(lines.append, discarded.append)
    data = b"short\n" + b"z" * 10_000 + b"\nok\n" + b"w" * 90 + b"\n"
    held = []
    for start in range(0, len(data), block):
        splitter.feed(data[start : start + block], cap)
        held.append(splitter.held)
    splitter.end()
    assert max(held) <= cap
    assert lines == [b"short", b"ok", b"w" * 90]
    assert discarded == [10_000]


def test_a_file_with_no_frames_is_an_error(tmp_path: Path) -> None:
    path = write_log(tmp_path / "log.jsonl", "[" * 100_000)
    with pytest.raises(ReplayError, match="no recorded frames"):
        load_log(path)
