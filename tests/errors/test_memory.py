"""Bounded memory: nothing in error-to-action keeps, or works on, more than the cut text.

Texts are cut to their head and tail (`MAX_TEXT`) before anything reads them, and no
classification result is cached, so a stream of distinct huge errors costs nothing once each
is answered.
"""

from __future__ import annotations

import ast
import gc
import tracemalloc
from pathlib import Path

from errors import _facts, classify
from errors._facts import MAX_TEXT

ERRORS_DIR = Path(__file__).resolve().parents[2] / "errors"


def test_no_module_caches_by_input() -> None:
    """No errors module memoises on its input (functools caches were keyed on uncut text)."""
    for path in sorted(ERRORS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute | ast.Name)
        }
        assert not names & {"lru_cache", "cache", "cached_property"}, path.name


def test_the_word_memo_stays_bounded() -> None:
    """The memo of read words keeps at most its size in short tokens, however many pass."""
    for number in range(_facts._MEMO_SIZE + 5_000):
        _facts.word_forms(f"Token{number}Word")
    _facts.word_forms("x" * 10_000)
    assert len(_facts._MEMO) <= _facts._MEMO_SIZE
    assert all(len(token) <= _facts._MEMO_LONGEST for token in _facts._MEMO)


def test_what_is_kept_is_never_longer_than_the_cap() -> None:
    """A 1 MB error leaves at most the cap in the facts, and 400 characters in the note."""
    verdict = classify("503 " + "x" * 1_000_000, "Fetching the forecast")
    assert len(verdict.facts.text) <= MAX_TEXT
    assert len(verdict.result.developer_note) <= 400


def test_distinct_huge_errors_leave_nothing_behind() -> None:
    """Fifty distinct 1 MB errors, classified one after another, retain under 1 MB in all."""
    classify("warm-up " * 10, "Fetching the forecast")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(50):
            error = f"{number} ReadTimeout " + "y" * 1_000_000
            classify(error, "Fetching the forecast")
            del error
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert retained < 1_000_000
