"""The kinds table and the two failure-policy tables people read agree: every kind the rules
can give appears, with its action, in the README's table and in docs/failure-policy.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from errors import ErrorType
from errors._kinds import KINDS, Kind

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "docs/failure-policy.md")
_ACTION = re.compile(r"\b(retry|wait|fix_input|skip|escalate)\b")


def policy_rows(document: str) -> list[tuple[set[str], set[str]]]:
    """The failure-policy table of `document`: each row's error types and the actions its
    action cell names."""
    text = (REPO / document).read_text(encoding="utf-8")
    table = text.split("| failure | error_type | action |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((set(re.findall(r"`([a-z_]+)`", cells[1])), set(_ACTION.findall(cells[2]))))
    return rows


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: f"{kind.error_type}-{kind.action}")
def test_every_kind_is_in_the_policy_table_with_its_action(document: str, kind: Kind) -> None:
    """Some row of the table names the kind's error_type and its action."""
    rows = policy_rows(document)
    actions = [action for types, action in rows if kind.error_type in types]
    assert actions, f"{kind.error_type} is in no row of {document}'s failure-policy table"
    assert any(kind.action.value in named for named in actions), (kind.action, actions)


def test_the_table_has_a_row_for_every_error_type() -> None:
    """Every ErrorType the rules can give has its row in KINDS (so the tests above see it)."""
    assert {kind.error_type for kind in KINDS} == set(ErrorType)
