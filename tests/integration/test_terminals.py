"""terminal/* over real PTYs and real processes."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.host.pty_process import TERMINAL_SIGNALS
from acp_tui.host.terminals import Terminal, TerminalHost
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError
from tests.routed import RoutedTerminals
from tests.schema_check import FrameValidator

SID = "sess-1"
TIMEOUT = 10.0


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[RoutedTerminals]:
    terminal_host = TerminalHost(tmp_path)
    yield RoutedTerminals(terminal_host)
    await terminal_host.close_all()


def checked(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """Assert `result` is a valid ACP answer to `method`, and return it."""
    validator = FrameValidator()
    validator.incoming({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}})
    validator.outgoing({"jsonrpc": "2.0", "id": 1, "result": result})
    return result


async def run(host: RoutedTerminals, **params: Any) -> tuple[str, dict[str, Any]]:
    """Create a terminal, wait for its exit, return its id and terminal/output."""
    created = checked("terminal/create", await host.create({"sessionId": SID, **params}))
    ref = {"sessionId": SID, "terminalId": created["terminalId"]}
    checked("terminal/wait_for_exit", await asyncio.wait_for(host.wait_for_exit(ref), TIMEOUT))
    return created["terminalId"], checked("terminal/output", await host.output(ref))


async def wait_for_output(terminal: Terminal | None, predicate: Callable[[bytes], bool]) -> None:
    """Wait (event-driven, with a deadline) until the terminal's output satisfies predicate."""
    assert terminal is not None
    changed = asyncio.Event()
    unsubscribe = terminal.add_output_listener(lambda _data: changed.set())
    try:
        async with asyncio.timeout(TIMEOUT):
            while not predicate(terminal.output_bytes()):
                await changed.wait()
                changed.clear()
    finally:
        unsubscribe()


async def poll_process_table(condition: Callable[[], bool]) -> None:
    """Poll the process table (no event exists for it) until `condition`, with a deadline."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.01)


def process_group_alive(pgid: int) -> list[str]:
    """Processes of the group that are not zombies (a /proc scan)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            alive.append(entry)
    return alive


async def test_shell_line_runs_with_exit_code_and_readable_output(host: RoutedTerminals) -> None:
    _, out = await run(host, command="printf 'a\\n\\033[31mred\\033[0m\\n'; exit 3")
    assert out == {
        "output": "a\nred\n",
        "truncated": False,
        "exitStatus": {"exitCode": 3, "signal": None},
    }


async def test_args_are_passed_verbatim_without_a_shell(host: RoutedTerminals) -> None:
    _, out = await run(host, command="printf", args=["[%s]", "a b", "$HOME", "*"])
    assert out["output"] == "[a b][$HOME][*]"


async def test_runs_on_a_tty_with_term_and_size(host: RoutedTerminals) -> None:
    _, out = await run(host, command="test -t 0 && test -t 1 && echo tty $TERM; stty size")
    assert out["output"] == "tty xterm-256color\n24 80\n"


async def test_env_is_merged_into_the_full_environment(host: RoutedTerminals) -> None:
    env = [{"name": "ACP_TUI_X", "value": "a=b c"}]
    _, out = await run(host, command='echo "$ACP_TUI_X|$PATH"', env=env)
    assert out["output"] == f"a=b c|{os.environ['PATH']}\n"


async def test_default_cwd_is_the_session_cwd_and_cwd_can_be_given(
    host: RoutedTerminals, tmp_path: Path
) -> None:
    _, out = await run(host, command="pwd")
    assert out["output"] == f"{tmp_path}\n"
    sub = tmp_path / "sub"
    sub.mkdir()
    _, out = await run(host, command="pwd", cwd=str(sub))
    assert out["output"] == f"{sub}\n"


