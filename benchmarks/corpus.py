"""How well error-to-action recognises real errors: the real-world corpus, scored.

The corpus (`tests/errors/corpus/real_world.jsonl`) holds error texts copied verbatim from
public issue trackers and API documentation, one JSON object a line, each labelled by the
README's failure-policy table (`expect.action`, and `expect.error_type` where the kind is
clear). This module runs every line through the rules and reports:

- **action agreement**: the share of lines whose action is the labelled one;
- **full pass**: the share whose action *and* labelled kind agree and whose sentence passes
  `plainness_problems`;
- **unknown share**: the share that came back `unknown`.

`ratios()` gives the same figures to `scripts/bench.py`, where agreement below 97 % or an
unknown share above 3 % is a failed check (so `--quick` exits 1).

The held-out sets (`UNSEEN`: `tests/errors/corpus/unseen_*.jsonl`) are real texts from systems
the corpus does not cover, each collected before the work it measures and scored once for
the figure its issue reports; here each is held to the figure it had when it joined (its
`floor`), so that no later change quietly loses what it measured.

    python -m benchmarks.corpus            # the figures and every miss
    python -m benchmarks.corpus unseen_a   # a held-out set's
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.harness import REPO
from benchmarks.ratios import Ratio

__all__ = [
    "CORPUS_DIR",
    "CORPUS_PATH",
    "MAX_UNKNOWN",
    "MIN_AGREEMENT",
    "UNSEEN",
    "Outcome",
    "Score",
    "Unseen",
    "load",
    "main",
    "ratios",
    "score",
]

MIN_AGREEMENT = 0.97  # the bar the tests hold; `--quick` fails below it
MAX_UNKNOWN = 0.03

CORPUS_DIR = REPO / "tests" / "errors" / "corpus"
CORPUS_PATH = CORPUS_DIR / "real_world.jsonl"


@dataclass(frozen=True, slots=True)
class Unseen:
    """A held-out set and the figures it keeps: full pass at least, unknown at most."""

    path: Path
    full_pass: float
    unknown: float


UNSEEN = {
    # Set A (issue 18): 295 texts, 92 systems, 6 languages; measured before the work at
    # 39.0 % full pass, after it at the figure below.
    "unseen_a": Unseen(CORPUS_DIR / "unseen_a.jsonl", full_pass=0.90, unknown=0.04),
    # Set B (issue 18): 162 texts, 91 systems, 11 languages, collected while the work on A
    # went on and sealed until it was done: measured once at 54.9 % full pass, 22.2 % unknown;
    # then worked on (and a fresh set C collected to measure that work).
    "unseen_b": Unseen(CORPUS_DIR / "unseen_b.jsonl", full_pass=0.78, unknown=0.03),
    # Set C (issue 18): 162 texts, 106 systems, 14 languages, collected while set B was worked
    # on and sealed until then: measured once at 56.2 % full pass, 19.8 % unknown; then worked.
    "unseen_c": Unseen(CORPUS_DIR / "unseen_c.jsonl", full_pass=0.72, unknown=0.03),
    # Set D (issue 18): 162 texts, 95 systems, 13 languages, collected by a reader who had not
    # seen the classifier, labelled by the policy table alone (a 503 without a hint is a
    # server error): measured once at 58.6 % full pass, 23.5 % unknown; then worked on (words
    # said together: errors._vocab_words.PAIRS), with set E collected to measure that work.
    # (unknown 11.7 % after its round; 12.3 % since a status after "failed" is no longer read
    # as one: "Job failed 500 times" counts.)
    # (74.7 %, 9.9 % after the round worked on D, E and F together, before set G.)
    "unseen_d": Unseen(CORPUS_DIR / "unseen_d.jsonl", full_pass=0.74, unknown=0.10),
    # Set E (issue 18): 160 texts, 107 systems, 12 languages, collected while set D was worked
    # on, sealed until then, measured once after it: 53.8 % full pass, 17.5 % unknown (the
    # code before that work, run on it at the same time: 53.1 %, 20.0 %); then worked on
    # (glued words, "no … found", "already used"), with set F collected to measure that.
    # (65.6 %, 9.4 % after the round worked on D, E and F together, before set G.)
    "unseen_e": Unseen(CORPUS_DIR / "unseen_e.jsonl", full_pass=0.65, unknown=0.10),
    # Set F (issue 18): 160 texts, 116 systems, 9 languages, collected while E was worked on,
    # sealed until then; measured once with each version at the same time: before the pairs
    # of words 66.9 % full pass, 15.6 % unknown; with them 68.1 %, 13.1 %; after E's round
    # 68.8 %, 12.5 %. Then worked on with D and E (statuses after linking words, WinINet
    # codes, a page where data should start, cues refining a bare failure): 78.1 %, 4.4 %.
    "unseen_f": Unseen(CORPUS_DIR / "unseen_f.jsonl", full_pass=0.78, unknown=0.05),
    # Set G (issue 18): 132 texts, 92 systems, 11 languages, collected while D, E and F were
    # worked on, sealed until then; measured once with each version: at the session's start
    # 53.0 % full pass, 23.5 % unknown; after that round 54.5 %, 22.7 %. Then worked on
    # (words typed without accents, "No X named Y found", a rate of tokens, more causes):
    # 67.4 %, 15.2 %; 66.7 %, 15.9 % after a review took out readings that misfired.
    # (67.4 %, 15.2 % again after H's round: a card declined, "La tarjeta fue rechazada".)
    "unseen_g": Unseen(CORPUS_DIR / "unseen_g.jsonl", full_pass=0.67, unknown=0.16),
    # Set H (issue 18): 137 texts, 100 systems, 9 languages, collected while G was worked on,
    # sealed until then; measured once with each version at the same time: at the session's
    # start 71.5 % full pass, 12.4 % unknown; after the round on D, E and F 73.0 %, 11.7 %;
    # after G's round 73.0 %, 11.7 %. Then worked on (a transaction aborted, a payment its
    # bank declined, not enough free space, a value that must be unique, nginx's 499): 78.8 %,
    # 7.3 %; 78.8 %, 8.8 % after a review narrowed them.
    "unseen_h": Unseen(CORPUS_DIR / "unseen_h.jsonl", full_pass=0.78, unknown=0.09),
    # Set I (issue 18): 125 texts, 81 systems, 11 languages, collected while H was worked on,
    # sealed until then; measured once with each version at the same time: the session's
    # start 54.4 % full pass, 23.2 % unknown; after the round on D–F, after G's round (and the
    # review) and after H's round: 54.4 %, 21.6 % each. Not worked on.
    "unseen_i": Unseen(CORPUS_DIR / "unseen_i.jsonl", full_pass=0.54, unknown=0.22),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One corpus line and what the rules made of it."""

    row: dict[str, object]
    action: str
    error_type: str
    plain: bool

    @property
    def expected_action(self) -> str:
        """The labelled action."""
        return str(self.expect["action"])

    @property
    def expect(self) -> dict[str, object]:
        """The line's labels."""
        value = self.row["expect"]
        return value if isinstance(value, dict) else {}

    @property
    def action_agrees(self) -> bool:
        """Whether the action is the labelled one."""
        return self.action == self.expected_action

    @property
    def full_pass(self) -> bool:
        """Action and labelled kind agree, and the sentence is plain."""
        kind = self.expect.get("error_type")
        return self.action_agrees and kind in (None, self.error_type) and self.plain


