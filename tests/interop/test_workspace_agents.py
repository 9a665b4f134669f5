"""Two real agents open at once in the workspace, each in its own git worktree (issue 20).

claude-agent-acp (writes its files itself) in tab 1 and qwen (writes through fs/*) in tab 2, each
in a git worktree of one repository holding notes.txt, each with its own fake LLM (it serves one
directory). `//all` sends one prompt to both; each tab's permission requests are answered by
going to that tab (alt+N) and pressing `a`. Afterwards: both worktrees got hello.txt and the edit
of notes.txt, the main checkout is unchanged, both turns ended, each agent got exactly the
answers pressed in its own tab (counted on the wire), and ctrl+q leaves no agent process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.protocol.process_tree import descendants, snapshot
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.tab import SessionTab
from acp_tui.worktrees.worktrees import create_worktree
from tests.git_repo import make_repo, run_git
from tests.interop.agents import BY_NAME
from tests.interop.conftest import NOTES, agent_for, start_fake_llm
from tests.ui.app_harness import AppHarness, run_app

AGENTS = ("claude-agent-acp", "qwen")  # writes itself; writes through fs/*
PROMPT = "Please do the task."
START_SECONDS = 90.0
TURN_SECONDS = 300.0
EXIT_SECONDS = 30.0


class Answers:
    """One agent's permission requests and the answers acp-tui sent it, as seen on its wire."""

    def __init__(self) -> None:
        self.asked: set[Any] = set()
        self.answered: list[Any] = []

    def tap(self, event: Any) -> None:
        try:
            frame = json.loads(event.raw)
        except ValueError:
            return
        if not isinstance(frame, dict):
            return
        if event.direction == "in" and frame.get("method") == "session/request_permission":
            self.asked.add(frame.get("id"))
        elif event.direction == "out" and "method" not in frame and frame.get("id") in self.asked:
            self.answered.append(frame["id"])


def spawner(settings: Settings, answers: Answers) -> Any:
    """The `SpawnSession` of the later tabs: the spec's own env (its fake LLM's port)."""

    def spawn(bridge: ScreenUi, spec: SessionSpec) -> AgentSession:
        env = dict(spec.env)
        sandbox = BY_NAME[spec.argv[-1]].sandbox()  # the default, in the HOME agent.sh gives it
        session = AgentSession(
            list(spec.argv), spec.cwd, bridge, env_extra=env, settings=settings, sandbox=sandbox
        )
        session.traffic.subscribe(answers.tap)
        return session

    return spawn


def asking(h: AppHarness) -> list[SessionTab]:
    """The tabs with a question for the user."""
    return [tab for tab in h.app.tabs if tab.state.value == "needs you"]


def running(h: AppHarness) -> bool:
    return any(tab.session.thread.turn_running for tab in h.app.tabs)


async def answer_in_its_tab(h: AppHarness, tab: SessionTab) -> None:
    """Go to `tab` by alt+N, wait for its prompt to take the focus, press `a`."""
    number = h.app.tabs.index(tab) + 1
    if h.app.current_tab is not tab:
        await h.pilot.press(f"alt+{number}")
        await h.until(lambda: h.app.current_tab is tab and tab.screen is not None, "the switch")
    screen = tab.screen
    assert screen is not None
    await h.until(
        lambda: bool(screen.open_prompts()) and screen.open_prompts()[0].has_focus_within,
        f"tab {number}'s permission prompt, focused",
        seconds=20,
    )
    prompt = screen.open_prompts()[0]
    await h.pilot.press("a")
    await h.until(lambda: not prompt.ask.open, f"tab {number}'s prompt answered by `a`")


async def answer_until_both_turns_end(h: AppHarness, answers: list[Answers]) -> list[int]:
    """Answer every question in its own tab; how many `a` were pressed in each tab."""
    pressed = [0, 0]
    while True:
        await h.until(
            lambda: asking(h) or not running(h), "a question or both turns' end", TURN_SECONDS
        )
        tabs = asking(h)
        if not tabs:
            return pressed
        index = h.app.tabs.index(tabs[0])
        other = answers[1 - index].answered[:]
        await answer_in_its_tab(h, tabs[0])
        pressed[index] += 1
        assert answers[1 - index].answered == other, "a key in one tab answered the other's"


