"""The `agent` command: `chat` (the default), `ask QUESTION` and `explain-error`.

Exit codes: 0 answered (a graceful "the service is down" answer counts), 1 no answer could be
produced (one plain sentence on stderr, never a traceback), 2 usage errors; 130 on Ctrl-C and
141 when the reader of stdout goes away (`agent explain-error < big | head -1`), as a shell
reports a process ended by SIGINT or SIGPIPE, without a word on stderr.

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
import itertools
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from agent import DEFAULT_MODEL, QUESTION_CHARS  # the package itself imports nothing

if TYPE_CHECKING:
    from agent.settings import Settings
    from tools.mcp import McpServer

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_NO_ANSWER",
    "EXIT_OK",
    "EXIT_USAGE",
    "Streams",
    "build_parser",
    "main",
]

EXIT_OK = 0
EXIT_NO_ANSWER = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
_OTEL_MODES = ("console", "otlp")
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
    common.add_argument(
        "--offline",
        action="store_true",
        help="use the scripted model and simulated services, even with ANTHROPIC_API_KEY",
    )
    common.add_argument("--verbose", action="store_true", help="log events to stderr")
    common.add_argument(
        "--model",
        metavar="ID",
        help=f"Claude model id (default: AGENT_MODEL if set, else {DEFAULT_MODEL})",
    )
    talk = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
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
        "(the default) sends them to OTEL_EXPORTER_OTLP_ENDPOINT; set, that variable alone "
        "turns tracing on",
    )

    parser = argparse.ArgumentParser(
        prog="agent",
        description="A Claude tool-use agent whose tools fail gracefully.",
        parents=[common, talk],
    )
    parser.set_defaults(run=_run_chat, parser=parser)
    commands = parser.add_subparsers(title="commands")
    chat = commands.add_parser(
        "chat", parents=[common, talk], help="talk to the agent (the default)"
    )
    chat.set_defaults(run=_run_chat, parser=chat)
    ask = commands.add_parser(
        "ask", parents=[common, talk], help="ask one question; the answer goes to stdout"
    )
    ask.add_argument("question", nargs="+", help="the question (quote it, or not)")
    ask.set_defaults(run=_run_ask, parser=ask)
    explain = commands.add_parser(
        "explain-error",
        parents=[common],
        help="turn errors (JSON lines on stdin) into error-to-action JSON lines",
        description="Reads {error, operation, user_context, retry_count} JSON lines on stdin "
        "and writes one error-to-action object per line on stdout.",
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
        offline=False, verbose=False, model=None, mcp=None, mcp_url=None, otel=None
    )
    try:
        with contextlib.redirect_stdout(io.stdout), contextlib.redirect_stderr(io.stderr):
            args, unknown = build_parser().parse_known_args(argv, defaults)
            if unknown:  # said by the subcommand given them, with its usage: `usage: agent ask`
                args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:  # --help, or a usage error argparse already explained
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace, Streams], int] = args.run
    return run(args, io)


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
        io.stderr.write(
            f"agent ask: the question is {len(question):,} characters long and may be at most "
            f"{QUESTION_CHARS:,}; nothing was sent.\n"
        )
        return EXIT_USAGE

    def answer(settings: Settings, mcp: list[McpServer]) -> int:
        import asyncio

        from agent.app import ask
        from agent.terminal import for_terminal

        if settings.banner:
            io.stderr.write(settings.banner + "\n")
        notice = functools.partial(print, file=io.stderr)
        reply = asyncio.run(ask(question, settings, mcp=mcp, on_notice=notice, **_world(settings)))
        stream = io.stdout if reply.answered else io.stderr
        stream.write(for_terminal(reply.text) + "\n")  # the model's text must not drive a terminal
        return EXIT_OK if reply.answered else EXIT_NO_ANSWER

    return _run_agent(args, io, answer)


def _run_chat(args: argparse.Namespace, io: Streams) -> int:
    def chat(settings: Settings, mcp: list[McpServer]) -> int:
        from agent.app import Agent, open_agent
        from agent.repl import start_chat
        from resilience import Listener

        world = _world(settings)

        async def opened(listener: Listener, notice: Callable[[str], None]) -> Agent:
            return await open_agent(settings, listener=listener, mcp=mcp, on_notice=notice, **world)

        return start_chat(opened, io.stdout, io.read, env=io.env, banner=settings.banner)

    return _run_agent(args, io, chat)


def _run_explain(args: argparse.Namespace, io: Streams) -> int:
    def explain(settings: Settings) -> int:
        from agent.explain import run

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
            io.stderr.write(f"agent: {bad.name} {bad.problem}.\n")
            return EXIT_USAGE

    def traced(settings: Settings) -> int:
        from agent import otel  # OpenTelemetry itself only when tracing is on
        from errors import BadSetting

        try:
            session = otel.start(args.otel, io.env, write=io.stderr.write)
        except otel.TracingUnavailable as missing:
            io.stderr.write(f"agent: {missing}.\n")
            return EXIT_USAGE
        except BadSetting as bad:  # an OTLP endpoint that is no URL
            io.stderr.write(f"agent: {bad.name} {bad.problem}.\n")
            return EXIT_USAGE
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
    try:
        from agent.log import configure_logging
        from agent.settings import Settings, register_configured_secrets
        from errors import BadSetting, register_secret

        try:
            settings = Settings.from_env(
                io.env, offline=args.offline, model=args.model, verbose=args.verbose
            )
        except BadSetting as bad:  # e.g. a weather endpoint that is not an http(s) URL
            io.stderr.write(f"agent: {bad.name} {bad.problem}.\n")
            return EXIT_USAGE
        # The key, endpoint credentials and *_KEY/_TOKEN/... values: masked by value from here on.
        register_configured_secrets(settings, io.env, register_secret)
        log_file = _open_log(settings.log_file, io)
        configure_logging(log_file=log_file, console=io.stderr, verbose=settings.verbose)
        return body(settings)
    except KeyboardInterrupt:
        io.stderr.write("\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (`| head`): not a failure, so nothing to say
        _discard_output(io.stdout)
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        with contextlib.suppress(Exception):  # even a broken install must not print a traceback
            _log_crash(exc)
        io.stderr.write(_CRASHED + "\n")
        return EXIT_NO_ANSWER
    finally:
        if log_file is not None:
            with contextlib.suppress(OSError, ValueError):  # a full disk must not end the command
                log_file.close()


def _open_log(path: str | None, io: Streams) -> IO[str] | None:
    """The log file, appended to; created readable by its owner only: it records what was asked."""
    if path is None:
        return None
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return os.fdopen(descriptor, "a", encoding="utf-8")
    except OSError:
        io.stderr.write("The log file in AGENT_LOG_FILE can't be opened; logging to it is off.\n")
        return None


def _world(settings: Settings) -> dict[str, Any]:
    """Offline, the scripted model and the simulated services for `open_agent`: offline mode
    is wired in here, the one place of the agent that imports the offline world."""
    if not settings.offline:
        return {}
    from offline import OfflineModel, SimulatedServices

    transport = SimulatedServices(settings.endpoints).transport
    return {"backend": OfflineModel(), "transport": transport}


def _discard_output(stream: IO[str]) -> None:
    """Point `stream`'s descriptor at /dev/null, so that flushing it at exit stays quiet."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor: nothing to do
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def _log_crash(exc: Exception) -> None:
    import structlog

    from errors import classify

    result = classify(exc, "answering a question").result
    structlog.get_logger("agent").error("agent.crashed", **result.log_fields())
