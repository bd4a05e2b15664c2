"""The `agent` command: `chat` (the default), `ask QUESTION`, `explain-error` and
`conversations` (the saved ones: listed, or one deleted).

Exit codes: 0 answered (a graceful "the service is down" answer counts), 1 no answer could be
produced (one plain sentence on stderr, never a traceback), 2 usage errors; 130 on Ctrl-C, 143
on SIGTERM, 129 on SIGHUP and 141 when the reader of stdout goes away (`agent explain-error <
big | head -1`), as a shell reports a process ended by that signal, without a word on stderr.
SIGTERM, SIGHUP and a closed stdout end a command as Ctrl-C does (`agent/signals.py`).

Every command takes one path: settings from the environment (a bad one is a usage error),
logging configured, then the command, with a guard that turns a bug into one logged event and
one plain sentence. Only the standard library is imported at module level, so `--help` is
quick: `errors` (pydantic, structlog) and `tools` load when a command runs, and `anthropic` only
for a command that may talk to a model (explain-error: only with --llm).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import itertools
import os
import signal
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from agent import DEFAULT_MODEL, QUESTION_CHARS  # the package itself imports nothing
from agent.signals import SIGPIPE, exit_code, silence, stopped_by, stopping_on_signals, write_out

if TYPE_CHECKING:
    from agent.settings import Settings
    from tools.mcp import McpServer

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_NO_ANSWER",
    "EXIT_OK",
    "EXIT_USAGE",
    "Streams",
    "build_parser",
    "main",
    "run_process",
]

EXIT_OK = 0
EXIT_NO_ANSWER = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
_OTEL_MODES = ("console", "otlp")
_LATEST = "\0latest"  # `--resume` with no ID
_CRASHED = (
    "Something went wrong inside the agent, so there is no answer; "
    "run with --verbose or set AGENT_LOG_FILE to see why."
)


@dataclass(frozen=True, slots=True)
class Streams:
    """The I/O a command may use; injected so tests need no patching."""

    stdin: IO[str]
    stdout: IO[str]
    stderr: IO[str]
    env: Mapping[str, str]
    read: Callable[[str], str] = input  # the REPL's line reader (readline on a terminal)


def build_parser() -> argparse.ArgumentParser:
    """`agent [options] {chat,ask,explain-error} …`; each command sets `run` and its `parser`."""
    # The shared options default to nothing (their defaults are given in `main`), so that a
    # subcommand does not overwrite what was given before it (`agent --offline ask …`).
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--verbose", action="store_true", help="log events to stderr")
    common.add_argument(
        "--model",
        metavar="ID",
        help=f"Claude model id (default: AGENT_MODEL if set, else {DEFAULT_MODEL})",
    )
    talk = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    talk.add_argument(
        "--offline",
        action="store_true",
        help="use the scripted model and simulated services, even with ANTHROPIC_API_KEY",
    )
    talk.add_argument(
        "--mcp",
        action="append",
        metavar="'[NAME=]COMMAND ARGS'",
        help="run an MCP server (stdio) and offer its tools too; repeatable",
    )
    talk.add_argument(
        "--mcp-url",
        action="append",
        metavar="[NAME=]URL",
        help="an MCP server over streamable HTTP; repeatable",
    )
    talk.add_argument(
        "--otel",
        nargs="?",
        const="otlp",
        choices=_OTEL_MODES,
        help="OpenTelemetry spans: 'console' prints each turn's span tree on stderr, 'otlp' "
        "sends them to OTEL_EXPORTER_OTLP_ENDPOINT (--otel alone means otlp); without this "
        "option tracing is off, unless OTEL_EXPORTER_OTLP_ENDPOINT is set",
    )

    raw = argparse.RawDescriptionHelpFormatter  # the epilogs' tables keep their lines
    parser = argparse.ArgumentParser(
        prog="agent",
        description="A Claude tool-use agent whose tools fail gracefully. Without a "
        "command,\nit chats.",
        epilog=_epilog(_TALK_VARIABLES, _CHAT_EXITS),
        formatter_class=raw,
        parents=[common, talk],
    )
    parser.set_defaults(run=_run_chat, parser=parser)
    commands = parser.add_subparsers(title="commands")
    command = functools.partial(commands.add_parser, formatter_class=raw)
    chat = command(
        "chat",
        parents=[common, talk],
        help="talk to the agent (the default)",
        description="Talk to the agent: a conversation kept across questions (and saved), "
        "/help for\nthe commands (/tools, /history, /reset, /trace, /quit); Ctrl-C cancels a "
        "turn,\nCtrl-D leaves.",
        epilog=_epilog(_TALK_VARIABLES, _CHAT_EXITS),
    )
    chat.add_argument(
        "--resume",
        nargs="?",
        const=_LATEST,
        metavar="ID",
        help="go on with a saved conversation: the latest, or the one ID names (its first "
        "characters are enough; `agent conversations` lists them)",
    )
    chat.set_defaults(run=_run_chat, parser=chat)
    ask = command(
        "ask",
        parents=[common, talk],
        help="ask one question; the answer goes to stdout",
        description="Ask one question: the answer on stdout; when there is none, one plain\n"
        "sentence on stderr.",
        epilog=_epilog(_TALK_VARIABLES, _ASK_EXITS),
    )
    ask.add_argument("question", nargs="+", help="the question (quote it, or not)")
    ask.add_argument(
        "-c",
        "--continue",
        dest="go_on",
        action="store_true",
        help="ask it in the latest saved conversation (a chat's, or an earlier ask's)",
    )
    ask.set_defaults(run=_run_ask, parser=ask)
    listing = command(
        "conversations",
        parents=[common],
        help="list the saved conversations (the latest first), or delete one",
        description="List the saved conversations, the latest first: id, when it started, "
        "its turns,\nits first question. `agent chat --resume ID` goes on with one.",
        epilog=_epilog(_HISTORY_VARIABLES, _CONVERSATIONS_EXITS),
    )
    listing.add_argument("--delete", metavar="ID", help="delete the conversation ID names")
    listing.set_defaults(run=_run_conversations, parser=listing)
    explain = command(
        "explain-error",
        parents=[common],
        help="turn errors (JSON lines on stdin) into error-to-action JSON lines",
        description="Reads {error, operation, user_context, retry_count} JSON lines on "
        "stdin and\nwrites one error-to-action object per line on stdout.",
        epilog=_epilog(_EXPLAIN_VARIABLES, _EXPLAIN_EXITS),
    )
    explain.add_argument(
        "--llm",
        nargs="?",
        const="always",
        choices=["always", "auto"],
        help="ask Claude about every line (falling back to the rules); with 'auto', only "
        "about the lines the rules cannot place",
    )
    explain.add_argument(
        "--text",
        action="store_true",
        help="take the whole of stdin as one error's text (a long traceback, a log excerpt)",
    )
    explain.set_defaults(run=_run_explain, parser=explain)
    return parser


# What `--help` lists after the options (docs/contracts.md holds the whole contract).
Rows = tuple[tuple[str, str], ...]
_TALK_VARIABLES: Rows = (
    ("ANTHROPIC_API_KEY", "set: Claude answers; unset: the offline scripted model and services"),
    ("ANTHROPIC_BASE_URL", "the Messages API's address, an http(s) URL (default: the SDK's)"),
    ("AGENT_MODEL", f"the model id (default: {DEFAULT_MODEL})"),
    ("AGENT_FALLBACK_MODEL", "a second model, for when the first stays overloaded (default: none)"),
    ("AGENT_OFFLINE", "1, true, yes or on: offline even with a key"),
    ("AGENT_MODEL_TIMEOUT", "seconds one model attempt may take in all (default: 120)"),
    ("AGENT_MODEL_STALL_TIMEOUT", "seconds a model attempt may bring nothing new (default: 30)"),
    ("AGENT_TURN_TIMEOUT", "seconds one question may take in all (default: 300)"),
    ("AGENT_LOG_FILE", "a JSON-lines log of every event, created 0600 (default: none)"),
    ("OPEN_METEO_GEOCODING_URL", "Open-Meteo's geocoding endpoint"),
    ("OPEN_METEO_FORECAST_URL", "Open-Meteo's forecast endpoint"),
    ("WTTR_URL", "wttr.in's address; the tool asks {WTTR_URL}/{city}?format=j1"),
    ("AGENT_CACHE_DIR", "where the offline gazetteer's index is built once"),
    ("AGENT_HISTORY", "off: save no conversations (default: saved, in AGENT_DATA_DIR)"),
    ("AGENT_DATA_DIR", "where conversations are saved (default: ~/.local/share/failsafe-agent)"),
    (
        "AGENT_STATE_URL",
        "redis://…: breakers, retry budgets and the model's rate shared by "
        "every worker (default: each process its own)",
    ),
    (
        "AGENT_MODEL_RPM",
        "model requests a minute, for this process or, with AGENT_STATE_URL, "
        "the fleet (default: 0, no limit)",
    ),
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "set: tracing on, spans sent there over OTLP/HTTP"),
    ("AGENT_OTEL_CONTENT", "1: spans also carry the question, the answer and tool data"),
)
_EXPLAIN_VARIABLES: Rows = (
    ("ANTHROPIC_API_KEY", "the key --llm asks Claude with; unset: the rules answer"),
    ("ANTHROPIC_BASE_URL", "the Messages API's address, an http(s) URL (default: the SDK's)"),
    ("AGENT_MODEL", f"the model --llm asks (default: {DEFAULT_MODEL})"),
    ("AGENT_OFFLINE", "1, true, yes or on: the rules answer, even with --llm"),
    ("AGENT_LOG_FILE", "a JSON-lines log of every event, created 0600 (default: none)"),
)
_BROKEN_PIPE = ("141", "the reader of stdout went away (`| head`)")
_USAGE = ("2", "usage error: an option or an environment variable that can't be used")
_CHAT_EXITS: Rows = (
    ("0", "the session ended (/quit or Ctrl-D)"),
    _USAGE,
    ("130", "Ctrl-C before the prompt (at the prompt it only cancels a turn)"),
)
_ASK_EXITS: Rows = (
    ("0", 'answered (an honest "the service is down" answer counts)'),
    ("1", "no answer could be produced: one plain sentence on stderr"),
    _USAGE,
    ("130", "interrupted (Ctrl-C)"),
    _BROKEN_PIPE,
)
_HISTORY_VARIABLES: Rows = (
    ("AGENT_HISTORY", "off: conversations are not saved, so there are none to list"),
    ("AGENT_DATA_DIR", "where conversations are saved (default: ~/.local/share/failsafe-agent)"),
)
_CONVERSATIONS_EXITS: Rows = (
    ("0", "listed, or deleted"),
    ("1", "no saved conversation has the ID given to --delete"),
    _USAGE,
    _BROKEN_PIPE,
)
_EXPLAIN_EXITS: Rows = (
    ("0", "every line was handled"),
    ("1", "some line was not: stderr names it, the others are still answered"),
    _USAGE,
    _BROKEN_PIPE,
)


def _epilog(variables: Rows, exits: Rows) -> str:
    """The environment variables and exit statuses, as two aligned lists."""
    return f"{_listing('environment', variables)}\n\n{_listing('exit status', exits)}"


def _listing(title: str, rows: Rows) -> str:
    width = max(len(name) for name, _ in rows)
    lines = [f"{title}:"]
    for name, meaning in rows:
        lead = f"  {name:<{width}}  "
        lines += textwrap.wrap(meaning, 79, initial_indent=lead, subsequent_indent=" " * len(lead))
    return "\n".join(lines)


def main(
    argv: list[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    read: Callable[[str], str] | None = None,
) -> int:
    """Run the command line; returns the exit code."""
    env = os.environ if env is None else env
    io = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr, env, read or input)
    argv = _otel_mode(sys.argv[1:] if argv is None else argv)
    defaults = argparse.Namespace(
        offline=False, verbose=False, model=None, mcp=None, mcp_url=None, otel=None, resume=None
    )
    try:
        with contextlib.redirect_stdout(io.stdout), contextlib.redirect_stderr(io.stderr):
            args, unknown = build_parser().parse_known_args(argv, defaults)
            if unknown:  # said by the subcommand given them, with its usage: `usage: agent ask`
                args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:  # --help, or a usage error argparse already explained
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace, Streams], int] = args.run
    with stopping_on_signals():  # SIGTERM and SIGHUP end the command as Ctrl-C does
        return run(args, io)


def run_process() -> int:
    """The `agent` console script and `python -m agent`: `main`, in a process of its own.

    A command loads some 90,000 objects that live as long as the process (modules, classes,
    their tables). The cyclic collector would walk them again and again while they
    load and once more at exit, about a fifth of an offline `agent ask`; so it is off while a
    command starts, and what has loaded is frozen out of its way (`gc.freeze`) before the work
    begins (`_loaded`). Only here: `main` called in-process leaves the caller's collector alone.
    """
    global _collector_held
    _collector_held = True
    gc.disable()
    try:
        return main()
    finally:
        if _collector_held:  # a command that ended before its work began
            _collector_held = False
            gc.enable()


# Whether `run_process` holds the collector off (a caller's own `gc.disable()` is not).
_collector_held = False


def _loaded() -> None:
    """The command's modules are in: from here the collector runs, on what the work makes."""
    global _collector_held
    if _collector_held:
        _collector_held = False
        gc.freeze()
        gc.enable()


