"""`agent chat`: a conversation kept across turns, slash commands, Ctrl-C cancels the turn.
SIGTERM, SIGHUP and a reader of stdout that leaves cancel it the same way and end the session
(`agent/signals.py`): the agent is closed, its MCP servers with it.
A line longer than a question may be (`agent.QUESTION_CHARS`) is refused by the turn itself
(`agent.loop`, nothing sent), with one sentence, and the next line is read.

`Repl.handle` is the async core (one line in, output through a `Screen`); `run_repl` is the
synchronous driver around it, one event loop for the whole session (`asyncio.Runner`), so a
Ctrl-C during a turn cancels that turn's task and the prompt comes back. `start_chat` sets the
session up: a screen for stdout, readline history on a terminal, the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

from agent.app import Agent
from agent.console import Screen, trace_table
from agent.conversation import Conversation
from agent.history import History, Saved, turns_of
from agent.loop import Answer
from agent.signals import stopped_by, write_out
from agent.terminal import is_terminal
from resilience import Event, Listener, recording_attempts

if TYPE_CHECKING:
    from anthropic.types import MessageParam

__all__ = [
    "CANCELLED_EARLY",
    "HELP",
    "HISTORY_FILE",
    "HISTORY_NOTE",
    "NO_TURN_YET",
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
  /history  the turns of this conversation so far (saved ones, after a --resume, too)
  /reset  start a new conversation (this one stays saved)
  /trace  the last turn's timeline (a cancelled one too): every attempt, what it
          was for, its source, duration, outcome, action and wait
  /quit   leave (Ctrl-D works too; Ctrl-C cancels a running turn)"""
# Said once a session, the first time earlier turns are dropped to keep the history in bounds.
CANCELLED_EARLY = "The last turn was cancelled before any attempt was made."
NO_TURN_YET = "No turn yet in this conversation: ask something, then /trace shows its attempts."
HISTORY_NOTE = (
    "(The oldest parts of this conversation were set aside to keep it within bounds; "
    "the model no longer sees them.)"
)


class Repl:
    """One chat session."""

    def __init__(
        self,
        agent: Agent,
        screen: Screen,
        *,
        history: History | None = None,
        resumed: tuple[Saved, list[MessageParam]] | None = None,
    ) -> None:
        """`history` saves each committed turn (None: nothing is saved); `resumed` is a
        saved conversation to go on with, and its messages."""
        self.agent = agent
        self.screen = screen
        self.history = history
        self._said = history.notice if history is not None else None  # told already
        if resumed is not None:
            self.conversation = Conversation(resumed[1], keeper=resumed[0])
        else:
            self.conversation = Conversation(keeper=self._new_saved())
        self.last: Answer | None = None
        self.cancelled: tuple[Event, ...] | None = None  # the last turn's attempts, if cut
        self._streamed = False
        self._told_trimmed = False
        self._commands: dict[str, Callable[[], None]] = {
            "/help": self._help,
            "/tools": self._tools,
            "/reset": self._reset,
            "/history": self._history,
            "/trace": self._trace,
        }

    async def handle(self, line: str) -> bool:
        """Act on one line of input; False when the session should end."""
        text = line.strip()
        if not text:
            return True
        word = text.split()[0]
        if word.lower() in ("/quit", "/exit"):
            return False
        if word.startswith("/"):
            command = self._commands.get(word.lower())
            if command is None:
                self.screen.line(f"Unknown command {word!r}; try /help.", style="yellow")
            else:
                command()
        else:
            await self._turn(text)
        self.screen.gap()  # a blank line before the next prompt, on a terminal
        return True

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
        if self.history is not None and self.history.notice not in (None, self._said):
            self._said = self.history.notice  # a turn could not be saved: said once
            self.screen.line(self._said, style="yellow")

    def _stream(self, text: str) -> None:
        self._streamed = True
        self.screen.text(text)

    def _help(self) -> None:
        self.screen.line(HELP)

    def _tools(self) -> None:
        for tool in self.agent.registry.tools:
            origin = f" [{tool.origin}]" if tool.origin else ""
            summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            self.screen.line(f"{tool.name}{origin}: {summary}")

    def _reset(self) -> None:
        self.conversation = Conversation(keeper=self._new_saved())
        self.last, self.cancelled = None, None
        self.screen.line("Started a new conversation.", style="dim")

    def _history(self) -> None:
        keeper = self.conversation.keeper
        saved = keeper if isinstance(keeper, Saved) and keeper.exists else None
        # The saved turns are all of them; in memory, the oldest may have been set aside.
        turns = saved.turns() if saved is not None else turns_of(self.conversation.messages)
        if not turns:
            self.screen.line("No turns in this conversation yet.", style="dim")
            return
        where = f"conversation {saved.id}" if saved is not None else "this conversation"
        self.screen.line(f"{len(turns)} turn{'s' * (len(turns) != 1)} in {where}:", style="dim")
        for number, turn in enumerate(turns, 1):
            self.screen.line(f"{number:>3}. {PROMPT}{_cut(turn.question, 200)}")
            self.screen.line(f"     {_cut(turn.answer, 400)}", style="dim")

    def _new_saved(self) -> Saved | None:
        if self.history is None or not self.history.available:
            return None
        return self.history.new(self.agent.model_name)

    def _trace(self) -> None:
        if self.cancelled is not None:
            if self.cancelled:
                title = "Last turn (cancelled; its attempts so far)"
                self.screen.show(trace_table(self.cancelled, self.screen.width(), title))
            else:
                self.screen.line(CANCELLED_EARLY, style="dim")
        elif self.last is None:  # none yet, or none since /reset
            self.screen.line(NO_TURN_YET, style="dim")
        elif not self.last.attempts:
            self.screen.line("Nothing to show: the last turn made no attempts.", style="dim")
        else:
            self.screen.show(trace_table(self.last.attempts, self.screen.width()))


