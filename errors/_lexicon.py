"""Find every vocabulary term in a text in one pass, however many terms there are.

A text is normalised once (lower case, punctuation as spaces) and split into words. Each term
is indexed under one *anchor*, its longest word; the text's words are intersected with the
anchors (a set operation, in C), and only the terms under the anchors that occur are checked,
as whole words, against the text. The cost grows with the length of the text, not with the
size of the vocabulary, so adding a vocabulary costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter, itemgetter
from typing import NamedTuple

from errors import (
    _vocab_api,
    _vocab_clients,
    _vocab_db,
    _vocab_grpc,
    _vocab_http,
    _vocab_os,
    _vocab_tls,
    _vocab_words,
)
from errors._facts import Signal
from errors._term import ASCII_SEPARATORS, SEPARATORS, Term

__all__ = ["TERMS", "Words", "find", "read"]

TERMS: tuple[Term, ...] = (
    *_vocab_os.TERMS,
    *_vocab_tls.TERMS,
    *_vocab_http.TERMS,
    *_vocab_grpc.TERMS,
    *_vocab_db.TERMS,
    *_vocab_api.TERMS,
    *_vocab_clients.TERMS,
    *_vocab_words.TERMS,
)


# Under each anchor: the one-word terms (found as soon as the anchor is), and the longer
# phrases with their padded form, to be checked as whole words.
_Entry = tuple[tuple[Term, ...], tuple[tuple[str, Term], ...]]


def _index(terms: Iterable[Term]) -> dict[str, _Entry]:
    """Terms by anchor: the longest word of each phrase, the least likely to occur by chance."""
    words: dict[str, list[Term]] = {}
    phrases: dict[str, list[tuple[str, Term]]] = {}
    for found in terms:
        anchor = max(found.phrase.split(), key=len)
        if found.phrase == anchor:
            words.setdefault(anchor, []).append(found)
        else:
            phrases.setdefault(anchor, []).append((f" {found.phrase} ", found))
    anchors = words.keys() | phrases.keys()
    return {a: (tuple(words.get(a, ())), tuple(phrases.get(a, ()))) for a in anchors}


_INDEX = _index(TERMS)
_RANK = {id(term): rank for rank, term in enumerate(TERMS)}
_ANCHORS = frozenset(_INDEX)


class Words(NamedTuple):
    """A text read once: its normalised form (padded with spaces) and its set of words.

    (A named tuple: built once per text, and cheaper to build than a frozen dataclass.)
    """

    padded: str
    words: frozenset[str]


def read(text: str) -> Words:
    """`text` normalised and split, for `find` and the other readers."""
    lowered = text.lower()
    if lowered.isascii():  # the same translation, done on bytes (several times faster)
        split = lowered.encode().translate(ASCII_SEPARATORS).decode().split()
    else:
        split = lowered.translate(SEPARATORS).split()
    return Words(f" {' '.join(split)} ", frozenset(split))


def find(words: Words) -> list[Term]:
    """Every term whose words occur in the text, as whole words, in the order the text names
    them (then in vocabulary order): which of two reason phrases names the status must not
    depend on a set's order, which changes with the hash seed."""
    hits: list[tuple[int, int, Term]] = []
    padded = words.padded
    for anchor in words.words & _ANCHORS:
        single, phrases = _INDEX[anchor]
        if single:
            at = padded.find(f" {anchor} ")
            hits += [(at, _RANK[id(term)], term) for term in single]
        for phrase, candidate in phrases:  # a plain loop: most anchors have no phrase
            at = padded.find(phrase)
            if at >= 0:
                hits.append((at, _RANK[id(candidate)], candidate))
    hits.sort(key=_POSITION)
    return [term for _, _, term in hits]


_POSITION = itemgetter(0, 1)


def signals(found: Iterable[Term]) -> frozenset[Signal]:
    """The signals the found terms give."""
    return frozenset(map(_SIGNAL, found))


_SIGNAL = attrgetter("signal")
