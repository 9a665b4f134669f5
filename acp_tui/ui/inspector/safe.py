"""Agent text made safe to draw in the inspector.

Uses the diff view's sanitizer (control characters shown as their Unicode pictures, tabs
expanded) and also neutralises C1 controls and bidirectional overrides, which the diff view's
function leaves alone. Replace with the project's central safe-text function when it lands.
"""

from __future__ import annotations

from acp_tui.ui.widgets.diff_highlight import display_text

_EXTRA = {code: 0xFFFD for code in range(0x80, 0xA0)}
_EXTRA.update({code: 0xFFFD for code in (0x200E, 0x200F, 0x2028, 0x2029, 0x061C)})
_EXTRA.update({code: 0xFFFD for code in range(0x202A, 0x202F)})
_EXTRA.update({code: 0xFFFD for code in range(0x2066, 0x206A)})


def safe_text(text: str) -> str:
    """`text` with nothing a terminal would interpret: no control, C1 or bidi characters."""
    return display_text(text).translate(_EXTRA)