def _cut(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


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
            runner.run(repl.agent.aclose())
    return 0


def _session(runner: asyncio.Runner, repl: Repl, read: Callable[[str], str]) -> None:
    while True:
        try:
            line = read(PROMPT)
        except EOFError:
            if stopped_by() is not None:  # a stop whose KeyboardInterrupt `input` dropped
                raise KeyboardInterrupt from None
            repl.screen.line()
            return
        except KeyboardInterrupt:
            if stopped_by() is not None:  # SIGTERM, SIGHUP, or stdout gone: the session ends
                raise
            repl.screen.line()
            continue
        if stopped_by() is not None:
            raise KeyboardInterrupt
        try:
            if not runner.run(repl.handle(line)):
                return
        except KeyboardInterrupt:
            if stopped_by() is not None:
                raise
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
    history: History | None = None,
    resumed: tuple[Saved, list[MessageParam]] | None = None,
) -> int:
    """Run the REPL until /quit or Ctrl-D. `open_agent(listener, on_notice)` makes the agent:
    its engines report to the status line, its MCP servers' problems to a notice. `history`
    saves the turns; `resumed` is a saved conversation to go on with."""
    screen = make_screen(stdout, env)

    def notice(sentence: str) -> None:
        screen.line(sentence, style="yellow")

    async def open_repl() -> Repl:
        if banner:  # before the MCP servers start, and any sentence about them
            screen.line(banner, style="dim")
        if history is not None and history.notice:
            notice(history.notice)
        if resumed is not None:
            turns = len(turns_of(resumed[1]))
            screen.line(
                f"Resumed conversation {resumed[0].id} ({turns} earlier turn"
                f"{'s' * (turns != 1)}; /history lists them).",
                style="dim",
            )
        agent = await open_agent(screen.status, notice)
        return Repl(agent, screen, history=history, resumed=resumed)

    with _history(enabled=screen.laid_out and read is input):
        return run_repl(open_repl, read)


def make_screen(stdout: IO[str], env: Mapping[str, str]) -> Screen:
    """The screen for `stdout`: on a terminal, replies laid out to its width, and a live
    status line (in colour, unless NO_COLOR) where the terminal can move its cursor; plain
    text, with no control codes at all, under TERM=dumb or off a terminal."""
    write = functools.partial(write_out, stdout)  # all of it, or the session stops
    if not is_terminal(stdout):
        return Screen(write)
    capable = env.get("TERM", "").strip().lower() not in _DUMB_TERMINALS
    color = capable and not env.get("NO_COLOR")
    width = functools.partial(_width, stdout, env)
    return Screen(write, terminal=capable, color=color, width=width)


_DUMB_TERMINALS = frozenset({"dumb", "unknown"})


def _width(stdout: IO[str], env: Mapping[str, str]) -> int:
    """The terminal's width, read each time (a window may be resized); COLUMNS wins."""
    if (columns := env.get("COLUMNS", "").strip()).isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stdout.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80


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
