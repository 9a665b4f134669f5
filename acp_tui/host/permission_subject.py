"""What a tool call touches, as far as a permission rule is concerned.

A remembered "always" answer must cover exactly what the user saw, never the title the agent
chose. `ToolCallFacts` gathers a call's kind, title and rawInput plus every path it names
(locations, diff paths, rawInput keys such as path/file_path/filePath/paths), resolved against
the project directory (symlinks and `..` resolved, so `src/../.git/hooks` is `.git/hooks`).
Its `subject()` is what a rule for it is keyed on:

- edit/read/delete/move/search: the paths (shown relative to the project, absolute outside it);
  a rule may widen a path to a directory scope `src/**`;
- execute: the exact command, as an argv when rawInput gives a list (or a program plus `args`),
  as the exact shell string when it gives a string (no splitting: `echo $HOME` and
  `echo '$HOME'` differ), plus its cwd when rawInput names one;
- fetch: the exact URLs;
- any other kind: the paths together with the exact title.

A call without a subject (no path, no command) gets no rule: no "always" answer for it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

PATH_KINDS = frozenset({"edit", "read", "delete", "move", "search"})
RAW_PATH_KEYS = (
    "path", "file_path", "filePath", "filepath", "file", "abs_path", "absolute_path",
    "notebook_path", "source", "destination", "target", "old_path", "new_path", "oldPath",
    "newPath", "from", "to", "dir", "directory", "paths", "file_paths", "filePaths", "files",
)  # fmt: skip
RAW_CWD_KEYS = ("cwd", "workdir", "working_directory", "workingDirectory")
RAW_URL_KEYS = ("url", "uri", "urls")
MATCH_KINDS = ("paths", "argv", "shell", "url")


class KnownToolCall(Protocol):
    """What is known of a tool call (`thread.entries.ToolCallEntry` fits)."""

    @property
    def kind(self) -> str:
        """The tool call's kind (edit, execute, fetch, ...)."""

    @property
    def title(self) -> str:
        """The tool call's title (untrusted)."""

    @property
    def raw_input(self) -> Any:
        """The tool's raw input (untrusted)."""

    @property
    def locations(self) -> Any:
        """The paths the tool call names (untrusted)."""

    @property
    def content(self) -> Any:
        """The tool call's content blocks (untrusted)."""


def escape_controls(text: str) -> str:
    """`text` on one line: control characters shown as escapes (for labels)."""
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


@dataclass(frozen=True)
class Subject:
    """What an "always" rule covers (see the module doc)."""

    match_on: str  # one of MATCH_KINDS
    values: tuple[str, ...]
    title: str | None = None
    cwd: str | None = None

    def describe(self, kind: str) -> str:
        """E.g. "edit src/a.txt", "execute `ls -la`", "other “Format” on src/**"."""
        if self.match_on == "argv":
            shown = f"{kind} `{escape_controls(shlex.join(self.values))}`"
        elif self.match_on == "shell":
            shown = f"{kind} `{escape_controls(self.values[0] if self.values else '')}`"
        else:
            what = ", ".join(escape_controls(v) for v in self.values)
            title = f" “{escape_controls(self.title)}” on" if self.title is not None else ""
            shown = f"{kind}{title} {what}"
        return shown + (f" in {escape_controls(self.cwd)}" if self.cwd is not None else "")


# ---- paths --------------------------------------------------------------------------------------


def shown_path(path: str, root: Path | None) -> str:
    """`path` resolved (relative ones against `root`): relative to `root` when inside it,
    absolute otherwise. Raises ValueError for a path that cannot name a file."""
    if not path or "\0" in path:
        raise ValueError(f"not a path: {path!r}")
    if not os.path.isabs(path):
        if root is None:
            return os.path.normpath(path)
        path = os.path.join(root, path)
    resolved = Path(os.path.realpath(path))
    if root is not None and resolved.is_relative_to(root):
        relative = resolved.relative_to(root).as_posix()
        return relative if relative != "." else "."
    return resolved.as_posix()


def covers(scope: str, path: str) -> bool:
    """Whether a rule scope (a shown path, or `dir/**`, or `**` for the whole project) covers
    the shown path `path`."""
    if scope == "**":
        return not path.startswith("/")
    if scope.endswith("/**"):
        base = scope[:-3]
        if base == "":
            return path.startswith("/")
        return path == base or path.startswith(base + "/")
    return path == scope


def normalize_scope(text: str, root: Path) -> str:
    """A scope typed by the user, checked and in stored form. Raises ValueError."""
    scope = text.strip()
    if not scope:
        raise ValueError("an empty scope")
    if scope == "**":
        return scope
    directory = scope.endswith("/**")
    base = scope[:-3] if directory else scope
    if "*" in base or "?" in base or "[" in base:
        raise ValueError(f"{scope!r}: only a path or a directory/** scope is allowed")
    base = base.rstrip("/") or "/"
    shown = shown_path(base, root)
    if not directory:
        return shown
    if shown == ".":
        return "**"
    return "/**" if shown == "/" else f"{shown}/**"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def raw_input_paths(raw: Any) -> list[str]:
    """The paths a tool call's rawInput names under the usual keys."""
    if not isinstance(raw, Mapping):
        return []
    found: list[str] = []
    for key in RAW_PATH_KEYS:
        found += _strings(raw.get(key))
    return found


