"""Every JSON-RPC method name acp-tui sends or receives, in one table.

Code names a method by its constant here (`methods.SESSION_PROMPT`), never by a string literal,
so a typo is a NameError, not a request no agent answers. `tests/unit/test_methods.py` checks
the groups below against the methods the current schema's definitions name (`x-method`, `x-side`
of `acp-schema/current/v1/schema.json`, `schema.unstable.json`, `v2/schema.json`). Stdlib only:
the demo agent and `prestart` use it.
"""

from __future__ import annotations

from typing import Final

# ---- ACP v1: the client calls the agent ---------------------------------------------------------
INITIALIZE: Final = "initialize"
AUTHENTICATE: Final = "authenticate"
SESSION_NEW: Final = "session/new"
SESSION_LOAD: Final = "session/load"
SESSION_SET_MODE: Final = "session/set_mode"
SESSION_SET_CONFIG_OPTION: Final = "session/set_config_option"
SESSION_PROMPT: Final = "session/prompt"
SESSION_CANCEL: Final = "session/cancel"
"""A notification."""
SESSION_LIST: Final = "session/list"
SESSION_DELETE: Final = "session/delete"
SESSION_RESUME: Final = "session/resume"
SESSION_CLOSE: Final = "session/close"
LOGOUT: Final = "logout"

# ---- ACP v1: the agent calls the client ---------------------------------------------------------
SESSION_REQUEST_PERMISSION: Final = "session/request_permission"
SESSION_UPDATE: Final = "session/update"
"""A notification."""
FS_READ_TEXT_FILE: Final = "fs/read_text_file"
FS_WRITE_TEXT_FILE: Final = "fs/write_text_file"
TERMINAL_CREATE: Final = "terminal/create"
TERMINAL_OUTPUT: Final = "terminal/output"
TERMINAL_RELEASE: Final = "terminal/release"
TERMINAL_WAIT_FOR_EXIT: Final = "terminal/wait_for_exit"
TERMINAL_KILL: Final = "terminal/kill"
ELICITATION_CREATE: Final = "elicitation/create"
ELICITATION_COMPLETE: Final = "elicitation/complete"
"""A notification."""

# ---- JSON-RPC, both ways -------------------------------------------------------------------------
CANCEL_REQUEST: Final = "$/cancel_request"

# ---- unstable (schema.unstable.json) -------------------------------------------------------------
SESSION_FORK: Final = "session/fork"
PROVIDERS_LIST: Final = "providers/list"
PROVIDERS_SET: Final = "providers/set"
PROVIDERS_DISABLE: Final = "providers/disable"
SESSION_SET_TITLE: Final = "session/set_title"
AUTH_STATUS: Final = "auth/status"
SESSION_STATUS: Final = "session/status"
SESSION_ARCHIVE: Final = "session/archive"
SESSION_UNARCHIVE: Final = "session/unarchive"

# ---- unstable: the agent calls the client --------------------------------------------------------
MCP_MESSAGE: Final = "mcp/message"
"""A request: an MCP message to an MCP server carried over ACP (acp-tui offers none: -32601)."""
AUTH_STATUS_UPDATE: Final = "auth/status_update"
"""A notification: the login state changed."""

# ---- extensions acp-tui reads ----------------------------------------------------------------
CLAUDE_AUTH_STATUS_UPDATE: Final = "_auth/status_update"
"""claude-agent-acp's notification of its login (`{authStatus: {kind, label, detail}}`)."""

# ---- in no pinned schema -------------------------------------------------------------------------
SESSION_SET_MODEL: Final = "session/set_model"
"""Unstable, paired with the `models` object Gemini, claude-code-acp, Qwen and Kimi send."""

# ---- ACP v2 draft: names v1 does not have -------------------------------------------------------
AUTH_LOGIN: Final = "auth/login"
AUTH_LOGOUT: Final = "auth/logout"
TERMINAL_CANCEL: Final = "terminal/cancel"
"""v2: stop an agent-owned (background) terminal."""
TOOL_CALL_CANCEL: Final = "tool_call/cancel"
"""v2: stop a (background) tool call."""

AGENT_METHODS: Final = frozenset(
    {
        INITIALIZE,
        AUTHENTICATE,
        SESSION_NEW,
        SESSION_LOAD,
        SESSION_SET_MODE,
        SESSION_SET_CONFIG_OPTION,
        SESSION_PROMPT,
        SESSION_CANCEL,
        SESSION_LIST,
        SESSION_DELETE,
        SESSION_RESUME,
        SESSION_CLOSE,
        LOGOUT,
    }
)
"""ACP v1 methods (and notifications) the agent serves."""

CLIENT_METHODS: Final = frozenset(
    {
        SESSION_REQUEST_PERMISSION,
        SESSION_UPDATE,
        FS_READ_TEXT_FILE,
        FS_WRITE_TEXT_FILE,
        TERMINAL_CREATE,
        TERMINAL_OUTPUT,
        TERMINAL_RELEASE,
        TERMINAL_WAIT_FOR_EXIT,
        TERMINAL_KILL,
        ELICITATION_CREATE,
        ELICITATION_COMPLETE,
    }
)
"""ACP v1 methods (and notifications) the client serves."""

PROTOCOL_METHODS: Final = frozenset({CANCEL_REQUEST})
"""Methods either side may send."""

UNSTABLE_AGENT_METHODS: Final = frozenset(
    {
        SESSION_FORK,
        PROVIDERS_LIST,
        PROVIDERS_SET,
        PROVIDERS_DISABLE,
        SESSION_SET_TITLE,
        AUTH_STATUS,
        SESSION_STATUS,
        SESSION_ARCHIVE,
        SESSION_UNARCHIVE,
    }
)
"""Unstable agent methods acp-tui uses (the unstable schema has more: acp-tui sends none)."""

UNSTABLE_CLIENT_METHODS: Final = frozenset({MCP_MESSAGE, AUTH_STATUS_UPDATE})
"""Unstable client methods acp-tui answers or reads."""

EXTENSION_CLIENT_METHODS: Final = frozenset({CLAUDE_AUTH_STATUS_UPDATE})
"""Extension methods (`_`-prefixed: no schema's) an agent sends that acp-tui reads."""

UNSCHEMED_AGENT_METHODS: Final = frozenset({SESSION_SET_MODEL})
"""Agent methods acp-tui sends that no pinned schema describes."""

V2_AGENT_METHODS: Final = frozenset(
    {
        INITIALIZE,
        AUTH_LOGIN,
        SESSION_NEW,
        SESSION_SET_CONFIG_OPTION,
        SESSION_PROMPT,
        SESSION_CANCEL,
        SESSION_LIST,
        SESSION_DELETE,
        SESSION_RESUME,
        SESSION_CLOSE,
        AUTH_LOGOUT,
        TERMINAL_CANCEL,
        TOOL_CALL_CANCEL,
    }
)
"""The v2 draft's agent methods."""

V2_CLIENT_METHODS: Final = frozenset(
    {SESSION_REQUEST_PERMISSION, SESSION_UPDATE, ELICITATION_CREATE, ELICITATION_COMPLETE}
)
"""The v2 draft's client methods (v2 dropped fs/* and terminal/*)."""
