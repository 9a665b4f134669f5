"""A hostile agent: terminal escape sequences, C1 bytes, bidi overrides and Rich/Textual markup in
every field acp-tui shows (a scenario for the scripted agent).

Each field carries `hostile(tag)`: ``<tag>`` followed by `PAYLOAD`, so a test can both find the
field on the screen (its tag, as made safe: ``<tag>␛]0;``) and check that nothing of the
payload reached the terminal raw.

The run: initialize (hostile agentInfo and auth methods) → session/new fails with "auth required"
(hostile message) → authenticate → session/new (hostile modes, config options) → commands and a
title → the prompt: every session update variant, a terminal running a command whose argv and
output carry the payload, a permission request, a read outside the
session directory (consent question), a write with a hostile file name (review) → the prompt
fails with a hostile error → session/set_mode fails likewise → stderr, then exit 3 (crash banner).

`hostile_providers` answers `providers/list` with markup (``[/]``, ``[b]…[/b]``) and the payload in
the provider's protocol names (the providers screen's form).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.agents.scenarios import Step, client_request, expect_prompt, update

SID = "sess-hostile"

PAYLOAD = (
    "\x1b]0;PWNED\x07"  # retitle the terminal
    "\x1b[2J\x1b[H"  # clear the screen, cursor home (draw a fake prompt)
    "\x1b]52;c;cHduZWQ=\x07"  # write the clipboard
    "\x1b[1;31m\x9b1;31m\x85"  # SGR, the same as C1 CSI, NEL
    "\u202eevil\u202c \u2066iso\u2069"  # bidi override / isolate
    " [/] [bold red]red[/bold red] [link=https://evil.invalid]l[/link] [@click=app.quit]q[/]"
    "\x08\x7f\rX"
    " \u200d\u200d漢字漢字"  # a word Rich and Textual could not wrap (two joiners first)
)
"""Everything at once; never a lone surrogate (it cannot travel as UTF-8)."""

MARKUP_CRASHERS = ("[/]", "[/bold red]")
"""What raised `MarkupError` when parsed as markup."""


def hostile(tag: str) -> str:
    return f"<{tag}>{PAYLOAD}"


def shown_tag(tag: str) -> str:
    """How the start of `hostile(tag)` looks once made safe (short: long lines wrap)."""
    return f"<{tag}>\u241b]0;"


WRITE_NAME = "w[/]\x1b]0;T\x07\u202eout.txt"
"""The file the agent writes (in a directory `w[` the test creates): markup, ESC, bidi."""


def upd(variant: str, /, **fields: Any) -> Step:
    return update(SID, {"sessionUpdate": variant, **fields})


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def rpc_error(tag: str) -> dict[str, Any]:
    return {"code": -32603, "message": hostile(tag), "data": {"details": hostile(tag + "-why")}}


def session_setup() -> list[Step]:
    return [
        {
            "expect": "initialize",
            "respond": {
                "protocolVersion": 1,
                "agentCapabilities": {},
                "agentInfo": {
                    "name": hostile("agentname"),
                    "title": hostile("agent"),
                    "version": hostile("version"),
                },
                "authMethods": [
                    {"id": "login", "name": hostile("auth"), "description": hostile("authdesc")},
                    {
                        "type": "terminal",
                        "id": "tlogin",
                        "name": hostile("tauth"),
                        "args": ["--login", PAYLOAD],
                    },
                ],
            },
        },
        {
            "expect": "session/new",
            "error": {
                "code": -32000,
                "message": hostile("autherr"),
                "data": {"details": hostile("autherr-why")},
            },
        },
        {"expect": "authenticate", "match": {"methodId": "login"}, "respond": {}},
        {
            "expect": "session/new",
            "respond": {
                "sessionId": SID,
                "modes": {
                    "currentModeId": "m1",
                    "availableModes": [
                        {"id": "m1", "name": hostile("mode1"), "description": hostile("mdesc")},
                        {"id": "m2", "name": hostile("mode2"), "description": hostile("mdesc2")},
                    ],
                },
                "configOptions": [
                    {
                        "type": "select",
                        "id": "model",
                        "name": hostile("config"),
                        "currentValue": "a",
                        "options": [{"value": "a", "name": hostile("configopt")}],
                    }
                ],
            },
        },
        upd(
            "available_commands_update",
            availableCommands=[
                {"name": hostile("cmd"), "description": hostile("cmddesc")},
                {"name": "plain", "description": "d", "input": {"hint": hostile("hint")}},
            ],
        ),
        upd("session_info_update", title=hostile("title")),
    ]


def turn_updates() -> list[Step]:
    return [
        upd("user_message_chunk", content=text(hostile("user"))),
        upd("agent_thought_chunk", content=text(hostile("thought"))),
        upd(
            "plan",
            entries=[
                {"content": hostile("plan1"), "priority": "high", "status": "completed"},
                {"content": hostile("plan2"), "priority": hostile("prio"), "status": "pending"},
            ],
        ),
        upd(
            "plan_update",
            plan={
                "type": "items",
                "planId": hostile("pid"),
                "entries": [
                    {"content": hostile("plan3"), "priority": "low", "status": hostile("pstatus")}
                ],
            },
        ),
        upd("plan_update", plan={"type": "markdown", "planId": "md", "content": hostile("planmd")}),
        upd("plan_update", plan={"type": "file", "planId": "f", "uri": hostile("planfile")}),
        upd("plan_update", plan={"type": hostile("plantype"), "planId": hostile("planunk")}),
        upd(
            "tool_call",
            toolCallId="t-read",
            title=hostile("tool"),
            kind="read",
            status="completed",
            content=[{"type": "content", "content": text(hostile("tooltext"))}],
            locations=[{"path": "/p/" + hostile("loc"), "line": 3}],
            rawInput={"path": hostile("rawin")},
            rawOutput={"out": hostile("rawout")},
        ),
        upd(
            "tool_call",
            toolCallId="t-edit",
            title=hostile("edit"),
            kind="edit",
            status="pending",
            content=[
                {
                    "type": "diff",
                    "path": "/p/" + hostile("diffpath"),
                    "oldText": "keep\n" + hostile("old") + "\n",
                    "newText": "keep\n" + hostile("new") + "\n",
                },
                {"type": hostile("toolcontent"), "x": hostile("toolcontentx")},
                {"type": "terminal", "terminalId": hostile("term")},
            ],
        ),
        upd(
            "tool_call",
            toolCallId=hostile("toolid"),
            title=hostile("tool3"),
            kind=hostile("kind"),
            status=hostile("status"),
        ),
        upd("agent_message_chunk", content=text(hostile("msg") + "\n\n")),
        upd(
            "agent_message_chunk",
            content=text(f"[a link]({hostile('href')}) `{hostile('code')}`\n\n"),
        ),
        upd(
            "agent_message_chunk",
            content={
                "type": "image",
                "mimeType": hostile("mime"),
                "data": "AAAA",
                "uri": hostile("imguri"),
            },
        ),
        upd(
            "agent_message_chunk",
            content={
                "type": "resource_link",
                "name": hostile("linkname"),
                "uri": hostile("uri"),
                "title": hostile("linktitle"),
            },
        ),
        upd(
            "agent_message_chunk",
            content={
                "type": "resource",
                "resource": {"uri": hostile("resuri"), "text": hostile("restext")},
            },
        ),
        upd("agent_message_chunk", content={"type": hostile("ctype"), "v": hostile("cval")}),
        upd(hostile("variant"), detail=hostile("unknown")),
        upd("usage_update", used=10, size=100, cost={"amount": 1.5, "currency": hostile("cur")}),
    ]


PERMISSION_OPTIONS = [
    {"optionId": "once", "name": hostile("opt-once"), "kind": "allow_once"},
    {"optionId": "always", "name": hostile("opt-always"), "kind": "allow_always"},
    {"optionId": "no", "name": hostile("opt-no"), "kind": "reject_once"},
]


def terminal_steps() -> list[Step]:
    """A command whose argv and output carry the payload, embedded in a tool call card."""
    terminal = {"sessionId": SID, "terminalId": "$saved.term.result.terminalId"}
    return [
        client_request(
            "terminal/create",
            {
                "sessionId": SID,
                "command": sys.executable,
                "args": ["-c", "import sys; sys.stdout.write(sys.argv[1])", PAYLOAD],
            },
            save_as="term",
        ),
        upd(
            "tool_call",
            toolCallId="t-term",
            title=hostile("termcall"),
            kind="execute",
            status="in_progress",
            content=[{"type": "terminal", "terminalId": "$saved.term.result.terminalId"}],
        ),
        client_request("terminal/wait_for_exit", terminal, save_as="exit"),
        upd("tool_call_update", toolCallId="t-term", status="completed"),
    ]


PROVIDER_PROTOCOLS = ["[/]", "[b]bold[/b]", hostile("protocol")]
"""Protocol names of a provider (`providers/list`): a markup crasher, markup that would style."""


def hostile_providers() -> dict[str, Any]:
    """`providers/list` answered with markup and the payload in every name."""
    return {
        "expect": "providers/list",
        "respond": {
            "providers": [
                {
                    "providerId": hostile("provider"),
                    "supported": PROVIDER_PROTOCOLS,
                    "required": False,
                    "current": {"apiType": "[b]bold[/b]", "baseUrl": hostile("baseurl")},
                }
            ]
        },
    }


OUTSIDE_NAME = hostile("outside").replace("/", "|")
"""A file outside the session directory the agent reads (the test creates it)."""


def hostile_run(cwd: Path, outside: Path) -> list[Step]:
    """The whole run (see the module docstring); `cwd` is the session directory, `outside` a
    directory outside it holding `OUTSIDE_NAME`."""
    return [
        *session_setup(),
        expect_prompt(),
        *turn_updates(),
        *terminal_steps(),
        client_request(
            "session/request_permission",
            {
                "sessionId": SID,
                "toolCall": {
                    "toolCallId": "t-edit",
                    "title": hostile("permission"),
                    "kind": "edit",
                },
                "options": PERMISSION_OPTIONS,
            },
            save_as="permission",
        ),
        client_request(
            "fs/read_text_file",
            {"sessionId": SID, "path": str(outside / OUTSIDE_NAME)},
            save_as="read",
        ),
        client_request(
            "fs/write_text_file",
            {"sessionId": SID, "path": str(cwd / WRITE_NAME), "content": PAYLOAD},
            save_as="write",
        ),
        {"respond_to": "prompt", "error": rpc_error("prompterr")},
        {"expect": "session/set_mode", "error": rpc_error("modeerr")},
        {"stderr": f"starting\n{hostile('stderr')}\n\x1b[31mcolored\x1b[0m {PAYLOAD}\n"},
        {"exit": 3},
    ]


REPLACED = {"link.txt": "a symlink out", "fifo.txt": "a FIFO", "big.txt": "300 MB"}
"""Files the agent writes in one turn, then replaces under a rewind (`replaced_under_rewind`)."""


def replaced_under_rewind(cwd: Path, outside: Path) -> list[Step]:
    """A turn that writes the `REPLACED` files itself (as the change monitor sees them), then a
    turn that replaces them: `link.txt` by a symlink to `outside`, `fifo.txt` by a FIFO (an open
    blocks until someone writes) and `big.txt` grown to 300 MB (sparse). Rewinding to the first
    prompt meets each; `session/new` and the first `session/prompt` are the test's."""
    edits = [{"path": str(cwd / name)} for name in REPLACED]
    return [
        expect_prompt("p1"),
        upd(
            "tool_call",
            toolCallId="r-edit",
            title="Write three files",
            kind="edit",
            status="completed",
            locations=edits,
        ),
        *({"write_file": {"path": str(cwd / name), "text": f"{name} v1\n"}} for name in REPLACED),
        {"respond_to": "p1", "respond": {"stopReason": "end_turn"}},
        expect_prompt("p2"),
        {"write_file": {"path": str(cwd / "link.txt"), "symlink": str(outside)}},
        {"write_file": {"path": str(cwd / "fifo.txt"), "fifo": True}},
        {"write_file": {"path": str(cwd / "big.txt"), "size": 300 * 1024 * 1024}},
        {"respond_to": "p2", "respond": {"stopReason": "end_turn"}},
    ]