def _field(call: Any, wire: str, attr: str) -> Any:
    if isinstance(call, Mapping):
        return call.get(wire)
    return getattr(call, attr, None)


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def named_paths(call: Any) -> list[str]:
    """The file paths a tool call (a wire dict, a `ToolCallUpdate` or an entry) names: its
    locations and the paths of its diff contents; malformed items are skipped."""
    found: list[str] = []
    for location in _items(_field(call, "locations", "locations")):
        found += _strings(_field(location, "path", "path"))
    for item in _items(_field(call, "content", "content")):
        if _field(item, "type", "type") == "diff":
            found += _strings(_field(item, "path", "path"))
    return found


def call_paths(call: Any) -> list[str]:
    """Paths a tool call names (`named_paths`) and the paths of its rawInput."""
    return named_paths(call) + raw_input_paths(_field(call, "rawInput", "raw_input"))


# ---- commands and URLs --------------------------------------------------------------------------


def command_of(raw: Any) -> tuple[str, tuple[str, ...]] | None:
    """("argv", argv) or ("shell", (the string,)) from an execute call's rawInput."""
    if not isinstance(raw, Mapping):
        return None
    command = raw.get("command", raw.get("cmd"))
    args = raw.get("args")
    extra = tuple(args) if isinstance(args, list) and all(isinstance(a, str) for a in args) else ()
    if isinstance(command, list) and command and all(isinstance(p, str) for p in command):
        if not command[0]:
            return None  # no program: the call names no command
        return "argv", (*command, *extra)
    if isinstance(command, str) and command.strip():
        return ("argv", (command, *extra)) if extra else ("shell", (command,))
    return None


# ---- facts ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCallFacts:
    """The parts of a tool call a rule can match on.

    `paths` are shown paths (see `shown_path`); `unresolvable` is set when the call names a
    path that cannot be resolved, which no rule matches.
    """

    kind: str
    title: str
    raw_input: Any = None
    paths: tuple[str, ...] = ()
    cwd: str | None = None
    unresolvable: bool = False

    @classmethod
    def from_wire(
        cls, tool_call: Any, known: KnownToolCall | None = None, *, root: Path | None = None
    ) -> ToolCallFacts:
        """From a request's `toolCall` (wire dict or model); fields it lacks come from `known`
        (the merged tool call of the session); paths from both, resolved against `root`."""
        kind = _field(tool_call, "kind", "kind")
        title = _field(tool_call, "title", "title")
        raw_input = _field(tool_call, "rawInput", "raw_input")
        named = call_paths(tool_call)
        if known is not None:
            kind = kind if isinstance(kind, str) and kind else known.kind
            title = title if isinstance(title, str) else known.title
            raw_input = raw_input if raw_input is not None else known.raw_input
            named += call_paths(known)
        return cls.build(
            kind if isinstance(kind, str) and kind else "other",
            title if isinstance(title, str) else "",
            raw_input,
            named,
            root=root,
        )

    @classmethod
    def build(
        cls,
        kind: str,
        title: str,
        raw_input: Any = None,
        paths: Iterable[str] = (),
        *,
        root: Path | None = None,
    ) -> ToolCallFacts:
        """Facts with `paths` and the rawInput's paths and cwd resolved against `root`."""
        shown: list[str] = []
        unresolvable = False
        for path in [*paths, *raw_input_paths(raw_input)]:
            try:
                resolved = shown_path(path, root)
            except ValueError:
                unresolvable = True
                continue
            if resolved not in shown:
                shown.append(resolved)
        cwd = None
        if isinstance(raw_input, Mapping):
            cwd_value = next((raw_input[k] for k in RAW_CWD_KEYS if k in raw_input), None)
            if cwd_value is not None:
                try:
                    cwd = shown_path(cwd_value, root) if isinstance(cwd_value, str) else None
                except ValueError:
                    cwd = None
                unresolvable = unresolvable or cwd is None
        return cls(kind, title, raw_input, tuple(sorted(shown)), cwd, unresolvable)

    def subject(self) -> Subject | None:
        """What an "always" rule for this call is keyed on; None: nothing to key it on."""
        if self.unresolvable:
            return None
        if self.kind == "execute":
            command = command_of(self.raw_input)
            return Subject(command[0], command[1], cwd=self.cwd) if command else None
        if self.kind == "fetch":
            raw = self.raw_input if isinstance(self.raw_input, Mapping) else {}
            urls = [u for key in RAW_URL_KEYS for u in _strings(raw.get(key))]
            return Subject("url", tuple(urls)) if urls else None
        if not self.paths:
            return None
        title = None if self.kind in PATH_KINDS else self.title
        return Subject("paths", self.paths, title=title)
