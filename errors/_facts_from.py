"""`facts_from`: any error — a raw string, one of ours, pydantic's or a foreign exception."""

from __future__ import annotations

from datetime import datetime

from pydantic import ValidationError

from errors import _exceptions as ours
from errors._facts import Facts, clean_text
from errors._from_exceptions import from_foreign, from_ours, from_validation
from errors._from_text import facts_from_text

__all__ = ["facts_from"]


def facts_from(error: BaseException | str, now: datetime | None = None, context: str = "") -> Facts:
    """The facts of `error`: a raw string, one of ours, or a foreign exception. `context` is
    the (cleaned) operation and user context, for the rows that depend on them."""
    if isinstance(error, str):
        return facts_from_text(clean_text(error), now, context)
    if isinstance(error, ours.ToolError):
        return from_ours(error, now)._replace(context=context)
    if isinstance(error, ValidationError):
        return from_validation(error)._replace(context=context)
    return from_foreign(error, now)._replace(context=context)
