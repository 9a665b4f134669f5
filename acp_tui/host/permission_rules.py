"""Remembered permission decisions ("always allow / always reject"), per project, and the policy.

A `PermissionRule` matches a tool call on its kind plus its title, or, for `execute` calls, the
command (from `rawInput.command` / `rawInput.cmd`, with `args` appended, else the title). A
`RulesStore` holds one project's rules and persists them as JSON in
`$XDG_DATA_HOME/acp-tui/permissions/<sha256 of the project dir>.json` (atomically). It never
raises on a corrupt or unreadable file: the problems are collected in `messages` and the store
starts empty; the corrupt file is moved aside (`*.corrupt`) before it is first overwritten.

`decide(...)` turns a rule or the default `PermissionPolicy` into the option to pick.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from acp_tui.host.atomic_write import atomic_write_text

FILE_VERSION = 1
READ_ONLY_KINDS = frozenset({"read", "search", "fetch", "think"})


class PermissionPolicy(StrEnum):
    """What happens to a permission request no rule matches."""

    ASK = "ask"
    """Ask the user for everything."""
    ALLOW_READS = "allow_reads"
    """Allow tool calls of kind read/search/fetch/think once without asking; ask for the rest."""
    ALLOW_ALL_DANGEROUS = "allow_all_dangerous"
    """Allow every tool call once without asking (edits, deletes, commands: dangerous)."""


class RuleEffect(StrEnum):
    ALLOW = "allow"
    REJECT = "reject"


class OptionLike(Protocol):
    @property
    def option_id(self) -> str: ...
    @property
    def kind(self) -> str: ...


class KnownToolCall(Protocol):
    """What the broker needs to know about a tool call (`session.entries.ToolCallEntry` fits)."""

    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def raw_input(self) -> Any: ...


@dataclass(frozen=True)
class ToolCallFacts:
    """The parts of a tool call a rule can match on."""

    kind: str
    title: str
    raw_input: Any = None

    @classmethod
    def from_wire(
        cls, tool_call: Mapping[str, Any], known: KnownToolCall | None = None
    ) -> ToolCallFacts:
        """From a request's `toolCall` (camelCase wire dict); fields it lacks come from `known`."""
        kind = tool_call.get("kind")
        title = tool_call.get("title")
        raw_input = tool_call.get("rawInput")
        if known is not None:
            kind = kind if isinstance(kind, str) else known.kind
            title = title if isinstance(title, str) else known.title
            raw_input = raw_input if raw_input is not None else known.raw_input
        return cls(
            kind if isinstance(kind, str) and kind else "other",
            title if isinstance(title, str) else "",
            raw_input,
        )

    @property
    def command(self) -> str | None:
        """The command an `execute` call runs, as one line, if its rawInput says."""
        raw = self.raw_input
        if not isinstance(raw, Mapping):
            return None
        command = raw.get("command", raw.get("cmd"))
        if isinstance(command, list) and command and all(isinstance(p, str) for p in command):
            line = shlex.join(command)
        elif isinstance(command, str) and command.strip():
            line = command.strip()
        else:
            return None
        args = raw.get("args")
        if isinstance(args, list) and args and all(isinstance(a, str) for a in args):
            line = f"{line} {shlex.join(args)}"
        return line

    def matcher(self) -> tuple[str, str]:
        """("command", the command) for execute calls that name one, else ("title", the title)."""
        if self.kind == "execute":
            command = self.command
            if command:
                return "command", command
        return "title", " ".join(self.title.split())


@dataclass(frozen=True)
class PermissionRule:
    id: str
    tool_kind: str
    match_on: str  # "title" | "command"
    pattern: str  # compared for equality with the call's title / command
    effect: RuleEffect
    created: str  # ISO 8601, UTC

    def matches(self, facts: ToolCallFacts) -> bool:
        return facts.kind == self.tool_kind and facts.matcher() == (self.match_on, self.pattern)

    def describe(self) -> str:
        """E.g. "execute `ls -la`" or "edit `Edit src/app.py`"."""
        return f"{self.tool_kind} `{self.pattern}`"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> PermissionRule:
        if not isinstance(data, dict):
            raise ValueError("a rule must be an object")
        values: dict[str, str] = {}
        for name in ("id", "tool_kind", "match_on", "pattern", "effect", "created"):
            value = data.get(name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"rule field {name!r} must be a non-empty string")
            values[name] = value
        if values["match_on"] not in ("title", "command"):
            raise ValueError(f"unknown match_on {values['match_on']!r}")
        try:
            effect = RuleEffect(values.pop("effect"))
        except ValueError:
            raise ValueError(f"unknown effect {data.get('effect')!r}") from None
        return cls(effect=effect, **values)


def new_rule(facts: ToolCallFacts, effect: RuleEffect) -> PermissionRule | None:
    """A rule for calls like `facts`; None when there is nothing to match on (no title)."""
    match_on, pattern = facts.matcher()
    if not pattern:
        return None
    created = datetime.now(UTC).isoformat(timespec="seconds")
    return PermissionRule(uuid.uuid4().hex[:12], facts.kind, match_on, pattern, effect, created)


# ---- decisions --------------------------------------------------------------------------------

ALLOW_PREFERENCE = ("allow_always", "allow_once")
REJECT_PREFERENCE = ("reject_always", "reject_once")


