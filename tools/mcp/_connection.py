"""One server's session, through the official `mcp` SDK, kept alive and restarted in bounds.

The SDK's `Client` runs a task group that must be entered and left by the same task, while an
agent opens in one task and closes in another (the REPL runs each turn as a task of its own).
So each session is owned by a task of its own, which enters the `Client`, waits, and leaves
it when asked; calls come from any task. A session that ends under a call (a stdio process
that exits, an HTTP session that breaks) is marked dead, the call fails as `ServerGone`, and
the next call opens a new one (for stdio: a new process) — at most `max_restarts` times in
`restart_window_s`, after which calls fail as `RestartsSpent` until the window moves on.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TextIO, cast

import structlog
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, Implementation
from mcp.types import Tool as RemoteTool

from errors import classify, redact
from resilience import CircuitBreaker, Policy
from tools.mcp._errors import RestartsSpent, ServerDown, ServerGone, translate, unwrap
from tools.mcp._spec import McpServer

__all__ = ["Connection", "StartFailed"]

log = structlog.get_logger("tools")

_CLIENT_INFO = Implementation(name="failsafe-agent", version="0.1.0")
_STDERR_KEPT = 1_000_000  # a server's stderr file is emptied past this size, at a (re)start
_TAIL = 600  # characters of a server's stderr logged when it fails to start
_CLOSE_S = 10.0  # the longest wait for a session to close (the SDK bounds its own steps)


class StartFailed(Exception):
    """The server could not be started or reached, or would not list its tools."""

    def __init__(self, *, listing: bool = False, timed_out: bool = False) -> None:
        super().__init__("listing tools failed" if listing else "start failed")
        self.listing = listing
        self.timed_out = timed_out


class Connection:
    """The live session with one MCP server, its restart bound and its circuit breakers."""

    def __init__(self, server: McpServer, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self.restarts = 0  # sessions opened after the first
        self._clock = clock
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._dead = True
        self._closed = False
        self._lock = asyncio.Lock()
        self._recent: deque[float] = deque()  # when each restart happened
        self._background: set[asyncio.Task[None]] = set()
        self._breakers: dict[int, tuple[Policy, CircuitBreaker]] = {}
        self._stderr: TextIO | None = None

    # --- start-up --------------------------------------------------------------------------

    async def start(self) -> list[RemoteTool]:
        """Open the session and list the server's tools; `StartFailed` (logged) if either
        fails or the two take longer than the server's `connect_timeout_s`."""
        stage = "start"
        try:
            async with asyncio.timeout(self.server.connect_timeout_s):
                await self._open()
                stage = "list"
                return await self._list_tools()
        except TimeoutError as exc:
            self._log_unavailable(stage, exc)
            await self.aclose()
            raise StartFailed(listing=stage == "list", timed_out=stage == "start") from exc
        except Exception as exc:
            self._log_unavailable(stage, translate(exc, self.server.name))
            await self.aclose()
            raise StartFailed(listing=stage == "list") from exc

    async def _list_tools(self) -> list[RemoteTool]:
        assert self._client is not None
        tools: list[RemoteTool] = []
        cursor: str | None = None
        for _ in range(100):  # a paginator that never ends cannot hang start-up
            page = await self._client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    # --- calls -----------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """One `tools/call`, on a live session (opened anew if the last one died); every
        failure leaves here translated (`_errors.translate`)."""
        client = await self._session()
        try:
            return await client.call_tool(name, arguments)
        except Exception as exc:
            error = translate(exc, self.server.name)
            if isinstance(error, ServerGone) and self._client is client:
                self._dead = True
            if error is exc:
                raise
            raise error from exc

    async def _session(self) -> Client:
        if (client := self._live()) is not None:
            return client
        async with self._lock:
            if (client := self._live()) is not None:  # another call restarted it meanwhile
                return client
            if self._closed:
                raise ServerDown(f"{self.server.name} is closed")
            if not self._may_restart():
                raise RestartsSpent(
                    f"{self.server.name} restarted {self.server.max_restarts} times within "
                    f"{self.server.restart_window_s:g} s; not again for now",
                    source=self.server.name,
                )
            self.restarts += 1
            self._recent.append(self._clock())
            try:
                await self._open()
            except Exception as exc:
                raise ServerDown(f"reopening {self.server.name} failed") from unwrap(exc)
            log.warning("mcp.server_restarted", server=self.server.name, restarts=self.restarts)
            assert self._client is not None
            return self._client

    def _live(self) -> Client | None:
        owner = self._owner
        alive = owner is not None and not owner.done()
        return self._client if alive and not self._dead else None

    def _may_restart(self) -> bool:
        now = self._clock()
        while self._recent and now - self._recent[0] > self.server.restart_window_s:
            self._recent.popleft()
        return len(self._recent) < self.server.max_restarts

    # --- the session's own task -------------------------------------------------------------

    async def _open(self) -> None:
        """Start a new owner task (the old one, if any, is stopped in the background) and
        wait until its session is ready."""
        self._retire()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Client] = loop.create_future()
        stop = asyncio.Event()
        owner = asyncio.create_task(self._own(ready, stop), name=f"mcp:{self.server.name}")
        self._owner, self._stop = owner, stop
        try:
            client = await ready
        except BaseException:
            self._retire(at_once=True)  # cancelled or failed: leave no half-open session
            raise
        self._client, self._dead = client, False

    async def _own(self, ready: asyncio.Future[Client], stop: asyncio.Event) -> None:
        """Hold one session open until `stop` is set or the session fails."""
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
                self._log_lost(exc)
        finally:
            if self._stop is stop:
                self._dead = True

    def _new_client(self) -> Client:
        server = self.server
        if server.url is not None:
            return Client(server.url, cache=None, client_info=_CLIENT_INFO)
        assert server.command is not None
        params = StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env=dict(server.env) if server.env else None,
            cwd=server.cwd,
        )
        return Client(
            stdio_client(params, errlog=self._stderr_file()), cache=None, client_info=_CLIENT_INFO
        )

    def _stderr_file(self) -> TextIO:
        """Where the server's stderr goes: a temporary file, read when it fails to start."""
        if self._stderr is None:
            # Closed by `aclose`: it outlives this call, and every restart writes to it.
            file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            self._stderr = cast(TextIO, file)
        elif self._stderr.tell() > _STDERR_KEPT:
            self._stderr.seek(0)
            self._stderr.truncate()
        return self._stderr

    def _retire(self, *, at_once: bool = False) -> None:
        """Stop the current owner task, if any, without waiting for it: asked to leave its
        session, or cancelled `at_once` (a session still opening waits for nothing else)."""
        owner, stop = self._owner, self._stop
        self._owner, self._stop, self._client, self._dead = None, None, None, True
        if owner is None or stop is None:
            return
        if at_once:
            owner.cancel()
        task = asyncio.create_task(_stop_owner(owner, stop))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- breakers, closing, logging --------------------------------------------------------

    def breaker_for(self, policy: Policy) -> CircuitBreaker:
        """The server's one circuit breaker on `policy` (shared by all its tools)."""
        key = id(policy)
        if key not in self._breakers:
            breaker = CircuitBreaker(
                policy.breaker_threshold, policy.breaker_cooldown_s, policy.clock
            )
            self._breakers[key] = (policy, breaker)
        return self._breakers[key][1]

    async def aclose(self) -> None:
        """End the session and, for stdio, the process; later calls fail as `ServerDown`."""
        self._closed = True
        self._retire()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):  # a closed or unreadable file: no tail
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read()[-_TAIL:]
            self._stderr.seek(0, 2)
            return redact(" ".join(text.split()))
        return ""

    def _log_unavailable(self, stage: str, error: BaseException) -> None:
        result = classify(error, f"starting the MCP server {self.server.name}").result
        log.warning(
            "mcp.server_unavailable",
            server=self.server.name,
            transport=self.server.transport,
            stage=stage,
            stderr_tail=self._stderr_tail(),
            **result.log_fields(),
        )

    def _log_lost(self, error: BaseException) -> None:
        error = translate(error, self.server.name)
        result = classify(error, f"talking to the MCP server {self.server.name}").result
        log.warning("mcp.session_lost", server=self.server.name, **result.log_fields())


async def _stop_owner(owner: asyncio.Task[None], stop: asyncio.Event) -> None:
    """Ask `owner` to leave its session; cancel it if it has not within `_CLOSE_S` (the SDK
    bounds its own shutdown: close stdin, wait, terminate, kill)."""
    stop.set()
    done, _ = await asyncio.wait({owner}, timeout=_CLOSE_S)
    if not done:
        owner.cancel()
        await asyncio.wait({owner})
    if not owner.cancelled():
        owner.exception()  # retrieved (and already logged by the owner): no asyncio warning
