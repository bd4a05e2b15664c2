"""A real `redis-server` on a free loopback port, for the tests and the fleet bench.

    with RedisServer() as server:
        state = RedisState(server.url)
        ...
        server.kill()  # the store vanishes mid-run

It keeps nothing on disk (`--save ""`, `--appendonly no`), listens on 127.0.0.1 only, and is
stopped (then killed, if it must be) on leaving the block. Debian's `redis-server` package
provides the binary; `scripts/test.sh` installs it when it is missing.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from types import TracebackType

__all__ = ["RedisServer", "RedisUnavailable"]

_START_S = 10.0  # how long the server may take to answer PING


class RedisUnavailable(RuntimeError):
    """No `redis-server` binary, or it did not start."""


class RedisServer:
    """One `redis-server` child process on a free loopback port."""

    def __init__(self) -> None:
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """`redis://127.0.0.1:PORT/0`."""
        return f"redis://127.0.0.1:{self.port}/0"

    def __enter__(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisUnavailable(
                "redis-server is not installed (Debian: apt-get install redis-server); "
                "scripts/test.sh installs it when it can"
            )
        self.port = _free_port()
        self._process = subprocess.Popen(  # noqa: S603 - our own argument list
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        self._wait_until_up()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def kill(self) -> None:
        """SIGKILL: the store is gone at once, as in a crash."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after five seconds."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stderr is not None:
            process.stderr.close()
        self._process = None

    def _wait_until_up(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + _START_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                said = (
                    self._process.stderr.read().decode(errors="replace")
                    if self._process.stderr
                    else ""
                )
                raise RedisUnavailable(f"redis-server exited at start: {said.strip()[-300:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.02)
        self.stop()
        raise RedisUnavailable(f"redis-server did not answer within {_START_S:g} s")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
