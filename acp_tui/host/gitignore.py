""".gitignore syntax, for trees that are not git work trees (in one, git itself decides).

The one reader of .gitignore files: the change monitor (`ignore.py`, the root's file) and the
@-mention file index (`acp_tui.composer.file_index`, nested files) both use `GitignoreRules`.

Supported: blank lines and `#` comments, `!` negation, `\\` escapes (`\\#`, `\\!`, a trailing
`\\ `), a trailing `/` (directories only), a leading or inner `/` (anchored to the .gitignore's
directory), `*` and `?` (not across `/`), `[...]` (with `!` or `^` negation) and `**`. Not
read here: `core.excludesFile`, `.git/info/exclude`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def glob_regex(glob: str) -> str:
    """A gitignore glob as a regex body: `*`/`?`/`[...]` stop at `/`, `**` does not."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        char = glob[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in glob[i + 2 :]:
            end = glob.index("]", i + 2)
            inner = glob[i + 1 : end]
            negated = inner[:1] in ("!", "^")
            inner = inner[1:] if negated else inner
            inner = inner.replace("\\", "\\\\").replace("[", "\\[").replace("^", "\\^")
            out.append("[" + ("^/" if negated else "") + inner + "]")
            i = end + 1
            continue
        elif char == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def compile_pattern(line: str) -> Pattern | None:
    """One line of a .gitignore (None: blank or a comment)."""
    line = line.rstrip("\r\n")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    prefix = "" if anchored else "(?:.*/)?"
    body = glob_regex(line.lstrip("/"))
    return Pattern(re.compile(f"{prefix}{body}\\Z", re.DOTALL), negated, dir_only)


class GitignoreRules:
    """The patterns of one .gitignore file, for paths relative to its directory."""

    def __init__(self, text: str) -> None:
        self.patterns = [p for p in map(compile_pattern, text.splitlines()) if p is not None]

    def verdict(self, relative: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by a `!` pattern, None when no pattern speaks
        (the last pattern that matches decides)."""
        result: bool | None = None
        for pattern in self.patterns:
            if pattern.dir_only and not is_dir:
                continue
            if pattern.regex.match(relative):
                result = not pattern.negated
        return result

    def ignores(self, relative: str, is_dir: bool) -> bool:
        """Whether the rules ignore `relative` (a directory when `is_dir`)."""
        return self.verdict(relative, is_dir) is True
