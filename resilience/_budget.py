"""A retry budget per running agent, so a storm of failures cannot multiply the load.

It is gRPC's retry throttling: every failed attempt takes a token, every success gives back a
fraction of one, and retries are allowed only while more than half the tokens remain.
"""

from __future__ import annotations

__all__ = ["RetryBudget"]


class RetryBudget:
    """A token bucket shared by every tool call of one agent."""

    def __init__(self, max_tokens: float = 20.0, token_ratio: float = 0.2) -> None:
        if max_tokens <= 0 or token_ratio < 0:
            raise ValueError("max_tokens must be positive and token_ratio not negative")
        self.max_tokens = max_tokens
        self.token_ratio = token_ratio
        self._tokens = max_tokens

    @property
    def tokens(self) -> float:
        """Tokens left."""
        return self._tokens

    def allows_retry(self) -> bool:
        """Whether one more retry may be sent now."""
        return self._tokens > self.max_tokens / 2

    def record_failure(self) -> None:
        """A failed attempt costs one token."""
        self._tokens = max(0.0, self._tokens - 1)

    def record_success(self) -> None:
        """A success earns back a fraction of a token."""
        self._tokens = min(self.max_tokens, self._tokens + self.token_ratio)
