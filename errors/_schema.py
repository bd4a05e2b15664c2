"""The skill's output schema: six fields, nothing more, serialised as the skill's JSON."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Action", "ErrorAction"]


class Action(StrEnum):
    """Who acts next, and how."""

    RETRY = "retry"  # the same request may succeed in a moment
    WAIT = "wait"  # the same request will succeed after a pause the service asked for
    FIX_INPUT = "fix_input"  # the caller (model or user) must change something first
    SKIP = "skip"  # nothing to do: go on without this result
    ESCALATE = "escalate"  # someone else (admin, operator, upstream) must act

    @property
    def retries(self) -> bool:
        """Whether this action sends the same request again (and so is `retryable`)."""
        return self in _RETRYING


_RETRYING = frozenset({Action.RETRY, Action.WAIT})


class ErrorAction(BaseModel):
    """What a failure means and what happens next; only `user_message` reaches a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    error_type: str = Field(min_length=1, max_length=40)
    user_message: str = Field(min_length=1, max_length=240)
    action: Action
    action_detail: str = Field(min_length=1, max_length=300)
    retryable: bool
    developer_note: str = Field(min_length=1, max_length=400)

    @model_validator(mode="after")
    def _retry_means_retryable(self) -> ErrorAction:
        if self.action.retries != self.retryable:
            raise ValueError("retryable must be true exactly when action is retry or wait")
        return self

    def to_json(self) -> str:
        """The skill's JSON object, on one line (`model_dump_json`'s, without its wrapper)."""
        return _SERIALIZE(self).decode()

    def log_fields(self) -> dict[str, str | bool]:
        """The fields every failure's log event carries: never the user message, never the body."""
        return {
            "error_type": self.error_type,
            "action": self.action.value,
            "retryable": self.retryable,
            "developer_note": self.developer_note,
        }


_SERIALIZE = ErrorAction.__pydantic_serializer__.to_json
