"""One server's session, through the official `mcp` SDK, kept alive and restarted in bounds.

The SDK's `Client` runs a task group that must be entered and left by the same task, while an
agent opens in one task and closes in another (the REPL runs each turn as a task of its own).
So each session is owned by a task of its own, which enters the `Client`, waits, and leaves
it when asked; calls come from any task. A session that ends under a call (a stdio process
that exits, an HTTP session that breaks) is marked dead, the call fails as `ServerGone`, and
the next call opens a new one (for stdio: a new process) — at most `max_restarts` times in
`restart_window_s`, after which calls fail as `RestartsSpent` until the window moves on.
Every failure leaves here translated (`translate`) into what error-to-action reads.

Nothing the SDK or a server says reaches the terminal: a stdio server's stderr goes to a file
(its tail logged if it fails to start), and the SDK's own log records ("Failed to parse
JSONRPC message from server" and its traceback) become `mcp.sdk_message` events. A server
that can't start is one sentence saying what went wrong: its command was not found, it
printed something that is not MCP, it exited before answering, it did not answer in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
from contextvars import ContextVar
from typing import Any, Literal, TextIO

import structlog
from anyio import BrokenResourceError, ClosedResourceError, EndOfStream
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult, Implementation
from mcp.types import Tool as RemoteTool
from pydantic import ValidationError

from errors import BadUpstreamData, classify, redact
from resilience import IN_PROCESS, Breaker, Policy
from tools.mcp._errors import McpToolError, RestartsSpent, ServerDown, ServerGone
from tools.mcp._spec import McpServer

__all__ = ["Connection", "translate"]

log = structlog.get_logger("tools")

_CLIENT_INFO = Implementation(name="failsafe-agent", version="0.1.0")
_MAX_PAGES = 100  # a tool list whose pages never end cannot hang start-up
_STDERR_KEPT = 1_000_000  # a server's stderr file is emptied past this size, at a (re)start
_TAIL = 600  # characters of a server's stderr logged when it fails to start
_CLOSE_S = 10.0  # the longest wait for a session to close (the SDK bounds its own steps)
_NOTE = 600  # characters of the SDK's own message logged
# The SDK's words when a line a stdio server printed is no JSON-RPC message (mcp/client/stdio.py).
_NOT_MCP = "Failed to parse JSONRPC message"


class Connection:
    """The live session with one MCP server, its restart bound and its circuit breakers."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self.restarts = 0  # sessions opened after the first
        self._client: Client | None = None  # None: no live session
        self._owner: asyncio.Task[None] | None = None  # the task holding the session open
        self._stop: asyncio.Event | None = None  # set: the owner leaves its session
        self._owners: set[asyncio.Task[None]] = set()  # the current one, and old ones leaving
        self._closed = False
        self._lock = asyncio.Lock()  # one restart at a time
        self._recent: list[float] = []  # when each restart happened
        self._breakers: dict[int, tuple[Policy, Breaker]] = {}
        self.printed_not_mcp = False  # the server wrote a line that is no MCP message
        # A stdio server's stderr, read if it fails to start; closed by `aclose`.
        self._stderr: TextIO | None = None
        if server.command is not None:
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115

    async def start(self) -> list[RemoteTool] | str:
        """The server's tools; or, if it can't start and list them within `connect_timeout_s`,
        the plain sentence saying they are left out."""
        stage: Literal["start", "list"] = "start"
        _route_sdk_logs()
        try:
            async with asyncio.timeout(self.server.connect_timeout_s):
                client = await self._open()
                stage = "list"
                tools: list[RemoteTool] = []
                cursor: str | None = None
                for _ in range(_MAX_PAGES):
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    if (cursor := page.next_cursor) is None:
                        break
        except Exception as exc:
            sentence = self._left_out(stage, exc)
            await self.aclose()
            return sentence
        server = self.server
        log.info(
            "mcp.server_started", server=server.name, transport=server.transport, tools=len(tools)
        )
        return tools

    def _left_out(self, stage: str, error: Exception) -> str:
        """Log why the server's tools are missing; say so in one plain sentence of ours."""
        server = self.server
        verdict = classify(translate(error, server.name), f"starting the MCP server {server.name}")
        log.warning(
            "mcp.server_unavailable",
            server=server.name,
            transport=server.transport,
            stage=stage,
            stderr_tail=self._stderr_tail(),
            **verdict.result.log_fields(),
        )
        return f"The MCP server '{server.name}' {self._what_went_wrong(stage, unwrap(error))}"

    def _what_went_wrong(self, stage: str, error: BaseException) -> str:
        """The rest of the sentence: what went wrong, that the tools are left out, what to do."""
        if stage == "list":
            return (
                "started but would not list its tools, so they are left out; "
                "its own log should say why."
            )
        if self.printed_not_mcp:
            what = "printed something that is not MCP"
            fix = "check that its command starts an MCP server that talks over stdin and stdout"
        elif isinstance(error, TimeoutError):
            what = f"did not answer within {self.server.connect_timeout_s:g} seconds of starting"
            fix = "check that it is an MCP server and that it runs"
        elif self.server.transport == "http":
            what, fix = "could not be reached", "check its address and that it is running"
        elif isinstance(error, FileNotFoundError):
            what = "could not start because its command was not found"
            fix = "check the command's name, or give its full path"
        elif isinstance(error, PermissionError):
            what = "could not start because its command may not be run"
            fix = "check that the command is a program you are allowed to run"
        elif isinstance(translate(error, self.server.name), ServerGone):
            what, fix = "exited before answering", "run its command on its own to see why"
        else:
            what, fix = "could not start", "check its command (run on its own, it shows why)"
        return f"{what}, so its tools are left out; {fix}."

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):  # a closed or unreadable file: no tail
            self._stderr.seek(0)
            text = self._stderr.read()[-_TAIL:]
            self._stderr.seek(0, 2)
            return redact(" ".join(text.split()))
        return ""

    async def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """One `tools/call`; every failure leaves here translated (`translate`)."""
        client = await self._session()
        try:
            return await client.call_tool(name, arguments)
        except Exception as exc:
            error = translate(exc, self.server.name)
            if isinstance(error, ServerGone) and self._client is client:
                self._client = None  # dead: the next call opens a new session
            if error is exc:
                raise
            raise error from exc

    async def _session(self) -> Client:
        """The live session, or a new one if the server is open and the restart bound allows."""
        server = self.server
        async with self._lock:  # calls waiting here use the session the first one opened
            if self._client is not None:
                return self._client
            if self._closed:
                raise ServerDown(f"{server.name} is closed")
            now = time.monotonic()
            self._recent = [t for t in self._recent if now - t <= server.restart_window_s]
            if len(self._recent) >= server.max_restarts:
                raise RestartsSpent(
                    f"{server.name} restarted {server.max_restarts} times within "
                    f"{server.restart_window_s:g} s; not again for now",
                    source=server.name,
                )
            self.restarts += 1
            self._recent.append(now)
            try:
                client = await self._open()
            except Exception as exc:
                raise ServerDown(f"reopening {server.name} failed") from unwrap(exc)
            log.warning("mcp.server_restarted", server=server.name, restarts=self.restarts)
            return client

    # --- the session's own task -------------------------------------------------------------

    async def _open(self) -> Client:
        """A new session, held open by a new owner task (the old one is asked to leave)."""
        self._retire()
        ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self._stop = stop = asyncio.Event()
        self._owner = owner = asyncio.create_task(
            self._own(ready, stop), name=f"mcp:{self.server.name}"
        )
        self._owners.add(owner)
        owner.add_done_callback(self._owners.discard)
        try:
            client = await ready
        except BaseException:
            owner.cancel()  # cancelled or failed: leave no half-open session
            raise
        if not owner.done():  # else it has ended already, and cleared `_client`
            self._client = client
        return client

    async def _own(self, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        """Hold one session open until `stop` is set or the session fails. The SDK's tasks
        for the session start from here, so its log records know their connection."""
        _SPEAKING.set(self)
        try:
            async with self._new_client() as client:
                if not ready.done():
                    ready.set_result(client)
                await stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not stop.is_set():
                error = translate(exc, self.server.name)
                result = classify(error, f"talking to the MCP server {self.server.name}").result
                log.warning("mcp.session_lost", server=self.server.name, **result.log_fields())
        finally:
            if self._stop is stop:
                self._client = None

    def _new_client(self) -> Client:
        server = self.server
        if server.url is not None:
            return Client(server.url, cache=None, client_info=_CLIENT_INFO)
        assert server.command is not None
        assert self._stderr is not None
        if self._stderr.tell() > _STDERR_KEPT:
            self._stderr.seek(0)
            self._stderr.truncate()
        params = StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env=dict(server.env) if server.env else None,
            cwd=server.cwd,
        )
        return Client(
            stdio_client(params, errlog=self._stderr), cache=None, client_info=_CLIENT_INFO
        )

    def _retire(self) -> None:
        """Ask the current owner task, if any, to leave its session, and cancel it if it has
        not within `_CLOSE_S`; without waiting for it."""
        if self._owner is not None and self._stop is not None:
            self._stop.set()
            asyncio.get_running_loop().call_later(_CLOSE_S, self._owner.cancel)
        self._owner, self._stop, self._client = None, None, None

    # --- breakers and closing ---------------------------------------------------------------

    def breaker_for(self, policy: Policy) -> Breaker:
        """The server's one circuit breaker on `policy` (shared by all its tools, and, with a
        shared `policy.state`, by every worker using a server of this name)."""
        key = id(policy)  # the policy is kept with its breaker, so its id stays its own
        if key not in self._breakers:
            breaker = (policy.state or IN_PROCESS).breaker(
                f"mcp/{self.server.name}",
                policy.breaker_threshold,
                policy.breaker_cooldown_s,
                policy.clock,
            )
            self._breakers[key] = (policy, breaker)
        return self._breakers[key][1]

    async def aclose(self) -> None:
        """End the session and, for stdio, the process; later calls fail as `ServerDown`."""
        self._closed = True
        self._retire()
        if self._owners:
            await asyncio.wait(self._owners)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


