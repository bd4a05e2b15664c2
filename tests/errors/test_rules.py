"""The rule table as data: every row explained and plain, and its index no different from a scan.

`rule_for` looks only at the rows whose gate the facts open; a property test checks that it
always picks the row a first-match scan of the whole table would.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from errors import plainness_problems
from errors._facts import Facts, Period, Signal
from errors._rules import RULES, rule_for

README = Path(__file__).resolve().parents[2] / "README.md"
_STATUSES = [None, 400, 401, 402, 403, 404, 408, 409, 410, 413, 422, 429, 500, 502, 503, 529]
_UPSTREAMS = sorted({upstream for rule in RULES for upstream in rule.upstreams})
_WORDS = ["push", "fork", "write", "access", "expired", "sso", "admin", "daily", "minute", "quota"]


def test_every_row_says_why_and_has_a_sentence() -> None:
    """Every row has a reason, a step for the caller and a sentence, most about the operation.

    Only a refused push speaks to the person directly ("You don't have write access …")."""
    for rule in RULES:
        assert len(rule.why) >= 10, rule.kind.error_type
        assert rule.kind.detail.strip(), rule.kind.error_type
        assert rule.kind.sentence.count("{subject}") == 1 or rule.kind.sentence.startswith(
            "You "
        ), rule


def test_every_sentence_is_plain() -> None:
    """Each row's sentence, about a plain operation, passes the plainness check and the cap."""
    for rule in RULES:
        sentence = rule.kind.sentence.replace("{subject}", "Fetching the forecast")
        assert not plainness_problems(sentence), (rule.kind.error_type, sentence)
        assert len(sentence) <= 240


def test_the_last_row_catches_everything() -> None:
    """The last row has no gate and no condition: there is always an answer."""
    last = RULES[-1]
    assert last.kind.error_type == "unknown"
    assert not (last.signals)
    assert not (last.statuses)
    assert not (last.upstreams)
    assert last.when is None


def test_every_kind_is_in_the_policy_table() -> None:
    """Every error_type the table can give is a row of README.md's failure policy."""
    readme = README.read_text(encoding="utf-8")
    policy = readme[readme.index("## Failure policy") : readme.index("## Where each pattern")]
    missing = {rule.kind.error_type for rule in RULES if f"`{rule.kind.error_type}`" not in policy}
    assert not missing


facts_strategy = st.builds(
    Facts,
    signal=st.sampled_from(list(Signal)),
    status=st.sampled_from(_STATUSES),
    upstream_type=st.sampled_from([None, *_UPSTREAMS]),
    signals=st.frozensets(st.sampled_from(list(Signal)), max_size=4),
    period=st.sampled_from([None, *Period]),
    billing=st.booleans(),
    words=st.frozensets(st.sampled_from(_WORDS), max_size=3),
    context=st.sampled_from(["", "Pushing the release branch", "Fetching the forecast"]),
    connect_phase=st.booleans(),
)


@given(facts_strategy)
def test_the_index_picks_what_a_scan_would(facts: Facts) -> None:
    """`rule_for`'s gate index gives the same row as trying every row in order."""
    scanned = next(rule for rule in RULES if rule.matches(facts))
    assert rule_for(facts) is scanned
