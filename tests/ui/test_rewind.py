"""Rewind through the whole app, by keys: `e` on an earlier prompt and `//rewind`; Esc cancels and
nothing changes; Enter restores the files byte for byte (an agent writing through fs/*: the demo;
one writing itself: the scripted agent, seen by the change monitor); the prompt is back in the
composer; sending it opens the new branch; the old branch opens again from the session picker
with its files rewound forward; keys typed just before the confirmation do not confirm it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import OptionList, Static

from acp_tui.client import rewind_branches
from acp_tui.client.message_fork import CONTEXT_INTRO
from acp_tui.config import HoldWrites, Settings
from acp_tui.demo.sample_project import create_sample_project
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.rewind_screen import RewindScreen
from acp_tui.ui.screens.session_picker import SessionPicker
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.hostile import replaced_under_rewind
from tests.agents.scenarios import (
    agent_text,
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_file,
    write_scenario,
)
from tests.ui.app_harness import AppHarness, demo_argv, demo_env, fixed_cwd, plain, run_app
from tests.ui.conversation_text import focus_entry
from tests.ui.key_burst import press_at_once
from tests.ui.test_typing_through_questions import ManualClock, guarded

OLD_A = b"alpha\nbeta\r\ngamma \xe2\x80\x94 no final newline"


async def focus_prompt_entry(h: AppHarness, text: str) -> None:
    """The user's prompt `text` focused as a user does (in the frozen history once its turn
    ended: the history focused, its cursor walked there)."""
    entry = next(
        e for e in h.session.thread.entries
        if isinstance(e, MessageEntry) and e.role == "user" and e.text == text
    )  # fmt: skip
    await focus_entry(h.pilot, h.one(ConversationView), entry.id)


def composer_text(h: AppHarness) -> str:
    return h.app.screen.query_one(PromptInput).text


async def composer_holds(h: AppHarness, text: str) -> None:
    await h.until(lambda: composer_text(h) == text, f"the composer to hold {text!r}")


async def confirmation(h: AppHarness) -> RewindScreen:
    def shown() -> bool:  # (pushed is not yet composed: its list is there once it is)
        screen = h.app.screen
        return isinstance(screen, RewindScreen) and bool(screen.query("#rewind-files"))

    await h.until(shown, "the rewind confirmation")
    screen = h.app.screen
    assert isinstance(screen, RewindScreen)
    return screen


async def restore_then_send_instead(
    h: AppHarness, path: Path, before: bytes, rewound: str, text: str
) -> None:
    """Enter on the rewind's confirmation: `path` holds `before` again and the composer the
    rewound prompt `rewound`; then `text` is sent in its place."""
    await h.pilot.press("enter")
    await h.until(lambda: path.read_bytes() == before, f"{path.name} as it was")
    await h.until(lambda: composer_text(h) == rewound, "the prompt in the composer")
    prompt = h.app.screen.query_one(PromptInput)
    prompt.clear()
    prompt.focus()
    await press_at_once(h.pilot, *text)
    await h.pilot.press("enter")


async def rewind_forward_from_picker(h: AppHarness, session_id: str | None) -> RewindScreen:
    """f5, the session `session_id` selected in the picker, ctrl+r: its rewind-forward
    confirmation."""
    await h.pilot.press("f5")
    await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the session picker")
    picker = h.app.screen
    assert isinstance(picker, SessionPicker)
    await h.until(lambda: any(s.id == session_id for s in picker.sessions), "listed")
    for _ in range(len(picker.sessions)):
        if picker._selected() == session_id:
            break
        await h.pilot.press("down")
    await h.pilot.press("ctrl+r")
    return await confirmation(h)


async def demo_edit_allowed(h: AppHarness, edited: Callable[[], bool]) -> None:
    """The demo agent's `/edit`, allowed with `a` once its prompt has the focus; returns once
    `edited()` says the file changed and the turn has ended."""
    await h.type_prompt("/edit")
    await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
    (asking,) = h.all(PermissionPrompt)
    await h.until(lambda: asking.has_focus_within, "the prompt to take focus")
    await h.pilot.press("a")
    await h.until(edited, "the edit")
    await h.until(lambda: not h.session.turn_running, "the turn's end")


def listed(screen: RewindScreen) -> str:
    """The screen's text: the files listed, then what cannot be undone."""
    files = screen.query_one(OptionList)
    lines = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
    return "\n".join([*lines, *(plain(w) for w in screen.query(Static))])


