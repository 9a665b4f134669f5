"""Permission rules: matching, decisions, per-project persistence, corrupt files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.host.permission_rules import (
    PermissionPolicy,
    PermissionRule,
    RuleEffect,
    RulesStore,
    ToolCallFacts,
    effect_of_option_kind,
    new_rule,
    option_for_policy,
    option_for_rule,
    rules_path_for,
    user_data_dir,
)
from acp_tui.host.permissions import PermissionOption

ALL_OPTIONS = [
    PermissionOption("a1", "Allow once", "allow_once"),
    PermissionOption("aa", "Always allow", "allow_always"),
    PermissionOption("r1", "Reject once", "reject_once"),
    PermissionOption("ra", "Always reject", "reject_always"),
]


def facts(kind: str, title: str = "", raw_input: object = None) -> ToolCallFacts:
    return ToolCallFacts(kind, title, raw_input)


# ---- matching ---------------------------------------------------------------------------------


def test_execute_matches_on_command_from_raw_input():
    call = facts("execute", "Run a listing", {"command": "ls -la"})
    assert call.matcher() == ("command", "ls -la")
    rule = new_rule(call, RuleEffect.ALLOW)
    assert rule is not None
    # Same command, different title: still the same rule.
    assert rule.matches(facts("execute", "another title", {"command": "ls -la"}))
    assert not rule.matches(facts("execute", "Run a listing", {"command": "ls -la /"}))
    assert rule.describe() == "execute `ls -la`"


def test_command_forms_cmd_list_and_args():
    assert facts("execute", "t", {"cmd": "make test"}).command == "make test"
    assert facts("execute", "t", {"command": ["rm", "-rf", "a b"]}).command == "rm -rf 'a b'"
    assert facts("execute", "t", {"command": "git", "args": ["log", "-1"]}).command == "git log -1"
    assert facts("execute", "t", {"command": 3}).command is None
    assert facts("execute", "t", "ls").command is None


def test_execute_without_command_falls_back_to_title():
    assert facts("execute", "Run  tests ", {}).matcher() == ("title", "Run tests")


def test_other_kinds_match_on_kind_and_title():
    rule = new_rule(facts("edit", "Edit src/app.py", {"command": "ignored"}), RuleEffect.REJECT)
    assert rule is not None and rule.match_on == "title"
    assert rule.matches(facts("edit", "Edit src/app.py"))
    assert not rule.matches(facts("delete", "Edit src/app.py"))
    assert not rule.matches(facts("edit", "Edit src/other.py"))


def test_no_rule_without_anything_to_match():
    assert new_rule(facts("other", ""), RuleEffect.ALLOW) is None


def test_facts_from_wire_fill_gaps_from_known_call():
    class Known:
        kind = "execute"
        title = "Run ls"
        raw_input = {"command": "ls"}

    wire = {"toolCallId": "c1"}
    assert ToolCallFacts.from_wire(wire, Known()) == facts("execute", "Run ls", {"command": "ls"})
    wire2 = {"toolCallId": "c1", "title": "New title", "kind": "read"}
    got = ToolCallFacts.from_wire(wire2, Known())
    assert (got.kind, got.title) == ("read", "New title")
    assert ToolCallFacts.from_wire({"toolCallId": "c"}).kind == "other"


# ---- decisions --------------------------------------------------------------------------------


def test_rule_option_preferences():
    allow = new_rule(facts("read", "x"), RuleEffect.ALLOW)
    reject = new_rule(facts("read", "x"), RuleEffect.REJECT)
    assert allow is not None and reject is not None
    assert option_for_rule(allow, ALL_OPTIONS).option_id == "aa"  # type: ignore[union-attr]
    assert option_for_rule(reject, ALL_OPTIONS).option_id == "ra"  # type: ignore[union-attr]
    assert option_for_rule(allow, [ALL_OPTIONS[0], ALL_OPTIONS[2]]).option_id == "a1"  # type: ignore[union-attr]
    assert option_for_rule(reject, [ALL_OPTIONS[2]]).option_id == "r1"  # type: ignore[union-attr]
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


def test_round_trip(tmp_path):
    path = tmp_path / "rules.json"
    store = RulesStore(tmp_path, path)
    assert store.rules == () and store.messages == []
    ls = store.remember(facts("execute", "List", {"command": "ls"}), RuleEffect.ALLOW)
    rm = store.remember(facts("delete", "Delete a.txt"), RuleEffect.REJECT)
    assert ls is not None and rm is not None
    document = json.loads(path.read_text())
    assert document["version"] == 1 and document["project"] == str(tmp_path.resolve())
    again = RulesStore(tmp_path, path)
    assert again.rules == (ls, rm)
    assert again.find(facts("execute", "whatever", {"command": "ls"})) == ls
    assert again.find(facts("delete", "Delete a.txt")) == rm
    assert again.find(facts("delete", "Delete b.txt")) is None


def test_remember_replaces_the_rule_for_the_same_call(tmp_path):
    store = RulesStore(tmp_path, tmp_path / "r.json")
    call = facts("execute", "t", {"command": "make"})
    store.remember(call, RuleEffect.ALLOW)
    second = store.remember(call, RuleEffect.REJECT)
    assert store.rules == (second,)
    assert RulesStore(tmp_path, tmp_path / "r.json").rules == (second,)


def test_revoke_persists_and_notifies(tmp_path):
    path = tmp_path / "r.json"
    store = RulesStore(tmp_path, path)
    changes: list[int] = []
    store.subscribe(lambda: changes.append(len(store.rules)))
    keep = store.remember(facts("read", "Read a"), RuleEffect.ALLOW)
    gone = store.remember(facts("read", "Read b"), RuleEffect.ALLOW)
    assert keep is not None and gone is not None
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
    store.remember(facts("read", "Read a"), RuleEffect.ALLOW)
    assert (tmp_path / "r.json.corrupt").read_bytes() == content
    assert len(RulesStore(tmp_path, path).rules) == 1


def test_bad_rules_are_skipped_and_good_ones_kept(tmp_path):
    path = tmp_path / "r.json"
    good = new_rule(facts("read", "Read a"), RuleEffect.ALLOW)
    assert good is not None
    bad = [
        "nope",
        {**good.to_json(), "effect": "maybe"},
        {**good.to_json(), "match_on": "regex"},
        {**good.to_json(), "pattern": ""},
        {k: v for k, v in good.to_json().items() if k != "id"},
    ]
    path.write_text(json.dumps({"version": 1, "rules": [*bad, good.to_json()]}))
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
    rule = store.remember(facts("read", "Read a"), RuleEffect.ALLOW)
    assert rule is not None and store.rules == (rule,)  # kept in memory for this session
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
)
def test_any_remembered_rule_survives_a_reload_and_matches_its_call(
    tmp_path_factory, kind, title, command
):
    directory = tmp_path_factory.mktemp("rt")
    call = facts(kind, title, {"command": command} if command is not None else None)
    store = RulesStore(directory, directory / "r.json")
    rule = store.remember(call, RuleEffect.ALLOW)
    if not call.matcher()[1]:
        assert rule is None
        return
    reloaded = RulesStore(directory, directory / "r.json")
    assert reloaded.messages == []
    assert reloaded.find(call) == rule
