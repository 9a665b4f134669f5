"""Unstable session updates that are not conversation history: `notice` and compaction.

`notice` is a fire-and-forget advisory for the user (never part of the conversation);
`compaction_update` upserts a context compaction by id (patch semantics: an omitted field is
unchanged, `null` clears it, `summary: []` clears the summary) and `compaction_summary_chunk`
appends one block to its summary. The client only gets compaction updates after advertising
`clientCapabilities.session.compaction`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ._base import AcpModel, DisplayStr, OptDisplayStr
from .content import ContentBlock, ContentBlockList

NOTICE_SEVERITIES = ("info", "warning", "error")


class Notice(AcpModel):
    """Unstable `notice`: advisory information for the user, by severity (a hint)."""

    session_update: Literal["notice"] = "notice"
    severity: str
    title: Annotated[DisplayStr, Field(min_length=1)]
    description: OptDisplayStr = None

    @property
    def level(self) -> str:
        """ "info", "warning" or "error" (an unknown or custom severity is shown as info)."""
        return self.severity if self.severity in NOTICE_SEVERITIES else "info"


class CompactionUpdate(AcpModel):
    """Unstable `compaction_update`: a compaction created or patched by `compaction_id`."""

    session_update: Literal["compaction_update"] = "compaction_update"
    compaction_id: str
    status: str
    summary: ContentBlockList = None
    error: OptDisplayStr = None


class CompactionSummaryChunk(AcpModel):
    """Unstable `compaction_summary_chunk`: one block appended to a compaction's summary."""

    session_update: Literal["compaction_summary_chunk"] = "compaction_summary_chunk"
    compaction_id: str
    content: ContentBlock


__all__ = ["NOTICE_SEVERITIES", "CompactionSummaryChunk", "CompactionUpdate", "Notice"]
