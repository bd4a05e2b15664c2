"""One sanitiser for everything printed to a terminal: text from the model (and tool names it
chose, and the descriptions MCP servers give their tools) must not drive the terminal or hide
what it says.

`for_terminal` removes C0 and C1 control characters except newline and tab, and escape
sequences whole: CSI (`ESC [ … final`), OSC, DCS, SOS, PM and APC strings (up to BEL or
`ESC \\`; an unterminated one up to the end of its line), and two-character escapes. So
`ESC ]0;title BEL` (which retitles the window), `ESC [2J` (which clears it) and a bare `\\r`
(which lets a line overwrite another) all vanish, leaving their printable words.

It also removes what changes how text reads without being seen (`errors._redact.UNSEEN`, the
one list every boundary uses): bidi embeddings, overrides and isolates, zero-width characters
and marks, the line and paragraph separators and the byte order mark. So `RLO` cannot show
"txt.exe" as "exe.txt". A run of combining marks keeps its first `MAX_MARKS` per base
character and loses the rest: accents and vowel signs stay, a flood that would smear over the
lines around it does not.

`styled` colours a line for a colour terminal, `cells` says how many columns text takes
there (wide East Asian characters take two, combining marks none), and `is_terminal` whether a
stream is one at all.

Streamed text arrives in pieces, and a sequence may be split between two: `TerminalStream`
holds back an unfinished sequence at the end of a piece until the next one completes it, and
counts a run of marks across pieces.
"""

from __future__ import annotations

import re
import unicodedata
from typing import IO

from errors._redact import CONTROL, MAX_MARKS, UNSEEN, thin_marks

__all__ = [
    "MAX_MARKS",
    "TerminalStream",
    "cells",
    "for_terminal",
    "is_terminal",
    "styled",
]

# An escape sequence, whole: CSI with its parameters; OSC, DCS, SOS, PM and APC strings up to
# their terminator (BEL or ST), or to the end if none; the C1 forms of those introducers
# (U+009B CSI, U+009D OSC, …); and any other two-character escape.
_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?      # CSI … final byte
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])                  # OSC, DCS, SOS, PM, APC …
    [^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?                  # … up to BEL, ST or a newline
  | \x1b[\x20-\x7e]?                                         # any other escape
    """,
    re.VERBOSE,
)
# A piece ending in a sequence that may not be over yet: hold it back (up to a bound).
_UNFINISHED = re.compile(
    r"""
    (?: \x1b | (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*                 # ESC, or a CSI so far
      | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*     # a string not ended
    )\Z
    """,
    re.VERBOSE,
)
_HOLD_LIMIT = 512  # an "unfinished" sequence longer than this is dropped, not held


def for_terminal(text: str) -> str:
    """`text` without escape sequences, control characters, bidi controls or zero-width
    characters (newline and tab stay), and with runs of combining marks cut to `MAX_MARKS`."""
    return _cleaned(text, 0)[0]


def _cleaned(text: str, marks: int) -> tuple[str, int]:
    """`for_terminal(text)`, where `marks` combining marks came just before it; and how many
    end it (for the next piece of a stream)."""
    if CONTROL.search(text):  # what is left after the sequences: C0 (not \n, \t), DEL, C1
        text = CONTROL.sub("", _SEQUENCE.sub("", text))
    if text.isascii():  # the common case: nothing more to look at
        return text, 0
    return thin_marks(UNSEEN.sub("", text), marks)  # the one list (errors._redact)


_STYLES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33"}


def styled(text: str, style: str, *, color: bool) -> str:
    """`text` in `style` ("dim", "bold red", …) on a colour terminal; as it is otherwise."""
    codes = [_STYLES[word] for word in style.split() if word in _STYLES]
    if not (color and codes and text):
        return text
    return f"\x1b[{';'.join(codes)}m{text}\x1b[0m"


def cells(text: str) -> int:
    """The columns `text` takes on a terminal: two for a wide character, none for a mark."""
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def is_terminal(stream: IO[str]) -> bool:
    """Whether `stream` is a terminal (one without `isatty`, or closed, is not)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class TerminalStream:
    """`for_terminal` for text that arrives in pieces: a sequence split between two pieces
    is removed whole, not left as printable debris."""

    def __init__(self) -> None:
        self._held = ""
        self._marks = 0  # combining marks at the end of what was printed so far

    def feed(self, piece: str) -> str:
        """What of `piece` (after anything held back) is safe to print now."""
        text = self._held + piece
        self._held = ""
        if (tail := _UNFINISHED.search(text)) is not None and len(tail.group()) <= _HOLD_LIMIT:
            text, self._held = text[: tail.start()], tail.group()
        return self._printed(text)

    def flush(self) -> str:
        """The end of the stream: whatever was held back, sanitised (usually nothing)."""
        text, self._held = self._held, ""
        return self._printed(text)

    def _printed(self, text: str) -> str:
        if not text:
            return text
        text, self._marks = _cleaned(text, self._marks)
        return text