def tool(call_id: str, kind: str, title: str, path: Path | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {"toolCallId": call_id, "title": title, "kind": kind,
                              "status": "completed"}  # fmt: skip
    if path is not None:
        fields["locations"] = [{"path": str(path)}]
    return update("sess-1", {"sessionUpdate": "tool_call", **fields})


async def test_an_agent_writing_itself_is_rewound_by_e_and_the_edit_goes_on_a_new_branch(
    tmp_path: Path,
) -> None:
    project = fixed_cwd(tmp_path).resolve()
    (project / "a.txt").write_bytes(OLD_A)
    (project / "gone.txt").write_text("deleted in turn 2\n")
    steps = [
        initialize_ok(promptCapabilities={"embeddedContext": True}), new_session_ok(),
        expect_prompt("p1"), agent_text("sess-1", "nothing to do yet"), end_turn("p1"),
        expect_prompt("p2"),
        tool("e1", "edit", "Edit a.txt", project / "a.txt"), write_file("a.txt", "rewritten\n"),
        tool("w1", "edit", "Write new.txt", project / "new.txt"), write_file("new.txt", "new\n"),
        tool("d1", "delete", "Delete gone.txt", project / "gone.txt"), write_file("gone.txt", None),
        tool("x1", "execute", "Run `make test`"),
        agent_text("sess-1", "done"), end_turn("p2"),
        new_session_ok("sess-2"), expect_prompt("p3"), agent_text("sess-2", "again"),
        end_turn("p3"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.prompt("look around")
        await h.prompt("change the files")
        await h.until(lambda: len(h.session.change_log.records) == 3, "the monitor's records")
        await h.caught_up()

        # e on the prompt, then Esc: nothing changes
        await focus_prompt_entry(h, "change the files")
        await h.pilot.press("e")
        screen = await confirmation(h)
        text = listed(screen)
        assert "+3 \N{MINUS SIGN}1 a.txt  reverted" in text
        assert "+0 \N{MINUS SIGN}1 new.txt  deleted: it did not exist before" in text
        assert "+1 \N{MINUS SIGN}0 gone.txt  recreated: deleted later by the agent" in text
        assert "$ Run `make test`: command ran, not undone" in text
        await h.pilot.press("escape")
        await h.until(lambda: any("nothing changed" in n for n in h.notified), "cancelled")
        assert (project / "a.txt").read_text() == "rewritten\n"
        assert (project / "new.txt").exists() and not (project / "gone.txt").exists()
        assert composer_text(h) == ""

        # again, Enter: the files as they were, byte for byte; the prompt in the composer
        await focus_prompt_entry(h, "change the files")
        await h.pilot.press("e")
        await confirmation(h)
        await h.pilot.press("enter")
        await h.until(lambda: composer_text(h) == "change the files", "the prompt in the composer")
        assert (project / "a.txt").read_bytes() == OLD_A
        assert not (project / "new.txt").exists()
        assert (project / "gone.txt").read_text() == "deleted in turn 2\n"
        assert any("3 file(s) restored" in n for n in h.notified)
        assert h.session.session_id == "sess-1", "the new branch opens when the prompt is sent"

        # send the edited prompt: a new session carrying the conversation before that prompt
        await press_at_once(h.pilot, *" only a.txt")  # typed at the end of the prompt
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "sess-2", "the new branch")
        await h.until(lambda: len(h.sent_methods("session/prompt")) == 3, "the prompt sent")
        params = h.sent_methods("session/prompt")[-1]["params"]
        intro, context, typed = params["prompt"]
        assert params["sessionId"] == "sess-2"
        assert intro == {"type": "text", "text": CONTEXT_INTRO}
        assert "look around" in context["resource"]["text"]
        assert "nothing to do yet" in context["resource"]["text"]
        assert "change the files" not in context["resource"]["text"]
        assert typed == {"type": "text", "text": "change the files only a.txt"}
        saved = list((project / ".acp-tui" / "branches").iterdir())
        assert len(saved) == 1, "the old branch's end, in acp-tui's own directory"
        assert h.session.change_log.records[-1].reverts is not None, "no own file recorded"


async def test_keys_typed_just_before_the_confirmation_do_not_confirm_it(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt("p1"),
        tool("w1", "edit", "Write new.txt", project / "new.txt"), write_file("new.txt", "new\n"),
        end_turn("p1"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    clock = ManualClock()
    async with run_app(agent.argv, project, app_kwargs=guarded(clock)) as h:
        await h.prompt("make a file")
        await h.until(lambda: h.session.change_log.records, "the monitor's record")
        clock.advance(10)
        await h.type_prompt("//rewind", send=False)
        clock.advance(10)
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the prompt picker")
        await h.pilot.press("enter")  # the only prompt
        await confirmation(h)
        await h.pilot.press("enter")  # at once: held, not an answer
        await h.pilot.pause()
        assert isinstance(h.app.screen, RewindScreen)
        assert (project / "new.txt").exists()
        clock.advance(10)  # it came just after the enter that sent //rewind: it waits
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert isinstance(h.app.screen, RewindScreen)
        assert (project / "new.txt").exists()
        await h.pilot.press("f4", "enter")  # chosen on purpose: enter restores
        await h.until(lambda: not (project / "new.txt").exists(), "the rewind")


async def test_demo_agent_rewind_by_command_then_forward_from_the_session_picker(
    tmp_path: Path,
) -> None:
    cwd = fixed_cwd(tmp_path).resolve()
    create_sample_project(cwd)
    app_py = cwd / "src" / "app.py"
    before = app_py.read_bytes()
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await demo_edit_allowed(h, lambda: app_py.read_bytes() != before)
        edited = app_py.read_bytes()
        await h.prompt("/terminal")
        old_session = h.session.session_id

        # //rewind: the picker, newest first; typing filters
        await h.type_prompt("//rewind")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the prompt picker")
        picker = h.app.screen
        assert isinstance(picker, ChoicePicker)
        assert [c.name for c in picker.choices] == ["You: /terminal", "You: /edit"]
        await h.pilot.press(*"edi")
        await h.pilot.press("enter")
        screen = await confirmation(h)
        text = listed(screen)
        assert "src/app.py  reverted" in text
        assert "$ ls -la: command ran, not undone" in text
        # send another prompt instead: the first prompt had nothing before it, a new session
        await restore_then_send_instead(h, app_py, before, "/edit", "/help")
        await h.until(lambda: h.session.session_id not in (None, old_session), "the new branch")
        await h.until(lambda: h.sent_methods("session/prompt")[-1]["params"]["prompt"] == [
            {"type": "text", "text": "/help"}], "the prompt sent there")  # fmt: skip
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        assert app_py.read_bytes() == before

        # f5: the old branch, ctrl+r: opened again and its files rewound forward
        screen = await rewind_forward_from_picker(h, old_session)
        assert h.session.session_id == old_session
        assert "src/app.py  restored" in listed(screen)
        await h.pilot.press("enter")
        await h.until(lambda: app_py.read_bytes() == edited, "app.py as the old branch left it")
        await h.until(lambda: any("Rewound forward" in n or "restored" in n for n in h.notified),
                      "the summary")  # fmt: skip


async def test_files_the_user_changed_after_the_agent_are_asked_about(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    (project / ".gitignore").write_text("*.cfg\n")  # the monitor does not watch these
    (project / "a.cfg").write_text("a0\n")
    (project / "b.cfg").write_text("b0\n")
    writes = [
        client_request("fs/write_text_file", {"sessionId": "sess-1", "path": str(project / name),
                                              "content": f"{name} by the agent\n"})
        for name in ("a.cfg", "b.cfg")
    ]  # fmt: skip
    steps = [initialize_ok(), new_session_ok(), expect_prompt("p1"), *writes, end_turn("p1")]
    agent = write_scenario(tmp_path, steps)
    unheld = {"settings": Settings(hold_writes=HoldWrites.NEVER)}
    async with run_app(agent.argv, project, session_kwargs=unheld) as h:
        await h.prompt("configure")
        await h.until(lambda: len(h.session.change_log.records) == 2, "the agent's writes")
        (project / "a.cfg").write_text("a: mine\n")
        (project / "b.cfg").write_text("b: mine\n")
        await h.type_prompt("//rewind")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the prompt picker")
        await h.pilot.press("enter")
        screen = await confirmation(h)
        mine = "you (or another program) changed it since the agent: keep yours"
        assert listed(screen).count(mine) == 2
        await h.pilot.press("down", "o")  # b.cfg: overwrite
        await h.until(lambda: "OVERWRITE" in listed(screen), "b.cfg marked")
        assert "b.cfg  reverted  ⚠ changed since the agent: OVERWRITE" in listed(screen)
        await h.pilot.press("enter")
        await h.until(lambda: (project / "b.cfg").read_text() == "b0\n", "b.cfg restored")
        assert (project / "a.cfg").read_text() == "a: mine\n", "not overwritten silently"
        await h.until(lambda: any("1 file(s) restored" in n for n in h.notified), "the summary")
        summary = next(n for n in h.notified if "1 file(s) restored" in n)
        kept = "kept a.cfg: you (or another program) changed it after the agent: yours is kept"
        assert kept in summary


async def test_rewinding_again_before_sending_keeps_the_old_branch_end(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    steps = [
        initialize_ok(), new_session_ok(),
        expect_prompt("p1"), tool("w1", "edit", "Write one.txt", project / "one.txt"),
        write_file("one.txt", "one\n"), end_turn("p1"),
        expect_prompt("p2"), tool("w2", "edit", "Write one.txt", project / "one.txt"),
        write_file("one.txt", "one, then two\n"), end_turn("p2"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.prompt("first")
        await h.prompt("second")
        await h.until(lambda: len(h.session.change_log.records) == 2, "the monitor's records")
        for text, left in (("second", b"one\n"), ("first", None)):
            await h.caught_up()
            await focus_prompt_entry(h, text)
            await h.pilot.press("e")
            await confirmation(h)
            await h.pilot.press("enter")
            await composer_holds(h, text)
            if left is None:
                assert not (project / "one.txt").exists()
            else:
                assert (project / "one.txt").read_bytes() == left
        [saved] = (project / ".acp-tui" / "branches").iterdir()
        branch = rewind_branches.decode(saved.read_bytes(), project)
        assert branch.files == (
            rewind_branches.BranchFile(project / "one.txt", b"one, then two\n", None),
        ), "the end is what the first rewind found, not what it left"


async def test_files_the_agent_replaced_under_a_rewind(tmp_path: Path) -> None:
    """The hostile agent's replaced files (issue 40, item 5): the rewind opens (no crash on the
    link, no hang on the FIFO, the 300 MB file unread), says what it cannot restore, asks before
    writing through the link, and ctrl+q ends the app."""
    project = fixed_cwd(tmp_path).resolve()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside, not the agent's\n")
    (project / "link.txt").write_text("the user's, before the session\n")
    steps = [initialize_ok(), new_session_ok(), *replaced_under_rewind(project, outside)]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.prompt("write them")
        await h.until(lambda: len(h.session.change_log.records) >= 3, "the monitor's records")
        await h.prompt("now replace them")
        await h.until(lambda: (project / "fifo.txt").is_fifo(), "the FIFO")
        await h.caught_up()

        await focus_prompt_entry(h, "write them")
        await h.pilot.press("e")
        screen = await confirmation(h)
        text = listed(screen)
        assert f"link.txt  now leads to {outside}" in text
        assert "⚠ left as it is (o restores it, asking first)" in text
        assert "fifo.txt: unknown, it is now a FIFO, device or socket: not restorable" in text
        assert (
            f"big.txt: unknown, it is now {300 * 1024 * 1024} bytes, over the read limit of "
            f"{h.session.reverts.max_bytes}: not restorable"
        ) in text
        await h.pilot.press("o")  # overwrite the link's step: the revert asks first
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the revert's question")
        assert isinstance(h.app.screen, QuestionScreen)
        assert h.app.screen.question.title == "link.txt now leads somewhere else"
        await h.pilot.press("escape")
        await h.until(lambda: any("not restored link.txt" in n for n in h.notified), "report")
    assert outside.read_text() == "outside, not the agent's\n"


async def test_the_old_branch_saved_outside_is_asked_about_as_the_rewind(tmp_path: Path) -> None:
    """Issue 40: the question was titled "The export wants to write…"."""
    project = fixed_cwd(tmp_path).resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".acp-tui").symlink_to(elsewhere)  # its own directory now leads outside
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt("p1"),
        tool("w1", "edit", "Write new.txt", project / "new.txt"), write_file("new.txt", "new\n"),
        end_turn("p1"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.prompt("make a file")
        await h.until(lambda: h.session.change_log.records, "the monitor's record")
        await h.caught_up()
        await focus_prompt_entry(h, "make a file")
        await h.pilot.press("e")
        await confirmation(h)
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the outside question")
        asking = h.app.screen
        assert isinstance(asking, QuestionScreen)
        assert asking.question.title == (
            "The rewind (saving the old branch's files) wants to write a path outside the "
            "session directory"
        )
        await h.pilot.press("escape")
        await h.until(lambda: any("Not rewound" in n for n in h.notified), "not rewound")
    assert (project / "new.txt").exists() and not list(elsewhere.iterdir())


async def test_a_new_branch_keeps_mode_model_options_and_title_and_hears_no_old_screen(
    tmp_path: Path,
) -> None:
    """Issue 39, 9: the new branch went back to mode Ask and model Demo Quick from the Code
    and Demo Careful chosen, the title left the status bar, and the next prompt gave "Internal
    error … session state: NoMatches" (the replaced screen still heard the session while its
    widgets were being removed)."""
    from acp_tui.demo.content import SESSION_TITLE
    from acp_tui.ui.widgets.status_bar import StatusBar

    cwd = fixed_cwd(tmp_path).resolve()
    create_sample_project(cwd)
    app_py = cwd / "src" / "app.py"
    before = app_py.read_bytes()
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await demo_edit_allowed(h, lambda: app_py.read_bytes() != before)
        assert await h.session.choose_mode("code") is None
        assert await h.session.set_config_option("model", "demo-careful") is None
        assert await h.session.set_config_option("effort", "high") is None
        old_session = h.session.session_id
        await h.type_prompt("//rewind")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the prompt picker")
        await h.pilot.press("enter")
        await confirmation(h)
        await restore_then_send_instead(h, app_py, before, "/edit", "/help")
        await h.until(lambda: h.session.session_id not in (None, old_session), "the new branch")
        await h.until(lambda: not h.session.turn_running and h.session.thread.entries, "its turn")
        thread = h.session.thread
        values = {o.id: o.current_value for o in thread.config_options}
        assert thread.current_mode_id == "code"
        assert values["model"] == "demo-careful" and values["effort"] == "high"
        assert thread.title == SESSION_TITLE
        status = h.app.screen.query_one(StatusBar)
        await h.until(lambda: status.mode == "Code" and "Careful" in status.model, "the bar")
        assert status.title == SESSION_TITLE
        await h.prompt("/help look at @src/app.py and summarise")
        assert not [n for n in h.notified if "Internal error" in n]


async def test_a_replaced_main_screen_hears_its_session_no_more(tmp_path: Path) -> None:
    """From the moment a tab's screen is replaced (a new branch, another session opened in the
    tab) it hears nothing: its widgets are removed before its own unmount, and a change heard
    in between raised NoMatches ("Internal error … session state: NoMatches", issue 39, 9)."""
    from acp_tui.thread import thread_changes
    from acp_tui.ui.widgets.status_bar import StatusBar

    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env()) as h:
        await h.until(lambda: h.session.session_id is not None, "the session")
        tab = h.app.current_tab
        old = tab.screen
        assert old is not None
        bar = old.query_one(StatusBar)
        h.session.thread.generation += 1  # (as a new session in the thread makes it)
        h.app.show_current_thread(tab)
        h.session.thread.title = "heard by the old screen?"
        h.session.thread.changed.emit(thread_changes.InfoChanged())
        assert bar.title != "heard by the old screen?"
        await h.until(lambda: tab.screen is not None and tab.screen is not old, "the new one")
