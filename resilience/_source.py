"""A source: one place an answer can come from, and what it is told about each attempt."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["AttemptInfo", "RetryOn", "Source", "retries_anything"]

T = TypeVar("T")

RetryOn = Callable[[Exception], bool]


def retries_anything(_error: Exception) -> bool:
    """The default `retry_on`: error-to-action alone decides."""
    return True


@dataclass(frozen=True, slots=True)
class AttemptInfo:
    """What a source's fetch function is told about the attempt it is making."""

    number: int  # 1-based
    retry_count: int
    after_timeout: bool = False  # the last attempt timed out: send a lighter request if any


@dataclass(frozen=True, slots=True)
class Source(Generic[T]):
    """A name and a function making one attempt.

    Every exception `fetch` raises is classified by error-to-action, which decides whether
    the same source is tried again. `retry_on` can only narrow that: a failure it returns
    false for is not retried (it still falls through to the next source).
    `trusted_not_found` says whether its "no such thing" may end a call as input to fix;
    an untrusted one is still not retried, but alone it leaves the call without an answer.
    """

    name: str
    fetch: Callable[[AttemptInfo], Awaitable[T]]
    trusted_not_found: bool = True
    retry_on: RetryOn = retries_anything