@dataclass(frozen=True, slots=True)
class Score:
    """The corpus figures."""

    outcomes: Sequence[Outcome]

    @property
    def size(self) -> int:
        """Lines scored."""
        return len(self.outcomes)

    @property
    def action_agreement(self) -> float:
        """Share of lines whose action agrees."""
        return self._share(o.action_agrees for o in self.outcomes)

    @property
    def full_pass(self) -> float:
        """Share of lines that fully pass."""
        return self._share(o.full_pass for o in self.outcomes)

    @property
    def unknown_share(self) -> float:
        """Share of lines classified `unknown`."""
        return self._share(o.error_type == "unknown" for o in self.outcomes)

    def misses(self) -> list[Outcome]:
        """Lines that do not fully pass."""
        return [o for o in self.outcomes if not o.full_pass]

    def _share(self, flags: Iterable[bool]) -> float:
        return sum(flags) / self.size if self.size else 0.0


def load(path: Path = CORPUS_PATH) -> list[dict[str, object]]:
    """The corpus lines, in file order."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def score(rows: Sequence[dict[str, object]]) -> Score:
    """Classify every line with the rules and score it against its labels."""
    from errors import error_to_action, plainness_problems

    outcomes = []
    for row in rows:
        result = error_to_action(str(row["error"]), str(row.get("operation", "")))
        plain = not plainness_problems(result.user_message)
        outcomes.append(Outcome(row, result.action.value, result.error_type, plain))
    return Score(outcomes)


async def ratios() -> list[Ratio]:
    """The corpus figures as the bench's ratios; below the bar is a failed check."""
    result = score(load())
    sources = len({row["source"] for row in (o.row for o in result.outcomes)})
    details: dict[str, float | str] = {"texts": result.size, "sources": sources}
    agree, unknown, full = result.action_agreement, result.unknown_share, result.full_pass
    return [
        Ratio(
            "real-world corpus: action agreement",
            agree * 100,
            "%",
            f"≥ {MIN_AGREEMENT:.0%}",
            agree >= MIN_AGREEMENT,
            agree >= MIN_AGREEMENT,
            details,
        ),
        Ratio(
            "real-world corpus: unknown share",
            unknown * 100,
            "%",
            f"≤ {MAX_UNKNOWN:.0%}",
            unknown <= MAX_UNKNOWN,
            unknown <= MAX_UNKNOWN,
        ),
        Ratio("real-world corpus: full pass", full * 100, "%", "report", None, full > 0.9),
        *(_held(name, unseen) for name, unseen in UNSEEN.items()),
    ]


def _held(name: str, unseen: Unseen) -> Ratio:
    held = score(load(unseen.path))
    kept = held.full_pass >= unseen.full_pass and held.unknown_share <= unseen.unknown
    details: dict[str, float | str] = {"texts": held.size, "unknown %": held.unknown_share * 100}
    aim = f"≥ {unseen.full_pass:.0%} full, ≤ {unseen.unknown:.0%} unknown"
    return Ratio(f"held-out {name}: full pass", held.full_pass * 100, "%", aim, kept, kept, details)


def main(argv: Sequence[str] = ()) -> int:
    """Print the figures and the misses; 1 when a line could not be scored."""
    name = argv[0] if argv else "real_world"
    path = UNSEEN[name].path if name in UNSEEN else Path(name) if argv else CORPUS_PATH
    result = score(load(path))
    print(
        f"{name}: {result.size} texts · action agreement "
        f"{result.action_agreement:.1%} · full pass {result.full_pass:.1%} · unknown "
        f"{result.unknown_share:.1%}"
    )
    for miss in result.misses():
        labels = json.dumps(miss.expect)
        got = f"{miss.action}/{miss.error_type}{'' if miss.plain else ' (not plain)'}"
        print(f"  miss: {str(miss.row['error'])[:90]!r} expected {labels}, got {got}")
    return 0 if result.size else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
