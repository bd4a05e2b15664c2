"""`agent chat`: a conversation kept across turns, slash commands, Ctrl-C cancels the turn.
A line longer than a question may be (`QUESTION_CHARS`) is refused with one sentence, and the
next line is read.

`Repl.handle` is the async core (one line in, output through a `Screen`); `run_repl` is the
synchronous driver around it, one event loop for the whole session (`asyncio.Runner`), so a
Ctrl-C during a turn cancels that turn's task and the prompt comes back. `start_chat` sets the
session up: a screen for stdout, readline history on a terminal, the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import IO, Any

from agent import QUESTION_CHARS
from agent.app import Agent
from agent.console import Screen, trace_table
from agent.conversation import Conversation
from agent.loop import Answer
from agent.records import too_long
from resilience import Event, Listener, recording_attempts

__all__ = [
    "CANCELLED_EARLY",
    "HELP",
    "HISTORY_FILE",
    "HISTORY_NOTE",
    "PROMPT",
    "Repl",
    "make_screen",
    "run_repl",
    "start_chat",
]

PROMPT = "you› "
HELP = """\
Ask about the weather ("weather in Paris and Lima?") or give a sum ("what is 12 * 7?").
  /help   this help
  /tools  the tools the model can call
  /reset  forget the conversation and start over
  /trace  the last turn's timeline (a cancelled one too): every attempt, what it
          was for, its source, duration, outcome, action and wait
  /quit   leave (Ctrl-D works too; Ctrl-C cancels a running turn)"""
# Said once a session, the first time earlier turns are dropped to keep the history in bounds.
CANCELLED_EARLY = "The last turn was cancelled before any attempt was made."
HISTORY_NOTE = (
    "(The oldest parts of this conversation were set aside to keep it within bounds; "
    "the model no longer sees them.)"
)


class Repl:
    """One chat session."""

    def __init__(self, agent: Agent, screen: Screen) -> None:
        self.agent = agent
        self.screen = screen
        self.conversation = Conversation()
        self.last: Answer | None = None
        self.cancelled: tuple[Event, ...] | None = None  # the last turn's attempts, if cut
        self._streamed = False
        self._told_trimmed = False
        self._commands: dict[str, Callable[[], bool]] = {
            "/help": self._help,
            "/tools": self._tools,
            "/reset": self._reset,
            "/trace": self._trace,
            "/quit": self._quit,
            "/exit": self._quit,
        }

    async def handle(self, line: str) -> bool:
        """Act on one line of input; False when the session should end."""
        text = line.strip()
        if not text:
            return True
        if len(text) > QUESTION_CHARS:  # nothing is sent
            self.screen.line(too_long(len(text), QUESTION_CHARS).user_message, style="yellow")
            going_on = True
        elif text.startswith("/"):
            going_on = self._command(text)
        else:
            await self._turn(text)
            going_on = True
        if going_on:
            self.screen.gap()  # a blank line before the next prompt, on a terminal
        return going_on

    async def aclose(self) -> None:
        """Close the agent's clients."""
        await self.agent.aclose()

    async def _turn(self, question: str) -> None:
        self._streamed = False
        self.screen.gap()  # the reply set apart from the prompt line, on a terminal
        with recording_attempts() as attempts:
            try:
                answer = await self.agent.ask(question, self.conversation, on_text=self._stream)
            except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C: /trace shows its try
                self.last, self.cancelled = None, tuple(attempts)
                raise
            finally:
                self.screen.clear_status()  # a count of seconds, if one is still shown, stops
        self.last, self.cancelled = answer, None
        if not answer.answered:
            self.screen.reply(answer.text, style="bold red")  # on a line of its own
        elif not self._streamed:
            self.screen.reply(answer.text)
        else:
            self.screen.end_line()
        if answer.history_trimmed and not self._told_trimmed:
            self._told_trimmed = True
            self.screen.line(HISTORY_NOTE, style="dim")

    def _stream(self, text: str) -> None:
        self._streamed = True
        self.screen.text(text)

    def _command(self, text: str) -> bool:
        command = self._commands.get(text.split()[0].lower())
        if command is None:
            self.screen.line(f"Unknown command {text.split()[0]!r}; try /help.", style="yellow")
            return True
        return command()

    def _help(self) -> bool:
        self.screen.line(HELP)
        return True

    def _tools(self) -> bool:
        for tool in self.agent.registry.tools:
            origin = f" [{tool.origin}]" if tool.origin else ""
            summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            self.screen.line(f"{tool.name}{origin}: {summary}")
        return True

    def _reset(self) -> bool:
        self.conversation.reset()
        self.last, self.cancelled = None, None
        self.screen.line("Started a new conversation.", style="dim")
        return True

    def _trace(self) -> bool:
        if self.cancelled is not None:
            if self.cancelled:
                title = "Last turn (cancelled; its attempts so far)"
                self.screen.show(trace_table(self.cancelled, self.screen.width(), title))
            else:
                self.screen.line(CANCELLED_EARLY, style="dim")
        elif self.last is None or not self.last.attempts:
            self.screen.line("Nothing to show yet: the last turn made no attempts.", style="dim")
        else:
            self.screen.show(trace_table(self.last.attempts, self.screen.width()))
        return True

    def _quit(self) -> bool:
        return False


def run_repl(
    open_repl: Callable[[], Coroutine[Any, Any, Repl]],
    read: Callable[[str], str],
    *,
    banner: str | None = None,
) -> int:
    """Read lines until /quit or Ctrl-D; a Ctrl-C cancels the running turn, not the program."""
    with asyncio.Runner() as runner:
        repl = runner.run(open_repl())
        try:
            if banner:
                repl.screen.line(banner, style="dim")
            _session(runner, repl, read)
        finally:
            runner.run(repl.aclose())
    return 0


def _session(runner: asyncio.Runner, repl: Repl, read: Callable[[str], str]) -> None:
    while True:
        try:
            line = read(PROMPT)
        except EOFError:
            repl.screen.line()
            return
        except KeyboardInterrupt:
            repl.screen.line()
            continue
        try:
            if not runner.run(repl.handle(line)):
                return
        except KeyboardInterrupt:
            repl.screen.line("(cancelled)", style="dim")


# --- starting a chat ------------------------------------------------------------------------------

HISTORY_FILE = "~/.agent_history"


OpenAgent = Callable[[Listener, Callable[[str], None]], Awaitable[Agent]]


def start_chat(
    open_agent: OpenAgent,
    stdout: IO[str],
    read: Callable[[str], str],
    *,
    env: Mapping[str, str],
    banner: str | None = None,
) -> int:
    """Run the REPL until /quit or Ctrl-D. `open_agent(listener, on_notice)` makes the agent:
    its engines report to the status line, its MCP servers' problems to a notice."""
    screen = make_screen(stdout, env)

    def notice(sentence: str) -> None:
        screen.line(sentence, style="yellow")

    async def open_repl() -> Repl:
        if banner:  # before the MCP servers start, and any sentence about them
            screen.line(banner, style="dim")
        return Repl(await open_agent(screen.status, notice), screen)

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
