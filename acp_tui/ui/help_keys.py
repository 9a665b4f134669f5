"""What the help screen lists: acp-tui's keys by where they work, read from the bindings with
the user's keymap applied (a remapped key shows remapped)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingType

from acp_tui.ui.key_labels import key_text
from acp_tui.ui.textual_internals import bound_keys

Row = tuple[str, str]
"""The keys (as written for people) and what they do."""

PROMPT_ROWS: tuple[Row, ...] = (
    ("enter", "send the prompt (queued while the agent works)"),
    ("ctrl+j", "a new line"),
    ("↑ ↓", "the prompts sent before"),
    ("/", "at the start: the agent's commands, then acp-tui's //commands"),
    ("@", "attach a file or directory (@src/app.py:10-40 for lines)"),
    ("?", "this help, when the prompt is empty"),
)
"""The prompt's keys that are not bindings (it reads them first, as a text field)."""


def binding_rows(app: App[Any], bindings: Iterable[BindingType]) -> list[Row]:
    """One row per binding (keys with the user's keymap applied), in order; a family numbered
    1…9 (`permission.option-N`, `workspace.tab-N`) is one row, its first and last keys."""
    rows: list[Row] = []
    families: dict[str, tuple[int, str]] = {}  # stem → its row, its first keys
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        keys = _keys(app, binding)
        stem, _, number = (binding.id or "").rpartition("-")
        what = binding.tooltip or binding.description  # (a tooltip says more than the footer)
        if not (stem and number.isdigit()):
            rows.append((keys, what))
        elif stem in families:
            row, first = families[stem]
            rows[row] = (f"{first} … {keys}", rows[row][1])
        else:
            families[stem] = (len(rows), keys)
            rows.append((keys, _family_description(what)))
    return rows


def _keys(app: App[Any], binding: Binding) -> str:
    keys = bound_keys(app, binding.id, binding.key) if binding.id else binding.key
    return " / ".join(key_text(app, key.strip()) for key in keys.split(",") if key.strip())


def _family_description(description: str) -> str:
    head, _, number = description.rpartition(" ")
    return f"{head} 1…9" if number.isdigit() and head else description


def sections(app: App[Any]) -> list[tuple[str, list[Row]]]:
    """Every context's keys: the conversation, a permission request, a tool call, a held write's
    review, the changes (f2), the tabs."""
    from acp_tui.ui.screens.changes_screen import ChangesScreen
    from acp_tui.ui.screens.main import MainScreen
    from acp_tui.ui.screens.review_screen import WriteReviewScreen
    from acp_tui.ui.widgets.frozen_history import FrozenHistory
    from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
    from acp_tui.ui.widgets.prompt_input import PromptInput
    from acp_tui.ui.widgets.subagent_lane import SubagentLaneView
    from acp_tui.ui.widgets.tool_call_card import CardLines, ToolCallCard
    from acp_tui.ui.widgets.turn_summary import TurnSummaryView
    from acp_tui.ui.workspace.tabs_app import WORKSPACE_BINDINGS

    tabs = [b for b in WORKSPACE_BINDINGS if isinstance(b, Binding)]
    app_keys = [b for b in type(app).BINDINGS if isinstance(b, Binding) and b not in tabs]
    palette = ("ctrl+p", "the command palette")  # (Textual's, not a binding of ours)
    conversation = [
        *PROMPT_ROWS,
        *binding_rows(app, PromptInput.BINDINGS),
        *binding_rows(app, [HELP_BINDING]),
        *binding_rows(app, MainScreen.BINDINGS),
        *binding_rows(app, app_keys),
        palette,
    ]
    entries = [
        *binding_rows(app, CardLines.BINDINGS),
        *binding_rows(app, ToolCallCard.BINDINGS),
        *binding_rows(app, TurnSummaryView.BINDINGS),
        *binding_rows(app, FrozenHistory.BINDINGS),
        *binding_rows(app, SubagentLaneView.BINDINGS),
    ]
    permission = [
        *binding_rows(app, PermissionPrompt.BINDINGS),
        ("enter", "press the option that has the focus"),
    ]
    return [
        ("Conversation and prompt", _unique(conversation)),
        ("On a permission request", permission),
        ("On a tool call, a turn's files, an earlier entry", entries),
        ("Reviewing a held write", binding_rows(app, WriteReviewScreen.BINDINGS)),
        ("Changes of the session (f2)", binding_rows(app, ChangesScreen.BINDINGS)),
        ("Sessions in tabs", binding_rows(app, tabs)),
    ]


def _unique(rows: Sequence[Row]) -> list[Row]:
    return list(dict.fromkeys(rows))


HELP_BINDING = Binding("f1", "help", "help", tooltip="keys, commands and settings", id="app.help")
"""The app's help key (`AcpApp.BINDINGS` has it)."""
