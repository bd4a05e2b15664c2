"""The circuit breaker's states, on a fake clock."""

from __future__ import annotations

from resilience import MAX_HOLD_S, CircuitBreaker
from tests.tools.fakes import FakeClock


def opened(clock: FakeClock, threshold: int = 3) -> CircuitBreaker:
    breaker = CircuitBreaker(threshold=threshold, cooldown_s=10, clock=clock)
    for _ in range(threshold):
        breaker.record_failure()
    return breaker


def test_closed_allows_calls(clock: FakeClock) -> None:
    """A new breaker is closed and lets every call through."""
    breaker = CircuitBreaker(clock=clock)
    assert breaker.state == "closed"
    assert all(breaker.allow() for _ in range(10))


def test_opens_at_the_threshold(clock: FakeClock) -> None:
    """The threshold-th failure in a row opens it, and says so."""
    breaker = CircuitBreaker(threshold=3, cooldown_s=10, clock=clock)
    assert [breaker.record_failure() for _ in range(4)] == [False, False, True, False]
    assert breaker.state == "open"
    assert not breaker.allow()


def test_success_resets_the_count(clock: FakeClock) -> None:
    """Failures must be in a row: a success in between starts the count again."""
    breaker = CircuitBreaker(threshold=2, clock=clock)
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    assert breaker.state == "closed"


def test_half_open_after_cooldown_lets_one_probe(clock: FakeClock) -> None:
    """Once cooled down, exactly one probe is allowed until it reports back."""
    breaker = opened(clock)
    clock.advance(10)
    assert breaker.state == "half_open"
    assert [breaker.allow(), breaker.allow()] == [True, False]


def test_probe_success_closes(clock: FakeClock) -> None:
    """A successful probe closes the circuit."""
    breaker = opened(clock)
    clock.advance(10)
    breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed"


def test_probe_failure_reopens_for_a_full_cooldown(clock: FakeClock) -> None:
    """A failed probe reopens the circuit for another whole cool-down."""
    breaker = opened(clock)
    clock.advance(10)
    breaker.allow()
    assert breaker.record_failure()
    assert (breaker.state, breaker.remaining_cooldown()) == ("open", 10)


def test_released_probe_lets_another_through(clock: FakeClock) -> None:
    """A probe cancelled before any verdict frees the slot for the next caller."""
    breaker = opened(clock)
    clock.advance(10)
    breaker.allow()
    breaker.release()
    assert breaker.allow()


def test_hold_opens_it_for_the_stated_period(clock: FakeClock) -> None:
    """A source that said "not before" is held open that long, whatever the threshold."""
    breaker = CircuitBreaker(threshold=5, cooldown_s=10, clock=clock)
    breaker.hold(3600)
    assert not breaker.allow()
    clock.advance(3599)
    assert breaker.state == "open"
    clock.advance(1)
    assert breaker.allow()


def test_a_hold_is_never_longer_than_a_day(clock: FakeClock) -> None:
    """ "Try again in 5000 hours" (or a 300-digit Retry-After) holds the circuit one day."""
    for seconds in (5000 * 3600.0, 1e300, float("inf")):
        breaker = CircuitBreaker(threshold=5, cooldown_s=10, clock=clock)
        breaker.hold(seconds)
        assert breaker.remaining_cooldown() == MAX_HOLD_S == 24 * 3600


def test_a_threshold_of_zero_never_opens(clock: FakeClock) -> None:
    """Threshold 0 turns the breaker off: failures never open it."""
    breaker = CircuitBreaker(threshold=0, clock=clock)
    assert not any(breaker.record_failure() for _ in range(10))
    assert breaker.allow()
