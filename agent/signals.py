"""Signals and pipes: how `ask` and `chat` end when they are told to stop, or when the reader
of their stdout leaves.

Ctrl-C is the one path. While a turn runs, asyncio's SIGINT handler cancels it: its `finally`
blocks close the agent (the MCP servers and their process groups with it) and the log file is
closed after. Anywhere else, Python's own handler raises KeyboardInterrupt. `stop` takes that
same path for the other reasons to end: SIGTERM and SIGHUP (`stopping_on_signals` points them
at it) and a reader of stdout that has gone (`write_out`). It remembers the first reason,
and the command exits as a shell would report the signal (`exit_code`): 130 for Ctrl-C, 143
for SIGTERM, 129 for SIGHUP, 141 for a closed stdout — that one without a word, and never as
a failure of the model or a tool, since a write to stdout never raises into a turn.

`write_out` writes all of what it is given or ends the command: a stdout that takes part of a
write (unbuffered, `python -u`) or none for now (a non-blocking pipe) is written to until it
has taken everything.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import IO, Any

__all__ = [
    "SIGPIPE",
    "deliver",
    "exit_code",
    "silence",
    "stop",
    "stopped_by",
    "stopping_on_signals",
    "write_out",
]

SIGPIPE = int(getattr(signal, "SIGPIPE", 13))  # a closed stdout, where the platform has none
# The signals that end a command as Ctrl-C does: SIGTERM (a supervisor, `kill`) and SIGHUP (the
# terminal went away), where the platform has them.
_STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_first_signal: int | None = None  # why the command is stopping: what `stop` was given first


def stop(signum: int) -> None:
    """End what is running as Ctrl-C does, for `signum`: the SIGINT handler of the moment runs
    (asyncio's cancels the running turn and returns; Python's raises KeyboardInterrupt), and
    nothing more is read from stdin. The first reason given is kept for `exit_code`."""
    global _first_signal
    if _first_signal is None:
        _first_signal = signum
        # A prompt reads the end of input at once, even when `input` dropped the
        # KeyboardInterrupt (it clears one raised as it flushes stdout, just before it reads).
        silence(sys.stdin)
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):  # SIGINT ignored (a background job): still end, as Python would
        handler = signal.default_int_handler
    handler(signal.SIGINT, None)


def stopped_by() -> int | None:
    """The signal `stop` was given first in this command (SIGTERM, SIGHUP, SIGPIPE), or None:
    a KeyboardInterrupt with no reason is Ctrl-C itself."""
    return _first_signal


def exit_code() -> int:
    """The exit status of a command that stopped: 128 + the signal, as a shell reports it."""
    return 128 + (stopped_by() or signal.SIGINT)


@contextlib.contextmanager
def stopping_on_signals() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP `stop` the command as Ctrl-C does; the handlers they
    had come back after. A signal the command was started ignoring (`nohup`) stays ignored.
    Only the main thread can set handlers; elsewhere nothing changes."""
    global _first_signal
    _first_signal = None
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _STOPPING:
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue
            with contextlib.suppress(ValueError, OSError):
                previous[signum] = signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        _first_signal = None


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    stop(signum)


def write_out(stream: IO[str], text: str) -> None:
    """Write all of `text` to stdout (`stream`) and flush it. If its reader has gone, stdout
    is silenced and the command stops for SIGPIPE (`stop`): the error never reaches the code
    that was writing, so a streamed answer is never taken for a failed model call."""
    try:
        deliver(stream, text)
    except BrokenPipeError:
        silence(stream)
        stop(SIGPIPE)


def deliver(stream: IO[str], text: str) -> None:
    """Write all of `text` to `stream` and flush it, however the stream takes it: buffered;
    a part at a time (an unbuffered stdout, `python -u`); or nothing for now (a non-blocking
    pipe, waited on until it can take more). BrokenPipeError when the reader has gone."""
    binary = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if binary is None or not isinstance(encoding, str):  # text only (a StringIO): it takes all
        stream.write(text)
        stream.flush()
        return
    stream.flush()  # what the text layer holds goes first
    pending = memoryview(text.encode(encoding, getattr(stream, "errors", None) or "strict"))
    while pending:
        try:
            written = binary.write(pending)
        except BlockingIOError as full:
            written = full.characters_written
        if not written:
            _wait_until_writable(binary)
        pending = pending[written or 0 :]
    while True:
        try:
            binary.flush()
        except BlockingIOError:
            _wait_until_writable(binary)
        else:
            return


def _wait_until_writable(binary: Any) -> None:
    """Wait until a non-blocking stream's descriptor can take more (as a blocking write would)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):  # no descriptor: retry at once
        select.select([], [binary.fileno()], [])


def silence(stream: IO[str]) -> None:
    """Point `stream`'s descriptor at /dev/null: what is still buffered, and anything written
    later, goes nowhere quietly (at exit too) once its reader has gone; a read finds the end."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor: nothing to do
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
