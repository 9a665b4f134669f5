"""Permission requests from the agent: queued in order, answered by the user (or by a rule).

`PermissionBroker.request(params)` is the handler of `session/request_permission` (params: the
`RequestPermissionRequest` model, validated by `protocol.router`). It turns the request into a
`PendingPermission` carrying a future, hands it to the presenters given to `subscribe` (the
client puts it into its tool call's state in the session model) and awaits the answer. Whoever
answers calls `PendingPermission.answer(...)`; the broker then tells the `subscribe_settled`
listeners at once (synchronously). `cancel_all()` answers every pending one with `cancelled`.

Before asking, the broker tries, in order: the `auto_answer` callback (tests, headless use), the
project's remembered rules (`RulesStore`), then the default `PermissionPolicy`. An answer given
that way is announced to `subscribe_auto_answers` listeners as an `AutoAnswered` event; the
presenters are not called for it.

"Always" answers mean what they say. What a rule would cover (`PendingPermission.subject`: the
call's resolved paths, or its exact command) is fixed when the request arrives, and the prompt
shows it (`covers`); a call that names nothing to key a rule on is offered no `allow_always`
option (`offered`). When the user picks an `allow_always`/`reject_always` option, that rule is
remembered for the project, other pending requests it matches are answered by it at once, and
the agent is told "allow once" (when offered) so that its own "always", which may cover more,
never replaces the rule.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.host.permission_rules import (
    KnownToolCall,
    PermissionPolicy,
    PermissionRule,
    RuleEffect,
    RulesStore,
    Subject,
    ToolCallFacts,
    effect_of_option_kind,
    option_for_policy,
    option_for_rule,
    pick_option,
)
from acp_tui.protocol.models import to_wire
from acp_tui.protocol.permission_outcome import selected_option_id
from acp_tui.signal import Signal, Unsubscribe

if TYPE_CHECKING:  # (imported where used: `models.client_methods` is built on first use)
    from acp_tui.protocol.models import PermissionOption, RequestPermissionRequest

CANCELLED: dict[str, Any] = {"outcome": {"outcome": "cancelled"}}


@dataclass
class PendingPermission:
    id: int
    session_id: str
    tool_call: dict[str, Any]
    options: list[PermissionOption]
    future: asyncio.Future[dict[str, Any]] = field(repr=False)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    kind: str = "other"
    """The tool call's kind (from the request, else the known tool call)."""
    subject: Subject | None = None
    """What an "always" answer would remember (fixed when the request arrived)."""
    remembered: PermissionRule | None = None
    """The rule the user's "always" answer added."""
    on_settled: Callable[[PendingPermission], None] | None = field(default=None, repr=False)
    automatic: bool = False
    """Answered without the user (a rule, the policy, the `auto_answer` hook)."""

    @property
    def tool_call_id(self) -> str | None:
        """The tool call's id, when the agent gave a string one."""
        value = self.tool_call.get("toolCallId")
        return value if isinstance(value, str) else None

    @property
    def done(self) -> bool:
        """Whether the request has its answer."""
        return self.future.done()

    @property
    def offered(self) -> list[PermissionOption]:
        """The options to show: `allow_always` only when there is something to key a rule on."""
        if self.subject is not None:
            return list(self.options)
        return [o for o in self.options if o.kind != "allow_always"]

    @property
    def covers(self) -> str | None:
        """What an "always" answer covers, e.g. "edit src/a.txt"; None if nothing."""
        return self.subject.describe(self.kind) if self.subject is not None else None

    @property
    def chosen(self) -> PermissionOption | None:
        """The option answered, once answered with one."""
        from acp_tui.protocol.models import PermissionOption

        if not self.future.done() or self.future.cancelled():
            return None
        option_id = selected_option_id(self.future.result())
        if option_id is None:
            return None
        found = next((o for o in self.options if o.option_id == option_id), None)
        # (the model makes the name safe to show: it is the agent's option id)
        return found or PermissionOption(option_id=option_id, name=option_id, kind="unknown")

    def answer(self, option_id: str | None) -> None:
        """Answer with an option (None: cancelled); later answers are ignored."""
        if option_id is None:
            self.cancel()
        else:
            self.select(option_id)

    def select(self, option_id: str) -> None:
        """Answer with the option `option_id` (once: a second answer is ignored)."""
        if not self.future.done():
            self.future.set_result({"outcome": {"outcome": "selected", "optionId": option_id}})
            self._settled()

    def cancel(self) -> None:
        """Answer "cancelled" (if not answered yet) and settle."""
        if not self.future.done():
            self.future.set_result(dict(CANCELLED))
        self._settled()

    def _settled(self) -> None:
        if self.on_settled is not None:
            on_settled, self.on_settled = self.on_settled, None
            on_settled(self)

    def option_of_kind(self, kind: str) -> PermissionOption | None:
        """The first offered option of `kind`, or None."""
        return next((o for o in self.options if o.kind == kind), None)

    def describe_answer(self) -> str:
        """The answer as shown at the tool call, e.g. "✓ answered: Allow"."""
        chosen = self.chosen
        if chosen is None:
            return "⊘ cancelled"
        text = f"{_mark(chosen)} answered: {chosen.name}"
        if self.remembered is not None:
            text += f" — remembered for {self.remembered.describe()}"
        return text


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
SettledListener = Callable[[PendingPermission], None]


