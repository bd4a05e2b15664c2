"""What the REPL shows: streamed text, a live status line, notes and the `/trace` table.

Output goes through an injected `write` callable. Colour only on a terminal and never with
NO_COLOR; off a terminal the status line becomes plain lines. Streamed text may stop mid-line
(a tool call, a failed attempt): a status, a note or an error then starts on a line of its own.

Everything shown passes `agent.terminal`'s sanitiser first: the model's text (and the tool
names it chose, in `/trace`) cannot move the cursor, retitle the window or inject markup.

While a model attempt is under way and no text has come yet, a terminal shows
"… waiting for claude-sonnet-4-6 (7 s)", counted each second by a small ticker task and
cleared as soon as text or any other event arrives. Off a terminal nothing ticks.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from agent.terminal import TerminalStream, for_terminal, markup_escaped
from resilience import Attempt, Progress

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["Screen", "trace_table"]

_CLEAR_LINE = "\r\x1b[2K"
MODEL_CALLER = "model"  # the engine's caller name for model calls (agent.model_call)


class _Sink:
    """A file-like face for a `write` callable, for rich."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write

    def flush(self) -> None:
        """Nothing buffered here."""


class Screen:
    """The REPL's terminal (or pipe)."""

    def __init__(
        self,
        write: Callable[[str], object],
        *,
        terminal: bool = False,
        color: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        tick_s: float = 1.0,
    ) -> None:
        self._write = write
        self.terminal = terminal
        self._clock, self._sleep, self._tick_s = clock, sleep, tick_s
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
        self._stream = TerminalStream()
        self._waiting: tuple[str, float] | None = None  # the model waited for, and since when
        self._ticker: asyncio.Task[None] | None = None

    def text(self, text: str) -> None:
        """Model text, as it streams: sanitised, otherwise written as is."""
        text = self._stream.feed(text)
        if not text:
            return
        self.clear_status()
        self._write(text)
        self._mid_line = not text.endswith("\n")

    def end_line(self) -> None:
        """End the line streamed text left open, if it did."""
        if rest := self._stream.flush():
            self._write(rest)
            self._mid_line = not rest.endswith("\n")
        if self._mid_line:
            self._write("\n")
            self._mid_line = False

    def line(self, text: str = "", style: str = "") -> None:
        """A whole line, sanitised, styled on a colour terminal."""
        self.clear_status()
        self.end_line()
        self._console.print(for_terminal(text), style=style or None, markup=False)

    def show(self, renderable: RenderableType) -> None:
        """A rich renderable, e.g. the trace table."""
        self.clear_status()
        self.end_line()
        self._console.print(renderable)

    def status(self, event: Progress) -> None:
        """The live status line: replaced in place on a terminal, one line per event otherwise.
        An attempt going out is shown only for the model, and only on a terminal, counting."""
        if event.kind == "attempting":
            self._attempting(event)
            return
        self._stop_waiting()
        self.end_line()
        if self.terminal:
            self._show_status(event.message)
        else:
            self._write(f"… {for_terminal(event.message)}\n")

    def clear_status(self) -> None:
        """Remove the status line, if one is shown (and stop counting the seconds)."""
        self._stop_ticker()
        self._waiting = None
        if self._status_shown:
            self._write(_CLEAR_LINE)
            self._status_shown = False

    def _show_status(self, message: str) -> None:
        self._write(_CLEAR_LINE)
        self._console.print(f"… {for_terminal(message)}", style="dim", end="", markup=False)
        self._status_shown = True

    def _attempting(self, event: Progress) -> None:
        """A model attempt: count the seconds until something arrives. Any other attempt
        ends a count that is still shown (the model has answered), and shows nothing."""
        self._stop_waiting()
        if event.caller != MODEL_CALLER or not self.terminal:
            return
        self.end_line()
        self._waiting = (event.source, self._clock())
        self._show_waiting()
        with contextlib.suppress(RuntimeError):  # no event loop: a static line, no count
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        while True:
            await self._sleep(self._tick_s)
            self._show_waiting()

    def _show_waiting(self) -> None:
        if self._waiting is None:
            return
        source, since = self._waiting
        seconds = max(0, int(self._clock() - since))
        self._show_status(f"waiting for {source} ({seconds} s)")

    def _stop_waiting(self) -> None:
        """Stop counting, and clear the count if it is what the status line shows."""
        if self._waiting is not None:
            self.clear_status()

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None


def trace_table(attempts: Iterable[Attempt]) -> Table:
    """The last turn's timeline: every attempt with source, duration, outcome, action, wait."""
    table = Table(title="Last turn", title_justify="left")
    for column in ("caller", "source", "#", "took", "outcome", "action", "wait"):
        table.add_column(column, justify="right" if column in {"#", "took", "wait"} else "left")
    for a in attempts:
        wait = f"{a.wait_s:.1f} s" if a.wait_s is not None else ""
        took = f"{a.duration_s * 1000:.0f} ms"
        cells = (a.caller, a.source, str(a.number), took, a.outcome, a.action or "", wait)
        table.add_row(*(markup_escaped(cell) for cell in cells))  # a tool name is the model's
    return table
