"""What the agent's stderr says the sandbox refused, as a hint for the user after a crash."""

from __future__ import annotations

import re
from collections.abc import Sequence

from acp_tui.sandbox.policy import SandboxPolicy

REFUSED = re.compile(
    r"EACCES|EPERM|EROFS|[Pp]ermission denied|[Oo]peration not permitted|[Rr]ead-only file system"
)
NAMES_A_PATH = re.compile(r"(?:^|[\s'\"`(=:])/[^\s'\"`)]")
"""A line that names an absolute path (Node's `code: 'EACCES',` names none: its `Error:` or
`path:` line does)."""


def refusal_hint(policy: SandboxPolicy | None, stderr_tail: Sequence[str]) -> str | None:
    """A notice naming the refusal the agent wrote last before it ended, when it ran in a
    sandbox; None when nothing it wrote looks like one. `stderr_tail`: lines made safe."""
    if policy is None or not policy.active:
        return None
    refused = [line.strip() for line in stderr_tail if REFUSED.search(line)]
    if not refused:
        return None
    named = [line for line in refused if NAMES_A_PATH.search(line)] or refused
    return (
        f"The agent ran in the {policy.mode.value} sandbox and was refused: {named[-1][:300]}."
        " If it needs that place, add it to sandbox_writable (or start it with --sandbox off)."
    )
