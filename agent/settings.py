"""Settings from the environment (the table in docs/contracts.md), and the secrets among them.

The key never appears in a repr. Redaction by value: patterns catch keys that look like keys
(`sk-…`, `Bearer …`, `key=…`); a key without a known prefix, echoed back by a 401 or carried in
an endpoint's `?appid=`, does not look like one. So at start-up every configured value that is,
or may be, a secret is handed to the redactor (`register_configured_secrets`), which then masks
it wherever it appears — in the log, on stderr, and in anything sent to the model:

- the API key;
- every query value, and the user name and password, of each configured endpoint
  (ANTHROPIC_BASE_URL and the weather URLs), as written and percent-decoded;
- the value of every environment variable whose name ends in `_KEY`, `_TOKEN`, `_SECRET`
  or `_PASSWORD`.

Values shorter than `MIN_LENGTH` are left to the patterns: masking a two-letter `lang=en`
everywhere would garble every line and protect nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, unquote_plus, urlsplit

from agent import DEFAULT_MODEL  # there, `agent --help` can show it without loading this
from errors import MIN_SECRET_LENGTH, BadSetting
from resilience import check_state_url
from tools import Endpoints, check_http_url

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_STALL_S",
    "DEFAULT_MODEL_TIMEOUT_S",
    "DEFAULT_TURN_TIMEOUT_S",
    "MIN_LENGTH",
    "SECRET_SUFFIXES",
    "Settings",
    "configured_secrets",
    "register_configured_secrets",
]

DEFAULT_MODEL_TIMEOUT_S = 120.0  # one model attempt, streaming included (AGENT_MODEL_TIMEOUT)
# One model attempt without progress: nothing new (only pings, blank deltas, or bytes that
# never complete an event) for this long and it is cut (AGENT_MODEL_STALL_TIMEOUT).
DEFAULT_MODEL_STALL_S = 30.0
DEFAULT_TURN_TIMEOUT_S = 300.0  # one question, every model call and tool round (AGENT_TURN_TIMEOUT)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the app needs to start; build it with `from_env`."""

    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    fallback_model: str | None = None  # answers when the primary model stays unavailable
    offline: bool = True
    log_file: str | None = None
    endpoints: Endpoints = field(default_factory=Endpoints)
    verbose: bool = False
    model_timeout_s: float = DEFAULT_MODEL_TIMEOUT_S  # one model attempt, however it streams
    model_stall_s: float = DEFAULT_MODEL_STALL_S  # one model attempt without progress
    turn_timeout_s: float = DEFAULT_TURN_TIMEOUT_S  # one whole turn
    state_url: str | None = field(default=None, repr=False)  # Redis shared by a fleet
    model_rpm: float = 0.0  # model requests a minute for this agent (or fleet); 0: unpaced
    history: bool = True  # conversations are saved (AGENT_HISTORY=off: never)

    def __post_init__(self) -> None:
        """Online needs a key; like the weather endpoints, a non-http(s) base URL is refused."""
        if not self.offline and self.api_key is None:
            raise ValueError("Settings(offline=False) needs an api_key")  # a caller's mistake
        if self.base_url is not None:
            check_http_url("ANTHROPIC_BASE_URL", self.base_url)
        if self.state_url is not None:
            check_state_url(self.state_url)

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        offline: bool = False,
        model: str | None = None,
        verbose: bool = False,
    ) -> Settings:
        """Settings for `env`: offline when asked to, or when there is no API key. Offline,
        the URL variables (ANTHROPIC_BASE_URL, the weather endpoints) are not checked: one
        that is not an http(s) URL is set aside for the default, as nothing real is called."""
        api_key = env.get("ANTHROPIC_API_KEY", "").strip() or None
        forced = offline or env.get("AGENT_OFFLINE", "").strip().lower() in _TRUE
        offline = forced or api_key is None
        base_url = env.get("ANTHROPIC_BASE_URL", "").strip() or None
        if offline and base_url is not None:  # never called: not worth refusing to start over
            try:
                check_http_url("ANTHROPIC_BASE_URL", base_url)
            except BadSetting:
                base_url = None
        return cls(
            api_key=api_key,
            base_url=base_url,
            model=model or env.get("AGENT_MODEL", "").strip() or DEFAULT_MODEL,
            fallback_model=env.get("AGENT_FALLBACK_MODEL", "").strip() or None,
            offline=offline,
            log_file=env.get("AGENT_LOG_FILE", "").strip() or None,
            endpoints=Endpoints.from_env(env, lenient=offline),
            verbose=verbose,
            model_timeout_s=_number(env, "AGENT_MODEL_TIMEOUT", DEFAULT_MODEL_TIMEOUT_S),
            model_stall_s=_number(env, "AGENT_MODEL_STALL_TIMEOUT", DEFAULT_MODEL_STALL_S),
            turn_timeout_s=_number(env, "AGENT_TURN_TIMEOUT", DEFAULT_TURN_TIMEOUT_S),
            state_url=env.get("AGENT_STATE_URL", "").strip() or None,
            model_rpm=_number(
                env,
                "AGENT_MODEL_RPM",
                0.0,
                "must be a number of requests a minute (0: no limit)",
                zero_allowed=True,
            ),
            history=env.get("AGENT_HISTORY", "").strip().lower() not in _FALSE,
        )

    @property
    def claude_key(self) -> str | None:
        """The key to call Claude with; None when offline (forced, or for want of a key)."""
        return None if self.offline else self.api_key

    @property
    def banner(self) -> str | None:
        """The one-line notice shown when running offline, else None."""
        if not self.offline:
            return None
        how = (
            "set ANTHROPIC_API_KEY"
            if self.api_key is None
            else "drop --offline (and AGENT_OFFLINE)"
        )
        return (
            "Offline: a scripted model and simulated weather services answer here; "
            f"{how} to use Claude."
        )


