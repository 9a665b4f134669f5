"""One regex per lexer state finds the same tokens as trying the rules one by one."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Name, Number, String, Whitespace

from acp_tui.ui.markdown import highlight, state_rules
from acp_tui.ui.markdown.highlight import ROOT, LexState, lex_line, lexer_for
from acp_tui.ui.markdown.state_rules import MIN_RULES, combine, matcher_for, prepare

SAMPLES = {
    "python": Path(highlight.__file__).read_text() + inspect.getsource(state_rules),
    "bash": 'for f in *.py; do\n  echo "$f ${f%.py} $(wc -l < "$f")" >> out.txt\ndone\n'
    "cat <<EOF\nhere $HOME\nEOF\nif [[ -n $x && $y =~ ^a.*b$ ]]; then exit 1; fi # end\n",
    "javascript": "const re = /ab+c/gi; let s = `t ${a + b} ${`n`}`;\n"
    "function f(x) { return x?.y ?? 0; } // c\n/* block\n comment */ class A extends B {}\n",
    "typescript": "interface P<T> { a: T; b?: readonly string[] }\n"
    "export const f = async <T,>(x: T): Promise<T> => { await g(x); return x as T; };\n",
    "diff": "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,4 @@\n-old\n+new\n context\n\\ No newline\n",
    "rust": 'fn main() { let s: &str = r#"raw "x""#; println!("{}", s); } // done\n'
    "#[derive(Debug)] struct A<'a> { x: &'a u8 }\n",
    "go": 'package main\nimport "fmt"\nfunc main() { x := []int{1, 2}; fmt.Println(x) }\n',
    "c": '#include <stdio.h>\nint main(void) { /* c */ printf("%d\\n", 1); return 0; }\n',
    "html": '<!DOCTYPE html>\n<div class="a" id=b><script>let x = 1 < 2;</script>\n'
    "<style>p { color: red }</style><!-- c --></div>\n",
    "css": "@media (max-width: 600px) { .a > b::after { content: '\\201C'; margin: 0 -1px } }\n",
    "yaml": "key: value\nlist:\n  - a\n  - {b: 1, c: [2, 3]}\nblock: |\n  text\n  more\n# c\n",
    "toml": '[tool.x]\na = 1\nb = "s"\nc = [1, 2]\nd = """\nmulti\n"""\n',
    "sql": "SELECT a, COUNT(*) FROM t WHERE b LIKE '%x%' GROUP BY a -- c\n/* d */;\n",
    "markdown": "# T\n\n*a* **b** `c`\n\n```py\nx = 1\n```\n\n- [l](http://x)\n",
}


def lex_both(language: str, text: str) -> tuple[list[object], list[object]]:
    lexer = lexer_for(language)
    assert lexer is not None
    prepare(lexer, lexer._tokens, min_rules=1)  # (every state combined that can be)
    out: dict[bool, list[object]] = {True: [], False: []}
    for combined in (True, False):
        state: LexState = ROOT
        for line in text.split("\n"):
            tokens, state = lex_line(lexer, line, state, combined=combined)
            out[combined].append((tokens, state))
    return out[True], out[False]


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_each_line_gets_the_tokens_and_state_the_rules_one_by_one_give(language: str) -> None:
    fast, slow = lex_both(language, SAMPLES[language])
    assert fast == slow
    lexer = lexer_for(language)
    assert lexer is not None
    assert any(matcher_for(type(lexer), state) is not None for state in lexer._tokens)


@settings(max_examples=150, deadline=None)
@given(
    language=st.sampled_from(sorted(SAMPLES)),
    text=st.text(
        alphabet=st.sampled_from(list("abc019 \t\n\"'`#/*\\{}[]()<>$%-+=:;.,@!?|&^~_rRfF")),
        max_size=120,
    ),
)
def test_any_text_gets_the_same_tokens(language: str, text: str) -> None:
    fast, slow = lex_both(language, text)
    assert fast == slow


def test_python_root_is_one_regex_and_finds_the_first_rule_that_matches() -> None:
    lexer = get_lexer_by_name("python")
    prepare(lexer)
    matcher = matcher_for(type(lexer), "root")
    assert matcher is not None
    rules = lexer._tokens["root"]
    for text in ('rb"x"', "# c", "def f", "  x", "0x1f", "'s'", "@dec"):
        first = next(i for i, (rexmatch, _, _) in enumerate(rules) if rexmatch(text, 0))
        m = matcher.match(text, 0)
        assert m is not None
        assert matcher.rule_of_group[m.lastindex or 0] == first
        assert m.span() == rules[first][0](text, 0).span()


class Numbers(RegexLexer):  # type: ignore[misc]
    """A lexer no other test prepares."""

    tokens = {
        "root": [(rf"{digit}+", Number) for digit in "0123456789"]
        + [(r"\s+", Whitespace), (r"[a-z]+", Name), (r'"', String, "string")],
        "string": [(r'[^"]+', String), (r'"', String, "#pop")],
    }


def test_only_prepared_states_are_combined_and_they_lex_the_same() -> None:
    lexer = Numbers()
    line = 'ab 12 "x 9" 7'
    assert len(Numbers._tokens["root"]) >= MIN_RULES
    assert matcher_for(Numbers, "root") is None  # (a message never compiles one)
    before = lex_line(lexer, line)
    assert prepare(lexer, ["root", "string"]) == 1  # not "string": two rules
    assert matcher_for(Numbers, "root") is not None
    assert matcher_for(Numbers, "string") is None
    assert lex_line(lexer, line) == before
    assert prepare(lexer) == 0  # (built once)


def rule(pattern: str, flags: int = 0) -> tuple[object, None, None]:
    return (re.compile(pattern, flags).match, None, None)


def test_a_rule_that_refers_to_a_group_keeps_the_state_one_by_one() -> None:
    assert combine([rule(r"(a)\1"), rule("b")]) is None  # type: ignore[list-item]
    assert combine([rule(r"(?P<q>a)(?P=q)"), rule("b")]) is None  # type: ignore[list-item]
    assert combine([rule("a", re.ASCII), rule("b")]) is None  # type: ignore[list-item]
    grouped = combine([rule("(a)(b)"), rule("c")])  # type: ignore[list-item]
    assert grouped is not None
    m = grouped.match("ab", 0)
    assert m is not None and grouped.rule_of_group[m.lastindex or 0] == 0


def test_flags_stay_with_their_rule() -> None:
    matcher = combine(
        [
            rule("(?i)abc"),  # type: ignore[list-item]
            rule("x  y  # a comment", re.VERBOSE),  # type: ignore[list-item]
            rule("ABC"),  # type: ignore[list-item]
            rule("."),  # type: ignore[list-item]
        ]
    )
    assert matcher is not None
    for text, expected in (("ABC", 0), ("xy", 1), ("x  y", 3), ("Abc", 0), ("q", 3)):
        m = matcher.match(text, 0)
        assert m is not None
        assert matcher.rule_of_group[m.lastindex or 0] == expected, text