# ---- third round: tricks on the protocol's bookkeeping ------------------------------------------

INVALID_IDS: list[Any] = [{"x": hostile("objid")}, [1, 2], True]
"""Request ids JSON-RPC does not allow (only a string, a number or null)."""


def invalid_id_steps() -> list[Step]:
    """A request for each invalid id (each must be answered -32600 with id null), then a
    response with an object id (to nothing: ignored)."""
    frames: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "fs/read_text_file",
            "params": {"sessionId": SID, "path": "/etc/hostname"},
        }
        for request_id in INVALID_IDS
    ]
    frames.append({"jsonrpc": "2.0", "id": {"y": 1}, "result": {}})
    return [{"raw": json.dumps(frame) + "\n"} for frame in frames]


def notice_flood(count: int) -> list[Step]:
    """`count` notices at once (each was a toast: 10,000 froze the app for minutes)."""
    return [
        upd("notice", severity="warning", title=f"{hostile('notice')} {n}") for n in range(count)
    ]


def huge_chunk_steps(size: int, after: int) -> list[Step]:
    """One agent_message_chunk of `size` characters without a break (10 MB took 490 MB and
    froze the app), then `after` small chunks of the same message."""
    return [
        upd("agent_message_chunk", content=text("x" * size)),
        *(upd("agent_message_chunk", content=text(f"y{n}")) for n in range(after)),
    ]


