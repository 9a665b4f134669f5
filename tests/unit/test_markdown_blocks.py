"""The incremental block splitter: every block kind, and chunking never changes the result."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from acp_tui.ui.markdown.blocks import BlockSplitter, Kind, split_blocks
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext

DOCUMENT = """# Title

Some *text* and **bold**
continued on a second line.

- one
- two
  - nested
  lazy continuation

1. first
2. second

> a quote
lazy quote line
> - quoted item

```python
def f():
    return 1
```

| a | b |
|:--|--:|
| 1 | 2 |
| 3 |

***
<div>
html</div>

    indented code

Setext heading
==============
Text then a table:
| x | y |
| - | - |
| 5 | 6 |
"""


def outline(text: str, chunk_sizes: list[int] | None = None) -> tuple[object, ...]:
    splitter = BlockSplitter()
    if chunk_sizes is None:
        splitter.feed(text)
    else:
        pos = 0
        for size in chunk_sizes:
            splitter.feed(text[pos : pos + size])
            pos += size
        splitter.feed(text[pos:])
    splitter.close()
    return splitter.outline()


def test_every_block_kind() -> None:
    assert outline(DOCUMENT) == (
        ("heading", 1, "Title"),
        ("paragraph", ("Some *text* and **bold**", "continued on a second line.")),
        (
            "list",
            False,
            0,
            (
                (("paragraph", ("one",)),),
                (
                    ("paragraph", ("two",)),
                    ("list", False, 0, ((("paragraph", ("nested", "lazy continuation")),),)),
                ),
            ),
        ),
        ("list", True, 1, ((("paragraph", ("first",)),), (("paragraph", ("second",)),))),
        (
            "quote",
            (
                ("paragraph", ("a quote", "lazy quote line")),
                ("list", False, 0, ((("paragraph", ("quoted item",)),),)),
            ),
        ),
        ("code", "python", ("def f():", "    return 1")),
        ("table", ("a", "b"), ("left", "right"), (("1", "2"), ("3", ""))),
        ("rule",),
        ("html", ("<div>", "html</div>")),
        ("code", "", ("indented code",)),
        ("heading", 1, "Setext heading"),
        ("paragraph", ("Text then a table:",)),
        ("table", ("x", "y"), ("", ""), (("5", "6"),)),
    )


def test_unclosed_fence_keeps_everything_as_code() -> None:
    blocks = split_blocks("```js\nlet a = 1\n\n# not a heading\n")
    assert [b.kind for b in blocks] == [Kind.CODE]
    assert blocks[0].outline() == ("code", "js", ("let a = 1", "", "# not a heading"))


def test_closed_blocks_never_change_and_only_the_last_is_open() -> None:
    splitter = BlockSplitter()
    splitter.feed("para\n\n```\ncode\n")
    assert splitter.closed_count == 1
    first = splitter.blocks[0]
    before = first.outline()
    splitter.feed("more\n```\n\ntext")
    assert splitter.blocks[0] is first and first.outline() == before
    assert splitter.closed_count == 2  # the fence closed; "text" is still pending


def test_preview_shows_the_partial_line_and_restores_state() -> None:
    splitter = BlockSplitter()
    splitter.feed("- item one\n- item t")
    before = splitter.outline()
    with splitter.preview() as blocks:
        assert blocks[-1].outline() == (
            "list",
            False,
            0,
            ((("paragraph", ("item one",)),), (("paragraph", ("item t",)),)),
        )
    assert splitter.outline() == before
    assert splitter.pending == "- item t"


def test_a_delimiter_row_turns_the_previous_line_into_a_table_header() -> None:
    splitter = BlockSplitter()
    splitter.feed("intro\n| h1 | h2 |\n")
    with splitter.preview():
        pass
    splitter.feed("|---|---|\n| a | b |\n")
    assert splitter.outline() == (
        ("paragraph", ("intro",)),
        ("table", ("h1", "h2"), ("", ""), (("a", "b"),)),
    )


# -- chunking invariance -------------------------------------------------------------------

LINES = [
    "",
    "plain text with *em* and `code`",
    "# heading",
    "## heading ##",
    "- bullet",
    "* star bullet",
    "  - nested bullet",
    "    deeper text",
    "1. ordered",
    "2) other delimiter",
    "> quote",
    "> > nested quote",
    ">",
    "```",
    "```python",
    "~~~",
    "    indented",
    "| a | b |",
    "|---|:-:|",
    "| 1 |",
    "---",
    "===",
    "***",
    "<div>",
    "\tTabbed",
    "lazy line",
]

documents = st.lists(st.sampled_from(LINES), min_size=1, max_size=25).map("\n".join)


def render_fresh(text: str, width: int) -> str:
    splitter = BlockSplitter()
    splitter.feed(text)
    document = DocumentView(splitter)
    document.update(context(), width)
    return document.text


def context() -> RenderContext:
    return RenderContext(Console(file=io.StringIO(), width=80, color_system="truecolor"))


@settings(max_examples=150, deadline=None)
@given(text=documents, cuts=st.lists(st.integers(min_value=0, max_value=40), max_size=30))
def test_chunk_boundaries_do_not_change_the_blocks(text: str, cuts: list[int]) -> None:
    assert outline(text, cuts) == outline(text)


@settings(max_examples=100, deadline=None)
@given(
    text=documents,
    cuts=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=40),
    width=st.integers(min_value=12, max_value=70),
)
def test_incremental_rendering_matches_a_fresh_render(
    text: str, cuts: list[int], width: int
) -> None:
    """Render after every chunk (with a partial line previewed): always equal to a fresh render."""
    splitter = BlockSplitter()
    document = DocumentView(splitter)
    ctx = context()
    pos = 0
    for size in [*cuts, len(text)]:
        chunk = text[pos : pos + size]
        pos += len(chunk)
        splitter.feed(chunk)
        document.update(ctx, width)
        assert document.text == render_fresh(text[:pos], width)
        if pos >= len(text):
            break
    splitter.close()
    document.update(ctx, width)
    whole = BlockSplitter()
    whole.feed(text)
    whole.close()
    fresh = DocumentView(whole)
    fresh.update(context(), width)
    assert document.text == fresh.text
    assert document.tail == []  # finished: everything frozen


def test_two_trailing_spaces_make_a_hard_break() -> None:
    splitter = BlockSplitter()
    splitter.feed("first  \nsecond\n")
    splitter.close()
    document = DocumentView(splitter)
    document.update(context(), 40)
    assert document.text == "first\nsecond"


def test_indented_code_does_not_own_trailing_blank_lines_even_across_previews() -> None:
    splitter = BlockSplitter()
    splitter.feed("    code\n\n")
    with splitter.preview():
        pass
    splitter.feed("    more\n\npara")
    with splitter.preview():
        pass
    splitter.close()
    assert splitter.outline() == (("code", "", ("code", "", "more")), ("paragraph", ("para",)))