def pick_option(options: Sequence[OptionLike], kinds: Iterable[str]) -> OptionLike | None:
    """The first offered option whose kind comes first in `kinds`."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option
    return None


def option_for_rule(rule: PermissionRule, options: Sequence[OptionLike]) -> OptionLike | None:
    preference = ALLOW_PREFERENCE if rule.effect is RuleEffect.ALLOW else REJECT_PREFERENCE
    return pick_option(options, preference)


def option_for_policy(
    policy: PermissionPolicy, facts: ToolCallFacts, options: Sequence[OptionLike]
) -> OptionLike | None:
    """The allow_once option when the policy allows this call without asking, else None."""
    if policy is PermissionPolicy.ALLOW_ALL_DANGEROUS or (
        policy is PermissionPolicy.ALLOW_READS and facts.kind in READ_ONLY_KINDS
    ):
        return pick_option(options, ("allow_once",))
    return None


def effect_of_option_kind(kind: str) -> RuleEffect | None:
    """The rule an answer asks us to remember: allow_always → ALLOW, reject_always → REJECT."""
    return {"allow_always": RuleEffect.ALLOW, "reject_always": RuleEffect.REJECT}.get(kind)


# ---- persistence ------------------------------------------------------------------------------


def user_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "acp-tui"
    return Path(env.get("HOME") or Path.home()) / ".local" / "share" / "acp-tui"


def rules_path_for(project_dir: Path, data_dir: Path | None = None) -> Path:
    """Where the rules of `project_dir` live: one file per (resolved) project directory."""
    resolved = str(Path(project_dir).resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return (data_dir or user_data_dir()) / "permissions" / f"{digest}.json"


class RulesStore:
    """One project's remembered rules, persisted at once on every change.

    Writes are small and synchronous (an fsynced atomic replace), so saves are totally ordered.
    `messages` collects what went wrong reading or writing the file, for the UI to show.
    """

    def __init__(self, project_dir: Path, path: Path | None = None) -> None:
        self.project_dir = Path(project_dir).resolve()
        self.path = path if path is not None else rules_path_for(self.project_dir)
        self.messages: list[str] = []
        self._rules: list[PermissionRule] = []
        self._listeners: list[Callable[[], None]] = []
        self._back_up_before_save = False
        self.load()

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        return tuple(self._rules)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after every change; returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def load(self) -> list[str]:
        """(Re)read the file. Returns the problems found (also appended to `messages`)."""
        problems: list[str] = []
        self._rules = []
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return problems
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"cannot read permission rules {self.path}: {error}")
            text = None
        if text is not None:
            self._rules = self._parse(text, problems)
        self._back_up_before_save = bool(problems)
        self.messages.extend(problems)
        return problems

    def _parse(self, text: str, problems: list[str]) -> list[PermissionRule]:
        try:
            data = json.loads(text)
        except ValueError as error:
            problems.append(f"permission rules {self.path} are not valid JSON ({error}); ignored")
            return []
        raw_rules = data.get("rules") if isinstance(data, dict) else None
        if not isinstance(raw_rules, list):
            problems.append(f"permission rules {self.path} have no 'rules' list; ignored")
            return []
        rules: list[PermissionRule] = []
        for index, raw in enumerate(raw_rules):
            try:
                rules.append(PermissionRule.from_json(raw))
            except ValueError as error:
                problems.append(f"permission rule #{index + 1} in {self.path} skipped: {error}")
        return rules

    def find(self, facts: ToolCallFacts) -> PermissionRule | None:
        """The newest rule matching `facts`."""
        return next((rule for rule in reversed(self._rules) if rule.matches(facts)), None)

    def remember(self, facts: ToolCallFacts, effect: RuleEffect) -> PermissionRule | None:
        """Add (or replace the rule for the same call with) a rule; persisted at once."""
        rule = new_rule(facts, effect)
        if rule is None:
            return None
        self._rules = [
            r
            for r in self._rules
            if (r.tool_kind, r.match_on, r.pattern) != (rule.tool_kind, rule.match_on, rule.pattern)
        ]
        self._rules.append(rule)
        self._changed()
        return rule

    def revoke(self, rule_id: str) -> bool:
        """Remove the rule with this id; persisted at once. False if there is none."""
        kept = [r for r in self._rules if r.id != rule_id]
        if len(kept) == len(self._rules):
            return False
        self._rules = kept
        self._changed()
        return True

    def _changed(self) -> None:
        self.save()
        for listener in list(self._listeners):
            listener()

    def save(self) -> bool:
        """Write the rules; on failure record a message and return False (never raises OSError)."""
        document = {
            "version": FILE_VERSION,
            "project": str(self.project_dir),
            "rules": [rule.to_json() for rule in self._rules],
        }
        try:
            if self._back_up_before_save and self.path.is_file():
                backup = self.path.with_name(self.path.name + ".corrupt")
                os.replace(self.path, backup)
                self.messages.append(f"the unreadable rules file was kept as {backup}")
            self._back_up_before_save = False
            ensure_private_dir(self.path.parent)
            atomic_write_text(self.path, json.dumps(document, indent=2) + "\n")
        except OSError as error:
            self.messages.append(f"cannot save permission rules to {self.path}: {error}")
            return False
        return True


def ensure_private_dir(path: Path) -> None:
    """Create the rules directory readable by the user only (best effort)."""
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