def _otel_mode(argv: list[str]) -> list[str]:
    """`--otel` followed by a word that is no mode (`agent ask --otel "Weather?"`) is `--otel
    otlp`: argparse would take the question for the mode."""
    out: list[str] = []
    for arg, following in itertools.pairwise([*argv, "-"]):
        out.append(arg)
        if arg == "--otel" and not following.startswith("-") and following not in _OTEL_MODES:
            out.append("otlp")
    return out


def _run_ask(args: argparse.Namespace, io: Streams) -> int:
    question = " ".join(args.question).strip()
    if not question:
        io.stderr.write("agent ask: the question is empty.\n")
        return EXIT_USAGE
    if len(question) > QUESTION_CHARS:  # refused before anything starts, so nothing is sent
        from agent.records import too_long

        io.stderr.write(f"agent ask: {too_long(len(question), QUESTION_CHARS).user_message}\n")
        return EXIT_USAGE

    def answer(settings: Settings, mcp: list[McpServer]) -> int:
        import asyncio

        from agent.app import ask
        from agent.terminal import for_terminal

        if args.go_on and not settings.history:
            return _history_off(io, "--continue")
        if settings.banner:
            io.stderr.write(settings.banner + "\n")
        notice = functools.partial(print, file=io.stderr)
        history, conversation = _saved_conversation(settings, args.go_on, notice)
        said = history.notice if history is not None else None
        world = _world(settings)
        _loaded()
        try:
            reply = asyncio.run(
                ask(question, settings, mcp=mcp, on_notice=notice, conversation=conversation,
                    **world)
            )  # fmt: skip
        finally:
            if history is not None:
                history.close()
        if history is not None and history.notice not in (None, said):  # not saved
            notice(history.notice)
        text = for_terminal(reply.text) + "\n"  # the model's text must not drive a terminal
        if not reply.answered:
            io.stderr.write(text)
            return EXIT_NO_ANSWER
        write_out(io.stdout, text)  # all of it, or the reader left: 141
        return EXIT_OK

    return _run_agent(args, io, answer)


