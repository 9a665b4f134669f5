"""The basics of .gitignore, for trees that are not git repositories.

Supported: blank lines and `#` comments, `!` negation, a trailing `/` (directories only), a
leading or inner `/` (anchored to the .gitignore's directory), `*`, `?`, `[...]` and `**`.
Patterns of nested .gitignore files apply below their directory. Not supported: escaped
trailing spaces, `core.excludesFile`, `.git/info/exclude`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _translate(glob: str) -> str:
    out = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("/**", index) and index + 3 == len(glob):
            out.append("/.*")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[index + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


class IgnoreRules:
    """The rules of one .gitignore file, for paths relative to its directory."""

    def __init__(self, text: str) -> None:
        self.rules: list[_Rule] = []
        for raw in text.splitlines():
            line = raw.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate or line.startswith("\\"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = _translate(line)
            pattern = body if anchored else f"(?:.*/)?{body}"
            self.rules.append(_Rule(re.compile(f"{pattern}\\Z", re.DOTALL), negate, dir_only))

    def verdict(self, relative: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by a `!` rule, None when no rule speaks."""
        result: bool | None = None
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(relative):
                result = not rule.negate
        return result
