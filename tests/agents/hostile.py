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
