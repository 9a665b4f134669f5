"""The registry's index (`registry.json`): agents and how to start them.

Every string in it is agent-controlled: names, descriptions and versions are made safe for the
terminal here, where they enter (`safe_line`); ids and versions name directories, so they must
match the registry's patterns exactly. An entry that cannot be used is skipped with a problem
(the first `MAX_PROBLEMS` said one by one, the rest counted in one line); the rest of the index
is still used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from acp_tui.safe_text import safe_line

PLATFORMS = (
    "darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64",
    "windows-aarch64", "windows-x86_64",
)  # fmt: skip
_ID = re.compile(r"[a-z][a-z0-9-]{0,63}")
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]{0,40}")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
MAX_PROBLEMS = 10
"""Skipped entries said one by one; any more are counted in one line."""

Tool = Literal["npx", "uvx"]


class NotAnIndex(ValueError):
    """The document is not a registry index at all."""


@dataclass(frozen=True)
class PackageDistribution:
    """`npx` or `uvx`: a package the tool fetches and runs itself."""

    tool: Tool
    package: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BinaryTarget:
    """One platform's archive (or raw binary) and the command inside it."""

    archive: str
    cmd: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    sha256: str | None = None


@dataclass(frozen=True)
class RegistryAgent:
    id: str
    name: str
    version: str
    description: str
    repository: str = ""
    authors: tuple[str, ...] = ()
    license: str = ""
    packages: tuple[PackageDistribution, ...] = ()
    """`npx` first, then `uvx` (the order a client tries them)."""
    binaries: Mapping[str, BinaryTarget] = field(default_factory=dict)
    """Platform name → target."""


@dataclass(frozen=True)
class RegistryIndex:
    version: str
    agents: tuple[RegistryAgent, ...]
    problems: tuple[str, ...] = ()

    def get(self, agent_id: str) -> RegistryAgent | None:
        return next((a for a in self.agents if a.id == agent_id), None)


def current_platform() -> str:
    """This machine as the registry names platforms (`linux-x86_64`, `darwin-aarch64`, ...)."""
    import platform  # (not at import: only resolving an agent needs it)

    system = platform.system().lower()
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return f"{system}-{arch}"


def parse_index(data: Any) -> RegistryIndex:
    """The index from parsed JSON; raises `NotAnIndex` when it is not an index at all."""
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise NotAnIndex("not a registry index (no `agents` list)")
    version = data.get("version")
    agents: list[RegistryAgent] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, raw in enumerate(data["agents"]):
        try:
            agent = parse_agent(raw)
        except ValueError as error:
            name = raw.get("id") if isinstance(raw, dict) else None
            label = safe_line(name) if isinstance(name, str) else f"#{number + 1}"
            problems.append(f"registry agent {label[:64]}: {error}; skipped")
            continue
        if agent.id in seen:
            problems.append(f"registry agent {agent.id}: listed twice; the first is used")
            continue
        seen.add(agent.id)
        agents.append(agent)
    shown = safe_line(version)[:40] if isinstance(version, str) else "?"
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        problems[MAX_PROBLEMS:] = [f"registry: {more} more entries skipped or left out"]
    return RegistryIndex(shown, tuple(agents), tuple(problems))


def parse_agent(raw: Any) -> RegistryAgent:
    if not isinstance(raw, dict):
        raise ValueError("not an object")
    agent_id = _text(raw, "id")
    if not _ID.fullmatch(agent_id):
        raise ValueError("`id` must be lowercase letters, digits and hyphens")
    version = _text(raw, "version")
    if not _VERSION.fullmatch(version):
        raise ValueError(f"`version` {safe_line(version)[:40]!r} is not a version number")
    distribution = raw.get("distribution")
    if not isinstance(distribution, dict) or not distribution:
        raise ValueError("no `distribution`")
    packages = tuple(
        _package(tool, distribution[tool]) for tool in ("npx", "uvx") if tool in distribution
    )
    binaries = _binaries(distribution.get("binary", {}))
    if not packages and not binaries:
        raise ValueError("no distribution acp-tui knows (npx, uvx or binary)")
    authors = raw.get("authors", [])
    return RegistryAgent(
        id=agent_id,
        name=safe_line(_text(raw, "name")),
        version=version,
        description=safe_line(_text(raw, "description")),
        repository=safe_line(raw["repository"]) if isinstance(raw.get("repository"), str) else "",
        authors=tuple(safe_line(a) for a in authors if isinstance(a, str))
        if isinstance(authors, list)
        else (),
        license=safe_line(raw["license"]) if isinstance(raw.get("license"), str) else "",
        packages=packages,
        binaries=binaries,
    )


def _text(raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"`{key}` must be a non-empty string")
    return value


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"`{what}` must be a list of strings")
    return tuple(value)


def _env(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and "=" not in k and "\0" not in k and isinstance(v, str)
        for k, v in value.items()
    ):
        raise ValueError(f"`{what}` must be a table of strings")
    return dict(value)


def _package(tool: Tool, raw: Any) -> PackageDistribution:
    if not isinstance(raw, dict):
        raise ValueError(f"`{tool}` must be an object")
    package = _text(raw, "package")
    if package.startswith("-") or any(c.isspace() for c in package):
        raise ValueError(f"`{tool}.package` is not a package name")
    return PackageDistribution(
        tool,
        package,
        _strings(raw.get("args"), f"{tool}.args"),
        _env(raw.get("env"), f"{tool}.env"),
    )


def _binaries(raw: Any) -> dict[str, BinaryTarget]:
    if not isinstance(raw, dict):
        raise ValueError("`binary` must be an object")
    targets: dict[str, BinaryTarget] = {}
    for name, target in raw.items():
        if name not in PLATFORMS:
            continue  # a platform this version does not know: not ours anyway
        where = f"binary.{name}"
        if not isinstance(target, dict):
            raise ValueError(f"`{where}` must be an object")
        archive = _text(target, "archive")
        if not archive.lower().startswith(("https://", "http://")):
            raise ValueError(f"`{where}.archive` must be an http(s) URL")
        cmd = _text(target, "cmd")
        sha = target.get("sha256")
        if sha is not None and not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            raise ValueError(f"`{where}.sha256` must be 64 hex digits")
        targets[name] = BinaryTarget(
            archive,
            cmd,
            _strings(target.get("args"), f"{where}.args"),
            _env(target.get("env"), f"{where}.env"),
            sha.lower() if isinstance(sha, str) else None,
        )
    return targets
