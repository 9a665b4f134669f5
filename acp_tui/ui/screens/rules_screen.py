"""The project's remembered permission rules: what each covers, revoke, edit a path rule's
scopes (e.g. widen `src/app.py` to `src/**`), and the default policy in effect."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from acp_tui.host.permission_rules import PermissionPolicy, PermissionRule, RuleEffect, RulesStore
from acp_tui.safe_text import safe_line, safe_text
from acp_tui.ui.plain import notify

POLICY_EXPLAINED = {
    PermissionPolicy.ASK: "ask for every tool call no rule covers",
    PermissionPolicy.ALLOW_READS: "allow read/search/fetch/think calls once; ask for the rest",
    PermissionPolicy.ALLOW_ALL_DANGEROUS: "allow EVERY tool call once without asking (dangerous)",
}


def format_created(created: str) -> str:
    """An ISO timestamp as local "YYYY-MM-DD HH:MM" (unparseable ones as stored)."""
    try:
        return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return created


def effect_cell(effect: RuleEffect) -> Text:
    """The rules table's cell for what a rule does (allow / reject)."""
    if effect is RuleEffect.ALLOW:
        return Text("✓ allow", style="bold green")
    return Text("✗ reject", style="bold red")


def covers_cell(rule: PermissionRule) -> Text:
    """What a rule covers: its paths/scopes (and title), or its exact command or URLs."""
    subject = rule.subject
    labels = {"paths": "paths", "argv": "argv", "shell": "shell", "url": "url"}
    # the values are what the agent sent, kept exact in the rule: made safe to show here
    text = Text(f"{safe_line(labels.get(subject.match_on, subject.match_on))} ", style="dim")
    if subject.match_on == "shell":
        text.append(safe_line(subject.values[0]))
    else:
        text.append(
            safe_line(
                shlex.join(subject.values)
                if subject.match_on == "argv"
                else "  ".join(subject.values)
            )
        )
    if subject.title is not None:
        text.append(" titled ", style="dim")
        text.append(safe_line(subject.title))
    if subject.cwd is not None:
        text.append(" in ", style="dim")
        text.append(safe_line(subject.cwd))
    return text


