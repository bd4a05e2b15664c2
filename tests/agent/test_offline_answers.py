"""`agent ask` offline, in a child process as a person runs it: never confidently wrong.

The answer is for the place asked, or says which place it is and why; a sum is worked out
whole and shown as the person wrote it, or the model says it could not read it.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Where the gazetteer's index was built once: kept, so a child does not build it again; and
# the test's own folder for saved conversations (`tests/conftest.py`), never the person's.
_KEPT = ("HOME", "XDG_CACHE_HOME", "AGENT_CACHE_DIR", "AGENT_DATA_DIR")


def _run(question: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "", "NO_COLOR": "1"} | {k: v for k in _KEPT if (v := os.environ.get(k))}
    return subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        [sys.executable, "-m", "agent", "ask", question],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


@functools.cache
def _answers() -> dict[str, subprocess.CompletedProcess[str]]:
    """Every question of this module asked at once, each in a child process of its own."""
    questions = [q for q in ASKED if isinstance(q, str)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(questions, pool.map(_run, questions), strict=True))


def ask(question: str) -> str:
    """`python -m agent ask QUESTION` without ANTHROPIC_API_KEY: its stdout (exit 0)."""
    done = _answers().get(question) or _run(question)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# --- item 1: the place asked, or a note saying which place and why --------------------------


SHORT_FORMS = [
    ("What's the weather in St. Louis?", "In St. Louis, United States it's "),
    ("What's the weather in St. John's?", "In St. John's, Canada it's "),
    ("What's the weather in Ft. Worth?", "In Fort Worth, United States it's "),
    ("What's the weather in Mt. Vernon?", "In Mount Vernon, New York, United States it's "),
]


@pytest.mark.parametrize(
    ("question", "begins"),
    SHORT_FORMS,
)
def test_a_name_with_short_forms_is_read_whole(question: str, begins: str) -> None:
    """ "St.", "Ft.", "Mt." do not end the place: St. Louis is never Sète, Ft. Worth never
    "Ft"."""
    answer = ask(question)
    assert answer.startswith(begins), answer
    assert "Sète" not in answer


def test_a_misspelled_name_is_answered_with_a_note() -> None:
    """ "Londn" is answered for London with a note that the name was read so."""
    answer = ask("What's the weather in Londn?")
    assert answer.startswith("In London, United Kingdom it's "), answer
    assert answer.endswith("(“Londn” was read as London, United Kingdom.)")


def test_a_shared_name_says_which_and_that_others_share_it() -> None:
    """ "Springfield" is answered for one, with a note naming it and the others."""
    answer = ask("What's the weather in Springfield?")
    assert answer.startswith("In Springfield, Missouri, United States it's "), answer
    assert (
        "(Several places are called Springfield; this is Springfield, Missouri, United "
        "States. Others: Springfield, Massachusetts, United States; "
    ) in answer


def test_a_fragment_is_not_read_as_a_city() -> None:
    """ "St" alone is no place: the answer asks for the name, and no weather is given."""
    answer = ask("What's the weather in St?")
    assert answer == (
        "Sorry — getting the weather for St stopped because no place called “St” could be "
        "found; check the name and try again."
    )


# --- item 2: a region hint in initials, with no false note ----------------------------------


def test_washington_dc_is_one_place_with_no_note() -> None:
    """ "Washington, D.C." is the District of Columbia: one answer, no note."""
    answer = ask("What's the weather in Washington, D.C.?")
    assert answer.startswith("In Washington, District of Columbia, United States it's "), answer
    assert answer.count(" it's ") == 1
    assert "(" not in answer


# --- item 3: a sum read whole and shown as written, or said not to be understood ------------


SUMS = [
    ("what is 1e3 * 2", "1e3 * 2 = 2000."),
    ("1,000 * 3", "1,000 * 3 = 3,000."),
    ("-5 - -3", "-5 - -3 = -2."),
    ("15% of 80", "15% of 80 = 12."),
    ("2^10", "2^10 = 1024."),
    ("what is 3 times (4 + 5)?", "3 times (4 + 5) = 27."),
]


@pytest.mark.parametrize(
    ("question", "answer"),
    SUMS,
)
def test_a_sum_is_worked_out_whole_in_the_persons_notation(question: str, answer: str) -> None:
    """Exponents, thousands separators, signs, percentages and ^ are read whole; the
    answer repeats the sum as the person wrote it."""
    assert ask(question) == answer


UNREADABLE_SUMS = [
    (
        "what is 1,5 * 2?",
        "I couldn't read “1,5 * 2” as a sum: “1,5” is not a number I can read; write a "
        "decimal with a point (1.5) and commas only between thousands (1,000).",
    ),
    (
        "10 % 3",
        "I couldn't read “10 % 3” as a sum: “%” there could mean percent or remainder; "
        "write “15% of 80” for a percentage, or “10 mod 3” for the remainder.",
    ),
]


@pytest.mark.parametrize(
    ("question", "answer"),
    UNREADABLE_SUMS,
)
def test_a_sum_that_cannot_be_read_whole_is_said(question: str, answer: str) -> None:
    """No part of a sum is worked out as if it were the whole: the model says what it could
    not read and how to write it."""
    assert ask(question) == answer


# --- several places in one question ---------------------------------------------------------


SEVERAL = [
    ("Is it colder in Oslo than in Rome?", ["Oslo, Norway", "Rome, Italy"]),
    ("Weather in Paris? And Tokyo?", ["Paris, France", "Tokyo, Japan"]),
    ("What's the weather in Paris and in Lima?", ["Paris, France", "Lima, Peru"]),
]


@pytest.mark.parametrize(
    ("question", "places"),
    SEVERAL,
)
def test_each_place_of_a_question_is_answered(question: str, places: list[str]) -> None:
    """Every place a question names gets its own answer."""
    answer = ask(question)
    assert [part.split(" it's ")[0] for part in answer.split(". ")] == [
        f"In {place}" for place in places
    ]


def test_a_place_that_cannot_be_read_is_said() -> None:
    """A part with digits is not a place: the others are answered, and it is named."""
    answer = ask("What's the weather in Paris and 75001?")
    assert answer.startswith("In Paris, France it's ")
    assert answer.endswith("I couldn't read “75001” as a place.")


# Every question above, so that all are asked at once.
ASKED = [
    *(question for question, _ in SHORT_FORMS),
    "What's the weather in Londn?",
    "What's the weather in Springfield?",
    "What's the weather in St?",
    "What's the weather in Washington, D.C.?",
    *(question for question, _ in SUMS),
    *(question for question, _ in UNREADABLE_SUMS),
    *(question for question, _ in SEVERAL),
    "What's the weather in Paris and 75001?",
]
