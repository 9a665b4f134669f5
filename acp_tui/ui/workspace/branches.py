"""Rewind's requests to the app (a base of `WorkspaceApp`), each for the tab of the session that
asked: rewind there (`e`, `//rewind`), send the edited prompt on a new branch, and open an old
branch a rewind left (f5, `w`) in a new tab of the same agent and directory, its files rewound
forward there. The rewinding itself is `ui/rewind_actions.py`'s."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.app import App

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
    from acp_tui.ui.screens.session_picker import PickedSession
    from acp_tui.ui.workspace.spec import SessionSpec, SpawnSession
    from acp_tui.ui.workspace.tab import SessionTab


class BranchActions(App[int]):
    """What rewind asks of the app."""

    spawn: SpawnSession | None

    def tab_of(self, session: object) -> SessionTab | None:
        raise NotImplementedError  # WorkspaceApp's

    async def open_picked(self, picked: PickedSession, tab: SessionTab | None = None) -> None:
        raise NotImplementedError  # AcpApp's

    async def open_tab(
        self, spec: SessionSpec, *, show: bool = True, request: OpenRequest | None = None
    ) -> SessionTab | None:
        raise NotImplementedError  # WorkspaceApp's

    def show_current_thread(self, tab: SessionTab | None = None) -> None:
        raise NotImplementedError  # AcpApp's

    @on(RewindHere)
    def _rewind_here(self, message: RewindHere) -> None:
        tab = self.tab_of(message.session)
        if tab is not None and tab.screen is not None:
            from acp_tui.ui import rewind_actions  # (at a rewind, not at the start)

            rewind_actions.rewind_here(tab.screen)

    @on(RewindAsk)
    def _rewind_ask(self, message: RewindAsk) -> None:
        tab = self.tab_of(message.session)
        if tab is not None and tab.screen is not None:
            from acp_tui.ui import rewind_actions

            rewind_actions.ask_prompt(tab.screen)

    @on(SendOnBranch)
    def _send_on_branch(self, message: SendOnBranch) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            work = self.send_on_branch(tab, message.point, message.text)
            self.run_worker(work, group=f"open-{tab.mode}", exclusive=True)

    @on(OpenBranch)
    def _open_branch(self, message: OpenBranch) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            self.run_worker(self.open_branch(tab, message.session_id), group="open-branch")

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
            self.show_current_thread(tab)
            failed = outcome if isinstance(outcome, str) else None
            if failed is None:
                session_history.remember(session)
                for problem in outcome.problems if not isinstance(outcome, str) else ():
                    notify(self, f"The new branch did not take {problem}", severity="warning")
            if failed is not None:
                notify(self, f"Could not start the new branch: {failed}", severity="error")
                if tab.screen is not None:
                    for prompt_input in tab.screen.query(PromptInput).results(PromptInput):
                        prompt_input.load_text(text)
                        prompt_input.focus()
                return
            notify(self, "New branch: the old one stays in the session list (f5).")
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
            notify(self, f"Cannot rewind forward: {error}", severity="error")
            return
        if branch is None:
            notify(self, "No file state was saved for that session (it was not left by a rewind).")
            return
        if tab.session.session_id != session_id and self.spawn is None:
            # an app that opens no other session (a replay, a test): in this tab, as it was
            from acp_tui.ui.screens.session_picker import PickedSession

            await self.open_picked(PickedSession("open", session_id), tab)
            if tab.session.session_id != session_id:
                return  # (the app said why)
        elif tab.session.session_id != session_id:
            opened = await self.open_tab(tab.spec, request=OpenRequest(resume_id=session_id))
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
        overwrite = await self.push_screen_wait(RewindScreen(plan, cwd, title, forward=True))
        if overwrite is None:
            notify(self, "Rewind forward cancelled: nothing changed.")
            return
        result = await rewind.apply_plan(plan, session.reverts, overwrite=overwrite)
        rewind_actions.report(self, result, cwd, "Rewound forward")
