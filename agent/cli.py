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
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.explain import LlmMode
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


Command = Callable[[argparse.Namespace, Streams], int]


def build_parser() -> argparse.ArgumentParser:
    """`agent [options] {chat,ask,explain-error} …`; each subcommand sets `run` (a `Command`)."""
    parser = argparse.ArgumentParser(
        prog="agent", description="A Claude tool-use agent whose tools fail gracefully."
    )
    _add_options(parser, suppress=False)
    _add_mcp_options(parser, suppress=False)
    parser.set_defaults(run=_run_chat, parser=parser)
    _add_otel(parser, suppress=False)
    commands = parser.add_subparsers(title="commands")
    chat = commands.add_parser("chat", help="talk to the agent (the default)")
    _add_options(chat, suppress=True)
    _add_mcp_options(chat, suppress=True)
    chat.set_defaults(run=_run_chat, parser=chat)
    _add_otel(chat, suppress=True)
    ask = commands.add_parser("ask", help="ask one question; the answer goes to stdout")
    _add_options(ask, suppress=True)
    _add_mcp_options(ask, suppress=True)
    ask.add_argument("question", nargs="+", help="the question (quote it, or not)")
    ask.set_defaults(run=_run_ask, parser=ask)
    _add_otel(ask, suppress=True)
    _add_explain(commands)
    return parser


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = commands.add_parser(
        "explain-error",
        help="turn errors (JSON lines on stdin) into error-to-action JSON lines",
        description="Reads {error, operation, user_context, retry_count} JSON lines on stdin "
        "and writes one error-to-action object per line on stdout.",
    )
    _add_options(explain, suppress=True)
    explain.add_argument(
        "--llm",
        nargs="?",
        const="always",
        choices=["always", "auto"],
        default=None,
        help="ask Claude about every line (falling back to the rules); with 'auto', only "
        "about the lines the rules cannot place",
    )
    explain.set_defaults(run=_run_explain, traced=False, parser=explain)  # no spans to trace