def _mark(option: PermissionOption) -> str:
    if option.kind in _ALLOWING:
        return "✓"
    return "✗" if option.kind.startswith("reject") else "→"


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
        root: Path | None = None,
    ) -> None:
        self._ids = itertools.count(1)
        self.pending: list[PendingPermission] = []
        self.presented: Signal[PendingPermission] = Signal("permission to ask")
        """Each request the user must answer (the presenters)."""
        self.auto_answered: Signal[AutoAnswered] = Signal("permission answered automatically")
        self.settled: Signal[PendingPermission] = Signal("permission settled")
        self.auto_answer: AutoAnswer | None = None
        self.rules = rules
        """The project's remembered rules; None: nothing is remembered."""
        self.policy = policy
        """What to do with requests no rule matches."""
        self.tool_call_lookup = tool_call_lookup
        """tool call id → what is known of it (the merged tool call of the session), for
        requests that only carry the id; e.g. `lambda id: thread.tool_calls.get(id)`."""
        self.root = root if root is not None else (rules.project_dir if rules else None)
        """The directory relative paths of tool calls are resolved against."""

    def subscribe(self, presenter: Presenter) -> Unsubscribe:
        """Call `presenter(pending)` for every request the user must answer."""
        return self.presented.subscribe(presenter)

    def subscribe_auto_answers(self, listener: AutoAnswerListener) -> Unsubscribe:
        """Call `listener(event)` for every request answered without asking the user."""
        return self.auto_answered.subscribe(listener)

    def subscribe_settled(self, listener: SettledListener) -> Unsubscribe:
        """Call `listener(pending)` as soon as a presented request is answered or cancelled
        (by the user, a rule or `cancel_all`), before the agent gets the answer."""
        return self.settled.subscribe(listener)

    def facts(self, pending: PendingPermission) -> ToolCallFacts:
        """What a rule can match on for this request (the request's fields, completed by
        what the tool call lookup knows)."""
        known = None
        if self.tool_call_lookup is not None and pending.tool_call_id is not None:
            known = self.tool_call_lookup(pending.tool_call_id)
        return ToolCallFacts.from_wire(pending.tool_call, known, root=self.root)

    async def request(self, params: RequestPermissionRequest) -> dict[str, Any]:
        """Answer session/request_permission: by a saved rule or the policy, else ask the user
        and wait.
        """
        loop = asyncio.get_running_loop()
        pending = PendingPermission(
            next(self._ids),
            params.session_id,
            params.tool_call.model_dump(
                mode="json", by_alias=True, exclude_none=True, exclude={"session_update"}
            ),
            list(params.options),
            loop.create_future(),
            to_wire(params),
        )
        facts = self.facts(pending)
        pending.kind = facts.kind
        pending.subject = facts.subject()
        if self._answer_without_asking(pending, facts):
            return pending.future.result()
        self.pending.append(pending)
        pending.on_settled = self._settled
        self.presented.emit(pending)
        try:
            # shielded: a cancelled request (the agent's $/cancel_request, a lost connection)
            # is answered "cancelled" below rather than leaving the future cancelled unseen
            await asyncio.shield(pending.future)
        except asyncio.CancelledError:
            pending.cancel()
            raise
        finally:
            if pending in self.pending:
                self.pending.remove(pending)
        return self._reply(pending)

    def _answer_without_asking(self, pending: PendingPermission, facts: ToolCallFacts) -> bool:
        from acp_tui.protocol.models import PermissionOption

        if self.auto_answer is not None:
            chosen_id = self.auto_answer(pending)
            if chosen_id is not None:
                chosen = next((o for o in pending.options if o.option_id == chosen_id), None)
                option = chosen or PermissionOption(
                    option_id=chosen_id, name=chosen_id, kind="unknown"
                )
                self._auto_select(pending, option, "auto_answer", "answered automatically")
                return True
        if self._answer_by_rule(pending, facts):
            return True
        policy_option = option_for_policy(self.policy, facts, pending.options)
        if isinstance(policy_option, PermissionOption):
            label = f"by policy {self.policy.value}: {facts.kind} `{facts.title or '?'}`"
            self._auto_select(pending, policy_option, "policy", label)
            return True
        return False

    def _answer_by_rule(self, pending: PendingPermission, facts: ToolCallFacts) -> bool:
        from acp_tui.protocol.models import PermissionOption

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
        if not pending.done:
            pending.automatic = True
        pending.select(option.option_id)
        event = AutoAnswered(pending, option, source, f"{_verdict(option)} {how}", rule)
        self.auto_answered.emit(event)

    def _settled(self, pending: PendingPermission) -> None:
        self._remember(pending)
        self.settled.emit(pending)
        if pending.remembered is not None:
            for other in list(self.pending):
                if other is not pending and not other.done:
                    self._answer_by_rule(other, self.facts(other))

    def _remember(self, pending: PendingPermission) -> None:
        chosen = pending.chosen
        effect: RuleEffect | None = effect_of_option_kind(chosen.kind) if chosen else None
        if self.rules is None or effect is None or pending.subject is None:
            return
        pending.remembered = self.rules.remember(pending.kind, pending.subject, effect)

    def _reply(self, pending: PendingPermission) -> dict[str, Any]:
        """The answer for the agent: a remembered "allow always" is sent as "allow once"."""
        from acp_tui.protocol.models import PermissionOption

        result = pending.future.result()
        chosen = pending.chosen
        if pending.remembered is not None and chosen is not None and chosen.kind == "allow_always":
            once = pick_option(pending.options, ("allow_once",))
            if isinstance(once, PermissionOption):
                return {"outcome": {"outcome": "selected", "optionId": once.option_id}}
        return result

    def cancel_all(self) -> int:
        """Cancel every open request (the turn or session ended); returns how many."""
        count = 0
        for pending in list(self.pending):
            if not pending.done:
                pending.cancel()
                count += 1
        return count