def _run_chat(args: argparse.Namespace, io: Streams) -> int:
    def chat(settings: Settings, mcp: list[McpServer]) -> int:
        from agent.app import Agent, open_agent
        from agent.history import History, NoSuchConversation
        from agent.repl import start_chat
        from resilience import Listener

        resume = args.resume
        if resume is not None and not settings.history:
            return _history_off(io, "--resume")
        history = History.open() if settings.history else None
        resumed = None
        if history is not None and resume is not None:
            try:
                resumed = history.resume(None if resume == _LATEST else resume)
            except NoSuchConversation:
                if resume != _LATEST:
                    history.close()
                    io.stderr.write(_NO_SUCH.format(id=_shown(resume)))
                    return EXIT_USAGE
                io.stderr.write("There is no saved conversation yet; starting a new one.\n")
        world = _world(settings)
        _loaded()

        async def opened(listener: Listener, notice: Callable[[str], None]) -> Agent:
            return await open_agent(settings, listener=listener, mcp=mcp, on_notice=notice, **world)

        try:
            return start_chat(
                opened, io.stdout, io.read, env=io.env, banner=settings.banner,
                history=history, resumed=resumed,
            )  # fmt: skip
        finally:
            if history is not None:
                history.close()

    return _run_agent(args, io, chat)


