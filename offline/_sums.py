"""Sums as people write them, for the offline scripted model: read whole, or not at all.

    read_sum("what is 1,000 * 3?")   → Sum("1,000 * 3", "1000 * 3", grouped=True)
    read_sum("15% of 80")            → Sum("15% of 80", "15 / 100 * 80")
    read_sum("2^10")                 → Sum("2^10", "2**10")
    read_sum("what is 1,5 * 2?")     → Unread("1,5 * 2", "“1,5” is not a number I can read; …")

A sum is a run of numbers and operators (symbols, or words: "plus", "times", "divided by",
"mod", "to the power of") with at least two numbers. Numbers may have a decimal point, an
exponent (1e3), a sign (-5 - -3) and commas between thousands (1,000,000); "N% of M" is a
percentage. What cannot be read so — a comma that is not a thousands separator, a "%"
that could be percent or remainder, operators that do not make a sum — is `Unread`, so the
model says it did not understand rather than working out a part of it ("1e3 * 2" is never
"3 * 2"). `Sum.written` keeps the person's own notation for the answer, `Sum.expression`
is what `calculate` is given, and `shown` writes a result as the person would.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = ["Sum", "Unread", "read_sum", "shown"]


@dataclass(frozen=True, slots=True)
class Sum:
    """A sum as written ("15% of 80"), as `calculate` takes it ("15 / 100 * 80"), and
    whether its numbers had commas between thousands (the answer then has them too)."""

    written: str
    expression: str
    grouped: bool = False


@dataclass(frozen=True, slots=True)
class Unread:
    """Something that looks like a sum but cannot be read whole, and what to write instead."""

    written: str
    why: str

    def reply(self) -> str:
        """What the model says instead of an answer."""
        return f"I couldn't read “{self.written}” as a sum: {self.why}"


# One token at a time; a number or a word never starts inside a word ("mp3", "max"),
# but a number may follow the "x" of "5x3".
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    | (?<![^\W\d_xX])(?P<number>\.?\d(?:[\d,.]*\d)?(?:[eE][+-]?\d+)?)
    | (?P<percent_of>%\s*of\b)
    | (?P<symbol>\*\*|//|[-+*/^%()×÷−])
    | (?<![^\W\d_])(?P<word>(?:to\ the\ power\ of|multiplied\ by|divided\ by|modulo|mod
                                |plus|minus|times)\b|x(?=\s*[\d(]))
    """,
    re.VERBOSE | re.IGNORECASE,
)
_NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SYMBOLS = {"^": "**", "×": "*", "÷": "/", "−": "-"}
_WORDS = {
    "plus": "+",
    "minus": "-",
    "times": "*",
    "x": "*",
    "multiplied by": "*",
    "divided by": "/",
    "mod": "%",
    "modulo": "%",
    "to the power of": "**",
}
_ARITHMETIC = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop)
_HOW = "write it with numbers, + - * / ^ and brackets, e.g. “12 * (3 + 4)”."

Token = tuple[str, str, int, int]  # kind, its text, start, end


def read_sum(text: str) -> Sum | Unread | None:
    """The longest sum in `text`, or what could not be read of one; None if it has none."""
    found = [read for run in _runs(text) if (read := _read(text, run)) is not None]
    unread = next((read for read in found if isinstance(read, Unread)), None)
    return unread or max(found, key=lambda read: len(read.written), default=None)


def _runs(text: str) -> list[list[Token]]:
    """The runs of sum tokens in `text`, each without the spaces around it: a run ends where
    something that is no token comes between two."""
    runs: list[list[Token]] = []
    end = -1
    for match in _TOKEN.finditer(text):
        if match.start() != end:
            runs.append([])
        end = match.end()
        if match.lastgroup and match.lastgroup != "space":
            runs[-1].append((match.lastgroup, match[0], match.start(), end))
    return [run for run in runs if run]


def _read(text: str, run: list[Token]) -> Sum | Unread | None:
    """A run as a sum: None with fewer than two numbers (a year, "-5", "20 degrees")."""
    run = _trimmed(run)
    if sum(1 for kind, *_ in run if kind == "number") < 2:
        return None
    written = " ".join(text[run[0][2] : run[-1][3]].split())
    parts: list[str] = []
    end = run[0][2]
    for kind, piece, start, stop in run:
        parts.append(text[end:start])  # the person's own spacing
        end = stop
        if kind == "number":
            if not _NUMBER.fullmatch(piece):
                return Unread(written, _bad_number(piece))
            parts.append(piece.replace(",", ""))
        elif kind == "percent_of":
            parts.append(" / 100 * ")
        elif kind == "word":
            parts.append(_WORDS[" ".join(piece.lower().split())])
        elif piece == "%":
            return Unread(written, _PERCENT)
        else:
            parts.append(_SYMBOLS.get(piece, piece))
    expression = " ".join("".join(parts).split())
    if not _is_arithmetic(expression):
        return Unread(written, _HOW)
    grouped = any(kind == "number" and "," in piece for kind, piece, _, _ in run)
    return Sum(written, expression, grouped)


def _trimmed(run: list[Token]) -> list[Token]:
    """A run without the operators hanging at its end ("2 + 2 =" is cut before "=",
    "… is 5 -" loses its "-") or an opening bracket left at its start."""
    while run and run[-1][0] != "number" and run[-1][1] != ")":
        run = run[:-1]
    while run and run[0][1] == ")":
        run = run[1:]
    return run


def _is_arithmetic(expression: str) -> bool:
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return all(isinstance(node, _ARITHMETIC) for node in ast.walk(tree))


_PERCENT = (
    "“%” there could mean percent or remainder; write “15% of 80” for a percentage, "
    "or “10 mod 3” for the remainder."
)


def _bad_number(token: str) -> str:
    return (
        f"“{token}” is not a number I can read; write a decimal with a point (1.5) "
        "and commas only between thousands (1,000)."
    )


def shown(value: object, *, grouped: bool = False) -> str:
    """A result as the person would write it: a whole number without ".0", and commas
    between thousands when their sum had them."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return f"{value:,}" if grouped else str(value)
