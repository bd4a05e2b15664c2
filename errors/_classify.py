"""error_to_action: facts → rule → the six fields, with the retry bound applied."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from errors._facts import Facts, clean_text
from errors._facts_from import facts_from
from errors._phrasing import action_detail, developer_note, user_message
from errors._retry_after import MAX_WAIT_S, clamp_wait
from errors._rules import Rule, rule_for
from errors._schema import Action, ErrorAction
from errors._subject import subject_from

__all__ = ["Verdict", "classify", "error_to_action"]

_MAX_OPERATION = 300  # longer operations are cut before anything reads them
# Whatever the kind, a third attempt is the last: the skill's "not retryable after 2 retries".
MAX_RETRIES = 2


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision, plus what a retry loop needs beyond the six public fields."""

    result: ErrorAction
    facts: Facts
    # The wait before the retry, when the classifier knows it: the server's Retry-After
    # (clamped to [1 s, the cap]), or 0 for a connection that never opened. None: back off.
    wait_s: float | None

    @property
    def retryable(self) -> bool:
        """Whether the same request may be sent again."""
        return self.result.retryable

    @property
    def hint_s(self) -> float | None:
        """When it may be tried again, in seconds, unclamped: the server's Retry-After, a wait
        its words ask for, or the time until the period of a spent quota turns ("tomorrow":
        the next UTC midnight). A circuit breaker may stay open that long."""
        return self.facts.hint_s

    @property
    def beyond_cap(self) -> bool:
        """The server asked for longer than the cap: do not sleep; fall back or report it."""
        return self.hint_s is not None and self.wait_s is not None and self.hint_s > self.wait_s


def classify(
    error: BaseException | str,
    operation: str,
    user_context: str = "",
    retry_count: int = 0,
    *,
    max_wait_s: float = MAX_WAIT_S,
    now: datetime | None = None,
) -> Verdict:
    """Classify `error`, raised while doing `operation`, after `retry_count` retries.

    `max_wait_s` is the longest wait the caller will take (its cap, or the time it has left):
    a longer Retry-After is reported, not slept, and the words say so.
    """
    retry_count = max(0, retry_count)
    operation = clean_text(operation[:_MAX_OPERATION])  # cut, tidied and redacted, once
    context = f"{operation} {clean_text(user_context[:300])}" if user_context else operation
    facts = facts_from(error, now, context)
    rule = rule_for(facts)
    action = _bounded(rule, retry_count)
    wait = _wait(facts, action, max_wait_s)
    result = ErrorAction(
        error_type=rule.error_type,
        user_message=user_message(rule, facts, subject_from(operation), action, wait),
        action=action,
        action_detail=action_detail(rule, facts, action, wait),
        retryable=action.retries,
        developer_note=developer_note(facts, rule, operation, retry_count),
    )
    return Verdict(result, facts, wait)


def error_to_action(
    error: BaseException | str, operation: str, user_context: str = "", retry_count: int = 0
) -> ErrorAction:
    """The skill: a raw error (string or exception) → the six-field decision."""
    return classify(error, operation, user_context, retry_count).result


def _wait(facts: Facts, action: Action, cap: float) -> float | None:
    if action is Action.WAIT and facts.hint_s is not None:
        return clamp_wait(facts.hint_s, cap)
    if action is Action.RETRY and facts.connect_phase:
        return 0.0  # nothing was sent and no server is strained: reconnect at once
    return None


def _bounded(rule: Rule, retry_count: int) -> Action:
    """A retrying rule's action, or escalate once its retries (and the global cap) are spent."""
    if not rule.action.retries:
        return rule.action
    return rule.action if retry_count < min(rule.retries, MAX_RETRIES) else Action.ESCALATE