_NO_SUCH = "No saved conversation has the id {id}; `agent conversations` lists them.\n"


def _run_conversations(args: argparse.Namespace, io: Streams) -> int:
    def conversations(settings: Settings) -> int:
        import time

        from agent.history import History, NoSuchConversation
        from agent.terminal import for_terminal

        if not settings.history:
            io.stderr.write("Conversations are not saved (AGENT_HISTORY is off).\n")
            return EXIT_OK if args.delete is None else EXIT_NO_ANSWER
        with contextlib.closing(History.open()) as history:
            if history.notice:
                io.stderr.write(history.notice + "\n")
            if args.delete is not None:
                try:
                    gone = history.delete(args.delete)
                except NoSuchConversation:
                    io.stderr.write(_NO_SUCH.format(id=_shown(args.delete)))
                    return EXIT_NO_ANSWER
                io.stdout.write(f"Deleted conversation {gone}.\n")
                return EXIT_OK
            listed = history.conversations()
            if not listed:
                io.stderr.write("No saved conversations yet.\n")
            for item in listed:
                started = time.strftime("%Y-%m-%d %H:%M", time.localtime(item.started))
                turns = f"{item.turns} turn{'s' * (item.turns != 1)}"
                question = for_terminal(item.first_question)[:70]
                io.stdout.write(f"{item.id}  {started}  {turns:>9}  {question}\n")
            return EXIT_OK

    return _command(args, io, conversations)


