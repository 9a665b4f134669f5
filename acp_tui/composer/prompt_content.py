"""A prompt as ACP content blocks: the text as typed, then one block per @-mention.

What a mention becomes depends on what the agent said it accepts (`promptCapabilities`):

- a text file: an embedded `resource` (its text, or the chosen lines, capped at `max_embed_bytes`,
  with a mime type) when the agent takes `embeddedContext`, else a `resource_link`;
- a directory: a `resource` listing the files below it (embeddedContext), else a `resource_link`;
- an image or audio file: an `image`/`audio` block (base64) when the agent takes them; otherwise
  the user is told the agent cannot take it, and a `resource_link` names the file;
- anything else (binary, too large to embed): a `resource_link` with its size.

Each mention is opened through the host's directory-descriptor walk (`host.open_beneath`): the
real path it leads to is put to `consent` (the session's boundary check for reads: a path outside
the session roots, or a hard-linked file, asks the same question as the agent's own reads), and
then the descriptor that was checked is read, with bounded memory. A FIFO, socket or device is
refused without being opened for reading. A refusal, a missing or unreadable file is reported,
never silently dropped; the prompt's text is sent all the same.
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
from acp_tui.host.beneath import PathChanged
from acp_tui.host.open_beneath import NotRegularFile, Opened, list_tree, open_entry, read_at_most
from acp_tui.protocol.models import AgentCapabilities

DEFAULT_MAX_EMBED_BYTES = 256 * 1024
MAX_MEDIA_BYTES = 20 * 1024 * 1024
MAX_DIR_ENTRIES = 500
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
AUDIO_PREFIX = "audio/"
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
_CHUNK = 1 << 16

ReadConsent = Callable[[Path, Path, int], Awaitable[object]]
"""(the path as written, made absolute; the real path it leads to; its hard link count): passes
when the user may attach it (asking if needed), raises (an `RpcError`) when refused."""


@dataclass(frozen=True, slots=True)
class PromptCapabilities:
    image: bool = False
    audio: bool = False
    embedded_context: bool = False

    @classmethod
    def from_agent(cls, agent_capabilities: AgentCapabilities) -> PromptCapabilities:
        """What the agent's prompt accepts (images, audio, embedded files), from its initialize
        answer.
        """
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
    """The MIME type guessed from the file's name, or None."""
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
    """The file's `file://` URI, with `#L<start>-<end>` when the mention names lines."""
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
    consent: ReadConsent,
    *,
    max_embed_bytes: int = DEFAULT_MAX_EMBED_BYTES,
) -> BuiltPrompt:
    """The prompt's content blocks: the text, and each @mentioned file embedded, linked or
    attached as the agent's capabilities and the user's read consent allow.
    """
    built = BuiltPrompt([{"type": "text", "text": text}])
    seen: set[str] = set()
    for mention in find_mentions(text):
        if mention.label in seen:
            continue
        seen.add(mention.label)
        requested = _absolute(mention.path, cwd)
        try:
            opened = await asyncio.to_thread(open_entry, requested)
        except (OSError, ValueError) as error:
            problem = _open_problem(mention, error)
            if problem is not None:
                built.problems.append(problem)
            continue
        try:
            await consent(requested, opened.real, opened.links)
        except BaseException as error:
            opened.close()
            if not isinstance(error, Exception):
                raise
            message = getattr(error, "message", None) or str(error)
            built.problems.append(f"@{mention.label}: not attached ({message})")
            continue
        # the thread owns `opened` from here (it closes it), even if this task is cancelled
        block = await asyncio.to_thread(
            _block_for, opened, mention, caps, max_embed_bytes, built.problems
        )
        if block is not None:
            built.blocks.append(block)
    return built


def _absolute(written: str, cwd: Path) -> Path:
    path = Path(os.path.expanduser(written))
    return path if path.is_absolute() else cwd.absolute() / path


