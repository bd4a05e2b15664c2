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

__all__ = ["HISTORY_FILE", "start_chat"]

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
    terminal = _isatty(stdout)
    color = terminal and not env.get("NO_COLOR")
    screen = Screen(_writer(stdout), terminal=terminal, color=color)

    def notice(sentence: str) -> None:
        screen.line(sentence, style="yellow")

    async def open_repl() -> Repl:
        if settings.banner:  # before the MCP servers start, and any sentence about them
            screen.line(settings.banner, style="dim")
        agent = await open_agent(settings, observer=screen.status, mcp=mcp, on_notice=notice)
        return Repl(agent, screen)

    with _history(enabled=terminal and read is input):
        return run_repl(open_repl, read)


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
