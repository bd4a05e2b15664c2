"""The input a validation message names, so that the sentence can name it too.

JSON Schema ("'city' is a required property"), pydantic's printed errors ("people.1.dog_breed
Field required [type=missing"; "city Input should be a valid string"), and the common wordings
("Parameter 'q' not provided", "missing required field: city", "'city' is required"). A name is
kept only when it looks like one — an identifier of at most 30 characters — so no sentence of
an upstream body can pass for a field name.
"""

from __future__ import annotations

import re

__all__ = ["field_in"]

_MISSING = "is missing", "send it again with that value filled in"
_NULL = "is empty", "send it again with a value"
# Over the lower-cased text; the name is then taken, as written, from the original. Each row
# starts with words its pattern cannot match without: a substring test is far cheaper than a
# pattern that opens with a character class (tried at every position), so most rows are
# passed over without a scan.
_PATTERNS: tuple[tuple[str, re.Pattern[str], tuple[str, str]], ...] = (
    (
        " is a required property",
        re.compile(r"['\"](?P<name>\w+)['\"] is a required property"),
        _MISSING,
    ),
    (
        " field required [type=missing",
        re.compile(r"(?P<name>[\w.]+) field required \[type=missing"),
        _MISSING,
    ),
    (
        "parameter ",
        re.compile(r"\bparameter '?(?P<name>\w+)'? (?:is )?(?:not provided|missing|is required)"),
        _MISSING,
    ),
    (
        "missing required ",
        re.compile(r"missing required (?:field|parameter|property|argument)s?:? '?(?P<name>\w+)"),
        _MISSING,
    ),
    (" is required", re.compile(r"(?:field )?['\"](?P<name>\w+)['\"] is required"), _MISSING),
    # JSON Schema on a null: "None is not of type 'string'" … "On instance['units']"
    (
        "none is not of type '",
        re.compile(r"\bnone is not of type '\w+'.{0,200}?on instance\[['\"](?P<name>\w+)['\"]\]"),
        _NULL,
    ),
    (
        " input should be a valid ",
        re.compile(
            r"(?P<name>[\w.]+) input should be a valid (?P<kind>string|integer|number|boolean)"
        ),
        ("must be {1}", "send it again as {1}"),
    ),
)
_KINDS = {"string": "text", "integer": "a whole number", "number": "a number"}
_KINDS["boolean"] = "true or false"
_NOT_NAMES = frozenset({"value", "input", "field", "property", "parameter", "it", "this", "type"})


def field_in(text: str) -> tuple[str, str, str] | None:
    """(field, problem, fix) for the first input the text names as invalid, or None."""
    lowered = text.lower()
    same_places = len(lowered) == len(text)
    for needed, pattern, (problem, fix) in _PATTERNS:
        match = pattern.search(lowered) if needed in lowered else None
        if match is None:
            continue
        written = text[match.start("name") : match.end("name")] if same_places else match["name"]
        name = written.rsplit(".", 1)[-1]
        if _is_name(name):
            kind = _KINDS.get(match.groupdict().get("kind") or "", "")
            return name, problem.format(name, kind), fix.format(name, kind)
    return None


def _is_name(name: str) -> bool:
    return name.isidentifier() and len(name) <= 30 and name.lower() not in _NOT_NAMES
