"""Remembered permission decisions ("always allow / always reject"), per project, and the policy.

A `PermissionRule` is keyed on what a tool call touches (a `Subject`, see
`permission_subject`): the resolved paths of an edit/read/delete/move (each may be widened by the
user to a directory scope `src/**`), the exact command of an execute call, never the title alone.
It matches a call of the same kind whose every path its scopes cover (or whose command is the
same). A `RulesStore` holds one project's rules and persists them as JSON in
`$XDG_DATA_HOME/acp-tui/permissions/<sha256 of the project dir>.json` (atomically). It never
raises on a corrupt or unreadable file: the problems are collected in `messages` and the store
starts empty; the corrupt file is moved aside (`*.corrupt`) before it is first overwritten.
Version 1 files (rules on kind + title or command line) are migrated when loaded: command rules
become exact shell-string rules, title rules are dropped (they could cover anything); the old
file is kept as `*.v1`.

`option_for_rule(...)`/`option_for_policy(...)` turn a rule or the default `PermissionPolicy`
into the option to pick: the "once" options first, so that the agent keeps asking and the
rule keeps deciding (an agent's own "always" may cover more than the rule does).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from acp_tui.host import app_dirs
from acp_tui.host.atomic_write import atomic_write_text
from acp_tui.host.permission_subject import (
    MATCH_KINDS,
    KnownToolCall,
    Subject,
    ToolCallFacts,
    covers,
    normalize_scope,
)
from acp_tui.signal import Signal, Unsubscribe

__all__ = [
    "KnownToolCall",
    "PermissionPolicy",
    "PermissionRule",
    "RuleEffect",
    "RulesStore",
    "Subject",
    "ToolCallFacts",
]

FILE_VERSION = 2
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
    def option_id(self) -> str:
        """The option's id, sent back to the agent."""

    @property
    def kind(self) -> str:
        """The option's kind (allow_once, allow_always, reject_once, reject_always)."""


class DroppedRule(ValueError):
    """An old rule that cannot be kept safely (it was keyed on a title only)."""


@dataclass(frozen=True)
class PermissionRule:
    id: str
    tool_kind: str
    subject: Subject
    effect: RuleEffect
    created: str  # ISO 8601, UTC

    def matches(self, facts: ToolCallFacts) -> bool:
        """Whether the rule covers this tool call: same kind, and its command, URL or paths
        within the rule's subject.
        """
        if facts.kind != self.tool_kind:
            return False
        call = facts.subject()
        mine = self.subject
        if call is None or call.match_on != mine.match_on:
            return False
        if mine.match_on == "paths":
            return call.title == mine.title and all(
                any(covers(scope, path) for scope in mine.values) for path in call.values
            )
        return call.values == mine.values and call.cwd == mine.cwd

    def describe(self) -> str:
        """E.g. "execute `ls -la`" or "edit src/app.py, src/**"."""
        return self.subject.describe(self.tool_kind)

    @property
    def editable(self) -> bool:
        """Path rules can be widened or narrowed; commands and URLs are exact."""
        return self.subject.match_on == "paths"

    def with_scopes(self, scopes: Sequence[str]) -> PermissionRule:
        """The same rule covering other path scopes."""
        subject = Subject("paths", tuple(scopes), self.subject.title, self.subject.cwd)
        return PermissionRule(self.id, self.tool_kind, subject, self.effect, self.created)

    def to_json(self) -> dict[str, Any]:
        """The rule as saved in the rules file."""
        data: dict[str, Any] = {
            "id": self.id,
            "tool_kind": self.tool_kind,
            "match_on": self.subject.match_on,
            "values": list(self.subject.values),
            "effect": self.effect.value,
            "created": self.created,
        }
        if self.subject.title is not None:
            data["title"] = self.subject.title
        if self.subject.cwd is not None:
            data["cwd"] = self.subject.cwd
        return data

    @classmethod
    def from_json(cls, data: Any) -> PermissionRule:
        """A rule from the file (version 2, or a version 1 rule migrated; `DroppedRule` for
        one that cannot be migrated)."""
        if not isinstance(data, dict):
            raise ValueError("a rule must be an object")
        names = ("id", "tool_kind", "match_on", "effect", "created")
        values: dict[str, str] = {}
        for name in names:
            value = data.get(name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"rule field {name!r} must be a non-empty string")
            values[name] = value
        try:
            effect = RuleEffect(values["effect"])
        except ValueError:
            raise ValueError(f"unknown effect {data.get('effect')!r}") from None
        subject = _subject_from_json(values["tool_kind"], values["match_on"], data)
        return cls(values["id"], values["tool_kind"], subject, effect, values["created"])


def _subject_from_json(kind: str, match_on: str, data: dict[str, Any]) -> Subject:
    if "values" not in data and "pattern" in data:  # version 1
        pattern = data.get("pattern")
        if match_on == "command" and isinstance(pattern, str) and pattern:
            return Subject("shell", (pattern,))
        raise DroppedRule(f"the old rule for {kind} `{pattern}` matched a title only; dropped")
    if match_on not in MATCH_KINDS:
        raise ValueError(f"unknown match_on {match_on!r}")
    raw = data.get("values")
    # An argv may hold empty arguments (`printf ''`); the first value never is empty.
    strings = isinstance(raw, list) and all(isinstance(v, str) for v in raw)
    if not strings or not raw or not raw[0]:
        raise ValueError("rule field 'values' must be a non-empty list of strings")
    if match_on == "shell" and len(raw) != 1:
        raise ValueError("a shell rule has exactly one command")
    extras: dict[str, str | None] = {}
    for name in ("title", "cwd"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"rule field {name!r} must be a string")
        extras[name] = value
    return Subject(match_on, tuple(raw), extras["title"], extras["cwd"])