def _add_otel(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument(
        "--otel",
        nargs="?",
        const="otlp",
        choices=_OTEL_MODES,
        default=argparse.SUPPRESS if suppress else None,
        help="OpenTelemetry spans: 'console' prints each turn's span tree on stderr, 'otlp' "
        "(the default) sends them to OTEL_EXPORTER_OTLP_ENDPOINT; set, that variable alone "
        "turns tracing on",
    )


def _otel_mode(argv: list[str]) -> list[str]:
    """`--otel` followed by a word that is no mode (`agent ask --otel "Weather?"`) is `--otel
    otlp`: argparse would take the question for the mode."""
    out: list[str] = []
    for index, arg in enumerate(argv):
        out.append(arg)
        following = argv[index + 1] if index + 1 < len(argv) else "-"
        if arg == "--otel" and not following.startswith("-") and following not in _OTEL_MODES:
            out.append("otlp")
    return out


def _add_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    flag_default = argparse.SUPPRESS if suppress else False
    parser.add_argument(
        "--offline",
        action="store_true",
        default=flag_default,
        help="use the scripted model and simulated services, even with ANTHROPIC_API_KEY",
    )
    parser.add_argument(
        "--verbose", action="store_true", default=flag_default, help="log events to stderr"
    )
    from agent import DEFAULT_MODEL  # the standard library only

    parser.add_argument(
        "--model",
        default=default,
        metavar="ID",
        help=f"Claude model id (default: AGENT_MODEL if set, else {DEFAULT_MODEL})",
    )


def _add_mcp_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--mcp",
        action="append",
        default=default,
        metavar="'[NAME=]COMMAND ARGS'",
        help="run an MCP server (stdio) and offer its tools too; repeatable",
    )
    parser.add_argument(
        "--mcp-url",
        action="append",
        default=default,
        metavar="[NAME=]URL",
        help="an MCP server over streamable HTTP; repeatable",
    )


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
    io = Streams(
        stdin or sys.stdin,
        stdout or sys.stdout,
        stderr or sys.stderr,
        os.environ if env is None else env,
        read or input,
    )
    try:
        with contextlib.redirect_stdout(io.stdout), contextlib.redirect_stderr(io.stderr):
            args = _parse(build_parser(), _otel_mode(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:  # --help, or a usage error argparse already explained
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    command: Command = args.run
    return command(args, io)


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The arguments; one that no parser knows is reported by the subcommand it was given to,
    with that subcommand's own usage (`agent ask --bogus x`: `usage: agent ask …`)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        owner: argparse.ArgumentParser = getattr(args, "parser", parser)
        owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _command(args: argparse.Namespace, io: Streams, body: Callable[[Settings], int]) -> int:
    """The path every command takes: settings, logging, then `body`; guarded throughout."""
    return _guarded(lambda: _with_settings(args, io, body), io)


def _with_settings(args: argparse.Namespace, io: Streams, body: Callable[[Settings], int]) -> int:
    """Settings from the environment, logging configured, then `body` (guarded inside, so that
    its crash is logged while the log file is still open)."""
    from agent.settings import Settings
    from errors import BadSetting

    try:
        settings = Settings.from_env(
            io.env, offline=args.offline, model=args.model, verbose=args.verbose
        )
    except BadSetting as bad:  # e.g. a weather endpoint that is not an http(s) URL
        io.stderr.write(f"agent: {bad.name} {bad.problem}.\n")
        return EXIT_USAGE
    _register_secrets(settings, io.env)
    with _logging(settings, io):
        return _guarded(lambda: _traced(args, io, body)(settings), io)


def _register_secrets(settings: Settings, env: Mapping[str, str]) -> None:
    """The configured key, endpoint credentials and *_KEY/_TOKEN/... values, masked by value
    from here on (in the log, on stderr, in what the model reads)."""
    from agent.settings import register_configured_secrets
    from errors import register_secret

    register_configured_secrets(settings, env, register_secret)


@contextlib.contextmanager
def _logging(settings: Settings, io: Streams) -> Iterator[None]:
    """structlog for this process; the log file is opened here and closed on the way out."""
    from agent.log import configure_logging

    with contextlib.ExitStack() as stack:
        log_file = _open_log(settings.log_file, io, stack)
        configure_logging(log_file=log_file, console=io.stderr, verbose=settings.verbose)
        yield


def _open_log(path: str | None, io: Streams, stack: contextlib.ExitStack) -> IO[str] | None:
    """The log file, appended to; created readable by its owner only (it records what was
    asked and what failed). Closed quietly: a disk that filled up must not end the command."""
    if path is None:
        return None
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        file = os.fdopen(descriptor, "a", encoding="utf-8")
    except OSError:
        io.stderr.write("The log file in AGENT_LOG_FILE can't be opened; logging to it is off.\n")
        return None
    stack.callback(_close_quietly, file)
    return file


def _close_quietly(file: IO[str]) -> None:
    with contextlib.suppress(OSError, ValueError):
        file.close()


def _run_ask(args: argparse.Namespace, io: Streams) -> int:
    question = " ".join(args.question).strip()
    if not question:
        io.stderr.write("agent ask: the question is empty.\n")
        return EXIT_USAGE
    servers = _mcp_servers(args, io)
    if servers is None:
        return EXIT_USAGE
    return _command(args, io, lambda settings: _answer(question, settings, io, servers))


def _mcp_servers(args: argparse.Namespace, io: Streams) -> list[McpServer] | None:
    """The MCP servers asked for with --mcp and --mcp-url; None (after saying why) for one
    that can't be read."""
    commands, urls = getattr(args, "mcp", None) or [], getattr(args, "mcp_url", None) or []
    if not commands and not urls:
        return []
    from errors import BadSetting
    from tools.mcp import McpServer

    try:
        return [
            *(McpServer.parse(spec) for spec in commands),
            *(McpServer.parse_url(spec) for spec in urls),
        ]
    except BadSetting as bad:
        io.stderr.write(f"agent: {bad.name} {bad.problem}.\n")
        return None


def _world(settings: Settings) -> dict[str, Any]:
    """Offline, the scripted model and the simulated services for `open_agent`: offline mode
    is wired in here, the one place of the agent that imports the offline world."""
    if not settings.offline:
        return {}
    from offline import OfflineModel, SimulatedServices

    transport = SimulatedServices(settings.endpoints).transport
    return {"backend": OfflineModel(), "transport": transport}


def _answer(question: str, settings: Settings, io: Streams, mcp: list[McpServer]) -> int:
    import asyncio

    from agent.app import ask
    from agent.terminal import for_terminal

    if settings.banner:
        io.stderr.write(settings.banner + "\n")
    world = _world(settings)
    answer = asyncio.run(ask(question, settings, mcp=mcp, on_notice=_notice(io), **world))
    stream = io.stdout if answer.answered else io.stderr
    stream.write(for_terminal(answer.text) + "\n")  # the model's text must not drive a terminal
    return EXIT_OK if answer.answered else EXIT_NO_ANSWER


def _run_explain(args: argparse.Namespace, io: Streams) -> int:
    return _command(args, io, lambda settings: _explain(settings, io, llm=args.llm))


def _explain(settings: Settings, io: Streams, *, llm: LlmMode | None) -> int:
    from agent.explain import run

    return run(settings, io.stdin, io.stdout, io.stderr, llm=llm)


def _notice(io: Streams) -> Callable[[str], None]:
    return lambda sentence: print(sentence, file=io.stderr)


def _run_chat(args: argparse.Namespace, io: Streams) -> int:
    servers = _mcp_servers(args, io)
    if servers is None:
        return EXIT_USAGE
    return _command(args, io, lambda settings: _chat(settings, io, servers))


def _chat(settings: Settings, io: Streams, mcp: list[McpServer]) -> int:
    from agent.app import Agent, open_agent
    from agent.repl import start_chat
    from resilience import Listener

    world = _world(settings)

    async def opened(listener: Listener, notice: Callable[[str], None]) -> Agent:
        return await open_agent(settings, listener=listener, mcp=mcp, on_notice=notice, **world)

    return start_chat(opened, io.stdout, io.read, env=io.env, banner=settings.banner)


def _traced(
    args: argparse.Namespace, io: Streams, body: Callable[[Settings], int]
) -> Callable[[Settings], int]:
    """`body`, traced when asked for (`--otel`, or OTEL_EXPORTER_OTLP_ENDPOINT) and the command
    has spans to show; OpenTelemetry is imported only then."""
    if not getattr(args, "traced", True):
        return body

    def run(settings: Settings) -> int:
        from agent import otel

        try:
            session = otel.start(getattr(args, "otel", None), io.env, write=io.stderr.write)
        except otel.TracingUnavailable as missing:
            io.stderr.write(f"agent: {missing}.\n")
            return EXIT_USAGE
        try:
            return body(settings)
        finally:
            if session is not None:
                session.close()

    return run


def _guarded(command: Callable[[], int], io: Streams) -> int:
    """Run `command`; a bug becomes one logged event and one plain sentence, not a traceback."""
    try:
        return command()
    except KeyboardInterrupt:
        io.stderr.write("\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (`| head`): not a failure, so nothing to say
        _discard_output(io.stdout)
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        _log_crash(exc)
        io.stderr.write(_CRASHED + "\n")
        return EXIT_NO_ANSWER


def _discard_output(stream: IO[str]) -> None:
    """Point `stream`'s descriptor at /dev/null, so that flushing it at exit stays quiet."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor: nothing to do
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def _log_crash(exc: Exception) -> None:
    with contextlib.suppress(Exception):  # even a broken install must not print a traceback
        _log(exc)


def _log(exc: Exception) -> None:
    import structlog

    from errors import classify

    result = classify(exc, "answering a question").result
    structlog.get_logger("agent").error("agent.crashed", **result.log_fields())
