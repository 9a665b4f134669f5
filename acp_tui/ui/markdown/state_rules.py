"""One regex per lexer state: the first of a state's rules that matches, found in one call.

A pygments ``RegexLexer`` tries the rules of its current state one after another at each
position until one matches: Python's root state has 56 of them, so most of a line's lexing is
spent on regexes that fail. Python's ``re`` tries the branches of an alternation in order and
takes the first that matches, so ``(r0)|(r1)|...`` matched at a position finds the same rule,
with the same span, as the loop does; the branch that matched is the group ``lastindex``
names (each rule is wrapped in a group of its own, which closes after the rule's own groups).

Only the states `prepare` built are combined: the warm-up builds them in the background, the root
state of each language it warms. The rules of any other state
are tried one by one, as pygments does; so are those of a state with a rule that refers to a
group by number or name (it would see the combined pattern's numbering) or uses the ASCII or
LOCALE flag, and of a state whose combined pattern does not compile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

Rule = tuple[Callable[..., Any], Any, Any]
"""A processed pygments rule: the bound ``match`` of its regex, its action, its new state."""

_GROUP_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
_LEADING_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_SCOPED_FLAGS = (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL), ("x", re.VERBOSE))


class StateMatcher(NamedTuple):
    """The combined regex of one state's rules, and the rule each wrapping group stands for."""

    match: Callable[[str, int], re.Match[str] | None]
    rule_of_group: dict[int, int]


def _branch(pattern: re.Pattern[str]) -> str | None:
    """``pattern`` as a branch of the combined regex: its flags scoped to it (None: it cannot
    be one)."""
    source = pattern.pattern
    if _GROUP_REFERENCE.search(source) or pattern.flags & (re.ASCII | re.LOCALE):
        return None
    leading = _LEADING_FLAGS.match(source)
    if leading:  # (global flags, already in `pattern.flags`)
        source = source[leading.end() :]
    flags = "".join(letter for letter, bit in _SCOPED_FLAGS if pattern.flags & bit)
    if "x" in flags:
        source += "\n"  # (a trailing comment would swallow the closing parenthesis)
    return f"((?{flags}:{source}))" if flags else f"({source})"


def combine(rules: Sequence[Rule]) -> StateMatcher | None:
    """One regex for `rules`, or None when they cannot share one (see the module docstring)."""
    branches: list[str] = []
    rule_of_group: dict[int, int] = {}
    group = 1
    for index, (rexmatch, _action, _new_state) in enumerate(rules):
        pattern = getattr(rexmatch, "__self__", None)
        if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
            return None
        branch = _branch(pattern)
        if branch is None:
            return None
        rule_of_group[group] = index
        branches.append(branch)
        group += 1 + pattern.groups
    try:
        combined = re.compile("|".join(branches))
    except (re.error, RecursionError, OverflowError):
        return None
    return StateMatcher(combined.match, rule_of_group)


MIN_RULES = 12
"""States with fewer rules are left to the loop: its few misses cost little, and a combined regex
costs about half a millisecond a rule to compile."""

_ready: dict[tuple[type, str], StateMatcher] = {}
"""The combined regexes built so far, by lexer class and state (only `prepare` adds: the
warm-up's languages, so it stays small)."""


def prepare(lexer: object, states: Iterable[str] = ("root",), min_rules: int = MIN_RULES) -> int:
    """Build the combined regexes of `lexer`'s `states` that have at least `min_rules` rules;
    how many were built. The warm-up thread calls this for the root state, where nearly every
    token of code is found (compiling Python's takes 26 ms, more than it saves over a 300-line
    fence, so a message never pays for it)."""
    lexer_class = type(lexer)
    tokens: dict[str, Sequence[Rule]] = getattr(lexer_class, "_tokens", None) or {}
    built = 0
    for state in states:
        rules = tokens.get(state, ())
        if len(rules) < min_rules or (lexer_class, state) in _ready:
            continue
        matcher = combine(rules)
        if matcher is not None:
            _ready[(lexer_class, state)] = matcher
            built += 1
    return built


def matcher_for(lexer_class: type, state: str) -> StateMatcher | None:
    """The combined regex of `state` in `lexer_class`, if `prepare` built it (else None: the
    rules are tried one by one)."""
    return _ready.get((lexer_class, state))
