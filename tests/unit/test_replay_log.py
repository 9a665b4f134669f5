"""A `--log` recording read for `--replay`: what is held of it is where each frame is and when
it was recorded, not the frames (1M frames held as objects took 2 GB); a frame is read again
from the file when asked, as it was recorded; skipped lines are counted, never listed."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

from acp_tui.client.replay import load_log


def chunk_frame(n: int) -> dict[str, Any]:
    text = f"chunk {n} " + "x" * 400
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s1", "update": update}}  # fmt: skip


def test_a_long_recording_is_read_again_from_its_file_not_held(tmp_path: Path) -> None:
    count = 20_000
    path = tmp_path / "long.jsonl"
    with path.open("w") as file:
        for n in range(count):
            file.write(json.dumps({"dir": "in", "t": 1000.0 + n, "frame": chunk_frame(n)}) + "\n")
            if n % 1000 == 0:
                file.write("not a log line\n")  # skipped, counted
    size = path.stat().st_size  # about 10 MB
    notes: list[str] = []
    tracemalloc.start()
    try:
        frames = load_log(path, problems=notes)
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    try:
        assert len(frames) == count
        assert held < size // 20  # 20,000 x 3 numbers, not 10 MB of frames
        assert notes == [f"{path}: skipped 20 lines (2, 1003, 2004, 3005, 4006, …): not a log "
                         "entry (not JSON, nested too deep, or not a frame)"]  # fmt: skip
        for n in (0, 1, 12_345, count - 1):
            frame = frames[n]
            assert (frame.direction, frame.time, frame.frame) == ("in", 1000.0 + n, chunk_frame(n))
            assert json.loads(frame.raw) == chunk_frame(n)
        assert frames[-1].frame == chunk_frame(count - 1)
    finally:
        frames.close()