async def test_cwd_check_is_asked_and_can_refuse(tmp_path: Path) -> None:
    asked: list[Path] = []

    async def check(path: Path) -> Path:
        asked.append(path)
        if path.name == "secret":
            raise RpcError(INVALID_PARAMS, "outside the session directory")
        return path

    host = RoutedTerminals(TerminalHost(tmp_path, cwd_check=check))
    try:
        (tmp_path / "secret").mkdir()
        with pytest.raises(RpcError, match="outside"):
            await host.create({"sessionId": SID, "command": "pwd", "cwd": str(tmp_path / "secret")})
        _, out = await run(host, command="pwd", cwd="/")
        assert out["output"] == "/\n"
        assert asked == [tmp_path / "secret", Path("/")]
    finally:
        await host.close_all()


async def test_missing_command_reports_127_through_the_terminal(host: RoutedTerminals) -> None:
    _, out = await run(host, command="acp-tui-no-such-command", args=["x"])
    assert out["exitStatus"] == {"exitCode": 127, "signal": None}
    assert "acp-tui-no-such-command: command not found" in out["output"]
    _, out = await run(host, command="acp-tui-no-such-command --flag")  # via the shell
    assert out["exitStatus"] == {"exitCode": 127, "signal": None}
    assert "not found" in out["output"]


async def test_output_byte_limit_keeps_the_tail_at_a_character_boundary(
    host: RoutedTerminals,
) -> None:
    script = "import sys; sys.stdout.write('x' * 50 + 'é' * 10); sys.stdout.flush()"
    _, out = await run(host, command=sys.executable, args=["-c", script], outputByteLimit=9)
    assert out["output"] == "éééé"  # 9 bytes would start inside an é: 8 bytes are kept
    assert out["truncated"] is True


async def test_huge_byte_limit_is_fine(host: RoutedTerminals) -> None:
    _, out = await run(host, command="echo hi", outputByteLimit=2**64 - 1)
    assert out["output"] == "hi\n"
    assert out["truncated"] is False


async def test_progress_bar_output_shows_the_final_state(host: RoutedTerminals) -> None:
    script = (
        "import sys\n"
        "for i in range(0, 101, 10):\n"
        "    sys.stdout.write(f'\\rdownloading {i:3d}%'); sys.stdout.flush()\n"
        "print('\\ndone')\n"
    )
    _, out = await run(host, command=sys.executable, args=["-c", script])
    assert out["output"] == "downloading 100%\ndone\n"


