"""The Markdown renderer's one-time costs, paid while the user types the first prompt instead
of inside the agent's first message.

The first message paid for markdown-it (its import and parser: 50 ms of CPU in the app) and
the first code fence for its language's pygments lexer (building its regexes: 61 ms for
Python, 54 ms for TypeScript) on the event loop, while the text streamed. `start` builds them
in a background thread; the app calls `start_if_idle` `AFTER` seconds after the session
opened (the prompt usable, its first frame long drawn), which does nothing if a turn is
already running (it pays for what it uses, as before: the warm-up never adds to a reply's
work). The thread holds the interpreter for at most its switch interval at a time, so keys are
read and answered meanwhile; a message that needs one of them before the thread is done waits
for it (markdown-it's import, the lexer's lock in `highlight.lexer_for`) instead of building it
again. It also builds the one-regex-per-state matchers of those lexers (`state_rules`), which
only ever come from here: a fence in another language, or before the warm-up, lexes with the
rules one by one.
"""

from __future__ import annotations

import logging
import threading

from acp_tui.ui.markdown.highlight import lexer_for
from acp_tui.ui.markdown.inline import parser
from acp_tui.ui.markdown.state_rules import prepare

logger = logging.getLogger(__name__)

LANGUAGES = ("python", "bash", "json", "javascript", "typescript", "diff")
"""The fence languages whose lexers are built ahead (the commonest in agents' replies)."""

AFTER = 1.0
"""Seconds after the session opened before `start_if_idle` looks."""

_started = threading.Event()


def start_if_idle(turn_running: bool) -> threading.Thread | None:
    """`start`, unless a turn is running (it pays for what it uses)."""
    return None if turn_running else start()


def start() -> threading.Thread | None:
    """Warm the renderer in a daemon thread (once per process; None if already started)."""
    if _started.is_set():
        return None
    _started.set()
    thread = threading.Thread(target=warm, name="markdown-warm-up", daemon=True)
    thread.start()
    return thread


def warm() -> None:
    """Build markdown-it's parser, the lexers of `LANGUAGES` and their states' combined regexes
    (`state_rules.prepare`; a failure is only logged: the first message builds what it needs as
    before, and lexes with the rules one by one)."""
    try:
        parser()
        for language in LANGUAGES:
            lexer = lexer_for(language)
            if lexer is not None:
                prepare(lexer)
    except Exception:
        logger.exception("warming the Markdown renderer failed")
