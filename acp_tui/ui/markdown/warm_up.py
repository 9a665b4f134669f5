"""The Markdown renderer's one-time costs, paid while the user types the first prompt instead
of inside the agent's first message.

The first message paid for markdown-it (its import and parser: 50 ms of CPU in the app) and
the first code fence for its language's pygments lexer (building its regexes: 61 ms for
Python, 54 ms for TypeScript) on the event loop, while the text streamed. `start` builds them
in a background thread; the app calls `start_if_quiet` `AFTER` seconds after the session
opened (the prompt usable, its first frame long drawn) and again every `AFTER` seconds until it
is done. It starts only while no text streams, and stops before its next step once some does:
a message streaming pays for what it uses, as before (the warm-up never adds to a reply's
work), but a prompt sent at once (typed before the app was drawn) no longer keeps the warm-up
from running while the agent thinks, so its reply finds them built. The thread holds the
interpreter for at most its switch interval at a time, so keys are read and answered meanwhile;
a message that needs one of them before the thread is done waits for it (markdown-it's import,
the lexer's lock in `highlight.lexer_for`) instead of building it again. It also builds the
one-regex-per-state matchers of those lexers (`state_rules`), which only ever come from here: a
fence in another language, or before the warm-up, lexes with the rules one by one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import partial

from acp_tui.ui.markdown.highlight import lexer_for
from acp_tui.ui.markdown.inline import parser
from acp_tui.ui.markdown.state_rules import prepare

logger = logging.getLogger(__name__)

LANGUAGES = ("python", "bash", "json", "javascript", "typescript", "diff")
"""The fence languages whose lexers are built ahead (the commonest in agents' replies)."""

AFTER = 0.25
"""Seconds after the session opened before the app first calls `start_if_quiet` (and between
two calls while text streams): its first frame long drawn, and before a model's first token
(half a second or more) for a prompt sent as the session opened. Keys typed meanwhile wait at
most the interpreter's switch interval (1 ms, `runtime`)."""

_started = threading.Event()  # (running or done: the renderer's caches are the process's)
_finished = threading.Event()


def finished() -> bool:
    """Whether every step was done (the app stops looking)."""
    return _finished.is_set()


def start_if_quiet(streaming: Callable[[], bool]) -> threading.Thread | None:
    """`start`, unless the agent's text is streaming now (`streaming()`): that message pays for
    what it uses, and the warm-up never adds to a reply's work. The thread stops before its
    next step once text streams (the app looks again later); a turn in which the agent only
    thinks or calls tools so far is quiet: the first reply's text then finds them built."""
    if streaming():
        return None
    return start(lambda: not streaming())


def start(quiet: Callable[[], bool] = lambda: True) -> threading.Thread | None:
    """Warm the renderer in a daemon thread while `quiet()` (None if it runs or is done)."""
    if _started.is_set():
        return None
    _started.set()
    thread = threading.Thread(target=warm, args=(quiet,), name="markdown-warm-up", daemon=True)
    thread.start()
    return thread


def steps() -> list[Callable[[], object]]:
    """What the warm-up builds, in order: markdown-it's parser, then each language's lexer and
    its root state's combined regex (`state_rules.prepare`)."""
    return [parser, *(partial(_warm_language, language) for language in LANGUAGES)]


def _warm_language(language: str) -> None:
    lexer = lexer_for(language)
    if lexer is not None:
        prepare(lexer)


def warm(quiet: Callable[[], bool] = lambda: True) -> None:
    """Do the `steps` while `quiet()`: once text streams, stop before the next step, for a later
    `start` to go on (a step done is not done again: the parser and lexers are kept). A failure
    is only logged: the first message builds what it needs as before, and lexes with the rules
    one by one."""
    try:
        for step in steps():
            if not quiet():
                _started.clear()
                return
            step()
    except Exception:
        logger.exception("warming the Markdown renderer failed")
    _finished.set()
