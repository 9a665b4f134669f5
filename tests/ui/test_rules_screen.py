"""RulesScreen driven by a Pilot: lists rules and the policy, revokes to disk, edits a path
rule's scopes, closes on Esc."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import DataTable, Input, Static

from acp_tui.host.permission_rules import PermissionPolicy, RuleEffect, RulesStore, ToolCallFacts
from acp_tui.ui.screens.rules_screen import RulesScreen


class RulesApp(App[None]):
    def __init__(self, screen: RulesScreen) -> None:
        super().__init__()
        self.rules_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.rules_screen)


def remember(store: RulesStore, kind: str, raw_input: Any, effect: RuleEffect) -> None:
    subject = ToolCallFacts.build(kind, "t", raw_input, root=store.project_dir).subject()
    assert subject is not None
    store.remember(kind, subject, effect)


def make_store(tmp_path: Path) -> RulesStore:
    store = RulesStore(tmp_path, tmp_path / "rules.json")
    remember(store, "execute", {"command": "ls -la"}, RuleEffect.ALLOW)
    remember(store, "delete", {"path": "a.txt"}, RuleEffect.REJECT)
    remember(store, "read", {"path": "README.md"}, RuleEffect.ALLOW)
    return store


def saved_patterns(tmp_path: Path) -> list[str]:
    rules = json.loads((tmp_path / "rules.json").read_text())["rules"]
    return [" ".join(r["values"]) for r in rules]


def row_texts(table: DataTable[Any]) -> list[str]:
    return [" ".join(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


async def test_lists_rules_and_policy_and_revokes_to_disk(tmp_path):
    store = make_store(tmp_path)
    screen = RulesScreen(store, PermissionPolicy.ALLOW_READS, config_path=Path("/c/config.toml"))
    app = RulesApp(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        table = screen.query_one(DataTable)
        rows = row_texts(table)
        assert len(rows) == 3
        assert rows[0].startswith("execute shell ls -la ✓ allow")
        assert rows[1].startswith("delete paths a.txt ✗ reject")
        policy = str(screen.query_one("#rules-policy", Static).render())
        assert "allow_reads" in policy and "/c/config.toml" in policy

        await pilot.press("down")  # highlight the delete rule
        await pilot.press("d")
        assert [r.describe() for r in store.rules] == ["execute `ls -la`", "read README.md"]
        assert saved_patterns(tmp_path) == ["ls -la", "README.md"]
        assert len(row_texts(table)) == 2
        assert RulesStore(tmp_path, tmp_path / "rules.json").rules == store.rules

        await pilot.press("delete")  # cursor stays on row 1, now the read rule
        assert saved_patterns(tmp_path) == ["ls -la"]
        await pilot.press("d")
        assert saved_patterns(tmp_path) == []
        await pilot.pause()
        assert not table.display
        assert screen.query_one("#rules-empty").display

        await pilot.press("d")  # nothing left: no error
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_rule_added_while_open_appears(tmp_path):
    store = RulesStore(tmp_path, tmp_path / "rules.json")
    screen = RulesScreen(store)
    app = RulesApp(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert screen.query_one("#rules-empty").display
        remember(store, "fetch", {"url": "https://x"}, RuleEffect.ALLOW)
        await pilot.pause()
        assert row_texts(screen.query_one(DataTable))[0].startswith("fetch url https://x")
        assert not screen.query_one("#rules-empty").display
        policy = str(screen.query_one("#rules-policy", Static).render())
        assert "ask" in policy


async def test_corrupt_file_problem_is_shown(tmp_path):
    (tmp_path / "rules.json").write_text("{oops")
    store = RulesStore(tmp_path, tmp_path / "rules.json")
    screen = RulesScreen(store)
    app = RulesApp(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        problems = screen.query_one("#rules-problems", Static)
        assert problems.display and "not valid JSON" in str(problems.render())


async def test_e_edits_the_scopes_of_a_path_rule(tmp_path):
    store = make_store(tmp_path)
    screen = RulesScreen(store)
    app = RulesApp(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        table = screen.query_one(DataTable)
        await pilot.press("e")  # the command rule: exact, no scopes
        editor = screen.query_one("#scope-editor", Input)
        assert not editor.has_class("-editing")
        await pilot.press("down", "down", "e")  # the read rule
        assert editor.has_class("-editing") and editor.has_focus
        assert editor.value == "README.md"
        editor.value = "src/*.py"
        await pilot.press("enter")  # refused: stays open, nothing changed
        assert editor.has_class("-editing")
        assert saved_patterns(tmp_path)[2] == "README.md"
        editor.value = "docs/** 'my notes.md'"
        await pilot.press("enter")
        await pilot.pause()
        assert not editor.has_class("-editing") and table.has_focus
        assert saved_patterns(tmp_path)[2] == "docs/** my notes.md"
        assert row_texts(table)[2].startswith("read paths docs/**  my notes.md ✓ allow")
        found = store.find(ToolCallFacts.build("read", "x", {"path": "docs/a/b.md"}, root=tmp_path))
        assert found is store.rules[2]
        await pilot.press("e", "escape")  # escape leaves the editor, not the screen
        assert app.screen is screen and not editor.has_class("-editing")
        assert saved_patterns(tmp_path)[2] == "docs/** my notes.md"