def permission_flood(count: int) -> list[Step]:
    """`count` tool calls, each with a permission request sent at once, none waiting for its
    answer (quitting with 500 of them queued took 6-9 s)."""
    steps: list[Step] = []
    for n in range(count):
        call_id = f"flood-{n}"
        steps.append(upd("tool_call", toolCallId=call_id, title=f"edit {n}", status="pending"))
        frame = {
            "jsonrpc": "2.0",
            "id": 10_000 + n,
            "method": "session/request_permission",
            "params": {
                "sessionId": SID,
                "toolCall": {"toolCallId": call_id},
                "options": PERMISSION_OPTIONS,
            },
        }
        steps.append({"raw": json.dumps(frame) + "\n"})
    return steps


def parent_cycle_steps() -> list[Step]:
    """Subagent tool calls whose parent links make rings (they froze the app for good): two
    calls naming each other, three in a ring through a call nested under a waiting one, a call
    naming itself; then a message (the app must still be drawing)."""

    def call(tool_call_id: str, parent: str) -> Step:
        meta = {"claudeCode": {"parentToolUseId": parent}}
        return upd("tool_call", toolCallId=tool_call_id, title=f"Task {tool_call_id}",
                   status="in_progress", _meta=meta)  # fmt: skip

    return [
        call("a", "b"),
        call("b", "a"),
        call("x", "z"),
        call("y", "x"),
        call("z", "y"),
        call("s", "s"),
        upd("agent_message_chunk", content=text("after the cycles")),
    ]


def malformed_subagent_steps(child: str) -> list[Step]:
    """Subagent traffic that does not read, around a child `child` announced properly: on the
    root, a `subagent_update` without its child's id, one whose id is a number, a
    `session_message` without its id, a `session_message_chunk` whose content is no block (it
    reads, the block repaired and marked); about
    the child, a patch whose `cwd` is a number (with the payload in its error); under the
    child's id, a message chunk without its id. Then a message (the app must still draw)."""

    def on(session_id: str, variant: str, **fields: Any) -> Step:
        return update(session_id, {"sessionUpdate": variant, **fields})

    return [
        on(SID, "subagent_update", title=hostile("no-id")),
        on(SID, "subagent_update", sessionId=7, title="a number"),
        on(SID, "session_message", content=[text(hostile("no-message-id"))]),
        on(SID, "session_message_chunk", messageId="m1", content=3),
        on(
            SID,
            "subagent_update",
            sessionId=child,
            title=hostile("child"),
            state={"state": "running"},
        ),
        on(SID, "subagent_update", sessionId=child, cwd={"bad": hostile("cwd")}),
        on(child, "session_message_chunk", content=text("no id")),
        upd("agent_message_chunk", content=text("after the malformed ones")),
    ]