def _saved_conversation(
    settings: Settings, go_on: bool, notice: Callable[[str], None]
) -> tuple[Any, Any]:
    """For `ask`: the store (None when AGENT_HISTORY=off) and the conversation to ask in —
    the latest saved one with `--continue` (a new one if there is none), else a new one."""
    from agent.conversation import Conversation
    from agent.history import History, NoSuchConversation

    if not settings.history:
        return None, None
    history = History.open()
    if history.notice:
        notice(history.notice)
    if not history.available:
        return history, None
    if go_on:
        with contextlib.suppress(NoSuchConversation):
            saved, messages = history.resume()
            return history, Conversation(messages, keeper=saved)
    if settings.offline:
        from offline import OFFLINE_MODEL as model
    else:
        model = settings.model
    return history, Conversation(keeper=history.new(model))


def _history_off(io: Streams, option: str) -> int:
    return _usage_error(io, f"{option} needs saved conversations, and AGENT_HISTORY is off")


def _usage_error(io: Streams, problem: str) -> int:
    """`problem` said on stderr as the command's usage error."""
    io.stderr.write(f"agent: {problem}.\n")
    return EXIT_USAGE


def _shown(text: str) -> str:
    """An id as typed, safe to repeat: printable, short."""
    return repr("".join(c for c in text if c.isprintable())[:40])


def _run_explain(args: argparse.Namespace, io: Streams) -> int:
    def explain(settings: Settings) -> int:
        from agent.explain import run

        _loaded()
        return run(settings, io.stdin, io.stdout, io.stderr, llm=args.llm, whole=args.text)

    return _command(args, io, explain)


