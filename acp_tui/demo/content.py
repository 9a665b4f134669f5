"""Canned texts of the demo agent: modes, commands, the tour's words, the long `/stream` answer.

Pure data and string builders (stdlib only), so the agent module stays about the protocol.
"""

from __future__ import annotations

AGENT_NAME = "acp-tui demo"
AUTH_METHOD_ID = "demo-login"
SESSION_TITLE = "acp-tui demo"

MODES: list[dict[str, str]] = [
    {"id": "ask", "name": "Ask", "description": "Ask before every change"},
    {"id": "code", "name": "Code", "description": "Edit files freely"},
    {"id": "architect", "name": "Architect", "description": "Plan only, no edits"},
]
DEFAULT_MODE = "ask"

COMMANDS: list[tuple[str, str]] = [
    ("tour", "The full tour: thinking, a plan, tool calls, a terminal, an edit, markdown"),
    ("stream", "A long markdown answer streamed fast (prose, a 300-line code fence, a table)"),
    ("edit", "Propose a three-hunk edit to src/app.py and ask for permission"),
    ("terminal", "Run `ls -la` in a terminal the client creates"),
    ("plan", "Show a plan that progresses, then an extra plan that is removed again"),
    ("crash", "Write to stderr and exit with code 3 in the middle of an answer"),
    ("refuse", "Refuse to answer (stop reason: refusal)"),
    ("subagent", "Hand a survey to a subagent session (its own lane, question, state, a notice)"),
    ("help", "List these commands"),
]

THOUGHT = (
    "The user wants to see what this client can do. I'll make a plan, read the README, "
    "search a little, run a command in a terminal, propose an edit to src/app.py and "
    "finish with a markdown summary."
)

PLAN_ENTRIES: list[tuple[str, str]] = [
    ("Read README.md to understand the project", "high"),
    ("Search the code and the web for context", "medium"),
    ("List the project files in a terminal", "medium"),
    ("Propose an edit to src/app.py", "high"),
]

EXTRA_PLAN_ID = "demo-plan-2"
EXTRA_PLAN_ENTRIES: list[tuple[str, str]] = [
    ("Sketch a follow-up refactoring", "low"),
    ("Drop this extra plan again", "low"),
]

SEARCH_RESULTS = """\
src/app.py:10:class Task:
src/app.py:16:class TodoList:
src/app.py:19:    def add(self, title: str) -> Task:
src/app.py:31:def render(todo: TodoList) -> str:
README.md:1:# todo-demo"""

FETCH_URL = "https://example.invalid/todo-best-practices"
FETCH_ERROR = "Network is disabled in the demo: could not resolve example.invalid"

# (old, new) replacements for src/app.py: three places far enough apart to make three hunks.
APP_EDITS: list[tuple[str, str]] = [
    ("    done: bool = False\n", "    done: bool = False\n    priority: int = 0\n"),
    (
        "        task = Task(title)\n",
        "        title = title.strip()\n"
        "        if not title:\n"
        '            raise ValueError("a task needs a title")\n'
        "        task = Task(title)\n",
    ),
    (
        "    print(render(todo))\n",
        '    print(render(todo))\n    print(f"{len(todo.pending())} task(s) left")\n',
    ),
]
APPENDED_NOTE = "\n# Reviewed by the acp-tui demo agent.\n"


def edited_app_py(current: str) -> str:
    """The demo edit applied to `current`; if none of its targets are left, append a note."""
    edited = current
    for old, new in APP_EDITS:
        if old in edited and new not in edited:
            edited = edited.replace(old, new, 1)
    if edited == current:
        edited = current + APPENDED_NOTE
    return edited


