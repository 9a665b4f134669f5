"""The prompt before Textual: what the user types while the app loads, edited as they type.

Loading Textual, the protocol models and the app takes most of a second; the layout skeleton
(`first_frame.py`) is on screen long before. `EarlyPrompt` is the prompt of that skeleton: the
bytes typed (read by `early_input.py` as they come) are applied here, and the skeleton draws the
result in its prompt box, so typing shows at once.

Only what a prompt does is done: printable text, backspace and delete, left/right, home/end
(and ctrl+a/ctrl+e), ctrl+u and ctrl+k (the line before or after the cursor), tab as a space,
ctrl+j a new line, a bracketed paste taken as text (its line breaks kept), and Enter sending what
was typed: the prompt waits, shown as queued, and the app sends it the way a prompt sent in its
own prompt field is sent (queued until the session is open). Every other key (up/down, function
keys, alt+key, other controls) is dropped: none of them is ever run as a command, and none
answers anything the agent asks later.

Standard library only: nothing of Textual is imported yet when this runs.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
MAX_CHARACTERS = 1 << 16
"""The most text kept (typed and sent together); more is dropped."""


@dataclass
class EarlyPrompt:
    """The text being typed (`text`, the cursor before `text[cursor]`) and the prompts sent with
    Enter (`sent`, oldest first)."""

    text: str = ""
    cursor: int = 0
    sent: list[str] = field(default_factory=list)
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    _escape: str = ""
    """An escape sequence begun and not yet ended (its rest comes with the next read)."""
    _pasting: bool = False
    _sent_size: int = 0

    def feed(self, data: bytes) -> None:
        """Apply bytes typed on the terminal."""
        pasted: list[str] = []  # (a paste goes in at once: no copy of the text per character)
        for char in self._decoder.decode(data):
            if self._escape:
                self._escape_char(char)
            elif char == "\x1b":
                self._insert("".join(pasted))
                pasted.clear()
                self._escape = char
            elif self._pasting:
                pasted.append(char)
            else:
                self._key(char)
        self._insert("".join(pasted))
        if self._escape == "\x1b" and not self._pasting:
            self._escape = ""  # a read ending in a lone Esc: the Esc key (a terminal writes a
            # key's whole sequence at once), so a key typed after it is not taken as alt+key

    def finish(self) -> None:
        """No more bytes come: an escape sequence left unfinished (a lone Esc) is dropped."""
        self._escape = ""
        self._pasting = False

    @property
    def size(self) -> int:
        """The characters kept: the text and the prompts sent."""
        return len(self.text) + self._sent_size

    def _key(self, char: str) -> None:
        if char in "\x7f\x08":
            self._delete(self.cursor - 1, self.cursor)
        elif char == "\r":
            self._send()
        elif char == "\n":
            self._insert("\n")  # ctrl+j, as in the prompt field: a new line
        elif char == "\x01":  # ctrl+a
            self.cursor = self._line_start()
        elif char == "\x05":  # ctrl+e
            self.cursor = self._line_end()
        elif char == "\x15":  # ctrl+u: the line before the cursor
            self._delete(self._line_start(), self.cursor)
        elif char == "\x0b":  # ctrl+k: the line after the cursor
            self._delete(self.cursor, self._line_end())
        elif char == "\t" or char.isprintable():
            self._insert(char)  # (a tab as a space)

    def _line_start(self) -> int:
        return self.text.rfind("\n", 0, self.cursor) + 1

    def _line_end(self) -> int:
        end = self.text.find("\n", self.cursor)
        return len(self.text) if end < 0 else end

    def _insert(self, text: str) -> None:
        """Insert typed or pasted `text` at the cursor: line breaks (CR LF, CR, LF) as new lines,
        tabs as spaces, other controls dropped; no more than `MAX_CHARACTERS` kept in all."""
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
        text = "".join(char for char in text if char == "\n" or char.isprintable())
        text = text[: max(MAX_CHARACTERS - self.size, 0)]
        if text:
            self.text = self.text[: self.cursor] + text + self.text[self.cursor :]
            self.cursor += len(text)

    def _delete(self, start: int, end: int) -> None:
        start = max(start, 0)
        self.text = self.text[:start] + self.text[end:]
        self.cursor = min(self.cursor, start) if end > start else self.cursor

    def _send(self) -> None:
        if self.text.strip():
            self.sent.append(self.text)
            self._sent_size += len(self.text)
        self.text, self.cursor = "", 0

    def _csi(self, sequence: str) -> None:
        """A finished CSI sequence: the paste marks, and the keys that move or delete."""
        if sequence == PASTE_START:
            self._pasting = True
        elif sequence == PASTE_END:
            self._pasting = False
        elif sequence == "\x1b[D":
            self.cursor = max(self.cursor - 1, 0)
        elif sequence == "\x1b[C":
            self.cursor = min(self.cursor + 1, len(self.text))
        elif sequence in ("\x1b[H", "\x1b[1~", "\x1b[7~"):
            self.cursor = self._line_start()
        elif sequence in ("\x1b[F", "\x1b[4~", "\x1b[8~"):
            self.cursor = self._line_end()
        elif sequence == "\x1b[3~":
            self._delete(self.cursor, self.cursor + 1)

    def _escape_char(self, char: str) -> None:
        sequence = self._escape + char
        if len(sequence) == 2:
            if char in "[O]":
                self._escape = sequence
            else:  # alt+key, or Esc then a key: dropped (a second Esc begins anew)
                self._escape = "\x1b" if char == "\x1b" else ""
            return
        kind = sequence[1]
        if kind == "O":  # SS3: one more character (F1-F4; arrows, home, end in some modes)
            self._escape = ""
            self._csi({"D": "\x1b[D", "C": "\x1b[C", "H": "\x1b[H", "F": "\x1b[F"}.get(char, ""))
        elif kind == "]":  # OSC: ends with BEL or ST
            ended = char == "\x07" or sequence.endswith("\x1b\\")
            self._escape = "" if ended or len(sequence) > 4096 else sequence
        elif "\x40" <= char <= "\x7e":  # CSI: its final byte
            self._escape = ""
            self._csi(sequence)
        elif len(sequence) > 64 or not "\x20" <= char <= "\x3f":
            self._escape = ""  # not a sequence after all: dropped
        else:
            self._escape = sequence
