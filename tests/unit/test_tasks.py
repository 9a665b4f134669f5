"""`acp_tui.tasks.Supervisor`: owns its tasks, cancels them on close, reports failures."""

from __future__ import annotations

import asyncio
import logging

import pytest

from acp_tui.tasks import Supervisor, TaskFailure


async def test_a_failing_task_is_logged_and_reported(caplog: pytest.LogCaptureFixture) -> None:
    supervisor = Supervisor("test")
    failures: list[TaskFailure] = []
    supervisor.failed.subscribe(failures.append)

    async def broken() -> None:
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="acp_tui.tasks"):
        task = supervisor.spawn("broken", broken())
        await asyncio.wait({task})
    assert [(f.task, str(f.error)) for f in failures] == [("test:broken", "boom")]
    assert failures[0].describe() == "test:broken failed: RuntimeError: boom"
    assert any(r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)
    assert supervisor.running == 0


async def test_an_awaited_task_leaves_its_exception_to_the_awaiter() -> None:
    supervisor = Supervisor("test")
    failures: list[TaskFailure] = []
    supervisor.failed.subscribe(failures.append)

    async def broken() -> None:
        raise ValueError("for the caller")

    with pytest.raises(ValueError, match="for the caller"):
        await supervisor.spawn("asked", broken(), awaited=True)
    assert failures == []


async def test_close_cancels_what_runs_and_waits_for_it() -> None:
    supervisor = Supervisor("test")
    started = asyncio.Event()
    cleaned: list[str] = []

    async def forever(name: str) -> None:
        try:
            started.set()
            await asyncio.Event().wait()
        finally:
            cleaned.append(name)

    supervisor.spawn("a", forever("a"))
    supervisor.spawn("b", forever("b"))
    await started.wait()
    assert supervisor.running == 2
    await supervisor.close()
    assert sorted(cleaned) == ["a", "b"]
    assert supervisor.running == 0


async def test_close_from_inside_a_supervised_task_does_not_cancel_itself() -> None:
    supervisor = Supervisor("test")
    other_started, other_ended = asyncio.Event(), asyncio.Event()

    async def other() -> None:
        try:
            other_started.set()
            await asyncio.Event().wait()
        finally:
            other_ended.set()

    async def closer() -> str:
        await supervisor.close()
        return "closed"

    supervisor.spawn("other", other())
    await other_started.wait()
    assert await supervisor.spawn("closer", closer(), awaited=True) == "closed"
    assert other_ended.is_set()


async def test_a_finished_task_is_released() -> None:
    supervisor = Supervisor("test")

    async def value() -> int:
        return 7

    assert await supervisor.spawn("value", value()) == 7
    assert supervisor.running == 0


def test_client_and_host_spawn_no_bare_tasks() -> None:
    """Every background task of the client core and the host services runs under a Supervisor."""
    from pathlib import Path

    import acp_tui

    root = Path(acp_tui.__file__).parent
    bare = [
        f"{path.relative_to(root)}:{number}"
        for layer in ("client", "host")
        for path in sorted((root / layer).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "create_task(" in line or "ensure_future(" in line
    ]
    assert bare == []
