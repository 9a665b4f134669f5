"""Subagent sessions in the app: a child is a folded lane in its parent's conversation (title,
state, what it holds), opened with Enter; its permission request is asked in the parent's tab
and answered there; `c` cancels a child that offers it; nothing of it is drawn as unknown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.session.overview import SessionWatch
from acp_tui.thread.entries import UnknownEntry
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.subagent_lane import SubagentLaneView
from acp_tui.ui.workspace.tab_bar import TabBar, bar_text
from tests.agents.scenarios import (
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app

CHILD = "sess-1/agent-1"
ASK = {
    "sessionId": CHILD,
    "toolCall": {"toolCallId": "t1", "title": "ls -la", "kind": "execute", "name": "Bash"},
    "options": [
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ],
}


def subagent(**fields: Any) -> dict[str, Any]:
    return update("sess-1", {"sessionUpdate": "subagent_update", "sessionId": CHILD, **fields})


def child_text(text: str) -> dict[str, Any]:
    chunk = {"type": "text", "text": text}
    return update(CHILD, {"sessionUpdate": "agent_message_chunk", "content": chunk})


def steps(*middle: dict[str, Any]) -> list[dict[str, Any]]:
    return [initialize_ok(), new_session_ok(), expect_prompt(), *middle, end_turn()]


async def lane_view(h: AppHarness) -> SubagentLaneView:
    await h.until(lambda: h.all(SubagentLaneView), "the subagent's lane")
    (view,) = h.all(SubagentLaneView)
    return view


async def test_a_childs_question_is_answered_in_the_parents_tab_and_its_lane_opens(
    tmp_path: Path,
) -> None:
    agent = write_scenario(tmp_path, steps(
        subagent(title="Explore", description="looks around", state={"state": "running"}),
        child_text("I will list the files."),
        update(CHILD, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls -la",
                       "kind": "execute", "status": "pending"}),
        client_request("session/request_permission", ASK, save_as="asked"),
        update(CHILD, {"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                       "status": "completed"}),
        subagent(state={"state": "idle", "stopReason": "end_turn"}),
    ))  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        h.one(ConversationView).freeze_finished_turns = False  # the lane stays a live widget
        await h.type_prompt("explore")
        view = await lane_view(h)
        await h.until(lambda: h.all(PermissionPrompt), "the child's question, in this tab")
        assert "Explore ▸ ls -la" in h.screen_text()
        h.all(PermissionPrompt)[0].take_focus()
        await h.until(lambda: h.all(PermissionPrompt)[0].has_focus_within, "the focus")
        await h.pilot.press("a")
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        await h.settle()
        answers = [f["result"] for f in agent.transcript() if "result" in f]
        assert {"outcome": {"outcome": "selected", "optionId": "yes"}} in answers
        lane = next(e for e in h.session.thread.entries if isinstance(e, SubagentLaneEntry))
        assert not lane.child.running
        assert lane.child.thread.tool_calls["t1"].status == "completed"
        asked = h.session.thread.tool_calls[f"{CHILD} ▸ t1"]
        assert asked.status == "completed"  # the card in the parent's tab followed
        view = await lane_view(h)
        assert not any(isinstance(e, UnknownEntry) for e in h.session.thread.entries)
        assert "I will list the files." not in h.screen_text()  # folded
        # title, state and what it holds first (a narrow screen cuts the description)
        assert "⧉ Explore  ✓ finished · 1 message, 1 tool call — looks around" in h.screen_text()
        view.focus()
        await h.pilot.press("enter")
        await h.settle()
        assert "I will list the files." in h.screen_text()
        assert "ls -la · Bash  ✓ completed" in h.screen_text()
        assert not h.sent_methods("session/load") and not h.sent_methods("session/resume")
        assert [f["params"]["sessionId"] for f in h.sent_methods("session/prompt")] == ["sess-1"]


async def test_c_cancels_a_child_that_offers_it_and_only_that_child(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [
        initialize_ok(), new_session_ok(), expect_prompt(),
        subagent(title="Build", state={"state": "running"}, capabilities={"cancel": {}}),
        {"wait_notify": "session/cancel"},
        subagent(state={"state": "idle", "stopReason": "cancelled"}),
        end_turn(),
    ])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("build")
        view = await lane_view(h)
        # the tab bar and the overview count the running child
        bar = h.one(TabBar)  # (shown with two tabs or more)
        await h.until(lambda: [label.subagents for label in bar.labels] == [1], "the tab count")
        assert bar_text([*bar.labels, *bar.labels], 120)[0].plain.count("⧉1") == 2
        assert SessionWatch(h.session).row().reason == "1 subagent running"
        view.focus()
        await h.pilot.press("c")
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        (cancel,) = h.sent_methods("session/cancel")
        assert cancel["params"] == {"sessionId": CHILD}
        await h.until(lambda: [label.subagents for label in bar.labels] == [0], "the count gone")
        assert "■ stopped: cancelled" in h.screen_text()


def test_state_snapshots_drive_the_tabs_state() -> None:
    """A subagent session at work makes the tab working though the parent's turn ended; one
    that says it waits for the user (`requires_action`) makes it need you; v2's own
    `requires_action` too; finished children leave it idle."""
    from types import SimpleNamespace
    from typing import cast

    from acp_tui.client.events import SessionState
    from acp_tui.thread.thread import Thread
    from acp_tui.ui.workspace.tab import SessionTab, TabState

    thread = Thread()
    thread.sessions.root_id = "sess-1"
    session = SimpleNamespace(state=SessionState.READY, thread=thread)
    tab = SessionTab(
        cast(Any, session), cast(Any, SimpleNamespace(pending=0)), cast(Any, None), "m"
    )
    states = [tab.state]

    def child(**fields: Any) -> None:
        params = subagent(**fields)["params"]
        thread.apply_notification(params)
        states.append(tab.state)

    child(state={"state": "running"})
    child(state={"state": "requires_action"})
    child(state={"state": "idle", "stopReason": "end_turn"})
    thread.set_state("requires_action")  # v2: the agent's own snapshot
    states.append(tab.state)
    assert states == [
        TabState.IDLE,
        TabState.WORKING,
        TabState.NEEDS_YOU,
        TabState.IDLE,
        TabState.NEEDS_YOU,
    ]


async def test_a_frozen_lane_opens_with_enter_on_the_history(tmp_path: Path) -> None:
    """After the turn its lane is frozen history, like every finished entry: Enter thaws it
    into a live lane that has the focus, and Enter again opens it."""
    from acp_tui.ui.widgets.frozen_history import FrozenHistory

    task = {
        "sessionUpdate": "session_message",
        "messageId": "m1",
        "senderSessionId": "sess-1",
        "recipientSessionId": CHILD,
        "content": [{"type": "text", "text": "go look"}],
    }
    agent = write_scenario(tmp_path, steps(
        subagent(title="Explore", state={"state": "running"}),
        update("sess-1", task),
        child_text("what the child found"),
        subagent(state={"state": "idle", "stopReason": "end_turn"}),
    ))  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("explore")
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        conversation = h.one(ConversationView)
        lane = next(e for e in h.session.thread.entries if isinstance(e, SubagentLaneEntry))
        await h.until(lambda: lane.id in conversation.frozen_entry_ids, "the lane frozen")
        history = conversation.query_children(FrozenHistory).first()
        history.focus()
        await h.settle()
        while history.cursor_entry is not lane:
            await h.pilot.press("up")
        await h.pilot.press("enter")
        await h.until(lambda: h.all(SubagentLaneView), "the lane thawed")
        (view,) = h.all(SubagentLaneView)
        await h.until(lambda: view.has_focus, "the lane focused")
        assert "what the child found" not in h.screen_text()
        await h.pilot.press("enter")
        await h.settle()
        screen = h.screen_text()
        assert "what the child found" in screen
        # its task, the message that started it, is drawn in the lane, first
        assert screen.index("→ to Explore: go look") < screen.index("what the child found")


async def test_an_open_lane_draws_the_childs_entries_as_the_parent_draws_them(
    tmp_path: Path,
) -> None:
    """Opened, a lane holds the child's own conversation drawn by the parent's renderers: a
    thought folded to its title, tool calls as cards (a finished one folded to its header, a
    click unfolds it; its terminal's output inside), what became of its permission request;
    a click inside acts on that entry alone, not the lane."""
    thought = {"type": "text", "text": "first the files"}
    agent = write_scenario(tmp_path, steps(
        subagent(title="Explore", state={"state": "running"}),
        update(CHILD, {"sessionUpdate": "agent_thought_chunk", "content": thought}),
        child_text("I will list the files."),
        update(CHILD, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "ls -la",
                       "kind": "execute", "status": "pending", "rawInput": {"cmd": "ls"}}),
        client_request("session/request_permission", ASK, save_as="asked"),
        update(CHILD, {"sessionUpdate": "tool_call_update", "toolCallId": "t1",
                       "status": "completed",
                       "content": [{"type": "content",
                                    "content": {"type": "text", "text": "a.py b.py"}}]}),
        client_request("terminal/create", {"sessionId": CHILD, "command": "echo",
                                           "args": ["hello from the child"]}, save_as="term"),
        client_request("terminal/wait_for_exit", {"sessionId": CHILD,
                                                  "terminalId": "$saved.term.result.terminalId"}),
        update(CHILD, {"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "echo",
                       "kind": "execute", "status": "in_progress",
                       "content": [{"type": "terminal",
                                    "terminalId": "$saved.term.result.terminalId"}]}),
        subagent(state={"state": "idle", "stopReason": "end_turn"}),
    ))  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        h.one(ConversationView).freeze_finished_turns = False  # the lane stays a live widget
        await h.type_prompt("explore")
        await h.until(lambda: h.all(PermissionPrompt), "the child's question, in this tab")
        h.all(PermissionPrompt)[0].take_focus()
        await h.until(lambda: h.all(PermissionPrompt)[0].has_focus_within, "the focus")
        await h.pilot.press("a")
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        view = await lane_view(h)
        view.focus()
        await h.pilot.press("enter")
        await h.settle()
        lines = view.text.splitlines()
        text = view.text
        assert "▶ 💭 thought" in text and "first the files" not in text  # folded, as above
        assert "I will list the files." in text
        header = next(y for y, line in enumerate(lines) if "ls -la · Bash" in line)
        assert "╭" in lines[header - 1] and lines[header].lstrip().startswith("│")  # a card
        assert "a.py b.py" in text and '"cmd"' not in text  # its output; raw input folded
        assert "✓ answered: Allow" in text  # its question, answered in this tab
        assert "hello from the child" in text  # the terminal's output, in its card

        def line_of(words: str) -> int:
            return next(y for y, line in enumerate(view.text.splitlines()) if words in line)

        # a click on a section's title opens it in that card alone; the lane stays open
        await h.pilot.click(view, offset=(8, line_of("▶ raw input")))
        await h.settle()
        assert '"cmd"' in view.text and "I will list the files." in view.text
        # a click on the card's header folds that card
        await h.pilot.click(view, offset=(8, line_of("ls -la · Bash")))
        await h.settle()
        assert "a.py b.py" not in view.text and "hello from the child" in view.text
        # a click on the thought's title opens it
        await h.pilot.click(view, offset=(8, line_of("💭 thought")))
        await h.settle()
        assert "first the files" in view.text and "I will list the files." in view.text
        assert not any(isinstance(e, UnknownEntry) for e in h.session.thread.entries)


async def test_malformed_subagent_updates_are_marked_never_drawn_as_unknown(
    tmp_path: Path,
) -> None:
    """A hostile agent's subagent traffic that does not read: each frame marked in the
    inspector, none drawn as an unknown entry; the child's lane counts what was about it (its
    last error, made safe, in the open lane), and what names no child is said once (a notice),
    whatever the number."""
    from tests.agents.hostile import SID, malformed_subagent_steps, shown_tag

    child = f"{SID}/child"
    flood = malformed_subagent_steps(child) * 3
    agent = write_scenario(tmp_path, [
        initialize_ok(), new_session_ok(SID), expect_prompt(), *flood, end_turn(),
    ])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        h.one(ConversationView).freeze_finished_turns = False  # the lane stays a live widget
        await h.type_prompt("go")
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        await h.until(lambda: "after the malformed ones" in h.screen_text(), "the text after")
        thread = h.session.thread
        assert not any(isinstance(e, UnknownEntry) for e in thread.entries)
        lane = next(e for e in thread.entries if isinstance(e, SubagentLaneEntry))
        assert lane.child.malformed == 6  # its cwd patch and its own chunk, three times
        assert thread.sessions.malformed == 15  # (a chunk whose block is no object reads)
        notices = [n.title for n in thread.notices]
        assert notices == ["The agent sent a malformed subagent update (ignored)"]
        from acp_tui.ui.widgets.subagent_lane import lane_title

        assert "⚠ 6 malformed updates ignored" in lane_title(lane.child)  # (cut on the screen)
        view = await lane_view(h)
        view.focus()
        await h.pilot.press("enter")
        await h.settle()
        assert "⚠ the last malformed update:" in view.text
        store = h.session.traffic_store
        kinds = {"subagent_update", "session_message", "session_message_chunk"}
        marked = [f for f in store.marked() if f.update in kinds]
        assert len(marked) == 18, [str(m) for f in store.marked() for m in f.marks]
        assert shown_tag("child") in h.screen_text()  # the payload made safe, not raw
