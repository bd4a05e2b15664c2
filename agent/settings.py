"""Settings from the environment (the table in docs/contracts.md); the key never appears in a
repr."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tools import Endpoints, check_http_url

__all__ = ["DEFAULT_MODEL", "Settings"]

DEFAULT_MODEL = "claude-sonnet-4-6"
_TRUE = {"1", "true", "yes", "on"}


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

    def __post_init__(self) -> None:
        """Online needs a key; like the weather endpoints, a non-http(s) base URL is refused."""
        if not self.offline and self.api_key is None:
            raise ValueError("Settings(offline=False) needs an api_key")  # a caller's mistake
        if self.base_url is not None:
            check_http_url("ANTHROPIC_BASE_URL", self.base_url)

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        offline: bool = False,
        model: str | None = None,
        verbose: bool = False,
    ) -> Settings:
        """Settings for `env`: offline when asked to, or when there is no API key."""
        api_key = env.get("ANTHROPIC_API_KEY", "").strip() or None
        forced = offline or env.get("AGENT_OFFLINE", "").strip().lower() in _TRUE
        return cls(
            api_key=api_key,
            base_url=env.get("ANTHROPIC_BASE_URL", "").strip() or None,
            model=model or env.get("AGENT_MODEL", "").strip() or DEFAULT_MODEL,
            fallback_model=env.get("AGENT_FALLBACK_MODEL", "").strip() or None,
            offline=forced or api_key is None,
            log_file=env.get("AGENT_LOG_FILE", "").strip() or None,
            endpoints=Endpoints.from_env(env),
            verbose=verbose,
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
