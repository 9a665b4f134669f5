"""Permission requests from the agent: queued in order, answered by the user (or by a rule).

`PermissionBroker.request(params)` is the handler of `session/request_permission`. It turns the
request into a `PendingPermission` carrying a future, hands it to the UI (through the presenters
given to `subscribe`) and awaits the answer. `cancel_all()` answers every pending one with
`cancelled`.

Before asking, the broker tries, in order: the `auto_answer` callback (tests, headless use), the
project's remembered rules (`RulesStore`), then the default `PermissionPolicy`. An answer given
that way is announced to `subscribe_auto_answers` listeners as an `AutoAnswered` event (the UI
shows its `description` at the tool call); the presenters are not called for it. When the user
picks an `allow_always`/`reject_always` option, a rule is remembered for the project, and other
pending requests the new rule matches are answered by it at once.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp_tui.host.permission_rules import (
    KnownToolCall,
    PermissionPolicy,
    PermissionRule,
    RuleEffect,
    RulesStore,
    ToolCallFacts,
    effect_of_option_kind,
    option_for_policy,
    option_for_rule,
)
from acp_tui.protocol.errors import invalid_params

CANCELLED: dict[str, Any] = {"outcome": {"outcome": "cancelled"}}


@dataclass(frozen=True)
class PermissionOption:
    option_id: str
    name: str
    kind: str  # allow_once | allow_always | reject_once | reject_always | (unknown kinds kept)


@dataclass
class PendingPermission:
    id: int
    session_id: str
    tool_call: dict[str, Any]
    options: list[PermissionOption]
    future: asyncio.Future[dict[str, Any]] = field(repr=False)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def tool_call_id(self) -> str | None:
        value = self.tool_call.get("toolCallId")
        return value if isinstance(value, str) else None

    @property
    def done(self) -> bool:
        return self.future.done()

    def select(self, option_id: str) -> None:
        if not self.future.done():
            self.future.set_result({"outcome": {"outcome": "selected", "optionId": option_id}})

    def cancel(self) -> None:
        if not self.future.done():
            self.future.set_result(dict(CANCELLED))

    def option_of_kind(self, kind: str) -> PermissionOption | None:
        return next((o for o in self.options if o.kind == kind), None)


def parse_permission_request(params: Any) -> tuple[str, dict[str, Any], list[PermissionOption]]:
    if not isinstance(params, dict):
        raise invalid_params("session/request_permission params must be an object")
    session_id = params.get("sessionId")
    tool_call = params.get("toolCall")
    options = params.get("options")
    if not isinstance(session_id, str):
        raise invalid_params("sessionId must be a string")
    if not isinstance(tool_call, dict) or not isinstance(tool_call.get("toolCallId"), str):
        raise invalid_params("toolCall must be an object with a toolCallId")
    if not isinstance(options, list):
        raise invalid_params("options must be a list")
    parsed: list[PermissionOption] = []
    for option in options:
        if (
            isinstance(option, dict)
            and isinstance(option.get("optionId"), str)
            and isinstance(option.get("name"), str)
        ):
            kind = option.get("kind")
            parsed.append(PermissionOption(option["optionId"], option["name"], str(kind)))
    return session_id, tool_call, parsed


@dataclass(frozen=True)
class AutoAnswered:
    """A permission request answered without asking the user.

    `source` is "rule" (then `rule` is set), "policy" or "auto_answer" (the callback).
    `description` is the line to show at the tool call, e.g. "✓ allowed by rule: execute `ls`".
    """

    pending: PendingPermission
    option: PermissionOption
    source: str
    description: str
    rule: PermissionRule | None = None


Presenter = Callable[[PendingPermission], None]
AutoAnswer = Callable[[PendingPermission], str | None]
AutoAnswerListener = Callable[[AutoAnswered], None]
ToolCallLookup = Callable[[str], KnownToolCall | None]

_ALLOWING = {"allow_once", "allow_always"}


def _verdict(option: PermissionOption) -> str:
    if option.kind in _ALLOWING:
        return "✓ allowed"
    if option.kind.startswith("reject"):
        return "✗ rejected"
    return f"→ answered {option.name!r}"


class PermissionBroker:
    """Holds pending permission requests in arrival order until each is answered."""

    def __init__(
        self,
        rules: RulesStore | None = None,
        *,
        policy: PermissionPolicy = PermissionPolicy.ASK,
        tool_call_lookup: ToolCallLookup | None = None,
    ) -> None:
        self._ids = itertools.count(1)
        self.pending: list[PendingPermission] = []
        self._presenters: list[Presenter] = []
        self._auto_listeners: list[AutoAnswerListener] = []
        self._remembered_listeners: list[Callable[[PermissionRule], None]] = []
        self.auto_answer: AutoAnswer | None = None
        self.rules = rules
        """The project's remembered rules; None: nothing is remembered."""
        self.policy = policy
        """What to do with requests no rule matches."""
        self.tool_call_lookup = tool_call_lookup
        """tool call id → what is known of it (kind, title, raw_input), for requests that only
        carry the id; e.g. `lambda id: thread.tool_calls.get(id)`."""

    def subscribe(self, presenter: Presenter) -> Callable[[], None]:
        self._presenters.append(presenter)
        return lambda: self._presenters.remove(presenter)

    def subscribe_auto_answers(self, listener: AutoAnswerListener) -> Callable[[], None]:
        """Call `listener(event)` for every request answered without asking the user."""
        self._auto_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._auto_listeners:
                self._auto_listeners.remove(listener)

        return unsubscribe

    def subscribe_remembered(
        self, listener: Callable[[PermissionRule], None]
    ) -> Callable[[], None]:
        """Call `listener(rule)` when a user's "always" answer adds a rule."""
        self._remembered_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._remembered_listeners:
                self._remembered_listeners.remove(listener)

        return unsubscribe

    def facts(self, pending: PendingPermission) -> ToolCallFacts:
        """What a rule can match on for this request (the request's fields, completed by
        what the tool call lookup knows)."""
        known = None
        if self.tool_call_lookup is not None and pending.tool_call_id is not None:
            known = self.tool_call_lookup(pending.tool_call_id)
        return ToolCallFacts.from_wire(pending.tool_call, known)

    async def request(self, params: Any) -> dict[str, Any]:
        session_id, tool_call, options = parse_permission_request(params)
        loop = asyncio.get_running_loop()
        pending = PendingPermission(
            next(self._ids), session_id, tool_call, options, loop.create_future(), params
        )
        if self._answer_without_asking(pending):
            return pending.future.result()
        self.pending.append(pending)
        for presenter in list(self._presenters):
            presenter(pending)
        try:
            result = await pending.future
        except asyncio.CancelledError:
            pending.cancel()
            raise
        finally:
            if pending in self.pending:
                self.pending.remove(pending)
        self._remember(pending, result)
        return result

    def _answer_without_asking(self, pending: PendingPermission) -> bool:
        if self.auto_answer is not None:
            chosen_id = self.auto_answer(pending)
            if chosen_id is not None:
                chosen = next((o for o in pending.options if o.option_id == chosen_id), None)
                option = chosen or PermissionOption(chosen_id, chosen_id, "unknown")
                self._auto_select(pending, option, "auto_answer", "answered automatically")
                return True
        facts = self.facts(pending)
        if self._answer_by_rule(pending, facts):
            return True
        policy_option = option_for_policy(self.policy, facts, pending.options)
        if isinstance(policy_option, PermissionOption):
            label = f"by policy {self.policy.value}: {facts.kind} `{facts.title or '?'}`"
            self._auto_select(pending, policy_option, "policy", label)
            return True
        return False

    def _answer_by_rule(self, pending: PendingPermission, facts: ToolCallFacts) -> bool:
        rule = self.rules.find(facts) if self.rules is not None else None
        if rule is None:
            return False
        option = option_for_rule(rule, pending.options)
        if not isinstance(option, PermissionOption):
            return False  # no option of a fitting kind offered: ask as usual
        self._auto_select(pending, option, "rule", f"by rule: {rule.describe()}", rule)
        return True

    def _auto_select(
        self,
        pending: PendingPermission,
        option: PermissionOption,
        source: str,
        how: str,
        rule: PermissionRule | None = None,
    ) -> None:
        pending.select(option.option_id)
        event = AutoAnswered(pending, option, source, f"{_verdict(option)} {how}", rule)
        for listener in list(self._auto_listeners):
            listener(event)

    def _remember(self, pending: PendingPermission, result: dict[str, Any]) -> None:
        if self.rules is None:
            return
        outcome = result.get("outcome")
        if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
            return
        option_id = outcome.get("optionId")
        option = next((o for o in pending.options if o.option_id == option_id), None)
        effect: RuleEffect | None = effect_of_option_kind(option.kind) if option else None
        if effect is None:
            return
        facts = self.facts(pending)
        existing = self.rules.find(facts)
        if existing is not None and existing.effect is effect:
            return  # already remembered (e.g. this request was answered by that rule)
        rule = self.rules.remember(facts, effect)
        if rule is None:
            return
        for listener in list(self._remembered_listeners):
            listener(rule)
        for other in list(self.pending):
            if not other.done:
                self._answer_by_rule(other, self.facts(other))

    def cancel_all(self) -> int:
        count = 0
        for pending in list(self.pending):
            if not pending.done:
                pending.cancel()
                count += 1
        return count
