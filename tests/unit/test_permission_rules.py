"""Permission rules: matching, decisions, per-project persistence, corrupt files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.host.permission_rules import (
    DroppedRule,
    PermissionPolicy,
    PermissionRule,
    RuleEffect,
    RulesStore,
    Subject,
    ToolCallFacts,
    effect_of_option_kind,
    new_rule,
    option_for_policy,
    option_for_rule,
    rules_path_for,
    user_data_dir,
)
from acp_tui.host.permission_subject import covers, normalize_scope, shown_path
from acp_tui.protocol.models import PermissionOption

ALL_OPTIONS = [
    PermissionOption(option_id="a1", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="aa", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="r1", name="Reject once", kind="reject_once"),
    PermissionOption(option_id="ra", name="Always reject", kind="reject_always"),
]
ROOT = Path("/project")


def facts(
    kind: str,
    title: str = "",
    raw_input: object = None,
    paths: tuple[str, ...] = (),
    root: Path = ROOT,
) -> ToolCallFacts:
    return ToolCallFacts.build(kind, title, raw_input, paths, root=root)


def rule_for(call: ToolCallFacts, effect: RuleEffect = RuleEffect.ALLOW) -> PermissionRule:
    subject = call.subject()
    assert subject is not None
    return new_rule(call.kind, subject, effect)


# ---- what a call touches ----------------------------------------------------------------------


def test_paths_come_from_locations_diffs_and_raw_input_resolved_against_the_root():
    wire = {
        "toolCallId": "c1",
        "kind": "edit",
        "title": "Edit file",
        "locations": [{"path": "/project/src/a.py", "line": 3}],
        "content": [{"type": "diff", "path": "/project/src/b.py", "newText": "x"}],
        "rawInput": {"file_path": "c.py", "filePath": "src/../d.py", "paths": ["e.py", 3]},
    }
    call = ToolCallFacts.from_wire(wire, root=ROOT)
    assert call.paths == ("c.py", "d.py", "e.py", "src/a.py", "src/b.py")
    assert call.subject() == Subject("paths", call.paths)
    outside = facts("edit", "Edit", {"path": "/etc/passwd"})
    assert outside.paths == ("/etc/passwd",)


def test_symlinks_are_resolved(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("/etc")
    call = facts("edit", "t", {"path": "link/passwd"}, root=tmp_path)
    assert call.paths == ("/etc/passwd",)


def test_a_call_naming_no_path_or_command_has_no_subject():
    assert facts("edit", "Edit file").subject() is None
    assert facts("read", "Read README.md", {"pattern": "x"}).subject() is None
    assert facts("execute", "Run tests", {}).subject() is None
    assert facts("fetch", "Fetch").subject() is None
    assert facts("think", "Think").subject() is None
    assert facts("edit", "t", {"path": "bad\0path"}).subject() is None


def test_execute_keys_on_the_exact_command():
    assert facts("execute", "t", {"command": ["rm", "-rf", "a b"]}).subject() == Subject(
        "argv", ("rm", "-rf", "a b")
    )
    assert facts("execute", "t", {"command": "git", "args": ["log", "-1"]}).subject() == Subject(
        "argv", ("git", "log", "-1")
    )
    # A string is run by a shell: kept whole, never split (these two differ in a shell).
    assert facts("execute", "t", {"cmd": "echo $HOME"}).subject() == Subject(
        "shell", ("echo $HOME",)
    )
    assert (
        facts("execute", "t", {"cmd": "echo '$HOME'"}).subject()
        != facts("execute", "t", {"cmd": "echo $HOME"}).subject()
    )
    assert facts("execute", "t", {"command": "ls", "cwd": "sub"}).subject() == Subject(
        "shell", ("ls",), cwd="sub"
    )
    assert facts("execute", "t", {"command": 3}).subject() is None


def test_other_kinds_key_on_paths_and_the_exact_title():
    call = facts("other", "Format", {"path": "a.py"})
    assert call.subject() == Subject("paths", ("a.py",), title="Format")
    assert facts("fetch", "t", {"url": "https://x.test/a"}).subject() == Subject(
        "url", ("https://x.test/a",)
    )


def test_facts_from_wire_fill_gaps_from_the_known_call():
    class Known:
        kind = "edit"
        title = "Edit a.txt"
        raw_input = None
        locations = [type("Loc", (), {"path": "/project/a.txt"})()]
        content: list[object] = []

    got = ToolCallFacts.from_wire({"toolCallId": "c1"}, Known(), root=ROOT)
    assert (got.kind, got.title, got.paths) == ("edit", "Edit a.txt", ("a.txt",))
    got = ToolCallFacts.from_wire({"toolCallId": "c1", "kind": "read"}, Known(), root=ROOT)
    assert got.kind == "read"
    assert ToolCallFacts.from_wire({"toolCallId": "c"}).kind == "other"


# ---- matching -----------------------------------------------------------------------------------


def test_always_on_one_file_does_not_cover_another_file_or_title_games():
    rule = rule_for(facts("edit", "Edit file", {"path": "a.txt"}))
    assert rule.matches(facts("edit", "Edit file", {"path": "a.txt"}))
    assert rule.matches(facts("edit", "A different title", {"path": "/project/a.txt"}))
    assert not rule.matches(facts("edit", "Edit file", {"path": "/etc/passwd"}))
    assert not rule.matches(facts("edit", "Edit\tfile", {"path": ".git/hooks/pre-commit"}))
    assert not rule.matches(facts("edit", "Edit  file", {"path": "secret.py"}))
    assert not rule.matches(facts("edit", "Edit file"))  # names no path at all
    assert not rule.matches(facts("edit", "Edit file", {"paths": ["a.txt", "secret.py"]}))
    assert not rule.matches(facts("delete", "Edit file", {"path": "a.txt"}))


def test_directory_scopes_cover_what_is_beneath_only():
    assert covers("src/**", "src/a.py") and covers("src/**", "src/deep/b.py")
    assert covers("src/**", "src")
    assert not covers("src/**", "srcx/a.py") and not covers("src/**", "/src/a.py")
    assert covers("**", "anything/inside") and not covers("**", "/etc/passwd")
    assert covers("/tmp/x/**", "/tmp/x/y") and not covers("/tmp/x/**", "/tmp/xy")
    rule = rule_for(facts("edit", "t", {"path": "src/a.py"})).with_scopes(["src/**"])
    assert rule.matches(facts("edit", "t", {"paths": ["src/a.py", "src/sub/b.py"]}))
    assert not rule.matches(facts("edit", "t", {"paths": ["src/a.py", "README.md"]}))
    assert not rule.matches(facts("edit", "t", {"path": "src/../.git/hooks/pre-commit"}))


def test_scopes_typed_by_the_user_are_normalized_or_refused():
    assert normalize_scope("src/", ROOT) == "src"
    assert normalize_scope("./src/**", ROOT) == "src/**"
    assert normalize_scope("/project/src/**", ROOT) == "src/**"
    assert normalize_scope("/project/**", ROOT) == "**"
    assert normalize_scope("/etc/hosts", ROOT) == "/etc/hosts"
    for bad in ("", "  ", "src/*.py", "s?c", "a[b]"):
        with pytest.raises(ValueError):
            normalize_scope(bad, ROOT)
    assert shown_path("/project", ROOT) == "."


def test_command_rules_match_exactly():
    rule = rule_for(facts("execute", "Run a listing", {"command": "ls -la"}))
    assert rule.matches(facts("execute", "another title", {"command": "ls -la"}))
    assert not rule.matches(facts("execute", "Run a listing", {"command": "ls -la /"}))
    assert not rule.matches(facts("execute", "t", {"command": "ls -la; rm -rf ~"}))
    assert not rule.matches(facts("execute", "t", {"command": ["ls", "-la"]}))  # not a shell
    assert not rule.matches(facts("execute", "t", {"command": "ls -la", "cwd": "/"}))
    assert rule.describe() == "execute `ls -la`"
    argv = rule_for(facts("execute", "t", {"command": ["rm", "a b"]}))
    assert argv.matches(facts("execute", "x", {"command": "rm", "args": ["a b"]}))
    assert argv.describe() == "execute `rm 'a b'`"


def test_descriptions_show_control_characters_escaped():
    call = facts("execute", "t", {"command": "ls\n\x1b[2Jrm"})
    assert rule_for(call).describe() == "execute `ls\\n\\x1b[2Jrm`"


# ---- decisions --------------------------------------------------------------------------------


def test_rule_option_preferences_pick_once_first():
    # The agent is told "once" so that its own "always" never replaces the rule.
    allow = rule_for(facts("read", "x", {"path": "a"}), RuleEffect.ALLOW)
    reject = rule_for(facts("read", "x", {"path": "a"}), RuleEffect.REJECT)
    assert option_for_rule(allow, ALL_OPTIONS).option_id == "a1"  # type: ignore[union-attr]
    assert option_for_rule(reject, ALL_OPTIONS).option_id == "r1"  # type: ignore[union-attr]
    assert option_for_rule(allow, [ALL_OPTIONS[1], ALL_OPTIONS[2]]).option_id == "aa"  # type: ignore[union-attr]
    assert option_for_rule(reject, [ALL_OPTIONS[3]]).option_id == "ra"  # type: ignore[union-attr]
    assert option_for_rule(allow, [ALL_OPTIONS[2], ALL_OPTIONS[3]]) is None


@pytest.mark.parametrize(
    ("policy", "kind", "expected"),
    [
        (PermissionPolicy.ASK, "read", None),
        (PermissionPolicy.ALLOW_READS, "read", "a1"),
        (PermissionPolicy.ALLOW_READS, "search", "a1"),
        (PermissionPolicy.ALLOW_READS, "fetch", "a1"),
        (PermissionPolicy.ALLOW_READS, "think", "a1"),
        (PermissionPolicy.ALLOW_READS, "edit", None),
        (PermissionPolicy.ALLOW_READS, "execute", None),
        (PermissionPolicy.ALLOW_ALL_DANGEROUS, "execute", "a1"),
        (PermissionPolicy.ALLOW_ALL_DANGEROUS, "delete", "a1"),
    ],
)
def test_policy_decisions(policy, kind, expected):
    chosen = option_for_policy(policy, facts(kind, "t"), ALL_OPTIONS)
    assert (chosen.option_id if chosen else None) == expected


def test_policy_needs_an_allow_once_option():
    only_always = [ALL_OPTIONS[1], ALL_OPTIONS[2]]
    assert option_for_policy(PermissionPolicy.ALLOW_READS, facts("read", "t"), only_always) is None


def test_effect_of_option_kind():
    assert effect_of_option_kind("allow_always") is RuleEffect.ALLOW
    assert effect_of_option_kind("reject_always") is RuleEffect.REJECT
    assert effect_of_option_kind("allow_once") is None
    assert effect_of_option_kind("something_new") is None


# ---- persistence ------------------------------------------------------------------------------


def test_paths_follow_xdg_and_differ_per_project(tmp_path):
    assert user_data_dir({"XDG_DATA_HOME": "/x/data"}) == Path("/x/data/acp-tui")
    assert user_data_dir({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.local/share/acp-tui"
    )
    (tmp_path / "p1").mkdir()
    (tmp_path / "p2").mkdir()
    a = rules_path_for(tmp_path / "p1", tmp_path / "data")
    b = rules_path_for(tmp_path / "p2", tmp_path / "data")
    assert a != b and a.parent == b.parent == tmp_path / "data" / "permissions"
    assert rules_path_for(tmp_path / "p1" / ".." / "p1", tmp_path / "data") == a


def remember(store: RulesStore, call: ToolCallFacts, effect: RuleEffect) -> PermissionRule:
    subject = call.subject()
    assert subject is not None
    return store.remember(call.kind, subject, effect)


def test_round_trip(tmp_path):
    path = tmp_path / "rules.json"
    store = RulesStore(tmp_path, path)
    assert store.rules == () and store.messages == []
    ls = remember(store, facts("execute", "List", {"command": "ls"}), RuleEffect.ALLOW)
    rm = remember(
        store, facts("delete", "Delete", {"path": "a.txt"}, root=tmp_path), RuleEffect.REJECT
    )
    other = remember(store, facts("other", "Fmt", {"path": "b"}, root=tmp_path), RuleEffect.ALLOW)
    document = json.loads(path.read_text())
    assert document["version"] == 2 and document["project"] == str(tmp_path.resolve())
    assert document["rules"][1]["values"] == ["a.txt"] and document["rules"][2]["title"] == "Fmt"
    again = RulesStore(tmp_path, path)
    assert again.rules == (ls, rm, other)
    assert again.find(facts("execute", "whatever", {"command": "ls"})) == ls
    assert again.find(facts("delete", "x", {"path": "a.txt"}, root=tmp_path)) == rm
    assert again.find(facts("delete", "x", {"path": "b.txt"}, root=tmp_path)) is None


def test_remember_replaces_the_rule_for_the_same_subject(tmp_path):
    store = RulesStore(tmp_path, tmp_path / "r.json")
    call = facts("execute", "t", {"command": "make"})
    remember(store, call, RuleEffect.ALLOW)
    second = remember(store, call, RuleEffect.REJECT)
    assert store.rules == (second,)
    assert RulesStore(tmp_path, tmp_path / "r.json").rules == (second,)


def test_scopes_of_a_path_rule_can_be_edited(tmp_path):
    path = tmp_path / "r.json"
    store = RulesStore(tmp_path, path)
    rule = remember(
        store, facts("edit", "t", {"path": "src/a.py"}, root=tmp_path), RuleEffect.ALLOW
    )
    wider = store.set_scopes(rule.id, ["src/**", "docs/x.md", "src/**"])
    assert wider.subject.values == ("src/**", "docs/x.md") and wider.id == rule.id
    assert RulesStore(tmp_path, path).rules == (wider,)
    assert store.find(facts("edit", "t", {"path": "src/new/b.py"}, root=tmp_path)) == wider
    with pytest.raises(ValueError, match="only a path"):
        store.set_scopes(rule.id, ["src/*.py"])
    with pytest.raises(ValueError, match="at least one"):
        store.set_scopes(rule.id, [])
    command = remember(store, facts("execute", "t", {"command": "ls"}), RuleEffect.ALLOW)
    with pytest.raises(ValueError, match="exactly"):
        store.set_scopes(command.id, ["src/**"])
    with pytest.raises(ValueError, match="no such rule"):
        store.set_scopes("nope", ["a"])
    assert store.rules == (wider, command)


def test_version_1_rules_are_migrated_or_dropped_and_the_old_file_kept(tmp_path):
    path = tmp_path / "r.json"
    old: dict[str, Any] = {
        "version": 1,
        "project": str(tmp_path),
        "rules": [
            {
                "id": "a1",
                "tool_kind": "edit",
                "match_on": "title",
                "pattern": "Edit file",
                "effect": "allow",
                "created": "2026-01-01T00:00:00+00:00",
            },
            {
                "id": "b2",
                "tool_kind": "execute",
                "match_on": "command",
                "pattern": "make test",
                "effect": "allow",
                "created": "2026-01-01T00:00:00+00:00",
            },
        ],
    }
    path.write_text(json.dumps(old))
    store = RulesStore(tmp_path, path)
    (rule,) = store.rules
    assert rule.id == "b2" and rule.subject == Subject("shell", ("make test",))
    assert store.find(facts("execute", "x", {"command": "make test"})) == rule
    assert store.find(facts("edit", "Edit file", {"path": "a.txt"}, root=tmp_path)) is None
    assert any("Edit file" in m and "dropped" in m for m in store.messages)
    assert json.loads((tmp_path / "r.json.v1").read_text()) == old
    assert json.loads(path.read_text())["version"] == 2
    reloaded = RulesStore(tmp_path, path)
    assert reloaded.rules == (rule,) and reloaded.messages == []
    with pytest.raises(DroppedRule):
        PermissionRule.from_json(old["rules"][0])


def test_revoke_persists_and_notifies(tmp_path):
    path = tmp_path / "r.json"
    store = RulesStore(tmp_path, path)
    changes: list[int] = []
    store.subscribe(lambda: changes.append(len(store.rules)))
    keep = remember(store, facts("read", "Read a", {"path": "a"}), RuleEffect.ALLOW)
    gone = remember(store, facts("read", "Read b", {"path": "b"}), RuleEffect.ALLOW)
    assert store.revoke(gone.id) is True
    assert store.revoke(gone.id) is False
    assert changes == [1, 2, 1]
    assert RulesStore(tmp_path, path).rules == (keep,)


@pytest.mark.parametrize(
    "content",
    [b"{not json", b'{"rules": 3}', b"[]", b"\xff\xfe\x00garbage", b""],
)
def test_corrupt_file_gives_empty_store_and_message_then_is_kept_aside(tmp_path, content):
    path = tmp_path / "r.json"
    path.write_bytes(content)
    store = RulesStore(tmp_path, path)
    assert store.rules == ()
    assert len(store.messages) == 1 and str(path) in store.messages[0]
    remember(store, facts("read", "Read a", {"path": "a"}), RuleEffect.ALLOW)
    assert (tmp_path / "r.json.corrupt").read_bytes() == content
    assert len(RulesStore(tmp_path, path).rules) == 1


def test_bad_rules_are_skipped_and_good_ones_kept(tmp_path):
    path = tmp_path / "r.json"
    good = rule_for(facts("read", "Read a", {"path": "a"}))
    bad = [
        "nope",
        {**good.to_json(), "effect": "maybe"},
        {**good.to_json(), "match_on": "regex"},
        {**good.to_json(), "values": []},
        {**good.to_json(), "values": ["a", 3]},
        {**good.to_json(), "match_on": "shell", "values": ["a", "b"]},
        {**good.to_json(), "title": 5},
        {k: v for k, v in good.to_json().items() if k != "id"},
    ]
    path.write_text(json.dumps({"version": 2, "rules": [*bad, good.to_json()]}))
    store = RulesStore(tmp_path, path)
    assert store.rules == (good,)
    assert len(store.messages) == len(bad)
    assert PermissionRule.from_json(good.to_json()) == good


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file_and_failed_save_do_not_raise(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"rules": []}')
    path.chmod(0)
    store = RulesStore(tmp_path, path)
    assert store.rules == () and "cannot read" in store.messages[0]


def test_save_failure_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = RulesStore(tmp_path, blocker / "sub" / "r.json")  # parent is a file: cannot mkdir
    rule = remember(store, facts("read", "Read a", {"path": "a"}), RuleEffect.ALLOW)
    assert store.rules == (rule,)  # kept in memory for this session
    assert any("cannot save" in m for m in store.messages)


def test_directory_at_rules_path_is_reported(tmp_path):
    path = tmp_path / "r.json"
    path.mkdir()
    store = RulesStore(tmp_path, path)
    assert store.rules == () and store.messages


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kind=st.sampled_from(["read", "edit", "execute", "fetch", "other", "brand_new_kind"]),
    title=st.text(min_size=1, max_size=40),
    command=st.one_of(st.none(), st.text(max_size=40), st.lists(st.text(max_size=10), max_size=4)),
    path=st.one_of(st.none(), st.text(min_size=1, max_size=30)),
)
def test_any_remembered_rule_survives_a_reload_and_matches_its_call(
    tmp_path_factory, kind, title, command, path
):
    directory = tmp_path_factory.mktemp("rt")
    raw: dict[str, object] = {}
    if command is not None:
        raw["command"] = command
    if path is not None:
        raw["path"] = path
    call = facts(kind, title, raw, root=directory)
    subject = call.subject()
    if subject is None:
        return  # nothing to key a rule on: no "always" answer is offered
    store = RulesStore(directory, directory / "r.json")
    rule = store.remember(call.kind, subject, RuleEffect.ALLOW)
    reloaded = RulesStore(directory, directory / "r.json")
    assert reloaded.messages == []
    assert reloaded.find(call) == rule
    assert reloaded.find(facts(kind, title + "x", raw, root=directory)) == (
        rule if subject.title is None else None
    )


@pytest.mark.parametrize(
    ("command", "remembered"),
    [([""], False), (["printf", ""], True), (["", "x"], False)],
)
def test_an_argv_with_empty_arguments_reloads_and_an_empty_program_names_no_command(
    tmp_path, command, remembered
):
    call = facts("execute", "Run", {"command": command}, root=tmp_path)
    subject = call.subject()
    assert (subject is not None) == remembered
    if subject is None:
        return
    store = RulesStore(tmp_path, tmp_path / "r.json")
    rule = store.remember(call.kind, subject, RuleEffect.ALLOW)
    reloaded = RulesStore(tmp_path, tmp_path / "r.json")
    assert reloaded.messages == []
    assert reloaded.find(call) == rule