class RulesScreen(ModalScreen[None]):
    """Lists `store`'s rules (kind, what they cover, allow/reject, created); `d` revokes,
    `e` edits the paths and directory scopes of a path rule."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    RulesScreen > Vertical {
        width: 110; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    RulesScreen #rules-title { text-style: bold; }
    RulesScreen #rules-policy { margin: 1 0; }
    RulesScreen #rules-problems { color: $warning; margin-bottom: 1; }
    RulesScreen #rules-empty { color: $text-muted; margin: 1 0; }
    RulesScreen DataTable { height: auto; max-height: 20; }
    RulesScreen #rules-help { color: $text-muted; margin-top: 1; }
    RulesScreen #scope-editor { display: none; margin-top: 1; }
    RulesScreen #scope-editor.-editing { display: block; }
    """
    BINDINGS = [
        Binding("d", "revoke", "revoke rule", id="rules.revoke"),
        Binding("delete", "revoke", "revoke rule", show=False, id="rules.revoke_delete"),
        Binding("e", "edit_scopes", "edit scopes", id="rules.edit-scopes"),
        Binding("escape", "close", "close", id="rules.close"),
    ]

    def __init__(
        self,
        store: RulesStore,
        policy: PermissionPolicy = PermissionPolicy.ASK,
        *,
        config_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.policy = policy
        self.config_path = config_path
        self._unsubscribe: Callable[[], None] | None = None
        self._editing: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Permission rules for {self.store.project_dir}", id="rules-title", markup=False
            )
            yield Static(self._policy_text(), id="rules-policy")
            yield Static("", id="rules-problems", markup=False)
            yield Static(
                "No remembered rules. Answer a permission request with “Always allow” or "
                "“Always reject” to add one.",
                id="rules-empty",
                markup=False,
            )
            table: DataTable[str | Text] = DataTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("kind", "covers", "decision", "created")
            yield table
            yield Input(id="scope-editor", placeholder="paths or dir/** scopes, space-separated")
            yield Static(
                "d/Del revoke the highlighted rule · e edit its paths/scopes (dir/** covers a "
                "directory) · Esc close",
                id="rules-help",
            )

    def _policy_text(self) -> Text:
        text = Text.assemble(
            ("Default policy: ", "bold"),
            (
                self.policy.value,
                "bold red" if self.policy is PermissionPolicy.ALLOW_ALL_DANGEROUS else "bold",
            ),
            f" — {POLICY_EXPLAINED.get(self.policy, '')}. Rules take precedence.",
        )
        if self.config_path is not None:
            text.append(f"\nChange it with permission_policy in {self.config_path}", "dim")
        return text

    def on_mount(self) -> None:
        """Follow the rule store and list its rules."""
        self._unsubscribe = self.store.subscribe(self.refresh_rules)
        self.refresh_rules()
        self.query_one(DataTable).focus()

    def on_unmount(self) -> None:
        """Stop following the rule store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def refresh_rules(self) -> None:
        """Rebuild the table from the store, keeping the cursor near where it was."""
        table: DataTable[str | Text] = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for rule in self.store.rules:
            table.add_row(*self._cells(rule), key=rule.id)
        rules = self.store.rules
        if rules:
            table.move_cursor(row=min(max(row, 0), len(rules) - 1))
        table.display = bool(rules)
        self.query_one("#rules-empty").display = not rules
        problems = self.query_one("#rules-problems", Static)
        problems.update(safe_text("\n".join(self.store.messages[-5:])))
        problems.display = bool(self.store.messages)

    @staticmethod
    def _cells(rule: PermissionRule) -> tuple[str | Text, ...]:
        # Text, never str: a DataTable parses str cells as markup (rules quote the agent)
        return (
            Text(safe_line(rule.tool_kind)),
            covers_cell(rule),
            effect_cell(rule.effect),
            Text(safe_line(format_created(rule.created))),
        )

    def highlighted_rule(self) -> PermissionRule | None:
        """The rule under the table's cursor, if any."""
        table: DataTable[str | Text] = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return next((r for r in self.store.rules if r.id == row_key.value), None)

    def action_revoke(self) -> None:
        """Revoke the highlighted rule (saved at once; a failure to save is shown)."""
        rule = self.highlighted_rule()
        if rule is None:
            return
        before = len(self.store.messages)
        self.store.revoke(rule.id)  # persists and calls refresh_rules through the subscription
        if len(self.store.messages) > before:
            notify(self, self.store.messages[-1], severity="error")
        else:
            notify(self, f"Revoked: {rule.effect.value} {rule.describe()}", timeout=3)

    def action_edit_scopes(self) -> None:
        """Open the scope editor on the highlighted rule (rules for one exact command or URL have
        none).
        """
        rule = self.highlighted_rule()
        if rule is None:
            return
        if not rule.editable:
            notify(self, "This rule matches one exact command or URL; it has no scopes.")
            return
        self._editing = rule.id
        editor = self.query_one("#scope-editor", Input)
        editor.value = shlex.join(rule.subject.values)
        editor.add_class("-editing")
        editor.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Save the edited scopes (shell-split) of the rule being edited; a bad value is shown, not
        raised.
        """
        event.stop()
        rule_id, self._editing = self._editing, None
        if rule_id is None:
            return
        try:
            scopes = shlex.split(event.value)
            rule = self.store.set_scopes(rule_id, scopes)
        except ValueError as error:
            self._editing = rule_id
            notify(self, f"Not changed: {error}", severity="error")
            return
        self._stop_editing()
        notify(self, f"The rule now covers {rule.describe()}", timeout=3)

    def _stop_editing(self) -> None:
        self._editing = None
        self.query_one("#scope-editor", Input).remove_class("-editing")
        self.query_one(DataTable).focus()

    def action_close(self) -> None:
        """Leave the scope editor if open, else close the screen."""
        if self._editing is not None:
            self._stop_editing()
            return
        self.dismiss(None)
