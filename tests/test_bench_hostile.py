"""The bench's hostile table (benchmarks/hostile.py): its judges, its checks, and how
scripts/bench.py reports it. Facts only, never timings: no attack is run here.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agent.records import BROKE_OFF
from agent.repl import HISTORY_NOTE, PROMPT
from benchmarks import hostile
from benchmarks.hostile import AttackResult, Child, Hostile, SoakCounts
from tests.script_loader import BENCH
from tests.script_loader import load_script as load_script_at


class FakeServer:
    """What a judge asks of a hostile server: the model requests it saw, and paths."""

    def __init__(self, requests: list[dict[str, Any]] | None = None, paths: int = 0) -> None:
        self.requests = requests or []
        self.path_count = paths

    def model_requests(self) -> list[dict[str, Any]]:
        return self.requests

    def paths(self, _prefix: str) -> list[str]:
        return ["/forecast"] * self.path_count


def child(code: int | None = 0, out: str = "", err: str = "", rss: float = 90.0) -> Child:
    return Child(code, out, err, 1.0, rss)


def row(name: str = "attack", *, ok: bool = True) -> AttackResult:
    return AttackResult(name, "defaults", "what happened", ok, 0, 1.0, 90.0)


def soak(**changes: Any) -> SoakCounts:
    counts: dict[str, Any] = {
        "questions": 200,
        "concurrency": 100,
        "outcomes": {"correct": 195, "unavailable": 5},
        "crashes": {},
        "protocol_errors": 0,
        "leaks": 0,
        "secret_hits": 0,
        "refused": 0,
        "p50_s": 1.0,
        "p99_s": 2.0,
        "seconds": 10.0,
        "peak_rss_mb": 100.0,
    }
    return SoakCounts(**(counts | changes))


def table(*rows: AttackResult, soaked: SoakCounts | None = None, questions: int = 200) -> Hostile:
    return Hostile(True, list(rows), soaked, soak_questions=questions)


def judge(attack_name: str) -> hostile.Judge:
    return next(a.judge for a in hostile.attacks(quick=True) if a.name == attack_name)


# --- the checks ----------------------------------------------------------------------------


def test_every_row_right_is_every_check_passed() -> None:
    """One check per attack, one that every attack ran, one for the soak: all ✓."""
    checks = table(row("a"), row("b"), soaked=soak()).checks()
    assert [c.name for c in checks] == [
        "hostile: a",
        "hostile: b",
        "hostile: every attack ran",
        "hostile: soak at concurrency 100 clean",
    ]
    assert all(c.ok for c in checks)


def test_a_wrong_outcome_fails_its_check_and_the_table() -> None:
    """A row whose outcome is not the one its bounds promise is a failed check, named."""
    result = table(row("a"), row("b", ok=False), soaked=soak())
    failed = [c for c in result.checks() if not c.ok]
    assert [(c.name, c.detail) for c in failed] == [("hostile: b", "what happened")]
    assert result.ok is False
    assert result.as_json()["ok"] is False


def test_an_attack_that_could_not_run_fails_a_check() -> None:
    result = table(row("a"), soaked=soak())
    result.problems.append("b: OSError: no such file")
    assert not result.ok
    assert [c.name for c in result.checks() if not c.ok] == ["hostile: every attack ran"]


@pytest.mark.parametrize(
    "counts",
    [
        {"crashes": {"RuntimeError": 1}},
        {"protocol_errors": 1},
        {"leaks": 1},
        {"secret_hits": 1},
        {"outcomes": {"correct": 190, "wrong": 10}},
        {"outcomes": {"correct": 100, "unavailable": 100}},  # under 80 % correct
    ],
)
def test_a_soak_that_did_not_hold_up_fails_its_check(counts: dict[str, Any]) -> None:
    assert table(row(), soaked=soak(**counts)).ok is False


def test_a_soak_that_did_not_run_fails_unless_it_was_skipped() -> None:
    assert table(row(), soaked=None).ok is False
    skipped = table(row(), soaked=None, questions=0)
    assert skipped.ok
    assert "hostile: soak skipped" in [c.name for c in skipped.checks()]


# --- the judges ----------------------------------------------------------------------------


def test_unanswered_wants_exit_1_and_one_plain_sentence() -> None:
    ok = judge("model body trickles")
    sentence = "Asking Claude for an answer still isn't working; please try again later.\n"
    assert ok(child(1, err=sentence), FakeServer())[0]
    assert not ok(child(0, err=sentence), FakeServer())[0]  # answered: the bound never bit
    assert not ok(child(1, err="Traceback (most recent call last):\n  boom\n"), FakeServer())[0]
    assert not ok(child(1, err="one.\ntwo.\n"), FakeServer())[0]
    assert not ok(child(1, err="Cut \x1b[2Jshort.\n"), FakeServer())[0]


def test_the_memory_attacks_fail_past_their_rss_cap() -> None:
    big = judge("50 MB model answer")
    sentence = "The answer was too large to use.\n"
    assert big(child(1, err=sentence, rss=100), FakeServer())[0]
    ok, outcome = big(child(1, err=sentence, rss=hostile.BIG_BODY_RSS_MB + 1), FakeServer())
    assert not ok
    assert "OVER" in outcome


def test_the_chat_must_go_on_after_the_sentence() -> None:
    ok = judge("ping events forever")
    said = f"{PROMPT}Asking Claude for an answer still isn't working.\n{PROMPT}\n"
    assert ok(child(0, out=said), FakeServer())[0]
    assert not ok(child(0, out=f"{PROMPT}Asking Claude for an answer …\n"), FakeServer())[0]


def test_a_stream_cut_after_text_must_keep_it_marked_and_ask_once() -> None:
    ok = judge("text deltas forever")
    kept = f"{PROMPT}and on and on \n{BROKE_OFF}\n{PROMPT}\n"
    assert ok(child(0, out=kept), FakeServer([{}]))[0]
    assert not ok(child(0, out=kept), FakeServer([{}, {}]))[0]  # asked again in full
    failed = f"{PROMPT}and on and on \nAsking Claude for an answer …\n{PROMPT}\n"
    assert not ok(child(0, out=failed), FakeServer([{}, {}]))[0]  # not kept, not marked


def test_unseen_text_and_floods_must_not_be_printed() -> None:
    ok = judge("bidi, zero-width, 400 marks in a reply")
    assert ok(child(0, out="Your file is txt.exe ready: Z\u0301\u0301algo\n"), FakeServer())[0]
    assert not ok(child(0, out="Your file is\u202e txt.exe: Z\u0301algo\n"), FakeServer())[0]
    flood = "Z" + "\u0301" * 400 + "algo\n"
    assert not ok(child(0, out=flood), FakeServer())[0]


def test_a_huge_chat_line_must_be_refused_and_the_next_answered() -> None:
    ok = judge("a 10 MB line typed into the chat")
    said = f"{PROMPT}… nothing was sent …\n{PROMPT}Four.\n"
    assert ok(child(0, out=said), FakeServer([{"messages": ["2+2?"]}]))[0]
    sent = FakeServer([{"messages": ["x" * 10_000_000]}, {"messages": ["2+2?"]}])
    assert not ok(child(0, out=f"{PROMPT}Four.\n{PROMPT}Four.\n"), sent)[0]


def test_a_spoiled_url_must_be_refused_at_start_up() -> None:
    ok = judge("ANTHROPIC_BASE_URL with CR LF")
    line = (
        "agent: ANTHROPIC_BASE_URL must be an http(s) URL without spaces or control characters.\n"
    )
    assert ok(child(2, err=line), FakeServer())[0]
    crashed = "Something went wrong inside the agent, so there is no answer.\n"
    assert not ok(child(1, err=crashed), FakeServer([{}]))[0]


def test_the_weather_attacks_want_the_fallbacks_answer() -> None:
    ok = judge("forecast weather_code 1e999")
    fallback = json.dumps({"city": "Paris, France", "source": "wttr.in"})
    degraded = json.dumps({"city": "Paris", "degraded": True, "message": "unavailable"})
    assert ok(child(0, out=fallback), FakeServer(paths=2))[0]
    assert not ok(child(0, out=degraded), FakeServer(paths=2))[0]
    assert not ok(child(0, out="not json"), FakeServer())[0]


def test_fanout_wants_every_id_answered_and_only_the_cap_run() -> None:
    ok = judge("300 tool_use in one reply")
    ran, capped = {"content": "2"}, {"content": "not run", "is_error": True}

    def server(results: list[dict[str, Any]]) -> FakeServer:
        blocks = [
            {"type": "tool_result", "tool_use_id": f"t{n}", **r} for n, r in enumerate(results)
        ]
        return FakeServer([{}, {"messages": [{"role": "user", "content": blocks}]}])

    assert ok(child(0), server([ran] * 8 + [capped] * 292))[0]
    assert not ok(child(0), server([ran] * 300))[0]  # all 300 ran at once
    assert not ok(child(0), server([ran] * 8 + [capped] * 200))[0]  # ids left unanswered


def test_the_long_chat_fails_past_the_budget_or_without_the_note() -> None:
    ok = judge("50-turn chat")
    small = [{"messages": [{"content": "x" * 100}]}] * 50
    large = [*small[:-1], {"messages": [{"content": "x" * (hostile.LARGEST_REQUEST + 1)}]}]
    told = f"{HISTORY_NOTE}\n"
    assert ok(child(0, out=told), FakeServer(small))[0]
    assert not ok(child(0, out=told), FakeServer(large))[0]  # the history grew unbounded
    assert not ok(child(0, out=""), FakeServer(small))[0]  # the person was never told
    assert not ok(child(0, out=told * 2), FakeServer(small))[0]  # told more than once
    assert not ok(child(0, out=told), FakeServer(small[:10]))[0]  # turns went unanswered


def test_the_attacks_are_named_once_and_the_quick_bounds_are_shown() -> None:
    attacks = hostile.attacks(quick=True)
    names = [a.name for a in attacks]
    assert len(names) == len(set(names))
    assert hostile._bounds(attacks[0]) == "MODEL_STALL_TIMEOUT=0.5 MODEL_TIMEOUT=1"


def test_the_full_table_runs_every_attack_with_the_default_bounds() -> None:
    """No attack of the full table shortens a timeout or a window; each stalled stream is
    killed as hung if it is still running at 150 s."""
    attacks = hostile.attacks(quick=False)
    assert all(not name.endswith("_TIMEOUT") for a in attacks for name in a.env)
    stalled = [a for a in attacks if a.guard_s is not None]
    assert [a.name for a in stalled] == [
        "model body trickles",
        "ping events forever",
        "text deltas forever",
        "blank deltas after text, forever",
    ]
    assert all(a.guard_s == hostile.STALLED_GUARD_S == 150 for a in stalled)


# --- measuring a child ---------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (VmHWM)")
def test_a_childs_peak_rss_is_its_own_not_its_parents() -> None:
    """With a big parent, the child's peak RSS is still a small interpreter's (wait4's
    ru_maxrss counted the parent's pages the child shared between fork and exec)."""
    ballast = bytearray(b"x" * (200 * 1024 * 1024))  # 200 MB, every page touched
    try:
        ran = hostile.run_child(["json.tool"], hostile._base_env(), iter([b'{"a": 1}']))
    finally:
        del ballast
    assert (ran.code, json.loads(ran.out)) == (0, {"a": 1})
    assert 0 < ran.peak_rss_mb < 100  # json.tool needs about 10 MB


# --- scripts/bench.py --------------------------------------------------------------------


def load_script() -> ModuleType:
    return load_script_at(BENCH, "bench_script_hostile")


@pytest.mark.parametrize(("right", "code"), [(True, 0), (False, 1)])
def test_only_hostile_prints_the_table_and_fails_on_a_wrong_row(
    right: bool,
    code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--only hostile --quick`: the table and its checks; exit 1 when a row is wrong."""
    script = load_script()
    asked: dict[str, Any] = {}

    def fake_run_hostile(**kwargs: Any) -> Hostile:
        asked.update(kwargs)
        return table(row("trickle"), row("escapes", ok=right), soaked=soak())

    async def no_suite(_config: object) -> None:
        raise AssertionError("--only hostile ran the suite")

    monkeypatch.setattr(script, "run_hostile", fake_run_hostile)
    monkeypatch.setattr(script, "run_suite", no_suite)
    out = tmp_path / "bench.json"
    assert script.main(["--quick", "--only", "hostile", "--out", str(out)]) == code
    printed = capsys.readouterr().out
    assert asked == {"quick": True, "soak_questions": None}
    assert "Hostile:" in printed
    assert f"{'✓' if right else '✗'} hostile: escapes" in printed
    data = json.loads(out.read_text())
    assert data["broken"] is (not right)
    assert [a["name"] for a in data["hostile"]["attacks"]] == ["trickle", "escapes"]
    assert "runs" not in data  # the suite was not run


def test_the_report_without_the_hostile_table_is_as_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--only suite` (or an old caller): no hostile section, `hostile` null in the JSON."""
    script = load_script()
    script.print_report(None, quick=True)
    assert "Hostile" not in capsys.readouterr().out
    assert script.as_json(None)["hostile"] is None
    assert script.as_json(None, table(row("x", ok=False), soaked=soak()))["broken"] is True


def test_the_script_parses_its_options() -> None:
    script = load_script()
    args = script._parser().parse_args(["--only", "hostile", "--hostile-soak", "0"])
    assert (args.only, args.hostile_soak) == ("hostile", 0)
    with pytest.raises(SystemExit):
        script._parser().parse_args(["--only", "nothing"])
