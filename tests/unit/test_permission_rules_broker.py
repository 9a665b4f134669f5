"""PermissionBroker with remembered rules and the default policy: auto-answers and their events."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest

from acp_tui.host.permission_rules import (
    PermissionPolicy,
    RuleEffect,
    RulesStore,
    ToolCallFacts,
)
from acp_tui.host.permissions import AutoAnswered, PendingPermission, PermissionBroker
from acp_tui.protocol.models import RequestPermissionRequest
from acp_tui.thread.thread import Thread

OPTIONS = [
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
]


def request(
    call_id: str,
    kind: str | None = None,
    title: str | None = None,
    raw_input=None,
    options=None,
    **extra: Any,
) -> RequestPermissionRequest:
    tool_call: dict[str, Any] = {"toolCallId": call_id, **extra}
    if kind is not None:
        tool_call["kind"] = kind
    if title is not None:
        tool_call["title"] = title
    if raw_input is not None:
        tool_call["rawInput"] = raw_input
    wire = {"sessionId": "s1", "toolCall": tool_call, "options": options or OPTIONS}
    return RequestPermissionRequest.model_validate(wire)


def selected(result: dict[str, Any]) -> Any:
    return result["outcome"].get("optionId")


class Presented(list[PendingPermission]):
    """A presenter that records requests and lets a test wait for the n-th one."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    def __call__(self, pending: PendingPermission) -> None:
        self.append(pending)
        self.changed.set()

    async def wait_for(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self) < count:
                self.changed.clear()
                await self.changed.wait()


@dataclass
class Harness:
    broker: PermissionBroker
    store: RulesStore
    presented: Presented
    auto: list[AutoAnswered]


@pytest.fixture
def harness(tmp_path) -> Harness:
    (tmp_path / "project").mkdir()
    store = RulesStore(tmp_path / "project", tmp_path / "rules.json")
    broker = PermissionBroker(store)
    presented = Presented()
    auto: list[AutoAnswered] = []
    broker.subscribe(presented)
    broker.subscribe_auto_answers(auto.append)
    return Harness(broker, store, presented, auto)


async def wait_presented(h: Harness, count: int) -> None:
    await h.presented.wait_for(count)


async def answer_by_user(
    h: Harness, params: RequestPermissionRequest, option_id: str
) -> dict[str, Any]:
    before = len(h.presented)
    task = asyncio.create_task(h.broker.request(params))
    await wait_presented(h, before + 1)
    h.presented[-1].select(option_id)
    return await asyncio.wait_for(task, 5)


def remember(h: Harness, kind: str, title: str, raw_input: Any, effect: RuleEffect) -> None:
    facts = ToolCallFacts.build(kind, title, raw_input, root=h.store.project_dir)
    subject = facts.subject()
    assert subject is not None
    h.store.remember(kind, subject, effect)


async def test_always_allow_is_remembered_and_answers_the_next_request(harness, tmp_path):
    h = harness
    params = request("c1", "execute", "Run ls", {"command": "ls"})
    # The agent is told "once": its own "always" could cover more than the rule does.
    assert selected(await answer_by_user(h, params, "allow-always")) == "allow-once"
    assert [r.describe() for r in h.store.rules] == ["execute `ls`"]
    assert h.presented[0].remembered == h.store.rules[0]
    assert h.presented[0].describe_answer() == (
        "✓ answered: Always allow — remembered for execute `ls`"
    )
    saved = json.loads((tmp_path / "rules.json").read_text())
    assert saved["rules"][0]["values"] == ["ls"] and saved["rules"][0]["effect"] == "allow"

    # Same command, new call id and title: answered without presenting.
    result = await h.broker.request(request("c2", "execute", "List files", {"command": "ls"}))
    assert selected(result) == "allow-once"
    assert len(h.presented) == 1
    assert len(h.auto) == 1
    event = h.auto[0]
    assert event.source == "rule" and event.rule == h.store.rules[0]
    assert event.pending.tool_call_id == "c2" and event.pending.done
    assert event.option.option_id == "allow-once"
    assert event.description == "✓ allowed by rule: execute `ls`"
    assert h.broker.pending == []
    assert len(h.store.rules) == 1  # the rule's answer added nothing


