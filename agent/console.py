"""What the REPL shows: streamed text, a live status line, notes and the `/trace` table.

Output goes through an injected `write` callable. Colour only on a terminal and never with
NO_COLOR; off a terminal (or on one that cannot move its cursor, TERM=dumb) the status line
becomes plain lines and nothing is rewritten in place. Streamed text may stop mid-line (a tool
call, a failed attempt): a status, a note or an error then starts on a line of its own.

Given the terminal's `width`, the assistant's replies are set apart (a blank line before and
after, each line indented) and wrapped at word boundaries to that width, read afresh for each
word so that a resized window is followed.

Everything shown passes `agent.terminal`'s sanitiser first: the model's text (and the tool
names it chose, in `/trace`) cannot move the cursor, retitle the window or inject markup.

While an attempt (the model's or a tool's) or a wait is under way, a terminal shows what is
awaited with the seconds elapsed, "… waiting for claude-sonnet-4-6 (7 s)", counted each second
by a small ticker task; the line is replaced by the next event and cleared as soon as text
arrives or the turn ends, so "retrying in 1 second" never stays up through the next attempt.
Off a terminal nothing ticks, and an attempt going out is not shown at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence

from agent.terminal import TerminalStream, cells, for_terminal, styled
from resilience import Event

__all__ = [
    "REPLY_INDENT",
    "Screen",
    "readable_duration",
    "table",
    "trace_table",
    "wait_words",
]

_CLEAR_LINE = "\r\x1b[2K"


class Screen:
    """The REPL's terminal (or pipe)."""

    def __init__(
        self,
        write: Callable[[str], object],
        *,
        terminal: bool = False,
        color: bool = False,
        width: Callable[[], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`terminal`: the cursor may be moved (a status line rewritten in place); `width`:
        the terminal's width, to lay replies out to (None: a pipe, text as it comes)."""
        self._write = write
        self.terminal = terminal
        self._width = width
        self._clock, self._sleep = clock, sleep
        self._color = color and terminal
        self._status_shown = False
        self._mid_line = False  # streamed text left the cursor after some text
        self._stream = TerminalStream()
        self._wrap = _Wrap(self.width, REPLY_INDENT) if width is not None else None
        self._ticker: asyncio.Task[None] | None = None

    @property
    def laid_out(self) -> bool:
        """Whether replies are set apart and wrapped (output to a terminal)."""
        return self._wrap is not None

    def text(self, text: str) -> None:
        """Model text, as it streams: sanitised, then (with a width) wrapped and indented."""
        text = self._stream.feed(text)
        if not text:
            return
        self.clear_status()
        self._put(text)

    def reply(self, text: str, style: str = "") -> None:
        """A whole reply (or the sentence that stands for one): like streamed text, or a
        styled line of its own."""
        if style:
            self.line(text, style=style, reply=True)
            return
        self.text(text)
        self.end_line()

    def gap(self) -> None:
        """A blank line, where replies are set apart (between the prompt and a reply)."""
        if self.laid_out:
            self.clear_status()
            self.end_line()
            self._write("\n")

    def end_line(self) -> None:
        """End the line streamed text left open, if it did."""
        if rest := self._stream.flush():
            self._put(rest)
        if self._wrap is not None and (word := self._wrap.flush()):
            self._write(word)
            self._mid_line = True
        if self._mid_line:
            self._write("\n")
            self._mid_line = False
        if self._wrap is not None:
            self._wrap.new_line()

    def line(self, text: str = "", style: str = "", *, reply: bool = False) -> None:
        """A whole line, sanitised, styled on a colour terminal; with a width, wrapped at
        word boundaries (and indented as a reply, if it stands for one)."""
        self.clear_status()
        self.end_line()
        text = for_terminal(text)
        if self._width is not None:
            text = _fill(text, self.width(), REPLY_INDENT if reply else "")
        self._write(styled(text, style, color=self._color) + "\n")

    def show(self, lines: Sequence[str]) -> None:
        """Lines laid out already (the trace table), each sanitised on its way out."""
        self.clear_status()
        self.end_line()
        for line in lines:
            self._write(for_terminal(line) + "\n")

    def width(self) -> int:
        """The width to lay out to: the terminal's, or 100 off a terminal."""
        return 100 if self._width is None else max(_MIN_WIDTH, self._width())

    def status(self, event: Event) -> None:
        """The live status line for the engine's events that a person is told of (their
        `progress`): replaced in place on a terminal, counting the seconds of an attempt or a
        wait; one plain line per event otherwise (an attempt: none)."""
        if event.progress is None:
            return
        kind, message = event.progress
        self.clear_status()
        if not self.terminal:
            if kind != "attempting":
                self.end_line()
                self._write(f"… {for_terminal(message)}\n")
            return
        self.end_line()
        if kind not in _COUNTED:
            self._show_status(message)
            return
        since = self._clock()
        self._show_count(message, since)
        with contextlib.suppress(RuntimeError):  # no event loop: a static line, no count
            self._ticker = asyncio.get_running_loop().create_task(self._tick(message, since))

    def clear_status(self) -> None:
        """Remove the status line, if one is shown (and stop counting the seconds)."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._status_shown:
            self._write(_CLEAR_LINE)
            self._status_shown = False

    def _put(self, text: str) -> None:
        if self._wrap is not None:
            text = self._wrap.feed(text)
            self._mid_line = self._wrap.mid_line
        elif text:
            self._mid_line = not text.endswith("\n")
        if text:
            self._write(text)

    def _show_status(self, message: str) -> None:
        line = f"… {for_terminal(message)}"
        room = self.width() - 1  # a status that wrapped could not be cleared whole
        if self._width is not None and len(line) > room:
            line = line[: max(1, room - 1)] + "…"
        self._write(_CLEAR_LINE + styled(line, "dim", color=self._color))
        self._status_shown = True

    async def _tick(self, message: str, since: float) -> None:
        while True:
            await self._sleep(1)  # the count goes up each second
            self._show_count(message, since)

    def _show_count(self, message: str, since: float) -> None:
        seconds = max(0, int(self._clock() - since))
        self._show_status(f"{message} ({seconds} s)")


class _Wrap:
    """Streamed text laid out in words: each line indented, a line broken only between
    words once the next word would pass the width (a word longer than a line has one
    of its own). A word is held back until the whitespace after it, or `flush`."""

    def __init__(self, width: Callable[[], int], indent: str) -> None:
        self._width, self._indent = width, indent
        self._column = 0  # cells on the current line, the indent included; 0: not started
        self._spaces = ""  # whitespace after the last word written, not yet written
        self._word = ""

    @property
    def mid_line(self) -> bool:
        """Whether the current line has text on it (or text held back for it)."""
        return self._column > 0 or bool(self._word)

    def feed(self, text: str) -> str:
        """What of `text` can be written now."""
        out: list[str] = []
        for char in text:
            if char == "\n":
                out += [self.flush(), "\n"]
                self.new_line()
            elif char in " \t":
                out.append(self.flush())
                self._spaces += " "  # a tab too
            else:
                self._word += char
        return "".join(out)

    def flush(self) -> str:
        """The word held back, placed on this line or the next."""
        word, self._word = self._word, ""
        if not word:
            return ""
        if self._column == 0:  # a line's own leading spaces (a list, a code block) stay
            lead = self._indent + self._spaces
        elif self._column + len(self._spaces) + cells(word) > self._width():
            lead = "\n" + self._indent
            self._column = 0
        else:
            lead = self._spaces
        self._spaces = ""
        self._column += len(lead.lstrip("\n")) + cells(word)
        return lead + word

    def new_line(self) -> None:
        """The cursor is at the start of a line."""
        self._column, self._spaces = 0, ""


_COUNTED = frozenset({"attempting", "retrying", "waiting"})  # statuses that count seconds
REPLY_INDENT = "  "
_MIN_WIDTH = 20  # a narrower "terminal" is taken as this wide


def _fill(text: str, width: int, indent: str) -> str:
    """`text` wrapped to `width` at word boundaries, each line indented (a line's own
    leading spaces kept for the lines it wraps into); line breaks kept."""
    import textwrap

    def fill(line: str) -> str:
        own = indent + line[: len(line) - len(line.lstrip())]
        return textwrap.fill(
            line.strip(),
            width,
            initial_indent=own,
            subsequent_indent=own,
            break_long_words=False,
            break_on_hyphens=False,
        )

    return "\n".join(fill(line) if line.strip() else "" for line in text.split("\n"))


_HEADINGS = ("caller", "for", "source", "#", "took", "outcome", "action", "wait")
_RIGHT = frozenset({"#", "took", "wait"})


def trace_table(attempts: Iterable[Event], width: int, title: str = "Last turn") -> list[str]:
    """A turn's timeline, laid out to `width`: every attempt with what it was for (the city),
    its source, how long it took, its outcome and action, and the wait slept before the next
    attempt. A source skipped (its breaker open) made no attempt: no number, no time."""
    rows = [
        (
            a.caller,
            a.subject,
            a.source,
            str(a.number) if a.number else "",
            readable_duration(a.duration_s) if a.number else "",
            a.outcome,
            a.action or "",
            wait_words(a.wait_s),
        )
        for a in attempts
    ]
    return [title, *table(_HEADINGS, rows, width, right=_RIGHT)]


def table(
    headings: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    *,
    right: frozenset[str] = frozenset(),
) -> list[str]:
    """Rows as aligned columns under a ruled heading when they fit in `width`; otherwise one
    block per row, a "heading: value" pair a line (nothing is cut short). Every cell is
    sanitised: a tool name is the model's choice."""
    cleaned = [[for_terminal(cell).replace("\n", " ") for cell in row] for row in rows]
    sizes = [
        max([cells(heading), *(cells(row[i]) for row in cleaned)])
        for i, heading in enumerate(headings)
    ]
    total = sum(sizes) + 2 * (len(sizes) - 1)
    if total > width:
        return [
            f"{heading}: {cell}" if i else f"--- {cell}"
            for row in cleaned
            for i, (heading, cell) in enumerate(zip(headings, row, strict=True))
            if cell
        ]

    def line(cells_: Sequence[str]) -> str:
        padded = [
            _pad(cell, size, heading in right)
            for cell, size, heading in zip(cells_, sizes, headings, strict=True)
        ]
        return "  ".join(padded).rstrip()

    return [line(headings), "─" * total, *(line(row) for row in cleaned)]


def _pad(cell: str, size: int, right: bool) -> str:
    gap = " " * (size - cells(cell))
    return gap + cell if right else cell + gap


def readable_duration(seconds: float) -> str:
    """ "12 ms" under a second, else "5.0 s"."""
    if seconds < 0.9995:
        return f"{max(0.0, seconds) * 1000:.0f} ms"
    return f"{seconds:.1f} s"


def wait_words(wait_s: float | None) -> str:
    """The wait before the next attempt: none (""), "at once" (no wait), or "2.0 s"."""
    if wait_s is None:
        return ""
    return "at once" if wait_s < 0.05 else f"{wait_s:.1f} s"
