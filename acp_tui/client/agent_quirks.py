"""Compatibility switches for agents with known defects, keyed on the `agentInfo.name` they send.

Each switch bends acp-tui's answers only as far as needed for one agent to work at all, and only
for the agents named here; every other agent gets the protocol as the spec has it.

`missing_reads_empty` — Gemini CLI (``gemini-cli``, seen with 0.61) reads a file through
`fs/read_text_file` before writing it, and maps a missing file to Node's ENOENT only when the
failure is a JavaScript `Error` whose message says "Resource not found"/"ENOENT"/... . The ACP
SDK it uses rejects with the plain JSON-RPC error object instead, so no error code or message
gets through: every -32002 becomes "Error checking existing file" and Gemini can never create a
new file. For it, a missing file inside the session roots reads as ``""`` (what its own
filesystem fallback treats a new file as; the write itself is then checked and reviewed as
usual). See google-gemini/gemini-cli#17588 for the same defect reported upstream.
"""

from __future__ import annotations

from acp_tui.protocol.models import Implementation

MISSING_READS_EMPTY = frozenset({"gemini-cli"})


def missing_reads_empty(info: Implementation | None) -> bool:
    """Whether a read of a missing file should answer ``""`` for this agent (see above)."""
    return info is not None and str(info.name) in MISSING_READS_EMPTY