# --- the SDK's own log records ----------------------------------------------------------------

# The connection whose session task (and the SDK's tasks it starts) is running, if any.
_SPEAKING: ContextVar[Connection | None] = ContextVar("mcp_connection", default=None)


class _ToOurLog(logging.Handler):
    """The SDK's log records as `mcp.sdk_message` events in our log, never on the terminal;
    a line a server printed that is not MCP is noted on its connection."""

    def emit(self, record: logging.LogRecord) -> None:
        connection = _SPEAKING.get()
        message = record.getMessage()
        if connection is not None and message.startswith(_NOT_MCP):
            connection.printed_not_mcp = True
        if record.exc_info and record.exc_info[1] is not None:  # what it printed is in there
            message += f": {' '.join(str(record.exc_info[1]).split())}"
        log.warning(
            "mcp.sdk_message",
            server=None if connection is None else connection.server.name,
            logger=record.name,
            note=redact(message)[:_NOTE],
        )


def _route_sdk_logs() -> None:
    """Send the `mcp` loggers' records to our log (once): Python's fallback would print
    them, traceback and all, on stderr."""
    sdk = logging.getLogger("mcp")
    if not any(isinstance(handler, _ToOurLog) for handler in sdk.handlers):
        sdk.addHandler(_ToOurLog())
    sdk.propagate = False


