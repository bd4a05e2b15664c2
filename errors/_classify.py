"""error-to-action: facts → recognition → kind → the six fields, and the step that follows.

    verdict = classify(error, "getting the weather for Paris", retry_count=0, max_wait_s=5)
    verdict.result       # the six fields, worded for now (a retry is promised if one follows)
    verdict.step         # Step.RETRY, Step.NEXT or Step.STOP
    verdict.wait_s       # RETRY: the wait the failure asks for; None: the caller's backoff
    verdict.final()      # the same, worded as the last failure of the call

One classification per failed attempt says everything a retry loop needs: whether to try the
same source again and after how long, whether to give the source up for the next one or end
the call, and what the source's circuit breaker learns (`verdict.kind.blame`). A caller only
adds its own bounds (attempts, deadline, retry budget): see `resilience`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from errors._exceptions import facts_from
from errors._facts import Facts, clean_text
from errors._kinds import Action, ErrorAction, Kind, Step
from errors._rules import rule_for
from errors._text import MAX_WAIT_S, clamp_wait, named_value
from errors._wording import action_detail, developer_note, subject_from, user_message

__all__ = ["MAX_RETRIES", "Verdict", "classify", "error_to_action"]

_MAX_OPERATION = 300  # longer operations are cut before anything reads them
# Whatever the kind, a third attempt is the last: the skill's "not retryable after 2 retries".
MAX_RETRIES = 2


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one failed attempt means and what follows it."""

    result: ErrorAction  # the six fields, for this attempt
    facts: Facts
    kind: Kind
    step: Step
    # RETRY: the wait before the next attempt when the failure says it — the server's
    # Retry-After (clamped to [1 s, the cap]), or 0 for a connection that never opened.
    # None: the caller backs off.
    wait_s: float | None
    operation: str  # cleaned
    retry_count: int

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

    def final(self) -> Verdict:
        """This verdict as the last failure of a call: one that would have retried is worded
        as spent, so no sentence promises a retry that will not come (a wait beyond the cap
        keeps its "try again in …"), and its step is what follows a spent source."""
        if self.step is not Step.RETRY:
            return self
        action, retries = Action.ESCALATE, self.retry_count
        spent = _result(self.kind, self.facts, self.operation, action, None, retries)
        return replace(self, result=spent, step=self.kind.then, wait_s=None)


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
    kind = rule_for(facts).kind
    if kind.action is Action.FIX_INPUT and facts.what is None and facts.text:
        facts = _named(facts)
    action = _bounded(kind, retry_count)
    if facts.retry_said is False and action.retries:  # the server says another try will fail
        action = Action.ESCALATE
    wait = _wait(facts, action, max_wait_s)
    result = _result(kind, facts, operation, action, wait, retry_count)
    verdict = Verdict(result, facts, kind, Step.RETRY, wait, operation, retry_count)
    if not action.retries or verdict.beyond_cap:
        return replace(verdict, step=kind.then)
    return verdict


def error_to_action(
    error: BaseException | str, operation: str, user_context: str = "", retry_count: int = 0
) -> ErrorAction:
    """The skill: a raw error (string or exception) → the six-field decision."""
    return classify(error, operation, user_context, retry_count).result


def _result(
    kind: Kind, facts: Facts, operation: str, action: Action, wait: float | None, retries: int
) -> ErrorAction:
    return ErrorAction(
        error_type=kind.error_type,
        user_message=user_message(kind, facts, subject_from(operation), action, wait),
        action=action,
        action_detail=action_detail(kind, facts, action, wait),
        retryable=action.retries,
        developer_note=developer_note(facts, kind, operation, retries),
    )


def _named(facts: Facts) -> Facts:
    """The facts with the thing the error is about and the caller's value for it, for a
    sentence that asks the caller to correct something (looked for only then)."""
    named = named_value(facts.text, facts.context)
    return facts if named is None else facts._replace(what=named[0], subject=named[1])


def _wait(facts: Facts, action: Action, cap: float) -> float | None:
    if action is Action.WAIT and facts.hint_s is not None:
        return clamp_wait(facts.hint_s, cap)
    if action is Action.RETRY and facts.connect_phase:
        return 0.0  # nothing was sent and no server is strained: reconnect at once
    return None


def _bounded(kind: Kind, retry_count: int) -> Action:
    """A retrying kind's action, or escalate once its retries (and the global cap) are spent."""
    if not kind.action.retries:
        return kind.action
    return kind.action if retry_count < min(kind.retries, MAX_RETRIES) else Action.ESCALATE