TOUR_MESSAGE = """\
## What just happened

This turn was scripted by the **acp-tui demo agent** to show every kind of update the
Agent Client Protocol can carry:

- a *thought*, streamed before the answer;
- a **plan** whose entries moved from pending to in progress to completed;
- tool calls of several kinds: `read`, `search`, `fetch` (which failed on purpose),
  `execute` with a live terminal, and an `edit` with a diff;
- a permission request before the edit touched your file;
- usage updates with token counts and a cost.

### How the pieces talk

1. The client starts the agent as a subprocess and sends `initialize`.
2. It opens a session with `session/new`, giving the working directory.
3. Each prompt is a `session/prompt` request; the agent answers it only when the turn ends.
4. Meanwhile the agent streams `session/update` notifications, and asks the client to read
   or write files, run terminals, or approve changes, with requests of its own.

### The change to `src/app.py`

Tasks now have a priority, empty titles are refused, and the app tells you how much is left:

```python
def add(self, title: str) -> Task:
    title = title.strip()
    if not title:
        raise ValueError("a task needs a title")
    task = Task(title)
    self.tasks.append(task)
    return task
```

### Try next

| command     | what it shows                                      |
|-------------|----------------------------------------------------|
| `/stream`   | a long answer streamed fast (prose, code, a table) |
| `/edit`     | only the edit and its permission request           |
| `/terminal` | only the terminal step                             |
| `/plan`     | a plan, plus an extra plan that is removed again   |
| `/crash`    | the agent dying mid-answer (exit code 3)           |
| `/refuse`   | a refusal                                          |
| `/subagent` | a subagent session: its lane, a question, a notice |

Press the cancel key while a turn runs to see cancellation: the agent stops, marks its
open tool calls as failed and answers with the stop reason `cancelled`.

> Nothing here used the network or an API key: the demo agent is a small Python program
> speaking JSON-RPC over its standard input and output.
"""

CRASH_PREFIX = "Let me think about this very carefully, one small step at a time"
CRASH_STDERR = [
    "demo agent: simulated failure while answering",
    "Traceback (most recent call last):",
    '  File "acp_tui/demo/agent.py", line 1, in crash',
    "RuntimeError: the demo agent crashed on purpose (/crash)",
]

REFUSAL = "I'd rather not do that. (This is the demo's `/refuse`: the stop reason is `refusal`.)"


def help_text() -> str:
    """Markdown listing the slash commands."""
    rows = "\n".join(f"- `/{name}`: {description}" for name, description in COMMANDS)
    return (
        "## Demo commands\n\n"
        f"{rows}\n\n"
        "Any other text runs the full tour. Modes: *ask* asks before editing, *code* edits "
        "without asking, *architect* plans but never edits.\n"
    )


def unknown_command_text(name: str) -> str:
    """The demo's answer to a slash command it does not have, with the help text."""
    return f"There is no `/{name}` command in the demo.\n\n" + help_text()


_PROSE = [
    "Streaming is the heart of a chat client: text arrives a few characters at a time, and the "
    "view has to keep up without re-rendering everything it has already shown.",
    "A good client appends to the last block it is building, finishes blocks as they close, "
    "and keeps the scroll position pinned to the bottom unless the reader scrolled away.",
    "Markdown makes this harder than plain text, because a fence or a table changes the meaning "
    "of every line that follows it until it is closed again.",
    "This answer is long on purpose. It gives the renderer paragraphs, headings, lists, a long "
    "code block and a wide table, all delivered in small chunks as fast as the pipe allows.",
    "If the interface stays responsive while this streams, you can scroll, select text or "
    "cancel the turn at any moment, and the agent will stop promptly.",
]


def stream_markdown() -> str:
    """The long `/stream` answer: ~17 KB of prose, a 300-line code fence and a 120-row table."""
    parts = ["# A long streamed answer\n"]
    section = 0
    prose_size = 0
    while prose_size < 17_000:
        section += 1
        parts.append(f"\n## Part {section}\n")
        for index, sentence in enumerate(_PROSE):
            paragraph = f"{sentence} (part {section}, paragraph {index + 1})\n"
            parts.append("\n" + paragraph)
            prose_size += len(paragraph)
        parts.append(
            f"\n- point {section}.1: streaming keeps going\n- point {section}.2: nothing blocks\n"
        )
    parts.append("\n## A long code block\n\n```python\n")
    code_lines = []
    for number in range(100):
        code_lines.append(f"def step_{number:03d}(value: int) -> int:")
        code_lines.append(f"    return value * {number % 7 + 2} + {number}")
        code_lines.append("")
    code_lines[-1] = "# end of the long code block"  # 300 lines exactly
    parts.append("\n".join(code_lines) + "\n```\n")
    parts.append("\n## A wide table\n\n| row | name | value | squared | note |\n")
    parts.append("|----:|------|------:|--------:|------|\n")
    for row in range(1, 121):
        parts.append(f"| {row} | item-{row:03d} | {row * 3} | {row * row} | streamed row |\n")
    parts.append("\nThat's the end of the long answer.\n")
    return "".join(parts)
