"""Content blocks (text, image, audio, resource links, embedded resources).

`parse_content_block` never raises: a block of an unknown `type`, or a known type that does not
validate, becomes an `UnknownContent` that keeps the raw value, so nothing the agent sends is lost.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_serializer

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    OptDisplayStr,
    OptFloat,
    OptStr,
    SkipInvalidItems,
    note_repair,
    parse_with,
)

Role = Literal["assistant", "user"]


class Annotations(AcpModel):
    """Hints about how a block is used or displayed."""

    audience: Annotated[list[Role] | None, SkipInvalidItems, DefaultOnError] = None
    last_modified: OptStr = None
    priority: OptFloat = None


OptAnnotations = Annotated[Annotations | None, DefaultOnError]


class TextContent(AcpModel):
    """A text content block (Markdown in agent messages)."""

    type: Literal["text"] = "text"
    text: DisplayStr
    annotations: OptAnnotations = None


class ImageContent(AcpModel):
    """An image content block: base64 data and its MIME type."""

    type: Literal["image"] = "image"
    data: str
    mime_type: DisplayStr
    uri: OptDisplayStr = None
    annotations: OptAnnotations = None


class AudioContent(AcpModel):
    """An audio content block: base64 data and its MIME type."""

    type: Literal["audio"] = "audio"
    data: str
    mime_type: DisplayStr
    annotations: OptAnnotations = None


class ResourceLink(AcpModel):
    """A reference to a resource by URI (a file the agent may read itself)."""

    type: Literal["resource_link"] = "resource_link"
    name: DisplayStr
    uri: DisplayStr
    title: OptDisplayStr = None
    description: OptDisplayStr = None
    mime_type: OptDisplayStr = None
    size: Annotated[int | None, DefaultOnError] = None
    annotations: OptAnnotations = None


class TextResourceContents(AcpModel):
    """The text of an embedded resource."""

    uri: DisplayStr
    text: DisplayStr
    mime_type: OptDisplayStr = None


class BlobResourceContents(AcpModel):
    """The base64 bytes of an embedded resource."""

    uri: DisplayStr
    blob: str
    mime_type: OptDisplayStr = None


class EmbeddedResource(AcpModel):
    """A resource sent with its contents (a file attached to a prompt with @)."""

    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: OptAnnotations = None


class UnknownContent(BaseModel):
    """A content block acp-tui does not understand, kept exactly as received."""

    model_config = ConfigDict(defer_build=True)  # built at first use, as AcpModel's

    raw: Any

    @property
    def type(self) -> str | None:
        """The block's `type` as sent, if it is a string."""
        kind = self.raw.get("type") if isinstance(self.raw, dict) else None
        return kind if isinstance(kind, str) else None

    @model_serializer
    def _serialize(self) -> Any:
        return self.raw


KnownContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

_CONTENT_TYPES: dict[str, type[KnownContentBlock]] = {
    "text": TextContent,
    "image": ImageContent,
    "audio": AudioContent,
    "resource_link": ResourceLink,
    "resource": EmbeddedResource,
}


def parse_content_block(raw: Any) -> ContentBlock:
    """A content block from its wire form; never raises (falls back to `UnknownContent`)."""
    if isinstance(raw, TextContent | ImageContent | AudioContent | ResourceLink):
        return raw
    if isinstance(raw, EmbeddedResource | UnknownContent):
        return raw
    if isinstance(raw, dict):
        kind = raw.get("type")
        model = _CONTENT_TYPES.get(kind) if isinstance(kind, str) else None
        if model is not None:
            try:
                return model.model_validate(raw)
            except ValidationError as error:
                note_repair(
                    "invalid", f"{raw.get('type')} content block", str(error.errors()[0]["msg"])
                )
                return UnknownContent(raw=raw)
        note_repair("unknown", f"content block type {raw.get('type')!r}")
    else:
        note_repair("invalid", "content block", "not an object")
    return UnknownContent(raw=raw)


ContentBlock = Annotated[KnownContentBlock | UnknownContent, parse_with(parse_content_block)]
"""Any content block; validating one never fails (unknown/invalid → `UnknownContent`)."""


def _parse_content_list(raw: Any) -> list[ContentBlock] | None:
    """A list of content blocks under `x-deserialize-skip-invalid-items`: an item that is not an
    object with a string `type` is dropped (a block of an unknown type is kept, as everywhere);
    a value that is not a list at all is None (`x-deserialize-default-on-error`)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        note_repair("defaulted", "content", "not a list")
        return None
    kept: list[ContentBlock] = []
    for item in raw:
        if isinstance(item, BaseModel) or (
            isinstance(item, dict) and isinstance(item.get("type"), str)
        ):
            kept.append(parse_content_block(item))
        else:
            note_repair("dropped", "an item of content", "not a content block")
    return kept


ContentBlockList = Annotated[list[ContentBlock] | None, parse_with(_parse_content_list)]
"""An optional list of content blocks (the skip-invalid-items and default-on-error markers)."""


def text_block(text: str) -> TextContent:
    """A plain text block (the common case for prompts)."""
    return TextContent(text=text)


__all__ = [
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "ContentBlock",
    "ContentBlockList",
    "EmbeddedResource",
    "ImageContent",
    "KnownContentBlock",
    "ResourceLink",
    "Role",
    "TextContent",
    "TextResourceContents",
    "UnknownContent",
    "parse_content_block",
    "text_block",
]
