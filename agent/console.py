"""What the REPL shows: streamed text, a live status line, notes and the `/trace` table.

Output goes through an injected `write` callable. Colour only on a terminal and never with
NO_COLOR; off a terminal the status line becomes plain lines. Streamed text may stop mid-line
(a tool call, a failed attempt): a status, a note or an error then starts on a line of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from resilience import Attempt, Progress

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["Screen", "trace_table"]

_CLEAR_LINE = "\r\x1b[2K"


class _Sink:
    """A file-like face for a `write` callable, for rich."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write

    def flush(self) -> None:
        """Nothing buffered here."""


class Screen:
    """The REPL's terminal (or pipe)."""

    def __init__(
        self, write: Callable[[str], object], *, terminal: bool = False, color: bool = False
    ) -> None:
        self._write = write
        self.terminal = terminal
        self._console = Console(
            file=_Sink(write),  # type: ignore[arg-type]
            force_terminal=terminal,
            no_color=not color,
            color_system="auto" if color and terminal else None,
            highlight=False,
            soft_wrap=True,
            width=100 if not terminal else None,
        )
        self._status_shown = False
        self._mid_line = False  # streamed text left the cursor after some text

    def text(self, text: str) -> None:
        """Model text, as it streams: written as is."""
        self.clear_status()
        self._write(text)
        if text:
            self._mid_line = not text.endswith("\n")

    def end_line(self) -> None:
        """End the line streamed text left open, if it did."""
        if self._mid_line:
            self._write("\n")
            self._mid_line = False

    def line(self, text: str = "", style: str = "") -> None:
        """A whole line, styled on a colour terminal."""
        self.clear_status()
        self.end_line()
        self._console.print(text, style=style or None, markup=False)

    def show(self, renderable: RenderableType) -> None:
        """A rich renderable, e.g. the trace table."""
        self.clear_status()
        self.end_line()
        self._console.print(renderable)

    def status(self, event: Progress) -> None:
        """The live status line: replaced in place on a terminal, one line per event otherwise."""
        self.end_line()
        if self.terminal:
            self._write(_CLEAR_LINE)
            self._console.print(f"… {event.message}", style="dim", end="", markup=False)
            self._status_shown = True
        else:
            self._write(f"… {event.message}\n")

    def clear_status(self) -> None:
        """Remove the status line, if one is shown."""
        if self._status_shown:
            self._write(_CLEAR_LINE)
            self._status_shown = False


def trace_table(attempts: Iterable[Attempt]) -> Table:
    """The last turn's timeline: every attempt with source, duration, outcome, action, wait."""
    table = Table(title="Last turn", title_justify="left")
    for column in ("caller", "source", "#", "took", "outcome", "action", "wait"):
        table.add_column(column, justify="right" if column in {"#", "took", "wait"} else "left")
    for a in attempts:
        wait = f"{a.wait_s:.1f} s" if a.wait_s is not None else ""
        took = f"{a.duration_s * 1000:.0f} ms"
        table.add_row(a.caller, a.source, str(a.number), took, a.outcome, a.action or "", wait)
    return table
