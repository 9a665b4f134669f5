"""What the agent's sandbox costs per agent start and per terminal command, against the same
start without it, interleaved; and what a launcher process (a Python that restricts itself and
execs the agent, the other way to apply Landlock) would cost instead of the fork-time hook.
Run: `uv run python -m bench.sandbox`.

Prints medians in milliseconds, the extra per start for each mode, and last
`ratio <project start / unsandboxed start>`. No pass or fail.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from acp_tui.client.prestart import spawn_confined
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.models import CreateTerminalRequest, TerminalRequest
from acp_tui.sandbox import landlock
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxPolicy, SandboxRequest, plan_sandbox

RUNS = 40
PROGRAM = ["/bin/true"]


def policy(mode: SandboxMode | None, cwd: Path) -> SandboxPolicy | None:
    if mode is None:
        return None
    request = SandboxRequest(mode, "gemini")
    return plan_sandbox(request, [cwd], ["npx", "gemini"], home=Path.home(), environ=os.environ)


async def agent_start(sandbox: SandboxPolicy | None, cwd: Path) -> float:
    """Seconds from asking for the agent process to its exit (a program that does nothing)."""
    start = time.perf_counter()
    process = await spawn_confined(PROGRAM, sandbox, cwd=str(cwd), env_extra={})
    await process.wait()
    return time.perf_counter() - start


async def terminal_command(host: TerminalHost) -> float:
    """Seconds from terminal/create to the command's exit status."""
    start = time.perf_counter()
    created = await host.create(CreateTerminalRequest(session_id="s", command=PROGRAM[0], args=[]))
    ref = TerminalRequest(session_id="s", terminal_id=created["terminalId"])
    await host.wait_for_exit(ref)
    elapsed = time.perf_counter() - start
    await host.release(ref)
    return elapsed


async def launcher(cwd: Path) -> float:
    """A Python launcher: start it, import ctypes, exec the program (no rules: a floor)."""
    code = "import ctypes, os, sys; os.execv(sys.argv[1], sys.argv[1:])"
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-S", "-c", code, *PROGRAM, cwd=cwd
    )
    await process.wait()
    return time.perf_counter() - start


async def direct(cwd: Path) -> float:
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(*PROGRAM, cwd=cwd)
    await process.wait()
    return time.perf_counter() - start


def ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def main() -> None:
    if landlock.abi_version() < 1:
        print("this kernel offers no Landlock: nothing to measure")
        return
    cwd = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    (cwd / "project").mkdir()
    modes: list[SandboxMode | None] = [None, SandboxMode.PROJECT, SandboxMode.STRICT]
    names = {None: "unsandboxed", SandboxMode.PROJECT: "project", SandboxMode.STRICT: "strict"}
    policies = {mode: policy(mode, cwd) for mode in modes}
    hosts = {mode: TerminalHost(cwd, sandbox=policies[mode]) for mode in modes}
    starts: dict[SandboxMode | None, list[float]] = {mode: [] for mode in modes}
    commands: dict[SandboxMode | None, list[float]] = {mode: [] for mode in modes}
    plain: dict[str, list[float]] = {"direct": [], "launcher": []}
    builds: dict[SandboxMode | None, list[float]] = {mode: [] for mode in modes[1:]}
    plans: list[float] = []
    secrets_home = cwd / "home"  # a home holding the default secrets: strict walks around them
    for name in (".ssh", ".gnupg", ".aws", ".config/gh", ".docker"):
        (secrets_home / name).mkdir(parents=True)
    guarded = plan_sandbox(
        SandboxRequest(SandboxMode.STRICT, "gemini"), [cwd / "project"], ["gemini"],
        home=secrets_home, environ={},
    )  # fmt: skip
    guarded_builds: list[float] = []
    for _ in range(RUNS):  # interleaved: the machine's load falls on every variant alike
        for mode in modes:
            starts[mode].append(await agent_start(policies[mode], cwd))
            commands[mode].append(await terminal_command(hosts[mode]))
        plain["direct"].append(await direct(cwd))
        plain["launcher"].append(await launcher(cwd))
        for mode in modes[1:]:
            begin = time.perf_counter()
            built = policies[mode].ruleset()  # type: ignore[union-attr]
            builds[mode].append(time.perf_counter() - begin)
            assert built is not None
            built.close()
        begin = time.perf_counter()
        policy(SandboxMode.PROJECT, cwd)
        plans.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        walked = guarded.ruleset()
        guarded_builds.append(time.perf_counter() - begin)
        assert walked is not None
        walked.close()
    for host in hosts.values():
        await host.close_all()
    print(f"runs: {RUNS} each, interleaved; {PROGRAM[0]} as the agent and the command")
    print(f"plan a session's policy (once per session): {ms(plans):.3f} ms")
    for mode in modes[1:]:
        print(f"build the {names[mode]} ruleset (every start): {ms(builds[mode]):.3f} ms")
    print(
        f"build the strict ruleset around {len(guarded.unreadable)} secrets (every start):"
        f" {ms(guarded_builds):.3f} ms"
    )
    for mode in modes:
        print(f"agent start, {names[mode]}: {ms(starts[mode]):.2f} ms;"
              f" terminal command: {ms(commands[mode]):.2f} ms")  # fmt: skip
    for mode in modes[1:]:
        extra_start = ms(starts[mode]) - ms(starts[None])
        extra_command = ms(commands[mode]) - ms(commands[None])
        print(f"extra per start, {names[mode]}: agent {extra_start:+.2f} ms,"
              f" terminal command {extra_command:+.2f} ms")  # fmt: skip
    extra_launcher = ms(plain["launcher"]) - ms(plain["direct"])
    print(f"a launcher process instead (Python -I -S, ctypes, exec): {extra_launcher:+.2f} ms"
          " per start, before any rule")  # fmt: skip
    print(f"ratio {ms(starts[SandboxMode.PROJECT]) / ms(starts[None]):.2f}")


if __name__ == "__main__":
    asyncio.run(main())