async def test_always_on_one_file_never_allows_another(harness):
    """The attack from issue 8: same or look-alike title, other path."""
    h = harness
    a_txt = request("c1", "edit", "Edit file", locations=[{"path": "a.txt"}])
    await answer_by_user(h, a_txt, "allow-always")
    assert [r.describe() for r in h.store.rules] == ["edit a.txt"]
    attacks = [
        request("c2", "edit", "Edit file", locations=[{"path": "/etc/passwd"}]),
        request("c3", "edit", "Edit\tfile", {"file_path": ".git/hooks/pre-commit"}),
        request("c4", "edit", "Edit  file", {"path": "secret.py"}),
        request("c5", "edit", "Edit file"),  # names no path
        request(
            "c6",
            "edit",
            "Edit file",
            content=[
                {"type": "diff", "path": "a.txt", "newText": "x"},
                {"type": "diff", "path": "secret.py", "newText": "x"},
            ],
        ),
    ]
    for index, attack in enumerate(attacks):
        task = asyncio.create_task(h.broker.request(attack))
        await wait_presented(h, 2 + index)
        assert h.auto == [], f"{attack.tool_call} was auto-answered"
        h.presented[-1].select("reject-once")
        assert selected(await task) == "reject-once"
    # the same file under another title and spelling is covered
    same = request("c7", "edit", "Write it", {"filePath": "./sub/../a.txt"})
    assert selected(await h.broker.request(same)) == "allow-once"
    assert h.auto[0].description == "✓ allowed by rule: edit a.txt"


async def test_no_always_option_for_a_call_that_names_nothing(harness):
    h = harness
    task = asyncio.create_task(h.broker.request(request("c1", "edit", "Edit file")))
    await wait_presented(h, 1)
    pending = h.presented[0]
    assert [o.kind for o in pending.offered] == ["allow_once", "reject_once", "reject_always"]
    assert pending.covers is None
    pending.select("reject-always")  # a rule needs a subject: nothing is remembered
    await task
    assert h.store.rules == ()
    task = asyncio.create_task(h.broker.request(request("c2", "edit", "Edit", {"path": "x/y"})))
    await wait_presented(h, 2)
    assert len(h.presented[1].offered) == 4 and h.presented[1].covers == "edit x/y"
    h.presented[1].cancel()
    await task


async def test_the_rule_covers_what_was_shown_when_asked(harness):
    """An update that changes the call's paths while the user reads the prompt does not
    change what "always" remembers."""
    h = harness
    thread = Thread()
    h.broker.tool_call_lookup = thread.tool_calls.get
    thread.apply_notification(
        {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "Edit",
                "kind": "edit",
                "locations": [{"path": "a.txt"}],
            },
        }
    )
    task = asyncio.create_task(h.broker.request(request("c1")))
    await wait_presented(h, 1)
    thread.apply_notification(
        {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "locations": [{"path": "/etc/passwd"}],
            },
        }
    )
    h.presented[0].select("allow-always")
    await task
    assert [r.describe() for r in h.store.rules] == ["edit a.txt"]


async def test_always_reject_rule_answers_with_a_reject_option(harness):
    h = harness
    await answer_by_user(h, request("c1", "delete", "Delete", {"path": "a.txt"}), "reject-always")
    only_once = [OPTIONS[0], OPTIONS[2]]
    params = request("c2", "delete", "Delete it", {"path": "a.txt"}, options=only_once)
    assert selected(await h.broker.request(params)) == "reject-once"
    assert h.auto[0].description == "✗ rejected by rule: delete a.txt"


async def test_rule_without_fitting_option_asks_as_usual(harness):
    h = harness
    await answer_by_user(h, request("c1", "edit", "Edit x", {"path": "x"}), "allow-always")
    rejects_only = [OPTIONS[2], OPTIONS[3]]
    params = request("c2", "edit", "Edit x", {"path": "x"}, options=rejects_only)
    task = asyncio.create_task(h.broker.request(params))
    await wait_presented(h, 2)
    assert h.auto == []
    h.presented[-1].select("reject-once")
    assert selected(await task) == "reject-once"


