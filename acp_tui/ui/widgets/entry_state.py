"""Per-entry view state: what the user did to an entry's view that the entry's data does not say.

The conversation keeps one `EntryViewState` per entry id. The live widgets write it (a card
folded by hand, a section opened) and the conversation reads it to decide whether an entry can
be frozen and how the frozen rendering shows it, so nothing is read back from widgets
(collapsible titles, CSS classes). It outlives the widgets: an entry frozen and thawed again
comes back as the user left it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RAW_INPUT = "raw-input"
RAW_OUTPUT = "raw-output"
THOUGHT = "thought"
SUBAGENT = "subagent"


@dataclass
class EntryViewState:
    """One entry's view state (see the module docstring)."""

    folded: bool | None = None
    """A card the user folded (True) or unfolded (False) by hand; None: as its status says."""
    sections: dict[str, bool] = field(default_factory=dict)
    """Sections (`RAW_INPUT`, `RAW_OUTPUT`, `THOUGHT`, `SUBAGENT`) opened (True) or closed
    against their default, by the user or to show a permission request; missing ones are as by
    default."""
    output_expanded: bool = False
    """A command's output shown whole, not only its last lines."""
    not_kept: str | None = None
    """Why the agent did not keep this user message (a refusal), shown under it."""
    pinned: bool = False
    """The user thawed it: it stays live."""
    text_pages: dict[int, int] = field(default_factory=dict)
    """How many pages of a long text block (by block index) the user asked to see (one unless
    said here; see `message_lines.TEXT_PAGE`)."""
    nested: dict[tuple[str, int], EntryViewState] = field(default_factory=dict)
    """A subagent lane's: the view states of the entries drawn inside it (a child session's
    card folded by hand, a section opened), by (child session id, entry id); made only when
    the user acts on one (`subagent_lane.py`)."""

    @property
    def user_toggled(self) -> bool:
        """Whether the user folded or unfolded the entry (then their choice wins over defaults)."""
        return self.folded is not None

    def sections_as_default(self, defaults: dict[str, bool]) -> bool:
        """Whether every section is open or closed as ``defaults`` says (closed if missing
        there): the frozen rendering draws only the defaults."""
        return all(defaults.get(name, False) == shown for name, shown in self.sections.items())