def agent_processes(h: AppHarness) -> dict[int, int]:
    """Every process of both agents' trees now (pid -> start time)."""
    procs = snapshot()
    roots = [tab.session.connector.process for tab in h.app.tabs]
    pids = descendants([p.pid for p in roots if p is not None], procs)
    assert len([p for p in roots if p is not None]) == 2
    return {pid: procs[pid].start for pid in pids}


def still_running(known: dict[int, int]) -> set[int]:
    """The pids of `known` that still name the same process, zombies left out."""
    procs = snapshot()
    return {pid for pid, start in known.items()
            if pid in procs and procs[pid].start == start and procs[pid].state != "Z"}  # fmt: skip


async def until_gone(known: dict[int, int]) -> set[int]:
    """Wait until none of `known` runs; those still running at the deadline."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(EXIT_SECONDS):
            while True:
                if not still_running(known):
                    break
                await asyncio.sleep(0.05)  # polling /proc: nothing to wait on for another's exit
    return still_running(known)


async def test_two_real_agents_in_two_worktrees_by_keys(kit: Path, tmp_path: Path) -> None:
    agents = [agent_for(name) for name in AGENTS]
    repo = make_repo(tmp_path, {"notes.txt": NOTES})
    trees = [await create_worktree(repo, name) for name in AGENTS]
    assert len({tree.cwd for tree in trees} | {repo}) == 3
    answers = [Answers(), Answers()]
    settings = Settings(hold_writes=HoldWrites.NEVER)
    argv = [[str(kit / "agent.sh"), name] for name in AGENTS]
    async with contextlib.AsyncExitStack() as stack:
        envs = []
        for agent, tree in zip(agents, trees, strict=True):
            log = tmp_path / f"fake_llm-{agent.name}.jsonl"
            llm = await stack.enter_async_context(start_fake_llm(kit, tree.cwd, log))
            envs.append({**llm.env, **agent.env()})
        second = SessionSpec(tuple(argv[1]), trees[1].cwd, worktree=trees[1], env=envs[1])
        app_kwargs = {"spawn": spawner(settings, answers[1]), "more": (second,)}
        async with run_app(
            argv[0],
            trees[0].cwd,
            env=envs[0],
            wait_ready=False,
            session_kwargs={"settings": settings, "sandbox": agents[0].sandbox()},
            allow_unknown_methods=True,
            app_kwargs=app_kwargs,
        ) as h:
            await h.until(
                lambda: (
                    len(h.app.tabs) == 2
                    and all(tab.session.state.value == "ready" for tab in h.app.tabs)
                ),
                "both agents ready",
                seconds=START_SECONDS,
            )
            h.app.tabs[0].session.traffic.subscribe(answers[0].tap)
            assert [tab.session.cwd for tab in h.app.tabs] == [tree.cwd for tree in trees]
            for tab, tree in zip(h.app.tabs, trees, strict=True):  # each in its own worktree
                sandbox = tab.session.sandbox
                assert sandbox is not None and sandbox.active
                assert sandbox.writable[0] == tree.cwd.resolve()
                in_main = [p for p in sandbox.writable if p.is_relative_to(repo.resolve())]
                assert all(p.relative_to(repo.resolve()).parts[:1] == (".git",) for p in in_main)
            await h.type_prompt(f"//all {PROMPT}")
            await h.until(
                lambda: all(tab.session.thread.turn_running or tab.session.thread.last_stop_reason
                            for tab in h.app.tabs),
                "both turns started",
            )  # fmt: skip
            pressed = await answer_until_both_turns_end(h, answers)
            await h.settle()

            for tab, got, count in zip(h.app.tabs, answers, pressed, strict=True):
                assert tab.session.crash is None
                assert tab.session.thread.last_stop_reason == "end_turn", tab.agent
                assert count > 0, f"{tab.agent} asked nothing"
                assert len(got.answered) == count and set(got.answered) <= got.asked, tab.agent
            for tree in trees:
                assert (tree.cwd / "notes.txt").read_text() == NOTES.replace("old line", "new line")
                assert (tree.cwd / "hello.txt").read_text().startswith("Hello from the fake LLM!")
            assert (repo / "notes.txt").read_text() == NOTES
            assert not (repo / "hello.txt").exists()
            assert run_git(repo, "status", "--porcelain") == ""

            known = agent_processes(h)
            await h.pilot.press("ctrl+q")
            assert await until_gone(known) == set(), "agent processes left after quitting"