async def test_once_answers_and_cancel_remember_nothing(harness):
    h = harness
    settled: list[str | None] = []
    h.broker.subscribe_settled(lambda p: settled.append(p.describe_answer()))
    await answer_by_user(h, request("c1", "execute", "t", {"command": "ls"}), "allow-once")
    assert settled == ["✓ answered: Allow once"]
    task = asyncio.create_task(h.broker.request(request("c2", "execute", "t", {"command": "rm"})))
    await wait_presented(h, 2)
    assert h.broker.cancel_all() == 1
    assert settled[-1] == "⊘ cancelled", "settled at once, before the agent's answer is sent"
    assert (await task)["outcome"] == {"outcome": "cancelled"}
    assert h.store.rules == ()


async def test_policy_allow_reads_answers_reads_only(harness):
    h = harness
    h.broker.policy = PermissionPolicy.ALLOW_READS
    result = await h.broker.request(request("c1", "read", "Read README.md"))
    assert selected(result) == "allow-once"
    assert h.auto[0].source == "policy" and h.auto[0].rule is None
    assert h.auto[0].description == "✓ allowed by policy allow_reads: read `Read README.md`"
    task = asyncio.create_task(h.broker.request(request("c2", "edit", "Edit x")))
    await wait_presented(h, 1)
    h.presented[0].select("reject-once")
    await task
    assert len(h.auto) == 1


async def test_rules_take_precedence_over_policy(harness):
    h = harness
    h.broker.policy = PermissionPolicy.ALLOW_ALL_DANGEROUS
    remember(h, "read", "Read .env", {"path": ".env"}, RuleEffect.REJECT)
    result = await h.broker.request(request("c1", "read", "Read .env", {"path": ".env"}))
    assert selected(result) == "reject-once"
    assert h.auto[0].source == "rule"
    assert selected(await h.broker.request(request("c2", "read", "Read a"))) == "allow-once"
    assert h.auto[1].source == "policy"


async def test_request_with_only_an_id_uses_the_known_tool_call(harness):
    h = harness
    thread = Thread()
    thread.apply_notification(
        {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "c9",
                "title": "Run tests",
                "kind": "execute",
                "rawInput": {"command": "pytest -q"},
            },
        }
    )
    h.broker.tool_call_lookup = thread.tool_calls.get
    remember(h, "execute", "x", {"command": "pytest -q"}, RuleEffect.ALLOW)
    assert selected(await h.broker.request(request("c9"))) == "allow-once"
    assert h.auto[0].description == "✓ allowed by rule: execute `pytest -q`"


async def test_new_rule_answers_other_pending_matching_requests(harness):
    h = harness
    first = asyncio.create_task(h.broker.request(request("c1", "execute", "a", {"command": "ls"})))
    second = asyncio.create_task(h.broker.request(request("c2", "execute", "b", {"command": "ls"})))
    other = asyncio.create_task(h.broker.request(request("c3", "execute", "c", {"command": "rm"})))
    await wait_presented(h, 3)
    h.presented[0].select("allow-always")
    assert selected(await asyncio.wait_for(first, 5)) == "allow-once"
    assert selected(await asyncio.wait_for(second, 5)) == "allow-once"
    assert [e.pending.tool_call_id for e in h.auto] == ["c2"]
    assert not other.done()
    rule_ids = [r.id for r in h.store.rules]
    assert len(rule_ids) == 1  # c2's rule-given answer did not remember a duplicate
    h.presented[2].cancel()
    await other


async def test_auto_answer_callback_still_wins_and_is_announced(harness):
    h = harness
    remember(h, "read", "Read a", {"path": "a"}, RuleEffect.REJECT)
    h.broker.auto_answer = lambda pending: "allow-once"
    result = await h.broker.request(request("c1", "read", "Read a", {"path": "a"}))
    assert selected(result) == "allow-once"
    assert h.auto[0].source == "auto_answer"
    assert h.presented == []


async def test_broker_without_store_remembers_nothing():
    broker = PermissionBroker()
    presented = Presented()
    broker.subscribe(presented)
    task = asyncio.create_task(broker.request(request("c1", "read", "Read a", {"path": "/a"})))
    await presented.wait_for(1)
    presented[0].select("allow-always")
    assert selected(await task) == "allow-always"
    task = asyncio.create_task(broker.request(request("c2", "read", "Read a", {"path": "/a"})))
    await presented.wait_for(2)
    presented[1].cancel()
    await task