def new_rule(kind: str, subject: Subject, effect: RuleEffect) -> PermissionRule:
    """A new rule with a fresh id, created now."""
    created = datetime.now(UTC).isoformat(timespec="seconds")
    return PermissionRule(uuid.uuid4().hex[:12], kind, subject, effect, created)


# ---- decisions --------------------------------------------------------------------------------

ALLOW_PREFERENCE = ("allow_once", "allow_always")
REJECT_PREFERENCE = ("reject_once", "reject_always")


def pick_option(options: Sequence[OptionLike], kinds: Iterable[str]) -> OptionLike | None:
    """The first offered option whose kind comes first in `kinds`."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option
    return None


def option_for_rule(rule: PermissionRule, options: Sequence[OptionLike]) -> OptionLike | None:
    """The option that carries out the rule's effect among those offered, or None."""
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
    """acp-tui's data directory: `$XDG_DATA_HOME/acp-tui` (an absolute XDG path only), else
    `~/.local/share/acp-tui`.
    """
    return app_dirs.data_dir(environ)


def directory_file(folder: str, directory: Path, data_dir: Path | None = None) -> Path:
    """acp-tui's file in `folder` of its data directory for `directory`: one per (resolved)
    directory, named by the first 24 hex digits of the SHA-256 of its path (UTF-8)."""
    resolved = str(Path(directory).resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return (data_dir or user_data_dir()) / folder / f"{digest}.json"


def rules_path_for(project_dir: Path, data_dir: Path | None = None) -> Path:
    """Where the rules of `project_dir` live: one file per (resolved) project directory."""
    return directory_file("permissions", project_dir, data_dir)


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
        self.changed: Signal[None] = Signal("permission rules changed")
        self._back_up_before_save = False
        self.load()

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """The rules now in force, in order."""
        return tuple(self._rules)

    def subscribe(self, listener: Callable[[], None]) -> Unsubscribe:
        """Call `listener()` after every change; returns an unsubscribe function."""
        return self.changed.subscribe(_Nullary(listener))

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
        migrated = False
        if text is not None:
            self._rules, migrated = self._parse(text, problems)
        self._back_up_before_save = bool(problems) and not migrated
        self.messages.extend(problems)
        if migrated:
            self._migrate()
        return problems

    def _parse(self, text: str, problems: list[str]) -> tuple[list[PermissionRule], bool]:
        """The rules in `text`, and whether it was an old version (migrated)."""
        try:
            data = json.loads(text)
        except ValueError as error:
            problems.append(f"permission rules {self.path} are not valid JSON ({error}); ignored")
            return [], False
        raw_rules = data.get("rules") if isinstance(data, dict) else None
        if not isinstance(raw_rules, list):
            problems.append(f"permission rules {self.path} have no 'rules' list; ignored")
            return [], False
        old = isinstance(data, dict) and data.get("version", 1) != FILE_VERSION
        rules: list[PermissionRule] = []
        for index, raw in enumerate(raw_rules):
            try:
                rules.append(PermissionRule.from_json(raw))
            except DroppedRule as dropped:
                problems.append(str(dropped))
            except ValueError as error:
                problems.append(f"permission rule #{index + 1} in {self.path} skipped: {error}")
        return rules, old

    def _migrate(self) -> None:
        """Keep the old file as `*.v1` and write the migrated rules."""
        backup = self.path.with_name(self.path.name + ".v1")
        try:
            os.replace(self.path, backup)
        except OSError as error:
            self.messages.append(f"cannot keep the old rules file as {backup}: {error}")
            return
        if self.save():
            self.messages.append(f"permission rules migrated; the old file was kept as {backup}")

    def find(self, facts: ToolCallFacts) -> PermissionRule | None:
        """The newest rule matching `facts`."""
        return next((rule for rule in reversed(self._rules) if rule.matches(facts)), None)

    def remember(self, kind: str, subject: Subject, effect: RuleEffect) -> PermissionRule:
        """Add (or replace the rule for the same subject with) a rule; persisted at once."""
        rule = new_rule(kind, subject, effect)
        self._rules = [r for r in self._rules if (r.tool_kind, r.subject) != (kind, subject)]
        self._rules.append(rule)
        self._changed()
        return rule

    def set_scopes(self, rule_id: str, scopes: Iterable[str]) -> PermissionRule:
        """Change the paths/directory scopes a path rule covers (typed by the user: relative to
        the project, absolute, or `dir/**`); persisted at once. Raises ValueError (with the
        reason) for an unknown rule, a rule that is not a path rule, or a bad scope."""
        index = next((i for i, r in enumerate(self._rules) if r.id == rule_id), None)
        if index is None:
            raise ValueError("no such rule")
        rule = self._rules[index]
        if not rule.editable:
            raise ValueError(f"a {rule.subject.match_on} rule matches exactly; it has no scopes")
        normalized: list[str] = []
        for scope in scopes:
            value = normalize_scope(scope, self.project_dir)
            if value not in normalized:
                normalized.append(value)
        if not normalized:
            raise ValueError("a rule needs at least one path or scope")
        self._rules[index] = rule.with_scopes(normalized)
        self._changed()
        return self._rules[index]

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
        self.changed.emit(None)

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


class _Nullary:
    """A `() -> None` listener on a `Signal[None]` (named after it in failure reports)."""

    def __init__(self, listener: Callable[[], None]) -> None:
        self.listener = listener
        self.__qualname__ = getattr(listener, "__qualname__", type(listener).__qualname__)
        self.__module__ = getattr(listener, "__module__", __name__)

    def __call__(self, _: None) -> None:
        self.listener()