def _run_agent(
    args: argparse.Namespace, io: Streams, body: Callable[[Settings, list[McpServer]], int]
) -> int:
    """`ask` and `chat`: their MCP servers, then the path every command takes, with `body`
    traced when asked for (`--otel`, or OTEL_EXPORTER_OTLP_ENDPOINT)."""
    servers: list[McpServer] = []
    if args.mcp or args.mcp_url:
        from errors import BadSetting
        from tools.mcp import McpServer

        try:
            servers = [
                *(McpServer.parse(spec) for spec in args.mcp or []),
                *(McpServer.parse_url(spec) for spec in args.mcp_url or []),
            ]
        except BadSetting as bad:
            return _usage_error(io, f"{bad.name} {bad.problem}")

    def traced(settings: Settings) -> int:
        from agent import otel  # OpenTelemetry itself only when tracing is on
        from errors import BadSetting

        try:
            session = otel.start(args.otel, io.env, write=io.stderr.write)
        except otel.TracingUnavailable as missing:
            return _usage_error(io, str(missing))
        except BadSetting as bad:  # an OTLP endpoint that is no URL
            return _usage_error(io, f"{bad.name} {bad.problem}")
        try:
            return body(settings, servers)
        finally:
            if session is not None:
                session.close()

    return _command(args, io, traced)


def _command(args: argparse.Namespace, io: Streams, body: Callable[[Settings], int]) -> int:
    """The path every command takes: settings, logging, then `body`. A bug becomes one logged
    event (logged before the log file is closed) and one plain sentence, not a traceback."""
    log_file: IO[str] | None = None
    logging_on = False
    try:
        from agent.log import configure_logging, open_log
        from agent.settings import Settings, register_configured_secrets
        from errors import BadSetting, register_secret

        try:
            settings = Settings.from_env(
                io.env, offline=args.offline, model=args.model, verbose=args.verbose
            )
        except BadSetting as bad:  # e.g. a weather endpoint that is not an http(s) URL
            return _usage_error(io, f"{bad.name} {bad.problem}")
        # The key, endpoint credentials and *_KEY/_TOKEN/... values: masked by value from here on.
        register_configured_secrets(settings, io.env, register_secret)
        if settings.log_file is not None:
            log_file = open_log(settings.log_file, io.stderr)
        configure_logging(log_file=log_file, console=io.stderr, verbose=settings.verbose)
        logging_on = True
        return body(settings)
    except KeyboardInterrupt:  # Ctrl-C, or what `stop` ends as Ctrl-C does
        return _stopped(io, logging_on)
    except BrokenPipeError:  # the reader left (`| head`): not a failure, so nothing to say
        silence(io.stdout)
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        with contextlib.suppress(Exception):  # even a broken install must not print a traceback
            import structlog

            from errors import classify

            result = classify(exc, "answering a question").result
            structlog.get_logger("agent").error("agent.crashed", **result.log_fields())
        io.stderr.write(_CRASHED + "\n")
        return EXIT_NO_ANSWER
    finally:
        if log_file is not None:
            with contextlib.suppress(OSError, ValueError):  # a full disk must not end the command
                log_file.close()


def _world(settings: Settings) -> dict[str, Any]:
    """Offline, the scripted model and the simulated services for `open_agent`: offline mode
    is wired in here, the one place of the agent that imports the offline world."""
    if not settings.offline:
        return {}
    from offline import OfflineModel, SimulatedServices

    transport = SimulatedServices(settings.endpoints).transport
    return {"backend": OfflineModel(), "transport": transport}


def _stopped(io: Streams, logging_on: bool) -> int:
    """The exit code of a command ended by Ctrl-C, SIGTERM, SIGHUP or a reader that left; the
    reason logged. A newline follows the ^C a terminal shows; a closed stdout says nothing."""
    why = stopped_by()
    if logging_on:
        import structlog

        with contextlib.suppress(Exception):  # the log must not change how the command ends
            name = signal.Signals(why or signal.SIGINT).name
            structlog.get_logger("agent").info("agent.stopped", signal=name)
    if why is None:
        io.stderr.write("\n")
    elif why == SIGPIPE:
        silence(io.stdout)
    return exit_code()
