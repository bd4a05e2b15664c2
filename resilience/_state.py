"""Where the resilience state lives: in this process, or shared by a fleet through Redis.

Three kinds of state, behind one small interface (`State`, in `resilience._policy`):

- a **circuit breaker** per source (`Breaker`: `allow`, `record_success`, `record_failure`,
  `hold`, `release`, `remaining_cooldown`);
- the **retry budget** (`Budget`: a failure takes a token, a success gives back a fraction,
  retries stop while half are gone);
- a **request bucket** (`Bucket`: so many requests a minute, the wait before the next one).

`InProcess()` keeps them in this process — today's behaviour, the default. `RedisState(url)`
keeps them in Redis or Valkey (`AGENT_STATE_URL=redis://…`), so that N workers behind a queue
discover an outage once, open one breaker for all until its cool-down, spend one retry budget
and share one model request rate. Every change is one Lua script, atomic on the server, timed
by the server's clock (workers' clocks need not agree); every key has a TTL, so nothing needs
cleaning up. The Redis client is synchronous with short timeouts: an operation on a loopback
server takes about 0.2 ms (docs/architecture.md, "Where state lives"). When the store cannot
be reached, the worker says so once (`resilience.state_unreachable`), carries on with its own
in-process state, and tries the store again after `RETRY_AFTER_S`; no call fails because of it.
"""

from __future__ import annotations

import importlib.util
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

from errors import BadSetting, UpstreamStatus
from errors._redact import has_space_or_control
from resilience._policy import (
    IN_PROCESS,
    MAX_HOLD_S,
    Breaker,
    BreakerState,
    Bucket,
    Budget,
    CircuitBreaker,
    RequestBucket,
    RetryBudget,
    State,
)

if TYPE_CHECKING:
    import redis

__all__ = [
    "RETRY_AFTER_S",
    "Paced",
    "RedisState",
    "check_state_url",
    "state_from_url",
]

log = structlog.get_logger("resilience")

RETRY_AFTER_S = 30.0  # how long a worker keeps to its own state after the store failed it
_TIMEOUT_S = 0.25  # one operation on the store, connecting included
_PREFIX = "failsafe-agent"


# --- shared through Redis ------------------------------------------------------------------------

# The server's own clock, in seconds, for every script; and, for a breaker's, when its circuit
# lets a probe through (0: closed).
_NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1000000\n"
_OPEN_UNTIL = _NOW + "local open_until = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')\n"
_ALLOW = f"""{_OPEN_UNTIL}
if open_until == 0 then return 1 end
if now < open_until then return 0 end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return 1 end
return 0
"""
_FAILURE = f"""{_OPEN_UNTIL}
local half_open = open_until > 0 and now >= open_until
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
redis.call('DEL', KEYS[2])
local threshold, cooldown = tonumber(ARGV[1]), tonumber(ARGV[2])
if threshold > 0 and (half_open or (open_until == 0 and failures >= threshold)) then
  redis.call('HSET', KEYS[1], 'until', tostring(now + cooldown))
  redis.call('EXPIRE', KEYS[1], math.ceil(cooldown) + 3600)
  return 1
end
redis.call('EXPIRE', KEYS[1], 3600)
return 0
"""
_HOLD = f"""{_OPEN_UNTIL}
local held = math.max(open_until, now + tonumber(ARGV[1]))
redis.call('HSET', KEYS[1], 'until', tostring(held))
redis.call('EXPIRE', KEYS[1], math.ceil(held - now) + 3600)
redis.call('DEL', KEYS[2])
return 1
"""
_REMAINING = f"""{_OPEN_UNTIL}
if open_until == 0 then return '-1' end
return tostring(math.max(0, open_until - now))
"""
_BUDGET = """
local max_tokens = tonumber(ARGV[1])
local tokens = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
tokens = math.max(0, math.min(max_tokens, tokens + tonumber(ARGV[2])))
redis.call('SET', KEYS[1], tostring(tokens), 'EX', 3600)
return tostring(tokens)
"""
_TAKE = f"""{_NOW}
local per_minute = tonumber(ARGV[1])
local rate = per_minute / 60
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[1])
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or tostring(now))
tokens = math.min(per_minute, tokens + (now - at) * rate) - 1
local wait = 0
if tokens < 0 then wait = -tokens / rate end
if wait <= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('EXPIRE', KEYS[1], 120 + math.ceil(wait))
end
return tostring(wait)
"""


