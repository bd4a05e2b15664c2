"""`agent chat`: a screen for stdout, readline history on a terminal, then the REPL."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING

from agent.app import open_agent
from agent.console import Screen
from agent.repl import Repl, run_repl
from agent.settings import Settings

if TYPE_CHECKING:
    from tools.mcp import McpServer

__all__ = ["HISTORY_FILE", "make_screen", "start_chat"]

HISTORY_FILE = "~/.agent_history"


def start_chat(
    settings: Settings,
    stdout: IO[str],
    read: Callable[[str], str],
    *,
    env: Mapping[str, str],
    mcp: Sequence[McpServer] = (),
) -> int:
    """Run the REPL until /quit or Ctrl-D, with the tools of the `mcp` servers too."""
    screen = make_screen(stdout, env)

    def notice(sentence: str) -> None:
        screen.line(sentence, style="yellow")

    async def open_repl() -> Repl:
        if settings.banner:  # before the MCP servers start, and any sentence about them
            screen.line(settings.banner, style="dim")
        agent = await open_agent(settings, observer=screen.status, mcp=mcp, on_notice=notice)
        return Repl(agent, screen)

    with _history(enabled=screen.laid_out and read is input):
        return run_repl(open_repl, read)


def make_screen(stdout: IO[str], env: Mapping[str, str]) -> Screen:
    """The screen for `stdout`: on a terminal, replies laid out to its width, and a live
    status line (in colour, unless NO_COLOR) where the terminal can move its cursor; plain
    text, with no control codes at all, under TERM=dumb or off a terminal."""
    if not _isatty(stdout):
        return Screen(_writer(stdout))
    capable = env.get("TERM", "").strip().lower() not in _DUMB_TERMINALS
    color = capable and not env.get("NO_COLOR")
    return Screen(_writer(stdout), terminal=capable, color=color, width=_width(stdout, env))


_DUMB_TERMINALS = frozenset({"dumb", "unknown"})


def _width(stdout: IO[str], env: Mapping[str, str]) -> Callable[[], int]:
    """The terminal's width, read when asked (a window may be resized); COLUMNS wins."""

    def width() -> int:
        if (columns := env.get("COLUMNS", "").strip()).isdigit() and int(columns) > 0:
            return int(columns)
        try:
            return os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80

    return width


def _writer(stream: IO[str]) -> Callable[[str], None]:
    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def _history(*, enabled: bool) -> Iterator[None]:
    """readline line editing and a history file, on a real terminal only."""
    if not enabled:
        yield
        return
    import readline

    path = os.path.expanduser(HISTORY_FILE)
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            readline.set_history_length(1000)
            readline.write_history_file(path)
