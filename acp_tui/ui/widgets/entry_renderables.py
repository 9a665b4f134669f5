"""Finished conversation entries rendered from their data to strips, for the frozen history.

Each function renders one entry (the thread's entry object) to strips of exactly ``width``
cells that look like the live widget (`UserMessageView`, `AgentMessageView`, `ThoughtView`,
`ToolCallCard`, `PlanView`, the unknown-entry box, stop reasons and notices), including the
widget's bottom margin, so freezing an entry neither changes what is on the screen nor moves it.
Colours come from a `Look` (the component styles of `entry_lines.EntryLines`, from the theme).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.thread.entries import (
    PlanSnapshotEntry,
    UnknownEntry,
)
from acp_tui.ui.markdown.render import RenderContext
from acp_tui.ui.widgets.content_block_view import decoded_size, describe_block, human_size
from acp_tui.ui.widgets.plan_view import render_plan_state
from acp_tui.ui.widgets.tool_call_facts import format_raw

COLLAPSED = "▶"
EXPANDED = "▼"


@dataclass
class Look:
    """What rendering needs: the console, Markdown context and named styles."""

    console: Console
    options: ConsoleOptions
    markdown: RenderContext
    style: Callable[[str], Style]
    """Resolved style by name: base, user, user-bar, user-bar-not-kept, not-kept, title,
    resource-title, card-border[-failed|-cancelled|-running], locations, plan-bar, unknown,
    unknown-border, stop-reason, stop-error, notice, permission-answer, auto-answer, disk-note,
    thought, background-mark, background-bar (see `entry_lines.ENTRY_STYLES`)."""


# ---------------------------------------------------------------- strip helpers


def fill(strip: Strip, width: int, style: Style) -> Strip:
    """``strip`` over ``style``, cropped or padded to exactly ``width`` cells."""
    return strip.apply_style(style).crop_extend(0, width, style)


def blank(width: int, style: Style) -> Strip:
    """A strip of `width` spaces in `style`."""
    return Strip([Segment(" " * width, style)], width)


def cells(text: str, style: Style) -> Strip:
    """A one-segment strip of `text` in `style`."""
    return Strip([Segment(text, style)])


def wrap_content(content: Content, width: int) -> list[Strip]:
    """Word-wrap like a `Static` does (Textual's Content wrapping)."""
    return [Strip(line.render_segments()) for line in content.wrap(max(width, 1))]


def wrap_text(text: Text, look: Look, width: int) -> list[Strip]:
    """`text` (already inert: never parsed as markup) wrapped into strips of `width`."""
    return wrap_content(Content.from_rich_text(text, console=look.console), width)


def rich_lines(renderable: RenderableType, look: Look, width: int) -> list[Strip]:
    """A Rich renderable as a `Static` shows it (rendered by the console at ``width``)."""
    options = look.options.update(highlight=False, width=max(width, 1))
    lines = look.console.render_lines(renderable, options, pad=False, new_lines=False)
    return [Strip(line) for line in lines]


def padded(
    lines: Sequence[Strip], width: int, style: Style, left: int = 1, right: int = 1
) -> list[Strip]:
    """`lines` filled to the inner width with `left`/`right` columns of padding."""
    inner = max(width - left - right, 0)
    before, after = blank(left, style), blank(right, style)
    return [Strip.join([before, fill(line, inner, style), after]) for line in lines]


def boxed(lines: Sequence[Strip], width: int, border: Style, inner: Style) -> list[Strip]:
    """A round border with padding 0 1 around ``lines`` (already wrapped to ``width - 4``)."""
    span = max(width - 2, 0)
    body = [
        Strip.join([cells("│", border), strip, cells("│", border)])
        for strip in padded(lines, width - 2, inner)
    ]
    return [cells(f"╭{'─' * span}╮", border), *body, cells(f"╰{'─' * span}╯", border)]


def left_bar(
    lines: Sequence[Strip], width: int, char: str, bar: Style, inner: Style
) -> list[Strip]:
    """A one-cell left border with padding 0 1 (``lines`` wrapped to ``width - 3``)."""
    mark = cells(char, bar)
    return [Strip.join([mark, strip]) for strip in padded(lines, width - 1, inner)]


@lru_cache(maxsize=256)
def click_style(action: str) -> Style:
    """A style whose meta runs ``action`` on the widget that draws it when clicked (made once
    per action: Rich gives every new meta style its own link id)."""
    return Style.from_meta({"@click": action})


def collapsible_title(
    title: str, width: int, style: Style, *, expanded: bool = False, action: str | None = None
) -> Strip:
    """A section's title row: ' ▶ title ' then the rest of the row; a click on it runs
    ``action`` (toggling the section) on the widget that draws it."""
    symbol = EXPANDED if expanded else COLLAPSED
    strip = fill(cells(f" {symbol} {title} ", style), width, style)
    return strip.apply_style(click_style(action)) if action is not None else strip


def section_action(name: str) -> str:
    """The click action that opens or closes the section called ``name``."""
    return f"toggle_section({name!r})"


def with_margin(lines: list[Strip], width: int, look: Look) -> list[Strip]:
    """Every conversation entry has a one-line bottom margin."""
    base = look.style("base")
    return [fill(line, width, base) for line in lines] + [blank(width, base)]


# ---------------------------------------------------------------- content blocks


def block_lines(
    block: m.ContentBlock,
    look: Look,
    width: int,
    *,
    section: str | None = None,
    open_: bool = False,
) -> list[Strip]:
    """A non-text content block. An embedded resource is a title (a click on it toggles
    ``section``), open: its text below."""
    if isinstance(block, m.EmbeddedResource):
        return resource_lines(block, look, width, section=section, open_=open_)
    renderable = describe_block(block)
    if isinstance(renderable, Text):
        return wrap_text(renderable, look, width)
    return rich_lines(renderable, look, width)


def resource_lines(
    block: m.EmbeddedResource, look: Look, width: int, *, section: str | None, open_: bool
) -> list[Strip]:
    """An embedded resource: its URI, and its text (when the section is opened) or a note for
    binary data.
    """
    resource = block.resource
    uri = resource.uri
    if isinstance(resource, m.TextResourceContents):
        text = resource.text
        title = f"📎 {uri} ({len(text.splitlines())} lines)"
    else:
        title = f"📎 {uri}"
    action = section_action(section) if section is not None else None
    style = look.style("resource-title")
    lines = [collapsible_title(title, width, style, expanded=open_, action=action)]
    if not open_:
        return lines
    body: RenderableType
    if isinstance(resource, m.TextResourceContents):
        from rich.syntax import Syntax  # (pygments: loaded when first shown)

        lexer = Syntax.guess_lexer(uri, resource.text[:2000])
        body = Syntax(resource.text, lexer, word_wrap=True, line_numbers=False)
    else:
        body = Text(f"binary, {human_size(decoded_size(resource.blob))}", style="dim")
    shown = rich_lines(body, look, width - 3)
    return [*lines, Strip([]), *padded(shown, width, look.style("base"), left=3, right=0)]


# ---------------------------------------------------------------- entries


def plan_title(entry: PlanSnapshotEntry) -> str:
    """A plan entry's title: "Plan", its id, and whether the agent removed it."""
    plan_id = entry.plan_id
    title = f"Plan {plan_id}" if plan_id else "Plan"
    if entry.removed:
        title += " (removed)"
    return title


def plan_render(entry: PlanSnapshotEntry) -> Callable[[Look, int], list[Strip]]:
    """The renderer of a plan snapshot."""
    return lambda look, width: plan_lines(entry, look, width)


def unknown_render(entry: UnknownEntry) -> Callable[[Look, int], list[Strip]]:
    """The renderer of an update kind acp-tui does not know."""
    return lambda look, width: unknown_lines(entry, look, width)


def plan_lines(entry: PlanSnapshotEntry, look: Look, width: int) -> list[Strip]:
    """A plan snapshot's lines behind a bar: each step with its status and priority."""
    lines = rich_lines(render_plan_state(entry.plan, plan_title(entry)), look, width - 3)
    bar = look.style("plan-bar")
    return with_margin(left_bar(lines, width, "█", bar, look.style("base")), width, look)


def unknown_text(entry: UnknownEntry) -> Text:
    """An unknown update shown as its kind and raw JSON (cut at 4,000 characters, inert)."""
    raw = entry.raw
    kind = raw.get("sessionUpdate") if isinstance(raw, dict) else None
    return Text(f"{format_raw(kind or 'unknown update')}\n{format_raw(raw)[:4000]}")


def unknown_lines(entry: UnknownEntry, look: Look, width: int) -> list[Strip]:
    """An unknown update's lines, boxed."""
    style = look.style("unknown")
    lines = [line.apply_style(style) for line in wrap_text(unknown_text(entry), look, width - 4)]
    return with_margin(boxed(lines, width, look.style("unknown-border"), style), width, look)


def background_marked(
    render: Callable[[Look, int], list[Strip]], look: Look, width: int
) -> list[Strip]:
    """An entry that arrived or changed after its turn ended (v2): a bar on its left (not
    beside its bottom margin)."""
    lines = render(look, width - 1)
    bar = cells("▌", look.style("background-bar"))
    base = blank(1, look.style("base"))
    return [Strip.join([bar if y < len(lines) - 1 else base, line]) for y, line in enumerate(lines)]


def note_lines(text: Text, style_name: str, look: Look, width: int) -> list[Strip]:
    """A stop reason or a notice: one styled paragraph."""
    style = look.style(style_name)
    lines = [fill(line, width, style) for line in wrap_text(text, look, width)]
    return with_margin(lines, width, look)