def translate(error: BaseException, server: str) -> BaseException:
    """What `error`, raised by the SDK during a call to `server`, is in our terms; anything
    not recognised is returned as it is (error-to-action reads foreign errors by class)."""
    error = unwrap(error)
    if isinstance(error, MCPError):
        if error.code == CONNECTION_CLOSED:
            return ServerGone(f"the connection to {server} closed before it answered")
        if error.code == REQUEST_TIMEOUT:
            return TimeoutError(f"JSON-RPC {error.code}: {error}")
        return McpToolError(f"JSON-RPC {error.code}: {error}", server=server)
    if isinstance(error, ValidationError):
        return BadUpstreamData(
            f"the answer breaks the MCP result schema ({error.error_count()} problems)",
            source=server,
        )
    if isinstance(error, RuntimeError) and _is_output_check(str(error)):
        return BadUpstreamData(str(error), source=server)
    if isinstance(error, ClosedResourceError | BrokenResourceError | EndOfStream):
        return ServerGone(f"the connection to {server} is closed")
    return error


def unwrap(error: BaseException) -> BaseException:
    """The one error inside an (anyio task group's) exception group, or `error` itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _is_output_check(message: str) -> bool:
    """The SDK's words when a result breaks the tool's own output schema."""
    return message.startswith(("Invalid structured content", "Invalid schema for tool")) or (
        message.startswith("Tool ") and "output schema" in message
    )
