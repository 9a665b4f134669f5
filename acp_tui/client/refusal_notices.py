"""The notices that name a directory the sandbox refused the agent: after a crash (its stderr),
when a tool call ends with a refusal in its output (claude-agent-acp's Bash refused
`~/.claude/session-env`: the turn goes on, the refusal was only in the tool's result), and when
a turn ends (its error, the agent's stderr). One notice per directory per session; a crash
always gets one (its banner quotes it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from acp_tui.protocol.models.tools import Content, Terminal
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry

STDERR_LINES = 200
"""How much of the agent's stderr a crash or a turn's end is searched in (Node writes a
refusal's `Error:` line a dozen lines before its stack ends)."""
FINISHED = ("completed", "failed")


class RefusalNotices:
    """Watches one session's thread for refusals by its sandbox, and says each directory once.

    `policy`: the session's sandbox (None, or off: nothing is said); `say`: emits a notice;
    `stderr_tail(n)`: the agent's last stderr lines (made safe); `terminal_output(id)`: what a
    terminal of the session printed ("" when unknown)."""

    def __init__(
        self,
        policy: SandboxPolicy | None,
        say: Callable[[str], None],
        stderr_tail: Callable[[int], list[str]],
        terminal_output: Callable[[str], str] = lambda terminal_id: "",
    ) -> None:
        self.policy = policy
        self.say = say
        self.stderr_tail = stderr_tail
        self.terminal_output = terminal_output
        self.told: set[Path] = set()
        """The directories a notice named already."""
        self.said: list[str] = []
        """Every notice said, in order (`check` reports them)."""
        self._looked_at: set[str] = set()

    def on_change(self, change: ch.Change) -> None:
        """A thread change: a tool call that finished, a turn that ended."""
        if self.policy is None or not self.policy.active:
            return
        match change:
            case (
                ch.EntryAdded(entry=ToolCallEntry() as call)
                | ch.EntryChanged(entry=ToolCallEntry() as call)
            ) if call.status in FINISHED and call.tool_call_id not in self._looked_at:
                self._looked_at.add(call.tool_call_id)
                self.look_at(list(self._call_texts(call)))
            case ch.TurnStateChanged(running=False, error=error):
                self.look_at([error or "", *self.stderr_tail(STDERR_LINES)])
            case _:
                pass

    def look_at(self, texts: list[str]) -> None:
        """Say each directory refused in `texts` that no notice named yet."""
        if self.policy is None:
            return
        from acp_tui.sandbox.refusals import find_refusals, hint_for  # (its patterns: on first use)

        for refusal in find_refusals(self.policy, texts):
            if refusal.directory is None or refusal.directory in self.told:
                continue
            self.told.add(refusal.directory)
            self.said.append(hint_for(self.policy, refusal))
            self.say(self.said[-1])

    def crash_hint(self, crash_tail: list[str]) -> str | None:
        """The notice for an agent that ended: the refusal it wrote last (its longer stderr
        tail, else the crash's), said whether or not its directory was named before."""
        from acp_tui.sandbox.refusals import find_refusals, refusal_hint

        tail = self.stderr_tail(STDERR_LINES) or crash_tail
        hint = refusal_hint(self.policy, tail)
        for refusal in find_refusals(self.policy, tail):
            if refusal.directory is not None:
                self.told.add(refusal.directory)
        if hint is not None:
            self.said.append(hint)
        return hint

    def _call_texts(self, call: ToolCallEntry) -> Iterator[str]:
        for item in call.content:
            if isinstance(item, Content) and getattr(item.content, "type", None) == "text":
                yield str(getattr(item.content, "text", ""))
            elif isinstance(item, Terminal):
                yield self.terminal_output(item.terminal_id)
        yield from _strings(call.raw_output)


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """The strings in a tool's raw output (nested a little: `{"output": "…"}`)."""
    if isinstance(value, str):
        yield value
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < 3 and isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)
