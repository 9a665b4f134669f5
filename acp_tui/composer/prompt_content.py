"""A prompt as ACP content blocks: the text as typed, then one block per @-mention.

What a mention becomes depends on what the agent said it accepts (`promptCapabilities`):

- a text file: an embedded `resource` (its text, or the chosen lines, capped at `max_embed_bytes`,
  with a mime type) when the agent takes `embeddedContext`, else a `resource_link`;
- a directory: a `resource` listing the files below it (embeddedContext), else a `resource_link`;
- an image or audio file: an `image`/`audio` block (base64) when the agent takes them; otherwise
  the user is told the agent cannot take it, and a `resource_link` names the file;
- anything else (binary, too large to embed): a `resource_link` with its size.

Paths outside the session directory go through the same consent check as the agent's own file
reads (`check_outside`); a refusal or a missing file is reported, never silently dropped.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.composer.mentions import Mention, find_mentions
from acp_tui.protocol.models import AgentCapabilities

DEFAULT_MAX_EMBED_BYTES = 256 * 1024
MAX_MEDIA_BYTES = 20 * 1024 * 1024
MAX_DIR_ENTRIES = 500
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
AUDIO_PREFIX = "audio/"

CheckOutside = Callable[[Path], Awaitable[Path]]


@dataclass(frozen=True, slots=True)
class PromptCapabilities:
    image: bool = False
    audio: bool = False
    embedded_context: bool = False

    @classmethod
    def from_agent(cls, agent_capabilities: AgentCapabilities) -> PromptCapabilities:
        caps = agent_capabilities.prompt_capabilities
        return cls(
            image=bool(caps.image),
            audio=bool(caps.audio),
            embedded_context=bool(caps.embedded_context),
        )


@dataclass
class BuiltPrompt:
    blocks: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)


def mime_type(path: Path) -> str | None:
    guessed, _ = mimetypes.guess_type(path.name, strict=False)
    return guessed


def media_kind(mime: str | None) -> str | None:
    """ "image" or "audio" for the types ACP content blocks carry, else None."""
    if mime in IMAGE_TYPES:
        return "image"
    if mime is not None and mime.startswith(AUDIO_PREFIX):
        return "audio"
    return None


def file_uri(path: Path, mention: Mention | None = None) -> str:
    uri = path.as_uri()
    if mention is not None and mention.start_line is not None:
        uri += f"#L{mention.start_line}"
        if mention.end_line is not None:
            uri += f"-{mention.end_line}"
    return uri


async def build_prompt(
    text: str,
    cwd: Path,
    caps: PromptCapabilities,
    check_outside: CheckOutside,
    *,
    max_embed_bytes: int = DEFAULT_MAX_EMBED_BYTES,
) -> BuiltPrompt:
    built = BuiltPrompt([{"type": "text", "text": text}])
    seen: set[str] = set()
    for mention in find_mentions(text):
        if mention.label in seen:
            continue
        seen.add(mention.label)
        real, inside = await asyncio.to_thread(_locate, mention.path, cwd)
        if real is None:
            if "/" in mention.path or "." in mention.path:
                built.problems.append(f"@{mention.label}: no such file, sent as plain text")
            continue
        if not inside:
            try:
                real = await check_outside(real)
            except Exception as error:
                message = getattr(error, "message", None) or str(error)
                built.problems.append(f"@{mention.label}: not attached ({message})")
                continue
        block = await asyncio.to_thread(
            _block_for, real, mention, caps, max_embed_bytes, built.problems
        )
        if block is not None:
            built.blocks.append(block)
    return built


def _locate(written: str, cwd: Path) -> tuple[Path | None, bool]:
    """The real path of a mention (None if nothing is there) and whether it is inside `cwd`."""
    path = Path(os.path.expanduser(written))
    path = path if path.is_absolute() else cwd / path
    if not path.exists():
        return None, False
    real = Path(os.path.realpath(path))
    return real, real.is_relative_to(Path(os.path.realpath(cwd)))


def _block_for(
    path: Path,
    mention: Mention,
    caps: PromptCapabilities,
    max_embed_bytes: int,
    problems: list[str],
) -> dict[str, Any] | None:
    if path.is_dir():
        return _directory_block(path, caps)
    try:
        size = path.stat().st_size
    except OSError as error:
        problems.append(f"@{mention.label}: cannot read ({error.strerror})")
        return None
    mime = mime_type(path)
    link = {"type": "resource_link", "name": mention.label, "uri": file_uri(path, mention),
            "size": size}  # fmt: skip
    if mime is not None:
        link["mimeType"] = mime
    media = media_kind(mime)
    if media is not None:
        allowed = caps.image if media == "image" else caps.audio
        if not allowed:
            problems.append(f"@{mention.label}: the agent cannot take {media}s; sent as a link")
            return link
        if size > MAX_MEDIA_BYTES:
            problems.append(f"@{mention.label}: too large to attach ({size} bytes); sent as a link")
            return link
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        block = {"type": media, "data": data, "mimeType": mime}
        if media == "image":
            block["uri"] = file_uri(path)
        return block
    if not caps.embedded_context:
        return link
    text = _read_text(path, mention, max_embed_bytes)
    if text is None:
        if size > max_embed_bytes and mention.start_line is None:
            problems.append(
                f"@{mention.label}: larger than {max_embed_bytes} bytes; sent as a link"
            )
        return link
    resource: dict[str, Any] = {"uri": file_uri(path, mention), "text": text}
    resource["mimeType"] = mime or "text/plain"
    return {"type": "resource", "resource": resource}


def _read_text(path: Path, mention: Mention, max_bytes: int) -> str | None:
    """The file's text (or the chosen lines), None when binary or over the cap."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
            if b"\0" in head:
                return None
            if mention.start_line is None:
                data = head + handle.read(max(0, max_bytes + 1 - len(head)))
                if len(data) > max_bytes:
                    return None
                return data.decode("utf-8", "replace")
    except OSError:
        return None
    lines: list[str] = []
    total = 0
    first = max(1, mention.start_line)
    last = mention.end_line if mention.end_line is not None else first
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if number > last:
                break
            if number >= first:
                total += len(line.encode())
                if total > max_bytes:
                    return None
                lines.append(line)
    return "".join(lines)


def _directory_block(path: Path, caps: PromptCapabilities) -> dict[str, Any]:
    name = path.name + "/"
    uri = path.as_uri() + "/"
    if not caps.embedded_context:
        return {"type": "resource_link", "name": name, "uri": uri, "mimeType": "inode/directory"}
    entries: list[str] = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in (".git", ".hg", ".svn"))
        base = Path(root).relative_to(path)
        for file in sorted(files):
            entries.append((base / file).as_posix())
        if len(entries) >= MAX_DIR_ENTRIES:
            break
    listing = "\n".join(entries[:MAX_DIR_ENTRIES])
    if len(entries) > MAX_DIR_ENTRIES:
        listing += f"\n… and more (listing capped at {MAX_DIR_ENTRIES} entries)"
    return {"type": "resource",
            "resource": {"uri": uri, "text": listing, "mimeType": "text/plain"}}  # fmt: skip
