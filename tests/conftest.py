"""Shared fixtures: schema-validate every frame a Connection sends; spawn agents and clean up."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from acp_tui.protocol.connection import Connection, NotificationHandler, RequestHandler
from acp_tui.protocol.process import AgentProcess
from tests.schema_check import FrameValidator, validating_tap

AttachValidator = Callable[..., FrameValidator]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: half again as many workers as cores (3 on 2 cores).

    The UI and process tests spend much of their time waiting on an agent process, a timer or
    the next frame; a third worker on two cores fills those waits. Measured on the
    tests/ui/test_app_*.py files: test CPU the same (-n 2: 94 and 92 s, -n 3: 102 and 89 s),
    wall 120 and 127 s against 87 and 75 s (load 3-5). PYTEST_XDIST_AUTO_NUM_WORKERS still
    decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) * 3 // 2)


@pytest.fixture(autouse=True)
def private_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests never read or write the real user's config, rules or data."""
    root = tmp_path_factory.mktemp("xdg")
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        (root / name).mkdir()
        monkeypatch.setenv(name, str(root / name))
    monkeypatch.delenv("ACP_TUI_CONFIG", raising=False)
    monkeypatch.setenv("ACP_TUI_REGISTRY_URL", "")  # no test reaches the real registry


@pytest.fixture
def validate_frames() -> Iterator[AttachValidator]:
    """`validate_frames(conn)` taps `conn`: every frame it sends must match the ACP schema.

    Violations are collected (a tap must not raise into the connection) and fail the test at
    teardown with the details.
    """
    failures: list[str] = []

    def attach(conn: Connection, *, allow_unknown_methods: bool = False) -> FrameValidator:
        validator = FrameValidator(allow_unknown_methods=allow_unknown_methods)
        conn.add_tap(validating_tap(validator, failures))
        return validator

    yield attach
    assert not failures, "frames sent by acp-tui failed schema validation:\n" + "\n".join(failures)


SpawnAgent = Callable[..., Awaitable[tuple[AgentProcess, Connection]]]


@pytest.fixture
async def spawn_agent(validate_frames: AttachValidator) -> AsyncIterator[SpawnAgent]:
    """`await spawn_agent(argv, request_handlers=..., notification_handlers=...)`.

    Spawns the agent, wires a started, schema-validated Connection to it, and at teardown
    closes the connection and shuts the process (group) down.
    """
    started: list[tuple[AgentProcess, Connection]] = []

    async def spawn(
        argv: Sequence[str],
        *,
        request_handlers: Mapping[str, RequestHandler] | None = None,
        notification_handlers: Mapping[str, NotificationHandler] | None = None,
        allow_unknown_methods: bool = False,
        **spawn_kwargs: Any,
    ) -> tuple[AgentProcess, Connection]:
        process = await AgentProcess.spawn(argv, **spawn_kwargs)
        conn = Connection(
            process.reader,
            process.writer,
            request_handlers=request_handlers,
            notification_handlers=notification_handlers,
        )
        validate_frames(conn, allow_unknown_methods=allow_unknown_methods)
        conn.start()
        started.append((process, conn))
        return process, conn

    yield spawn
    for process, conn in started:
        await conn.close()
        await process.shutdown(grace=2.0)
