"""Rewind's requests to the app (an object `WorkspaceApp` owns: `branches`), each for the tab of
the session that asked: rewind there (`e`, `//rewind`), send the edited prompt on a new branch,
and open an old branch a rewind left (f5, `w`) in a new tab of the same agent and directory, its
files rewound forward there. The rewinding itself is `ui/rewind_actions.py`'s."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from acp_tui.client.session import history as session_history
from acp_tui.client.session.history import OpenRequest
from acp_tui.safe_text import safe_line
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.messages import (
    OpenBranch,
    RewindAsk,
    RewindHere,
    RewindPoint,
    SendOnBranch,
)

if TYPE_CHECKING:
    from acp_tui.ui.workspace.app_port import WorkspaceAppPort
    from acp_tui.ui.workspace.tab import SessionTab


class BranchActions:
    """What rewind asks of the app (the app's handlers of these messages delegate here)."""

    def __init__(self, app: WorkspaceAppPort) -> None:
        self.app = app

    def rewind_here(self, message: RewindHere) -> None:
        """Rewind to before a prompt of the session's (`e`)."""
        tab = self.app.tab_of(message.session)
        if tab is not None and tab.screen is not None:
            from acp_tui.ui import rewind_actions  # (at a rewind, not at the start)

            rewind_actions.rewind_here(tab.screen)

    def rewind_ask(self, message: RewindAsk) -> None:
        """`//rewind`: pick the prompt to rewind to."""
        tab = self.app.tab_of(message.session)
        if tab is not None and tab.screen is not None:
            from acp_tui.ui import rewind_actions

            rewind_actions.ask_prompt(tab.screen)

    def send_on_branch_asked(self, message: SendOnBranch) -> None:
        """The edited prompt of a rewind, to send on a new branch (`send_on_branch`)."""
        tab = self.app.tab_of(message.session)
        if tab is not None:
            work = self.send_on_branch(tab, message.point, message.text)
            self.app.run_worker(work, group=f"open-{tab.mode}", exclusive=True)

    def open_branch_asked(self, message: OpenBranch) -> None:
        """An old branch to open (`open_branch`)."""
        tab = self.app.tab_of(message.session)
        if tab is not None:
            work = self.open_branch(tab, message.session_id)
            self.app.run_worker(work, group="open-branch")

    async def send_on_branch(self, tab: SessionTab, point: RewindPoint, text: str) -> None:
        """The edited prompt: open the new branch in the tab, then send it there."""
        session = tab.session
        if session.session_id == point.session_id:
            session_history.remember(session)
            from acp_tui.client import message_fork

            if point.before is None:  # the first prompt: a new session, its settings kept
                outcome = await message_fork.start_fresh(session)
            else:
                outcome = await message_fork.continue_from(session, point.before)
            self.app.show_current_thread(tab)
            failed = outcome if isinstance(outcome, str) else None
            if failed is None:
                session_history.remember(session)
                for problem in outcome.problems if not isinstance(outcome, str) else ():
                    notify(self.app, f"The new branch did not take {problem}", severity="warning")
            if failed is not None:
                notify(self.app, f"Could not start the new branch: {failed}", severity="error")
                if tab.screen is not None:
                    for prompt_input in tab.screen.query(PromptInput).results(PromptInput):
                        prompt_input.load_text(text)
                        prompt_input.focus()
                return
            notify(self.app, "New branch: the old one stays in the session list (f5).")
        session.submit(text)

    async def open_branch(self, tab: SessionTab, session_id: str) -> None:
        """Open the old branch `session_id` in a new tab of `tab`'s agent and directory (in
        `tab` itself when it is that session already), then rewind its files forward."""
        from acp_tui.client import rewind, rewind_branches
        from acp_tui.ui import rewind_actions
        from acp_tui.ui.screens.rewind_screen import RewindScreen

        cwd = tab.session.cwd
        try:
            branch = await rewind_branches.load(cwd, session_id)
        except rewind_branches.BranchError as error:
            notify(self.app, f"Cannot rewind forward: {error}", severity="error")
            return
        app = self.app
        if branch is None:
            notify(app, "No file state was saved for that session (it was not left by a rewind).")
            return
        if tab.session.session_id != session_id and app.spawn is None:
            # an app that opens no other session (a replay, a test): in this tab, as it was
            from acp_tui.ui.screens.session_picker import PickedSession

            await app.open_picked(PickedSession("open", session_id), tab)
            if tab.session.session_id != session_id:
                return  # (the app said why)
        elif tab.session.session_id != session_id:
            opened = await app.open_tab(tab.spec, request=OpenRequest(resume_id=session_id))
            if opened is None or opened.starting is None:
                return
            await opened.starting.wait()
            if opened.session.session_id != session_id:
                return  # (its tab says why)
            tab = opened
        session = tab.session
        plan = await asyncio.to_thread(
            rewind_branches.plan_forward,
            branch,
            session.change_log,
            max_bytes=session.reverts.max_bytes,
        )
        after = safe_line(" ".join(branch.prompt.split())[:60])
        title = f"Rewind forward: the files as that branch left them (it went on from “{after}”)"
        overwrite = await app.push_screen_wait(RewindScreen(plan, cwd, title, forward=True))
        if overwrite is None:
            notify(self.app, "Rewind forward cancelled: nothing changed.")
            return
        result = await rewind.apply_plan(plan, session.reverts, overwrite=overwrite)
        rewind_actions.report(app, result, cwd, "Rewound forward")
