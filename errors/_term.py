"""One row of a vocabulary: words an error uses, what they say, and why they mean it.

The vocabularies (`errors/_vocab_*.py`) are data: tuples of `Term`s, each with the source it
comes from in `why`. `errors._lexicon` indexes them all and finds them in a text.
"""

from __future__ import annotations

from typing import NamedTuple

from errors._facts import Signal

__all__ = ["ASCII_SEPARATORS", "SEPARATORS", "Term", "normalise", "term"]


class Term(NamedTuple):
    """Words that say `signal`; matched as whole words, case-insensitively."""

    phrase: str
    signal: Signal
    why: str
    connect: bool = False  # said before anything was sent (refused, DNS): reconnect at once
    billing: bool = False  # money is involved: a balance, a plan, billing
    status: int = 0  # an HTTP reason phrase: the status it names


def term(
    phrase: str, signal: Signal, why: str, *, connect: bool = False, billing: bool = False
) -> Term:
    """A row, its phrase normalised the way texts are (lower case, punctuation as spaces)."""
    return Term(normalise(phrase), signal, why, connect, billing)


_ASCII = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~\t\n\r\x0b\x0c"
SEPARATORS = str.maketrans(
    dict.fromkeys(_ASCII, " ") | {"\u2018": " ", "\u2019": " ", "\u201c": " ", "\u201d": " "}
)
# The same table for ASCII text as bytes: `bytes.translate` is several times faster than
# `str.translate` with a dict, and most error texts are ASCII.
ASCII_SEPARATORS = bytes.maketrans(_ASCII.encode(), b" " * len(_ASCII))


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces: the form phrases are matched in."""
    return " ".join(text.lower().translate(SEPARATORS).split())