def _open_problem(mention: Mention, error: OSError | ValueError) -> str | None:
    """What to tell the user about a mention that could not be opened (None: not a path)."""
    if isinstance(error, FileNotFoundError):
        if "/" in mention.path or "." in mention.path:
            return f"@{mention.label}: no such file, sent as plain text"
        return None  # "@someone": just text
    if isinstance(error, NotRegularFile):
        return f"@{mention.label}: not attached ({error.kind}, not a regular file)"
    if isinstance(error, PathChanged):
        return f"@{mention.label}: not attached (the path kept changing while it was opened)"
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return f"@{mention.label}: not attached (cannot read it: {reason})"


def _block_for(
    opened: Opened,
    mention: Mention,
    caps: PromptCapabilities,
    max_embed_bytes: int,
    problems: list[str],
) -> dict[str, Any] | None:
    """The block for an opened, consented mention (read from its descriptor, then closed)."""
    with opened:
        try:
            return _block_from(opened, mention, caps, max_embed_bytes, problems)
        except OSError as error:
            problems.append(f"@{mention.label}: not attached (cannot read it: {error.strerror})")
            return None


def _block_from(
    opened: Opened,
    mention: Mention,
    caps: PromptCapabilities,
    max_embed_bytes: int,
    problems: list[str],
) -> dict[str, Any] | None:
    path = opened.real
    if opened.is_dir:
        return _directory_block(opened, caps)
    size = opened.info.st_size
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
        raw = read_at_most(opened.fd, MAX_MEDIA_BYTES) if size <= MAX_MEDIA_BYTES else None
        if raw is None or len(raw) > MAX_MEDIA_BYTES:
            problems.append(f"@{mention.label}: too large to attach ({size} bytes); sent as a link")
            return link
        block = {"type": media, "data": base64.b64encode(raw).decode("ascii"), "mimeType": mime}
        if media == "image":
            block["uri"] = file_uri(path)
        return block
    if not caps.embedded_context:
        return link
    text = _read_text(opened.fd, mention, max_embed_bytes)
    if text is None:
        if size > max_embed_bytes and mention.start_line is None:
            problems.append(
                f"@{mention.label}: larger than {max_embed_bytes} bytes; sent as a link"
            )
        return link
    resource: dict[str, Any] = {"uri": file_uri(path, mention), "text": text}
    resource["mimeType"] = mime or "text/plain"
    return {"type": "resource", "resource": resource}


def _read_text(fd: int, mention: Mention, max_bytes: int) -> str | None:
    """The file's text (or the chosen lines), None when binary or over the cap."""
    if b"\0" in os.pread(fd, 8192, 0):
        return None
    if mention.start_line is None:
        data = read_at_most(fd, max_bytes)
        return None if len(data) > max_bytes else data.decode("utf-8", "replace")
    first = max(1, mention.start_line)
    last = mention.end_line if mention.end_line is not None else first
    return _read_lines(fd, first, last, max_bytes)


def _read_lines(fd: int, first: int, last: int, max_bytes: int) -> str | None:
    """Lines `first`..`last` (1-based, endings kept), read in chunks; None over `max_bytes`."""
    out = bytearray()
    number, offset = 1, 0
    while number <= last:
        chunk = os.pread(fd, _CHUNK, offset)
        if not chunk:
            break
        offset += len(chunk)
        pos = 0
        while pos < len(chunk) and number <= last:
            newline = chunk.find(b"\n", pos)
            end = len(chunk) if newline < 0 else newline + 1
            if number >= first:
                out += chunk[pos:end]
                if len(out) > max_bytes:
                    return None
            pos = end
            number += newline >= 0
    return out.decode("utf-8", "replace")


def _directory_block(opened: Opened, caps: PromptCapabilities) -> dict[str, Any]:
    path = opened.real
    name = path.name + "/"
    uri = path.as_uri() + "/"
    if not caps.embedded_context:
        return {"type": "resource_link", "name": name, "uri": uri, "mimeType": "inode/directory"}
    entries, more = list_tree(opened.fd, SKIPPED_DIRS, MAX_DIR_ENTRIES)
    listing = "\n".join(entries)
    if more:
        listing += f"\n… and more (listing capped at {MAX_DIR_ENTRIES} entries)"
    return {"type": "resource",
            "resource": {"uri": uri, "text": listing, "mimeType": "text/plain"}}  # fmt: skip
