"""error_to_action: facts → rule → the six fields, with the retry bound applied."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from errors._facts import Facts, clean_text, facts_from
from errors._phrasing import action_detail, developer_note, user_message
from errors._retry_after import clamp_wait
from errors._rules import Rule, rule_for
from errors._schema import Action, ErrorAction

__all__ = ["Verdict", "classify", "error_to_action"]

# Whatever the kind, a third attempt is the last: the skill's "not retryable after 2 retries".
MAX_RETRIES = 2


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision, plus what a retry loop needs beyond the six public fields."""

    result: ErrorAction
    facts: Facts
    wait_s: float | None  # the wait to take before retrying (clamped), when action is wait
    hint_s: float | None  # the server's own hint, unclamped: beyond a cap, fall back instead

    @property
    def retryable(self) -> bool:
        """Whether the same request may be sent again."""
        return self.result.retryable


def classify(
    error: BaseException | str,
    operation: str,
    user_context: str = "",
    retry_count: int = 0,
    *,
    now: datetime | None = None,
) -> Verdict:
    """Classify `error`, raised while doing `operation`, after `retry_count` retries."""
    retry_count = max(0, retry_count)
    context = clean_text(f"{operation[:300]} {user_context[:300]}")
    facts = replace(facts_from(error, now), context=context)
    rule = rule_for(facts)
    action = _bounded(rule, retry_count)
    wait = clamp_wait(facts.hint_s) if action is Action.WAIT and facts.hint_s is not None else None
    result = ErrorAction(
        error_type=rule.error_type,
        user_message=user_message(rule, facts, operation, action, wait),
        action=action,
        action_detail=action_detail(rule, facts, action, wait),
        retryable=action.retries,
        developer_note=developer_note(facts, rule, operation, retry_count),
    )
    return Verdict(result, facts, wait, facts.hint_s)


def error_to_action(
    error: BaseException | str, operation: str, user_context: str = "", retry_count: int = 0
) -> ErrorAction:
    """The skill: a raw error (string or exception) → the six-field decision."""
    return classify(error, operation, user_context, retry_count).result


def _bounded(rule: Rule, retry_count: int) -> Action:
    """A retrying rule's action, or escalate once its retries (and the global cap) are spent."""
    if not rule.action.retries:
        return rule.action
    return rule.action if retry_count < min(rule.retries, MAX_RETRIES) else Action.ESCALATE
