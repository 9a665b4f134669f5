"""Syntax highlighting one line at a time, carrying the lexer state across lines.

Pygments' ``RegexLexer`` keeps a state stack while it scans; its public API does not return
the stack at the end of the text.  :func:`lex_line` runs the same regex-state-machine over a
single line and returns the stack left at its end, so a streaming code fence highlights each
new line once, and multi-line constructs (docstrings, block comments) stay coloured.  Other
lexers fall back to highlighting each line on its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acp_tui.ui.markdown.state_rules import Rule, StateMatcher, matcher_for

if TYPE_CHECKING:  # pygments loads at the first code fence, not with the app
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

LexState = tuple[str, ...]
Token = tuple["_TokenType", str]
ROOT: LexState = ("root",)


_BUILDING = threading.Lock()
"""One lexer built at a time: a lexer class builds its shared token tables at its first use,
and the warm-up thread (`warm_up`) may be building the one a message asks for."""

KEPT_LEXERS = 64
"""How many languages' lexers (or their absence) are kept: fence languages are the agent's
text, so the table is bounded."""
_lexers: dict[str, Lexer | None] = {}
"""The built lexers by language (None: pygments has none), the oldest first."""


def lexer_for(language: str) -> Lexer | None:
    """A shared lexer for ``language`` (lexers keep no state between calls), or None; built at
    the first call (pygments' import and the lexer's regexes: 60-85 ms of CPU for Python)."""
    if not language:
        return None
    try:
        return _lexers[language]
    except KeyError:
        pass
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    with _BUILDING:
        if language in _lexers:  # (built meanwhile by the warm-up thread)
            return _lexers[language]
        try:
            lexer: Lexer | None = get_lexer_by_name(language, stripnl=False, ensurenl=False)
        except ClassNotFound:
            lexer = None
        while len(_lexers) >= KEPT_LEXERS:
            del _lexers[next(iter(_lexers))]
        _lexers[language] = lexer
    return lexer


def lexer_ready(language: str) -> bool:
    """Whether `lexer_for(language)` answers at once (built, or known to have none)."""
    return not language or language in _lexers


def _apply_transition(stack: list[str], new_state: object) -> None:
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif state == "#push":
                stack.append(stack[-1])
            else:
                stack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(stack):
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])


def lex_line(
    lexer: Lexer | None, line: str, state: LexState = ROOT, *, combined: bool = True
) -> tuple[list[Token], LexState]:
    """Tokens of ``line`` (without its newline) and the lexer state after it.

    ``combined``: find each token's rule with one regex per state (`state_rules`); False tries
    the rules one by one, as pygments does (the same tokens: the tests compare the two)."""
    from pygments.lexer import ExtendedRegexLexer, RegexLexer
    from pygments.token import Error, Text, Whitespace, _TokenType

    if lexer is None:
        return [(Text, line)], state
    text = line + "\n"
    if not isinstance(lexer, RegexLexer) or isinstance(lexer, ExtendedRegexLexer):
        plain = [(tok, val) for _, tok, val in lexer.get_tokens_unprocessed(text)]
        return _strip_newline(plain), state
    tokendefs = lexer._tokens
    lexer_class = type(lexer) if combined else None
    stack = list(state)
    rules = tokendefs[stack[-1]]
    matcher = matcher_for(lexer_class, stack[-1]) if lexer_class else None
    tokens: list[Token] = []
    pos, end = 0, len(text)
    while pos < end:
        hit = _first_match(matcher, rules, text, pos, _TokenType)
        if hit is not None:
            m, action, new_state = hit
            if action is not None:
                if type(action) is _TokenType:
                    tokens.append((action, m.group()))
                else:
                    tokens.extend((tok, val) for _, tok, val in action(lexer, m))
            pos = m.end()
            if new_state is not None:
                _apply_transition(stack, new_state)
                rules = tokendefs[stack[-1]]
                matcher = matcher_for(lexer_class, stack[-1]) if lexer_class else None
            continue
        if text[pos] == "\n":
            stack = ["root"]
            rules = tokendefs["root"]
            matcher = matcher_for(lexer_class, "root") if lexer_class else None
            tokens.append((Whitespace, "\n"))
        else:
            tokens.append((Error, text[pos]))
        pos += 1
    return _strip_newline(tokens), tuple(stack)


def _first_match(
    matcher: StateMatcher | None, rules: Sequence[Rule], text: str, pos: int, token_type: type
) -> tuple[re.Match[str], Any, Any] | None:
    """The first of `rules` that matches at `pos` (found by `matcher` if the state has one):
    its match, action and new state; None if none matches."""
    if matcher is not None:
        m = matcher.match(text, pos)
        if m is None:
            return None
        index = matcher.rule_of_group.get(m.lastindex or 0)
        if index is not None:  # (else, never expected: the rules one by one decide)
            rexmatch, action, new_state = rules[index]
            if action is not None and type(action) is not token_type:
                m = rexmatch(text, pos)  # (its callback reads the rule's own groups)
            if m is not None:
                return m, action, new_state
    for rexmatch, action, new_state in rules:
        m = rexmatch(text, pos)
        if m is not None:
            return m, action, new_state
    return None


def _strip_newline(tokens: list[Token]) -> list[Token]:
    """Drop the newline we appended (it is always the last character)."""
    while tokens:
        tok, val = tokens[-1]
        if not val:
            tokens.pop()
            continue
        if val.endswith("\n"):
            tokens[-1] = (tok, val[:-1])
            if not tokens[-1][1]:
                tokens.pop()
        break
    return tokens
