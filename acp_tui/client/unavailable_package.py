"""An agent that cannot start because its package cannot be installed at the version asked
(npm's ETARGET "No matching version found for pkg@1.2.3", E404, uv's "no version of pkg==1.2.3"),
told from the stderr of an agent that ended early, so the UI offers what can work (another
version from the registry, installing it by hand) instead of a restart that fails the same way.
No I/O, no UI; the stderr lines are already made safe where they entered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """npm's code line, its two messages and uv's (compiled when an agent first ends early,
    not by every launch)."""
    return (
        re.compile(r"\bnpm (?:ERR!|error) code (ETARGET|E404)\b"),
        re.compile(r"No matching version found for (\S+?)\.?$", re.IGNORECASE),
        re.compile(r"'(\S+)' is not in th\w* registry"),
        re.compile(
            r"no version of ([A-Za-z0-9_.\-\[\]]+?)(?:==([0-9A-Za-z.+!\-]+?))?(?=[\s,;]|\.?$)",
            re.IGNORECASE,
        ),
    )


@dataclass(frozen=True)
class UnavailablePackage:
    """What the agent's installer said it could not get: the package (and version) asked."""

    spec: str
    """e.g. "@google/gemini-cli@0.99.0", or "" when the lines did not name it."""
    installer: str
    """"npm" or "uv"."""

    def advice(self) -> str:
        """What to do instead of restarting, in a sentence."""
        what = self.spec or "the agent's package"
        return (
            f"{self.installer} cannot install {what}: restarting would fail the same way. "
            "Open the agent again from the registry (ctrl+t) for the version it lists now, or "
            "install it yourself and start it with acp-tui -- COMMAND."
        )


def unavailable_package(stderr_tail: Sequence[str]) -> UnavailablePackage | None:
    """The package the installer could not get, read from the agent's last stderr lines (None:
    nothing says so)."""
    npm_code, npm_version, npm_404, uv = _patterns()
    npm = any(npm_code.search(line) for line in stderr_tail)
    for line in stderr_tail:
        line = line.strip()
        if match := npm_version.search(line):
            return UnavailablePackage(match.group(1), "npm")
        if match := npm_404.search(line):
            return UnavailablePackage(match.group(1), "npm")
        if match := uv.search(line):
            name, version = match.group(1), match.group(2)
            return UnavailablePackage(f"{name}=={version}" if version else name, "uv")
    return UnavailablePackage("", "npm") if npm else None
