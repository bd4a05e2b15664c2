"""Fixtures every test folder may use: structlog back to its defaults after every test, saved
conversations in a folder of each test's own (and a check that none reached the person's), a
fake clock, a policy on it, a progress recorder, a real Redis server."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import structlog

from agent.history import data_folder
from benchmarks.redis_server import RedisServer, RedisUnavailable
from resilience import Event, Policy, ProgressKind, RetryBudget
from tests.tools.fakes import FakeClock


@dataclass(frozen=True, slots=True)
class Progress:
    """What a person watching was told of one event: its `progress`, with who and how long."""

    kind: ProgressKind
    caller: str
    source: str
    message: str
    wait_s: float | None = None


class Watched(list[Progress]):
    """A listener that keeps the progress a person watching would see (events with none are
    not kept)."""

    def append(self, event: Event | Progress) -> None:  # type: ignore[override]
        if isinstance(event, Progress):
            super().append(event)
        elif event.progress is not None:
            kind, message = event.progress
            super().append(Progress(kind, event.caller, event.source, message, event.wait_s))


@pytest.fixture(autouse=True)
def _clean_structlog() -> Iterator[None]:
    structlog.contextvars.clear_contextvars()
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()


@pytest.fixture(autouse=True, scope="session")
def _signals_as_a_terminal_has_them() -> Iterator[None]:
    """Ctrl-C and hang-up as an interactive run has them. A suite started as a background job
    inherits SIGINT ignored (asyncio then installs no handler, and the tests that send
    themselves SIGINT would wait for ever). Under `nohup` SIGHUP is ignored, and every agent
    the tests start would inherit that and rightly keep it: the suite then ignores hang-ups
    with a handler of its own instead, which a child does not inherit."""
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    hangup = signal.getsignal(signal.SIGHUP)
    if hangup == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, lambda _signum, _frame: None)
    yield
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGHUP, hangup)


@pytest.fixture(autouse=True)
def _data_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saved conversations go to a folder of the test's own, never the person's home."""
    monkeypatch.setenv("AGENT_DATA_DIR", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True, scope="session")
def _the_persons_conversations_untouched() -> Iterator[None]:
    """No test, nor any child process a test starts, writes to the person's own saved
    conversations. A child given a bare environment finds the home folder by itself, so a
    test that builds one must pass AGENT_DATA_DIR on (`_data_folder`); this says which run
    forgot. Both places a person's may be are watched: where this environment puts them, and
    the home folder's default."""
    folders = {data_folder(), Path.home() / ".local" / "share" / "failsafe-agent"}
    before = {folder: _files(folder) for folder in folders}
    yield
    written = [folder for folder in folders if _files(folder) != before[folder]]
    assert not written, f"the tests wrote to the person's saved conversations in {written}"


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file of `folder` (none if it does not exist): its size and modification time."""
    if not folder.is_dir():
        return {}
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def policy(clock: FakeClock) -> Policy:
    """The default knobs on fake time, with jitter pinned to half the backoff ceiling."""
    return Policy(sleep=clock.sleep, clock=clock, rand=lambda: 0.5, budget=RetryBudget())


@pytest.fixture
def progress() -> Watched:
    """The progress a listener was given, as a person watching would see it."""
    return Watched()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server on a free loopback port, for the whole session (nothing on disk)."""
    try:
        server = RedisServer().__enter__()
    except RedisUnavailable as missing:
        pytest.fail(str(missing))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, its data wiped before the test."""
    import redis

    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    return redis_server.url