class RedisState:
    """Breakers, budget and buckets shared through Redis or Valkey at `url`, under `namespace`
    (workers of one fleet use the same one). The connection is made on first use."""

    def __init__(self, url: str, *, namespace: str = "default") -> None:
        self.url = url
        self.namespace = namespace
        self._client: redis.Redis | None = None
        self._scripts: dict[str, Any] = {}  # script text → its registered (EVALSHA) form
        self._down_until = 0.0
        self._said = False

    # The three kinds of state, each with its twin in this process.
    def breaker(
        self, name: str, threshold: int, cooldown_s: float, clock: Callable[[], float]
    ) -> Breaker:
        twin = CircuitBreaker(threshold, cooldown_s, clock)
        return _SharedBreaker(self, self._key("breaker", name), twin)

    def budget(self, name: str, max_tokens: float, token_ratio: float) -> Budget:
        twin = RetryBudget(max_tokens, token_ratio)
        return _SharedBudget(self, self._key("budget", name), twin)

    def bucket(self, name: str, per_minute: float, clock: Callable[[], float]) -> Bucket:
        twin = RequestBucket(per_minute, clock)
        return _SharedBucket(self, self._key("bucket", name), twin)

    # What they share.
    def run(
        self, script: str, keys: list[str], args: list[object], fallback: Callable[[], object]
    ) -> object:
        """Run a Lua `script` on the store; `fallback()` instead when the store cannot be
        reached (or could not, a moment ago)."""
        if time.monotonic() < self._down_until:
            return fallback()
        import redis

        try:
            if self._client is None:
                self._client = redis.Redis.from_url(
                    self.url,
                    socket_timeout=_TIMEOUT_S,
                    socket_connect_timeout=_TIMEOUT_S,
                    decode_responses=True,
                )
            if script not in self._scripts:
                self._scripts[script] = self._client.register_script(script)
            return self._scripts[script](keys=keys, args=args)
        except (redis.RedisError, OSError) as error:
            self._fall_back(error)
        return fallback()  # not inside the `except`: whatever it raises is its own

    def _fall_back(self, error: BaseException) -> None:
        self._down_until = time.monotonic() + RETRY_AFTER_S
        if not self._said:  # once per process: the state falls back, the turn goes on
            self._said = True
            log.warning(
                "resilience.state_unreachable",
                store=_safe_url(self.url),
                error=type(error).__name__,
                developer_note="the shared resilience state cannot be reached; each worker "
                "keeps its own until it can",
            )

    def _key(self, kind: str, name: str) -> str:
        return f"{_PREFIX}:{self.namespace}:{kind}:{name}"


class Paced(UpstreamStatus):
    """An attempt not sent: this caller's requests a minute (`Policy.requests_per_minute`) are
    spent for longer than it may wait. It reads as the API's own 429 with a Retry-After, so
    the wait is worded like one; the source is not blamed for it."""

    def __init__(self, source: str, wait_s: float) -> None:
        super().__init__(
            429,
            "the requests a minute allowed to this agent are spent",
            source=source,
            headers={"retry-after": f"{math.ceil(wait_s)}"},
        )
        self.wait_s = wait_s


