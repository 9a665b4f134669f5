"""StreamingMarkdown: a widget that shows Markdown arriving in small chunks.

``append`` only feeds the block splitter (O(chunk)) and schedules one update per frame.
An update (see ``DocumentView``) renders newly closed blocks once into frozen strips and
re-renders only the open block, incrementally.  ``finish`` closes the document and draws its
end at once; its lines stay as they are (not packed: the conversation swaps the finished view
for the message drawn from its data, which keeps its own lines as plain data, so packing here
cost 17-26 ms at the end of a long message, and the repaint of every line shown after it), and
a finished message costs nothing until the width changes.

A code fence whose language's lexer is not built yet (building it is 60-85 ms of CPU for
Python) is drawn plain while the text streams, and the lexer is built at the first update after
the stream paused for ``PAUSE_SECONDS`` (or once the fence was plain for ``PLAIN_SECONDS``); the
document is then rendered again and repainted. So a reply written at full speed shows its text
first and the colours of a new language after it, and the build never holds up the text.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable

from textual.geometry import Region, Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.ui.compact_lines import StripCache
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.highlight import lexer_for
from acp_tui.ui.markdown.render import RenderContext
from acp_tui.ui.markdown.screen_lines import Look, LookCache, paint
from acp_tui.ui.textual_internals import repaint_pending, report_error
from acp_tui.ui.textual_internals.quick_repaint import repaint_soon

FRAME_SECONDS = 1 / 60
LAYOUT_SECONDS = 1 / 20
"""A message that grows asks for a layout (the costly part of a frame) at most this often;
lines that change in place still repaint every frame."""
DRAWN_CHECKS = 20
"""How many refreshes `when_drawn` waits at most for the screen to draw what was asked."""
GROW_STEP = 8
"""While it streams, a message taller than this many lines takes its height in steps of this
many (the last lines of the step blank until text reaches them): a layout re-renders every
line on the screen, so new lines mostly land in room already laid out and repaint only
themselves. A finished message takes its exact height."""
PAUSE_SECONDS = 0.05
"""No text for this long is a pause: the lexers of the fences drawn plain are built then (the
gaps between reads of a burst, a layout in between, mostly stay under it; a build within a
burst costs what it always did)."""
PLAIN_SECONDS = 0.25
"""A fence is drawn plain at most this long while text keeps coming (a steady stream)."""


class StreamingMarkdown(Widget):
    """Markdown that grows as text is appended, with work proportional to each chunk."""

    DEFAULT_CSS = """
    StreamingMarkdown {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(
        self,
        markdown: str = "",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._parts: list[str] = []
        self.length = 0
        """How many characters were appended (known without joining them)."""
        self._splitter = BlockSplitter()
        self._finished = False
        self._keep_step = False  # see `finish`
        self._render_ctx: RenderContext | None = None
        self._document = DocumentView(self._splitter, lambda: self.source)
        self._painted: tuple[int, list[Strip], int] = (0, [], 0)  # frozen count, tail, lines
        # Screen lines (see `screen_lines`) for `_look`: while streaming by line (checked
        # against the source strip); once finished only for the lines shown recently.
        self._look: Look | None = None
        self._looks = LookCache()
        self._styled: dict[int, tuple[Strip, Strip]] = {}
        self._shown = StripCache(128)
        self._dirty = False
        self._last_fed = 0.0  # when text was last appended
        self._plain_since = 0.0  # since when a fence is drawn plain
        self._colour_timer: asyncio.TimerHandle | None = None  # see `_colour_later`
        self._frame: asyncio.Handle | None = None
        self._flush_context: contextvars.Context | None = None  # the widget's own, from on_mount
        self._flush_pending = False
        self._last_flush = 0.0
        self._last_layout = 0.0
        self._painted_height = 0
        self._layout_timer: Timer | None = None
        self._on_drawn: list[Callable[[], object]] = []  # see `when_drawn`
        self._drawn_checks = 0
        self.render_passes = 0
        """How many times the document was brought up to date (for tests and benchmarks)."""
        self.layouts = 0
        """How many layouts a change of height asked for (for tests and benchmarks)."""
        if markdown:
            self.append(markdown)

    # -- public API ----------------------------------------------------------------------
    def append(self, text: str) -> None:
        """Add ``text`` to the end of the message.  The screen refreshes at most once a frame."""
        if not text:
            return
        if self._finished:
            raise RuntimeError("append() after finish()")
        self._parts.append(text)
        self.length += len(text)
        self._last_fed = time.monotonic()
        self._document.feed(text)
        self._mark_dirty()

    def finish(self, *, replaced: bool = False) -> None:
        """The message is complete: close the open block; everything becomes static.

        ``replaced``: the view is replaced once its end is drawn (the conversation's swap at
        the turn end): it keeps the height it streamed at (its last step's blank end), so the
        end is drawn without a layout of the screen, and the replacement takes the exact one."""
        if self._finished:
            return
        self._finished = True
        self._keep_step = replaced
        self._document.close(self.source)
        self._mark_dirty(at_once=True)  # the end shows now, not a frame later

    @property
    def finished(self) -> bool:
        """Whether the stream has ended (the document is then closed)."""
        return self._finished

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once what was appended is on the screen: after the frame that
        paints the pending flush and its layout (after the next refresh if none is pending)."""
        self._on_drawn.append(callback)
        self._check_drawn()

    @property
    def _drawing(self) -> bool:
        """A flush or a layout for the lines appended so far is still to come."""
        return self._flush_pending or self._layout_timer is not None

    def _check_drawn(self) -> None:
        """Release the `when_drawn` callbacks once the screen has drawn what this asked for
        (checked again after each refresh until then; a few times at most)."""
        if not self._on_drawn or (self.is_mounted and self._drawing):
            return  # (the flush or the layout checks again)
        if self.is_mounted and repaint_pending(self) and self._drawn_checks < DRAWN_CHECKS:
            self._drawn_checks += 1
            if self.call_after_refresh(self._check_drawn):
                return
        self._drawn_checks = 0
        callbacks, self._on_drawn = self._on_drawn, []
        for callback in callbacks:
            if not (self.is_mounted and self.call_after_refresh(callback)):
                callback()  # (unmounted: nothing will be drawn)

    @property
    def plain_code(self) -> bool:
        """Whether a code fence is drawn plain, its lexer to be built at the next pause."""
        return self._render_ctx is not None and bool(self._render_ctx.lexers_wanted)

    @property
    def document(self) -> DocumentView:
        """The document the text is parsed into (a finished one is closed)."""
        return self._document

    @property
    def source(self) -> str:
        """All Markdown text appended so far."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def rendered_text(self) -> str:
        """Plain text of the lines currently rendered (what the user sees after a refresh)."""
        return self._document.text

    @property
    def line_count(self) -> int:
        """How many lines the document has at the current width."""
        return self._document.line_count

    # -- refresh coalescing --------------------------------------------------------------
    def _mark_dirty(self, *, at_once: bool = False) -> None:
        """Schedule one flush: at once (after the current batch of appends) when the last one
        was a frame ago or more (or `at_once`), else at the start of the next frame. At most
        one per frame while the text streams.

        The flush is a plain call on the event loop, not a Textual timer or callback: those
        cost a task, a message and an idle pass of this widget each, every frame."""
        self._dirty = True
        if self._flush_context is None:
            return
        if self._flush_pending:
            if not at_once or self._frame is None:
                return
            self._frame.cancel()
        self._flush_pending = True
        wait = FRAME_SECONDS - (time.monotonic() - self._last_flush)
        loop = asyncio.get_running_loop()
        if wait <= 0 or at_once:
            self._frame = loop.call_soon(self._frame_due, context=self._flush_context)
        else:
            self._frame = loop.call_later(wait, self._frame_due, context=self._flush_context)

    def on_mount(self) -> None:
        """Keep the context for frame-timed flushes and draw what arrived before mounting."""
        self._flush_context = contextvars.copy_context()
        if self._dirty:
            self._mark_dirty()

    def on_unmount(self) -> None:
        """Cancel the pending frame flush (whoever waits for it to be drawn is told now)."""
        if self._frame is not None:
            self._frame.cancel()
            self._frame = None
        if self._colour_timer is not None:
            self._colour_timer.cancel()
            self._colour_timer = None
        self._flush_pending = False
        self._flush_context = None
        callbacks, self._on_drawn = self._on_drawn, []
        for callback in callbacks:  # nothing of this will be drawn
            callback()

    def _colour_later(self) -> None:
        """Update again once the stream may have paused, or a fence was plain long enough (the
        update then builds the lexers of the fences drawn plain, see `_update`)."""
        if self._colour_timer is not None or self._flush_context is None:
            return
        due = min(self._last_fed + PAUSE_SECONDS, self._plain_since + PLAIN_SECONDS)
        self._colour_timer = asyncio.get_running_loop().call_later(
            max(due - time.monotonic(), 0), self._colour_due, context=self._flush_context
        )

    def _colour_due(self) -> None:
        self._colour_timer = None
        self._mark_dirty(at_once=True)  # (text that came meanwhile puts it off again)

    def _frame_due(self) -> None:
        self._frame = None
        try:
            self._flush()
        except Exception as error:  # as if Textual had called it: the app reports it
            report_error(self.app, error)
        self._check_drawn()

    def _flush(self) -> None:
        """Once per frame: bring the strips up to date and repaint the lines that changed."""
        self._flush_pending = False
        self._last_flush = time.monotonic()
        if not self.is_mounted:
            return
        width = self._document.width or self.size.width
        if width <= 0:
            return  # not laid out yet: get_content_height will render
        self._update(width)
        document = self._document
        painted_frozen, painted_tail, before = self._painted
        after = document.line_count
        # Repaint from the first line that changed: the open block renders new strips every
        # frame, mostly for the same text (only its last line grows).
        y = painted_frozen if document.failure is None else 0  # plain text: all of it again
        same = min(before, after, painted_frozen + len(painted_tail))  # a packed one has no tail
        if document.failure is not None:
            same = 0
        while y < same:
            line, painted = document.line(y), painted_tail[y - painted_frozen]
            if line is not painted and line != painted:
                break
            y += 1
        self._painted = (len(document.frozen), document.tail, after)
        changed = max(before, after) - y  # lines whose text changed
        before, after = self._painted_height, self.height_now
        self._painted_height = after
        # a finished message lays out what it grew by at once, not when the timer says
        ending = self._finished and self._layout_timer is not None
        if changed <= 0 and before == after and not ending:
            return
        width = max(document.width, 1)  # (the width it rendered at: `size` looks up the map)
        if not ending and (
            after == before or (self._layout_timer is not None and not self._finished)
        ):
            repaint_soon(self, Region(0, y, width, changed))
            return
        if self._layout_timer is not None:  # the end of the message shows at once
            self._layout_timer.stop()
            self._layout_timer = None
        now = time.monotonic()
        wait = LAYOUT_SECONDS - (now - self._last_layout)  # read the clock once: a timer
        if after > before and wait > 0 and not self._finished:  # a negative one never ends
            # Grown: repaint what fits the current height now, lay out (and show the new
            # lines) once the layout interval is over.
            if y < before:
                repaint_soon(self, Region(0, y, width, before - y))
            self._layout_timer = self.set_timer(wait, self._layout, name="markdown-layout")
        else:
            self._last_layout = now
            self.layouts += 1
            self.refresh(Region(0, y, width, max(before, after, y + 1) - y), layout=True)

    def _layout(self) -> None:
        self._layout_timer = None
        self._last_layout = time.monotonic()
        if self.is_mounted:
            self.layouts += 1
            self.refresh(layout=True)
        self._check_drawn()

    # -- rendering -----------------------------------------------------------------------
    def _update(self, width: int) -> None:
        """Bring the strips up to date for ``width``."""
        if width == self._document.width and not self._dirty:
            return
        self._dirty = False
        self.render_passes += 1
        ctx = self._render_ctx
        if ctx is None:
            ctx = self._render_ctx = RenderContext(self.app.console)
            ctx.defer_lexers = True
        now = time.monotonic()
        if not ctx.lexers_wanted:
            self._plain_since = now
        coloured = bool(ctx.lexers_wanted) and (
            now - self._last_fed >= PAUSE_SECONDS or now - self._plain_since >= PLAIN_SECONDS
        )
        if coloured:  # build the lexers of the fences drawn plain, and draw them again
            for language in sorted(ctx.lexers_wanted):
                lexer_for(language)
            ctx.lexers_wanted.clear()
            self._document.render_again()
        self._document.update(ctx, width)
        if coloured:
            self.refresh()  # (every line shown may have changed: the widget is repainted)
        if ctx.lexers_wanted:
            self._colour_later()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def _height(self, lines: int, streaming: bool) -> int:
        if streaming and lines > GROW_STEP:
            return -(-lines // GROW_STEP) * GROW_STEP
        return lines

    @property
    def height_now(self) -> int:
        """The height the widget takes for its lines now (see `GROW_STEP`)."""
        return self._height(self.line_count, not self._finished or self._keep_step)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width > 0 and width != self._document.width:
            self._rerender(width)
        return self.height_now

    def on_resize(self) -> None:
        """Re-render the document when the width changed."""
        width = self.size.width
        if width > 0 and width != self._document.width:
            self._rerender(width)
            self.refresh(layout=True)

    def _rerender(self, width: int) -> None:
        """Render everything for a new width (the whole widget is repainted after a resize)."""
        self._update(width)
        document = self._document
        self._painted = (len(document.frozen), document.tail, document.line_count)
        self._painted_height = self.height_now

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the content, styled (what Textual's own painting asks for)."""
        style = self.rich_style
        width = self.size.width
        return self._document.line(y).apply_style(style).crop_extend(0, width, style)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The screen lines in ``crop``, each painted once (see `screen_lines`) and reused
        across frames and layouts until its text or the look changes."""
        plain = type(self).render_line is StreamingMarkdown.render_line
        look = self._looks.look(self) if plain else None
        if look is None:  # a box Textual must paint (or a subclass that shifts lines)
            return super().render_lines(crop)
        if look != self._look:
            self._look = look
            self._styled = {}
            self._shown.clear()
        document = self._document
        line = document.line
        strips: list[Strip] = []
        if document.packed is not None:
            shown = self._shown
            for y in crop.line_range:
                strip = shown.get(y)
                if strip is None:
                    strip = shown.put(y, paint(line(y), look))
                strips.append(strip)
        else:
            styled = self._styled
            for y in crop.line_range:
                source = line(y)
                cached = styled.get(y)
                if cached is None or cached[0] is not source:
                    if cached is None or cached[0] != source:
                        cached = styled[y] = (source, paint(source, look))
                    else:  # the same line rendered again
                        cached = styled[y] = (source, cached[1])
                strips.append(cached[1])
        x1, x2 = crop.column_span
        if (x1, x2) != (0, look.width):
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips
