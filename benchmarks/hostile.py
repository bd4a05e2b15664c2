"""The hostile table: each attack from the adversarial pass, run against the real CLI in a
child process of its own, so its wall time and peak RSS are the attack's alone.

A hostile server (`benchmarks.hostile_server`, threads on 127.0.0.1) plays the Messages API
and the weather APIs; `python -m agent …` is pointed at it through the environment, as a
person would run it. Each attack states the bounds it ran with and what a correct outcome
is; the soak at concurrency 100 runs in a child process too (`python -m benchmarks.hostile
--soak N`), with the shared clients and admission control a server would use.

    python scripts/bench.py --only hostile            # the full table, one attack at a time
    python scripts/bench.py --only hostile --quick    # small bounds and sizes, four at a time

The full table runs every attack with the default settings — the real bounds a person gets,
no timeout shortened — so it takes a few minutes: the stalled streams each end at their
no-progress window (30 s, twice) or their attempt's limit (120 s). `--quick` shortens those
windows to fractions of a second. Each attack's judge looks at the outcome only (exit code,
what was printed, what the server was sent, and for the memory attacks the peak RSS against a
generous cap), never at the time; a stalled stream still running at 150 s is killed and shows
"hung". `checks()` turns every row into one of the bench's checks, so a wrong outcome fails
`--quick`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.conversation import CHARS_PER_TOKEN
from agent.loop import Limits
from agent.records import BROKE_OFF
from agent.repl import HISTORY_NOTE, PROMPT
from agent.terminal import MAX_MARKS
from benchmarks.hostile_server import (
    HostileServer,
    Route,
    answer,
    big_body,
    deltas_forever,
    echo_tool_results,
    in_pieces,
    never_answers,
    pings_forever,
    raw_json,
    scripted,
    tool_uses,
    trickle,
    whitespace_forever,
)
from benchmarks.suite import Check
from offline._messages_wire import message_body, text_block, tool_results, tool_use_block

__all__ = ["AttackResult", "Hostile", "SoakCounts", "print_hostile", "run_hostile"]

REPO = Path(__file__).resolve().parent.parent
GUARD_S = {True: 90.0, False: 600.0}  # a child still running after this is killed ("hung")
STALLED_GUARD_S = 150.0  # a stalled stream, with the default bounds, ends well before this
AT_ONCE = {True: 4, False: 1}  # attacks run side by side: --quick trades clean timings for time
SOAK_QUESTIONS = {True: 200, False: 1000}
# Peak RSS caps for the memory attacks: generous (a child idles near 100 MB) but well below
# what the unbounded versions reached (a 50 MB body: 234 MB; 200 1 MB lines: 243 MB).
BIG_BODY_RSS_MB = 170.0
EXPLAIN_RSS_MB = 150.0
# explain-error --llm: the SDK loaded, and a batch of 8 lines of 1 MB in flight (each also as
# its request body); well below the 230 MB of 150 lines read before any was answered.
EXPLAIN_LLM_RSS_MB = 180.0
ESCAPES = "Four\x1b]0;pwned\x07.\x1b[2J\r"
# What changes how text reads without being seen, and a flood of combining marks.
UNSEEN = "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2069\ufeff"
UNSEEN_TEXT = f"Your file is{UNSEEN} txt.exe ready: Z" + "\u0301" * 400 + "algo"
_INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


@dataclass(frozen=True, slots=True)
class Child:
    """What one child process did."""

    code: int | None  # None: killed at the guard
    out: str
    err: str
    seconds: float
    peak_rss_mb: float


@dataclass(frozen=True, slots=True)
class AttackResult:
    """One row of the hostile table."""

    name: str
    bounds: str  # the settings the attack ran with
    outcome: str  # what happened, in a few words
    ok: bool  # the outcome the bounds promise
    exit_code: int | None
    seconds: float
    peak_rss_mb: float


@dataclass(frozen=True, slots=True)
class SoakCounts:
    """The soak at concurrency 100, as counted in its own process."""

    questions: int
    concurrency: int
    outcomes: dict[str, int]
    crashes: dict[str, int]
    protocol_errors: int
    leaks: int
    secret_hits: int
    refused: int
    p50_s: float
    p99_s: float
    seconds: float
    peak_rss_mb: float
    exit_code: int | None = 0

    @property
    def ok(self) -> bool:
        """No crash, protocol error, wrong answer or leak, and most questions answered right."""
        broken = sum(self.crashes.values()) + self.protocol_errors + self.leaks + self.secret_hits
        broken += self.outcomes.get("wrong", 0)
        correct = self.outcomes.get("correct", 0)
        return broken == 0 and correct >= 0.8 * self.questions

    @property
    def summary(self) -> str:
        """The counts in a line."""
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        return (
            f"{outcomes}; refused busy {self.refused}; crashes {sum(self.crashes.values())}, "
            f"protocol errors {self.protocol_errors}, leaks {self.leaks + self.secret_hits}"
        )


@dataclass(slots=True)
class Hostile:
    """The whole table."""

    quick: bool
    attacks: list[AttackResult] = field(default_factory=list)
    soak: SoakCounts | None = None
    problems: list[str] = field(default_factory=list)
    soak_questions: int = 0  # 0: the soak was skipped
    at_once: int = 1  # attacks run side by side
    seconds: float = 0.0

    def checks(self) -> list[Check]:
        """One check per attack (its outcome is the one its bounds promise), one that every
        attack could run, and the soak's."""
        checks = [Check(f"hostile: {a.name}", a.ok, a.outcome) for a in self.attacks]
        checks.append(
            Check("hostile: every attack ran", not self.problems, "; ".join(self.problems))
        )
        if self.soak_questions == 0:
            checks.append(Check("hostile: soak skipped", True))
        else:
            soak_ok = self.soak is not None and self.soak.ok
            detail = self.soak.summary if self.soak is not None else "did not run"
            checks.append(Check("hostile: soak at concurrency 100 clean", soak_ok, detail))
        return checks

    @property
    def ok(self) -> bool:
        """Every attack ended as its bounds promise, and the soak held up."""
        return all(check.ok for check in self.checks())

    def as_json(self) -> dict[str, Any]:
        return {
            "quick": self.quick,
            "at_once": self.at_once,
            "seconds": self.seconds,
            "attacks": [dataclasses.asdict(a) for a in self.attacks],
            "soak": dataclasses.asdict(self.soak) if self.soak else None,
            "problems": self.problems,
            "checks": [dataclasses.asdict(check) for check in self.checks()],
            "ok": self.ok,
        }


# --- running a child and measuring it ------------------------------------------------------


def run_child(
    argv: list[str],
    env: Mapping[str, str],
    stdin: Iterator[bytes] | None = None,
    guard_s: float = 90,
) -> Child:
    """`python -m argv…` with `env` and `stdin`, and its own peak RSS (see `_BOOT`)."""
    handle, hwm_file = tempfile.mkstemp(prefix="hostile-rss-")
    os.close(handle)
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-c", _BOOT, *argv],
        cwd=REPO,
        env={**env, _HWM_FILE: hwm_file},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    pipes = (process.stdin, process.stdout, process.stderr)
    if None in pipes:
        raise RuntimeError("the child's pipes did not open")
    child_in, child_out, child_err = pipes
    out: list[bytes] = []
    err: list[bytes] = []
    threads = [
        threading.Thread(target=_feed, args=(child_in, stdin or iter(())), daemon=True),
        threading.Thread(target=lambda: out.append(child_out.read()), daemon=True),  # type: ignore[union-attr]
        threading.Thread(target=lambda: err.append(child_err.read()), daemon=True),  # type: ignore[union-attr]
    ]
    for thread in threads:
        thread.start()
    killer = threading.Timer(guard_s, process.kill)
    killer.start()
    _, status, usage = os.wait4(process.pid, 0)
    killer.cancel()
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    for thread in threads:
        thread.join(5)
    for pipe in pipes:
        pipe.close()  # type: ignore[union-attr]
    killed = process.returncode < 0
    return Child(
        None if killed else process.returncode,
        b"".join(out).decode("utf-8", "replace"),
        b"".join(err).decode("utf-8", "replace"),
        seconds,
        _read_hwm_mb(hwm_file) or _rss_mb(usage.ru_maxrss),
    )


# `python -m module args…`, writing the process's peak RSS (VmHWM) to the file named in
# _HWM_FILE at exit. `wait4`'s ru_maxrss will not do: on Linux it counts the parent's pages
# the child shared between fork and exec, so every child of a big parent looks as big.
_HWM_FILE = "HOSTILE_BENCH_HWM_FILE"
_BOOT = f"""
import atexit, os, runpy, sys

def _hwm():
    try:
        with open("/proc/self/status") as status:
            kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        with open(os.environ["{_HWM_FILE}"], "w") as out:
            out.write(kb)
    except (OSError, StopIteration, KeyError):
        pass

atexit.register(_hwm)
del sys.argv[0]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _read_hwm_mb(path: str) -> float | None:
    """The child's own peak RSS in MB, or None (no /proc, or it was killed)."""
    try:
        text = Path(path).read_text().strip()
        return int(text) / 1024 if text else None
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _feed(pipe: Any, chunks: Iterator[bytes]) -> None:
    try:
        for chunk in chunks:
            pipe.write(chunk)
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _rss_mb(maxrss: int) -> float:
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def _base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in _INHERITED}


def _lines(*lines: str) -> Iterator[bytes]:
    for line in lines:
        yield (line + "\n").encode()


# --- the attacks ---------------------------------------------------------------------------


Judge = Callable[[Child, HostileServer], tuple[bool, str]]


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack: a server's behaviour, a command, the bounds, and how to judge the end."""

    name: str
    argv: list[str]
    messages: Route | None = None
    weather: Mapping[str, Route] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    stdin: Callable[[], Iterator[bytes]] = lambda: iter(())
    judge: Judge = lambda c, s: (c.code == 0, "")
    guard_s: float | None = None  # killed ("hung") past this; None: the table's guard


def _unanswered(child: Child, server: HostileServer) -> tuple[bool, str]:
    """Exit 1 and one plain sentence on stderr: the bound ended it."""
    asked = len(server.model_requests())
    lines = child.err.strip().splitlines()
    ok = (
        child.code == 1
        and len(lines) == 1
        and lines[0].endswith(".")
        and "Traceback" not in child.err
        and "\x1b" not in child.err
    )
    return ok, f"exit {child.code}, {len(lines)} sentence(s), {asked} model attempts"


def _rss_under(cap_mb: float, judge: Judge) -> Judge:
    """`judge`, and the child's peak RSS under `cap_mb`."""

    def judged(child: Child, server: HostileServer) -> tuple[bool, str]:
        ok, outcome = judge(child, server)
        under = child.peak_rss_mb < cap_mb
        return ok and under, f"{outcome}; peak RSS {'under' if under else 'OVER'} {cap_mb:.0f} MB"

    return judged


def _chat_cut(child: Child, server: HostileServer) -> tuple[bool, str]:
    """The REPL said one sentence and took the next line (here: the end of input)."""
    asked = len(server.model_requests())
    ok = (
        child.code == 0
        and "Asking Claude for an answer" in child.out
        and child.out.count(PROMPT) >= 2  # the prompt came back after the sentence
        and "\x1b" not in child.out
    )
    return ok, f"sentence shown, session went on, {asked} model attempts"


def _kept_and_marked(child: Child, server: HostileServer) -> tuple[bool, str]:
    """The REPL kept the text it had shown, marked it as cut off, asked once, and went on."""
    asked = len(server.model_requests())
    shown = child.out.count("and on")
    ok = (
        child.code == 0
        and shown > 0
        and BROKE_OFF in child.out
        and child.out.index("and on") < child.out.index(BROKE_OFF)
        and child.out.count(PROMPT) >= 2
        and asked == 1
    )
    said = f"'and on' {shown}x" if shown > 1 else "'and on'"
    return ok, f"{said} kept, marked as cut off, session went on, {asked} model attempt(s)"


def _plain_text(child: Child, server: HostileServer) -> tuple[bool, str]:
    """Printed without bidi controls, zero-width characters or a flood of marks."""
    out = child.out
    unseen = sum(out.count(char) for char in UNSEEN)
    marks = max((len(run) for run in re.findall("[\u0300-\u036f]+", out)), default=0)
    ok = child.code == 0 and unseen == 0 and 0 < marks <= MAX_MARKS and "algo" in out
    return ok, f"{unseen} unseen characters printed, at most {marks} marks on a letter"


def _line_refused(child: Child, server: HostileServer) -> tuple[bool, str]:
    """The 10 MB line was refused with a sentence, the next question asked and answered."""
    sizes = [len(json.dumps(body)) for body in server.model_requests()]
    ok = (
        child.code == 0
        and "nothing was sent" in child.out
        and "Four." in child.out
        and len(sizes) == 1
        and max(sizes) < 64 * 1024
    )
    largest = max(sizes, default=0)
    return ok, f"refused, {len(sizes)} request(s) sent, the largest {largest / 1024:.0f} KiB"


def _setting_refused(name: str) -> Judge:
    def judge(child: Child, server: HostileServer) -> tuple[bool, str]:
        asked = len(server.model_requests())
        lines = child.err.strip().splitlines()
        ok = child.code == 2 and len(lines) == 1 and name in lines[0] and asked == 0
        return ok, f"exit {child.code}, {len(lines)} line naming {name}, {asked} requests"

    return judge


def _weather_fell_back(child: Child, server: HostileServer) -> tuple[bool, str]:
    try:
        source = json.loads(child.out)["source"]
    except (ValueError, KeyError, TypeError):
        source = None
    forecasts = len(server.paths("/forecast"))
    ok = child.code == 0 and source == "wttr.in"
    return ok, f"answered from {source} after {forecasts} bad forecasts"


def _fanout(child: Child, server: HostileServer) -> tuple[bool, str]:
    requests = server.model_requests()
    results = tool_results(requests[1]["messages"][-1]) if len(requests) > 1 else []
    ran = sum(1 for r in results if not r.get("is_error"))
    ok = child.code == 0 and len(results) == 300 and ran == Limits().max_tool_calls
    return ok, f"{len(results)} results, {ran} run, {len(results) - ran} answered not run"


def _clean_text(child: Child, server: HostileServer) -> tuple[bool, str]:
    ok = child.code == 0 and child.out == "Four.\n"
    return ok, "printed without escape sequences" if ok else f"printed {child.out!r:.40}"


def _full_disk(child: Child, server: HostileServer) -> tuple[bool, str]:
    ok = child.code == 0 and child.out == "Four.\n" and "Something went wrong" not in child.err
    return ok, f"answered, exit {child.code}, log dropped with one notice"


def _explained(count: int) -> Judge:
    def judge(child: Child, server: HostileServer) -> tuple[bool, str]:
        written = len(child.out.splitlines())
        return child.code == 0 and written == count, f"{written} results"

    return judge


# The largest request a kept-in-budget history allows: the budget, plus the new question,
# the system prompt and the tool definitions (generously).
LARGEST_REQUEST = Limits().history_tokens * CHARS_PER_TOKEN + 32 * 1024


def _long_chat(turns: int) -> Judge:
    """Every turn answered, no request past the history budget, the person told once."""

    def judge(child: Child, server: HostileServer) -> tuple[bool, str]:
        sizes = [len(json.dumps(body)) for body in server.model_requests()]
        largest, total = max(sizes, default=0), sum(sizes)
        told = child.out.count(HISTORY_NOTE)
        ok = child.code == 0 and len(sizes) == turns and largest <= LARGEST_REQUEST and told == 1
        return ok, (
            f"largest request {largest / 1024:.0f} KiB, {total / 1024 / 1024:.1f} MiB sent, "
            f"told {told}x"
        )

    return judge


def _megabyte_lines(count: int) -> Callable[[], Iterator[bytes]]:
    def lines() -> Iterator[bytes]:
        for n in range(count):
            error = f"{n:06d} " + "x" * (1024 * 1024 - 8)
            yield json.dumps({"error": error, "operation": "calling an api"}).encode() + b"\n"

    return lines


def attacks(quick: bool) -> list[Attack]:
    """Every attack: with the default settings, or with `quick` the small bounds and sizes
    that keep the table short."""
    stalled = {"AGENT_MODEL_STALL_TIMEOUT": "0.5", "AGENT_MODEL_TIMEOUT": "1"} if quick else {}
    stalled_guard = GUARD_S[True] if quick else STALLED_GUARD_S
    weather_ask = echo_tool_results(
        message_body(
            tool_use_block("toolu_w", "get_weather", {"city": "Paris"}), stop_reason="tool_use"
        )
    )
    geo = raw_json(
        b'{"results": [{"name": "Paris", "latitude": 48.85, "longitude": 2.35, '
        b'"country_code": "FR", "country": "France", "admin1": "Ile-de-France"}]}'
    )
    j1 = raw_json(  # with the nearest area, or the agent rightly doubts it is Paris
        b'{"current_condition": [{"temp_C": "9", "humidity": "58", '
        b'"weatherCode": "122", "weatherDesc": [{"value": "Overcast"}]}], '
        b'"nearest_area": [{"areaName": [{"value": "Paris"}], "country": [{"value": "France"}]}], '
        b'"request": [{"query": "Paris", "type": "City"}]}'
    )
    nested = raw_json(b"[" * 50_000 + b"]" * 50_000)
    infinite = raw_json(b'{"current": {"temperature_2m": 8.8, "weather_code": 1e999}}')
    lines, turns, llm_lines = (20, 50, 20) if quick else (200, 200, 150)
    never = {"AGENT_TURN_TIMEOUT": "2"} if quick else {}
    attacks = [
        Attack(
            "model body trickles",
            ["agent", "ask", "hi"],
            trickle(),
            env=stalled,
            judge=_unanswered,
            guard_s=stalled_guard,
        ),
        Attack(
            "ping events forever",
            ["agent", "chat"],
            pings_forever(),
            env=stalled,
            stdin=lambda: _lines("hi"),
            judge=_chat_cut,
            guard_s=stalled_guard,
        ),
        Attack(
            "text deltas forever",
            ["agent", "chat"],
            deltas_forever(),
            env=stalled,
            stdin=lambda: _lines("hi"),
            judge=_kept_and_marked,
            guard_s=stalled_guard,
        ),
        Attack(
            "blank deltas after text, forever",
            ["agent", "chat"],
            whitespace_forever("and on"),
            env=stalled,
            stdin=lambda: _lines("hi"),
            judge=_kept_and_marked,
            guard_s=stalled_guard,
        ),
        Attack(
            "endpoint never answers",
            ["agent", "ask", "hi"],
            never_answers(),
            env=never,
            judge=_unanswered,
        ),
        Attack(
            "50 MB model answer",
            ["agent", "ask", "hi"],
            big_body(50),
            judge=_rss_under(BIG_BODY_RSS_MB, _unanswered),
        ),
        Attack(
            "forecast weather_code 1e999",
            ["agent", "ask", "weather in Paris?"],
            weather_ask,
            {"/geocoding": geo, "/forecast": infinite, "/wttr": j1},
            judge=_weather_fell_back,
        ),
        Attack(
            "forecast: 100 KB nested arrays",
            ["agent", "ask", "weather in Paris?"],
            weather_ask,
            {"/geocoding": geo, "/forecast": nested, "/wttr": j1},
            judge=_weather_fell_back,
        ),
        Attack(
            "300 tool_use in one reply",
            ["agent", "ask", "sums?"],
            scripted(tool_uses(300), message_body(text_block("Done."))),
            judge=_fanout,
        ),
        Attack(
            "escape sequences in the answer",
            ["agent", "ask", "2+2?"],
            answer(ESCAPES),
            judge=_clean_text,
        ),
        Attack(
            "bidi, zero-width, 400 marks in a reply",
            ["agent", "chat"],
            in_pieces(UNSEEN_TEXT, size=3),
            stdin=lambda: _lines("hi"),
            judge=_plain_text,
        ),
        Attack(
            "a 10 MB line typed into the chat",
            ["agent", "chat"],
            answer("Four."),
            stdin=lambda: _lines("x" * (10 * 1024 * 1024), "2+2?"),
            judge=_line_refused,
        ),
        Attack(
            "ANTHROPIC_BASE_URL with CR LF",
            ["agent", "ask", "2+2?"],
            answer("Four."),
            env={"ANTHROPIC_BASE_URL": "{base}/v1\r\nX-Injected: yes"},
            judge=_setting_refused("ANTHROPIC_BASE_URL"),
        ),
        Attack(
            f"{lines} distinct 1 MB lines to explain-error",
            ["agent", "explain-error"],
            stdin=_megabyte_lines(lines),
            judge=_rss_under(EXPLAIN_RSS_MB, _explained(lines)),
        ),
        Attack(
            f"{llm_lines} 1 MB lines to explain-error --llm",
            ["agent", "explain-error", "--llm"],
            answer("not JSON, so the rules answer"),
            stdin=_megabyte_lines(llm_lines),
            judge=_rss_under(EXPLAIN_LLM_RSS_MB, _explained(llm_lines)),
        ),
        Attack(
            f"{turns}-turn chat",
            ["agent", "chat"],
            answer("It is sunny and mild, " * 100),  # past the history budget by turn 40
            stdin=lambda: _lines(*(f"question {n}: " + "and also " * 40 for n in range(turns))),
            judge=_long_chat(turns),
        ),
    ]
    if os.path.exists("/dev/full"):
        attacks.append(
            Attack(
                "log file on a full disk",
                ["agent", "ask", "2+2?"],
                answer("Four."),
                env={"AGENT_LOG_FILE": "/dev/full"},
                judge=_full_disk,
            )
        )
    return attacks


def _bounds(attack: Attack) -> str:
    shown = {k: v for k, v in attack.env.items() if k.startswith("AGENT_")}
    return " ".join(f"{k.removeprefix('AGENT_')}={v}" for k, v in shown.items()) or "defaults"


def run_attack(attack: Attack, quick: bool) -> AttackResult:
    """One attack against a fresh server, in a child process whose saved conversations go to
    a folder of its own (never the person's)."""
    with (
        HostileServer(attack.messages, attack.weather) as server,
        tempfile.TemporaryDirectory(prefix="hostile-data-") as data,
    ):
        given = {name: value.format(base=server.base) for name, value in attack.env.items()}
        env = {**_base_env(), "AGENT_DATA_DIR": data, **server.env(**given)}
        if attack.argv[1:] == ["explain-error"]:
            env.pop("ANTHROPIC_API_KEY")  # the rules, not --llm: offline
        guard_s = attack.guard_s or GUARD_S[quick]
        child = run_child(attack.argv, env, attack.stdin(), guard_s)
        if child.code is None:
            ok, outcome = False, f"hung: killed after {guard_s:.0f} s"
        else:
            ok, outcome = attack.judge(child, server)
    return AttackResult(
        attack.name, _bounds(attack), outcome, ok, child.code, child.seconds, child.peak_rss_mb
    )


def run_soak(questions: int, guard_s: float) -> SoakCounts:
    """The soak at concurrency 100 in a child process of its own."""
    child = run_child(
        ["benchmarks.hostile", "--soak", str(questions)], {**_base_env()}, guard_s=guard_s
    )
    if child.code != 0:
        raise RuntimeError(f"the soak's child ended {child.code}: {child.err[-300:]}")
    counts = json.loads(child.out.strip().splitlines()[-1])
    return SoakCounts(**counts, seconds=child.seconds, peak_rss_mb=child.peak_rss_mb)


def run_hostile(
    *,
    quick: bool,
    soak_questions: int | None = None,
    only: Iterable[Attack] | None = None,
) -> Hostile:
    """Every attack (or `only` these), `AT_ONCE[quick]` at a time and in order in the table,
    then the soak at concurrency 100 (`soak_questions`, default by size; 0 skips it) on its
    own: beside the attacks, its CPU-bound questions would only time out."""
    started = time.perf_counter()
    questions = SOAK_QUESTIONS[quick] if soak_questions is None else soak_questions
    table = Hostile(quick, soak_questions=questions, at_once=AT_ONCE[quick])
    chosen = list(attacks(quick) if only is None else only)
    with ThreadPoolExecutor(table.at_once) as pool:
        futures = [(a, pool.submit(run_attack, a, quick)) for a in chosen]
        for attack, future in futures:
            try:
                table.attacks.append(future.result())
            except Exception as exc:  # an attack that cannot run is a finding, not the end
                table.problems.append(f"{attack.name}: {type(exc).__name__}: {exc}")
    if questions > 0:
        try:
            table.soak = run_soak(questions, GUARD_S[quick] * 4)
        except Exception as exc:
            table.problems.append(f"soak: {type(exc).__name__}: {exc}")
    table.seconds = time.perf_counter() - started
    return table


def print_hostile(table: Hostile) -> None:
    """The hostile table and the soak's counts, on stdout."""
    side = f", {table.at_once} at a time" if table.at_once > 1 else ""
    print(
        "\nHostile: each attack against the CLI in a child process of its own (its own wall "
        f"time and peak RSS{side})\n"
    )
    header = ("attack", "bounds", "ok", "exit", "wall", "peak RSS", "outcome")
    widths = (40, 34, 2, 4, 8, 9, 60)  # the outcome, last, is never cut
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for a in table.attacks:
        cells = (
            a.name,
            a.bounds,
            "✓" if a.ok else "✗",
            "—" if a.exit_code is None else str(a.exit_code),
            f"{a.seconds:.1f} s",
            f"{a.peak_rss_mb:.0f} MB",
            a.outcome,
        )
        shown = [c[:w].ljust(w) for c, w in zip(cells[:-1], widths, strict=False)]
        print("  ".join([*shown, cells[-1]]))
    soak = table.soak
    if soak is not None:
        print(
            f"\n  soak, {soak.questions} questions at concurrency {soak.concurrency} (admission "
            f"control on): {soak.summary}; p50 {soak.p50_s:.2f} s, p99 {soak.p99_s:.2f} s; "
            f"wall {soak.seconds:.1f} s, peak RSS {soak.peak_rss_mb:.0f} MB "
            f"{'✓' if soak.ok else '✗'}"
        )
    elif table.soak_questions == 0:
        print("\n  soak: skipped")
    for problem in table.problems:
        print(f"  (not run: {problem})")


# --- the soak's child process --------------------------------------------------------------


async def _soak(questions: int) -> dict[str, Any]:
    from agent.log import configure_logging
    from benchmarks.contenders import ThisAgent
    from benchmarks.harness import FaultServerProcess
    from benchmarks.soak import soak

    configure_logging()
    async with FaultServerProcess() as server:
        agent = ThisAgent()
        try:
            result = await soak(server, agent, questions, concurrency=100)
        finally:
            await agent.aclose()
    refused = agent._admission.refused if agent._admission else 0
    return {
        "questions": result.questions,
        "concurrency": result.concurrency,
        "outcomes": result.outcomes,
        "crashes": result.crashes,
        "protocol_errors": result.protocol_errors,
        "leaks": result.leaks,
        "secret_hits": result.secret_hits,
        "refused": refused,
        "p50_s": result.p50_s,
        "p99_s": result.p99_s,
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.hostile --soak N`: the soak, its counts as one JSON line."""
    parser = argparse.ArgumentParser(description="the hostile table's soak, in its own process")
    parser.add_argument("--soak", type=int, required=True)
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(_soak(args.soak))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