class _SharedBreaker:
    """A breaker whose counts and cool-down live in the store, one for the whole fleet; its
    `twin` in this process answers while the store cannot."""

    def __init__(self, store: RedisState, key: str, twin: CircuitBreaker) -> None:
        self.threshold, self.cooldown_s = twin.threshold, twin.cooldown_s
        self._store, self._keys, self._twin = store, [key, f"{key}:probe"], twin
        # A probe's slot is kept as long as one attempt may take, then frees itself.
        self._probe_ms = int(max(self.cooldown_s, 60.0) * 1000)

    @property
    def state(self) -> BreakerState:
        remaining = self._remaining()
        if remaining is None:
            return self._twin.state
        return "closed" if remaining < 0 else ("open" if remaining > 0 else "half_open")

    def allow(self) -> bool:
        if self.threshold <= 0:
            return True
        return bool(self._run(_ALLOW, [self._probe_ms], self._twin.allow))

    def record_success(self) -> None:
        self._run("redis.call('DEL', KEYS[1], KEYS[2]) return 1", [], self._twin.record_success)

    def record_failure(self) -> bool:
        args: list[object] = [self.threshold, self.cooldown_s]
        return bool(self._run(_FAILURE, args, self._twin.record_failure))

    def hold(self, seconds: float) -> None:
        held = min(max(seconds, 0.0), MAX_HOLD_S)
        self._run(_HOLD, [held], lambda: self._twin.hold(seconds))

    def release(self) -> None:
        self._run("redis.call('DEL', KEYS[2]) return 1", [], self._twin.release)

    def remaining_cooldown(self) -> float:
        remaining = self._remaining()
        return self._twin.remaining_cooldown() if remaining is None else max(0.0, remaining)

    def _remaining(self) -> float | None:
        """Seconds of cool-down left (-1: closed), or None when the store cannot say."""
        remaining = self._run(_REMAINING, [], lambda: None)
        return None if remaining is None else float(str(remaining))

    def _run(self, script: str, args: list[object], fallback: Callable[[], object]) -> object:
        return self._store.run(script, self._keys, args, fallback)


class _SharedBudget:
    """The retry budget counted in the store: one budget for the fleet."""

    def __init__(self, store: RedisState, key: str, twin: RetryBudget) -> None:
        self.max_tokens, self.token_ratio = twin.max_tokens, twin.token_ratio
        self._store, self._keys, self._twin = store, [key], twin

    @property
    def tokens(self) -> float:
        return float(str(self._add(0.0, lambda: self._twin.tokens)))

    def allows_retry(self) -> bool:
        return self.tokens > self.max_tokens / 2

    def record_failure(self) -> None:
        self._add(-1.0, self._twin.record_failure)

    def record_success(self) -> None:
        self._add(self.token_ratio, self._twin.record_success)

    def _add(self, change: float, fallback: Callable[[], object]) -> object:
        """Add `change` to the tokens in the store: the tokens left (`fallback()` without it)."""
        return self._store.run(_BUDGET, self._keys, [self.max_tokens, change], fallback)


class _SharedBucket:
    """The request bucket in the store: one rate for the fleet."""

    def __init__(self, store: RedisState, key: str, twin: RequestBucket) -> None:
        self.per_minute = twin.per_minute
        self._store, self._keys, self._twin = store, [key], twin

    def take(self, max_wait_s: float = math.inf) -> float:
        if self.per_minute <= 0:
            return 0.0
        args: list[object] = [self.per_minute, min(max_wait_s, 1e9)]
        waited = self._store.run(_TAKE, self._keys, args, lambda: self._twin.take(max_wait_s))
        return float(str(waited))


_SCHEMES = ("redis", "rediss", "unix", "valkey", "valkeys")
_STORES: dict[tuple[str, str], RedisState] = {}


def state_from_url(url: str | None, *, namespace: str = "default") -> State:
    """The state `AGENT_STATE_URL` asks for: Redis or Valkey at a redis:// (rediss://,
    unix://, valkey://) URL, one store per process for each URL; unset, this process's own.
    Anything else is `BadSetting` naming the variable (never echoing its value)."""
    if not url:
        return IN_PROCESS
    check_state_url(url)
    scheme, _, rest = url.partition("://")
    scheme = scheme.lower().replace("valkey", "redis")  # the same protocol
    url = f"{scheme}://{rest}"
    key = (url, namespace)
    if key not in _STORES:
        _STORES[key] = RedisState(url, namespace=namespace)
    return _STORES[key]


def check_state_url(url: str) -> None:
    """`BadSetting` unless `url` is a store URL this process can use."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in _SCHEMES or not rest:
        raise BadSetting("AGENT_STATE_URL", "must be a redis://, rediss:// or unix:// URL")
    if has_space_or_control(url):
        raise BadSetting("AGENT_STATE_URL", "must not contain spaces or control characters")
    if importlib.util.find_spec("redis") is None:
        raise BadSetting(
            "AGENT_STATE_URL", "needs the Redis client: pip install 'failsafe-agent[redis]'"
        )


def _safe_url(url: str) -> str:
    """The store's URL without its password, for the log."""
    scheme, _, rest = url.partition("://")
    host = rest.rsplit("@", 1)[-1]
    return f"{scheme}://{host}"