async def test_output_while_running_then_kill_reports_the_signal(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": SID, "command": "echo ready; exec sleep 100"})
    ref = {"sessionId": SID, "terminalId": created["terminalId"]}

    await wait_for_output(host.get(ref["terminalId"]), lambda data: b"ready\r\n" in data)
    out = checked("terminal/output", await host.output(ref))
    assert out == {"output": "ready\n", "truncated": False}  # no exitStatus while running
    assert checked("terminal/kill", await host.kill(ref)) == {}
    status = checked(
        "terminal/wait_for_exit", await asyncio.wait_for(host.wait_for_exit(ref), TIMEOUT)
    )
    assert status == {"exitCode": None, "signal": "SIGKILL"}
    out = await host.output(ref)  # still valid after kill
    assert out["exitStatus"] == status
    assert out["output"] == "ready\n"


async def test_input_reaches_the_process(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": SID, "command": "cat"})
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    terminal.write_input(b"hello\r")
    # the tty echoes the line, then cat writes its copy
    await wait_for_output(terminal, lambda data: data.count(b"hello") >= 2)
    terminal.write_input(b"\x04")  # ^D: end of input
    status = await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
    assert status.exit_code == 0


async def test_ctrl_c_interrupts_the_foreground_job(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": SID, "command": "sleep", "args": ["100"]})
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    terminal.write_input(b"\x03")
    status = await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
    assert status.signal == "SIGINT"


def ignored_signals(pid: int) -> int:
    """The mask of signals a process ignores (`SigIgn` in /proc/PID/status)."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^SigIgn:\s*([0-9a-f]+)$", status, re.M)
    assert found is not None, status
    return int(found.group(1), 16)


async def test_ctrl_c_interrupts_the_job_when_acp_tui_itself_ignores_it(
    host: RoutedTerminals,
) -> None:
    """Started in the background (`acp-tui ... &`), acp-tui ignores SIGINT and SIGQUIT, and an
    ignored signal stays ignored across exec: the command still gets them at their defaults."""
    ignored = {number: signal.signal(number, signal.SIG_IGN) for number in TERMINAL_SIGNALS}
    try:
        created = await host.create({"sessionId": SID, "command": "sleep", "args": ["100"]})
    finally:
        for number, handler in ignored.items():
            signal.signal(number, handler)
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    (pid,) = terminal.tree  # the command itself, recorded as it started
    assert ignored_signals(pid) & sum(1 << (number - 1) for number in TERMINAL_SIGNALS) == 0
    terminal.write_input(b"\x03")
    status = await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
    assert status.signal == "SIGINT"


async def test_resize_reaches_the_process(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": SID, "command": "read line; stty size"})
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    terminal.resize(100, 30)
    terminal.write_input(b"\r")
    await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
    text, _ = terminal.output_text()
    assert text.endswith("30 100\n")


async def test_release_kills_and_forgets_but_the_ui_keeps_it(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": SID, "command": "echo started; exec sleep 100"})
    terminal_id = created["terminalId"]
    ref = {"sessionId": SID, "terminalId": terminal_id}
    terminal = host.get(terminal_id)
    assert terminal is not None
    await wait_for_output(terminal, lambda data: b"started" in data)
    assert checked("terminal/release", await host.release(ref)) == {}
    assert terminal.released
    assert terminal.exit_status is not None and terminal.exit_status.signal == "SIGKILL"
    for method in (host.output, host.wait_for_exit, host.kill, host.release):
        with pytest.raises(RpcError) as error:
            await method(ref)
        assert error.value.code == INVALID_PARAMS
    assert host.get(terminal_id) is terminal
    assert b"started" in terminal.output_bytes()


async def test_close_all_leaves_no_process_of_any_group(tmp_path: Path) -> None:
    host = RoutedTerminals(TerminalHost(tmp_path))
    created = [
        await host.create({"sessionId": SID, "command": "sh -c 'sleep 100 & sleep 100'"}),
        # the shell exits at once; its background child inherits ignoring SIGHUP and lives on
        await host.create({"sessionId": SID, "command": "trap '' HUP; sleep 100 & echo spawned"}),
    ]
    terminals = [host.get(c["terminalId"]) for c in created]
    groups = [t._process.pid for t in terminals if t is not None and t._process is not None]
    assert len(groups) == 2
    assert terminals[1] is not None
    status = await asyncio.wait_for(terminals[1].wait_for_exit(), TIMEOUT)
    assert status.exit_code == 0
    await poll_process_table(lambda: len(process_group_alive(groups[0])) >= 3)  # sh + 2 sleeps
    await poll_process_table(lambda: len(process_group_alive(groups[1])) == 1)  # the orphan
    await host.close_all()
    await poll_process_table(lambda: not any(process_group_alive(g) for g in groups))


async def test_several_terminals_at_once(host: RoutedTerminals) -> None:
    results = await asyncio.gather(*(run(host, command=f"echo {i}; exit {i}") for i in range(5)))
    assert [out["output"] for _, out in results] == [f"{i}\n" for i in range(5)]
    assert [out["exitStatus"]["exitCode"] for _, out in results] == list(range(5))
    assert len({terminal_id for terminal_id, _ in results}) == 5


async def test_exit_is_reported_with_all_output_even_when_a_child_keeps_the_pty(
    host: RoutedTerminals,
) -> None:
    _, out = await run(host, command="seq 1 3000; sleep 100 &")
    assert out["output"].endswith("2999\n3000\n")
    assert out["exitStatus"] == {"exitCode": 0, "signal": None}


async def test_finished_terminals_do_not_keep_descriptors_open(host: RoutedTerminals) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for i in range(20):
        await run(host, command="echo", args=[str(i)])
    assert len(os.listdir("/proc/self/fd")) <= before + 1  # the listing's own descriptor