def _number(
    env: Mapping[str, str],
    name: str,
    default: float,
    problem: str = "must be a positive number of seconds",
    *,
    zero_allowed: bool = False,
) -> float:
    """A finite number from `env[name]` (unset or empty: `default`), above 0 — or 0 itself
    where `zero_allowed`; anything else is `BadSetting(name, problem)`."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (value > 0 or (zero_allowed and value == 0))):
        raise BadSetting(name, problem)
    return value


# --- the secrets among them ----------------------------------------------------------------------

MIN_LENGTH = MIN_SECRET_LENGTH  # the redactor's own floor: registering shorter would do nothing
SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def register_configured_secrets(
    settings: Settings, env: Mapping[str, str], register: Callable[[str], None]
) -> int:
    """Hand every configured secret to `register`, once each; returns how many."""
    values = configured_secrets(settings, env)
    for value in values:
        register(value)
    return len(values)


def configured_secrets(settings: Settings, env: Mapping[str, str]) -> list[str]:
    """The values `register_configured_secrets` registers, longest first, without repeats."""
    found = {value for value in _candidates(settings, env) if len(value) >= MIN_LENGTH}
    return sorted(found, key=lambda value: (-len(value), value))


def _candidates(settings: Settings, env: Mapping[str, str]) -> Iterator[str]:
    if settings.api_key:
        yield settings.api_key.strip()
    endpoints = settings.endpoints
    urls = [settings.base_url, endpoints.geocoding_url, endpoints.forecast_url, endpoints.wttr_url]
    urls.append(settings.state_url)  # redis://user:password@host
    for url in urls:
        if url:
            yield from _url_secrets(url)
    for name, value in env.items():
        if name.upper().endswith(SECRET_SUFFIXES) and value.strip():
            yield value.strip()


def _url_secrets(url: str) -> Iterator[str]:
    """The query values and the user info of `url`, as written and decoded."""
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return
    for raw in (username, password):
        if raw:
            yield raw
            yield unquote(raw)
    for pair in parts.query.split("&"):
        _, _, raw = pair.partition("=")
        if raw:
            yield raw
            yield unquote_plus(raw)
