"""Start-up: how long the first commands a person runs take, as ratios to a bare baseline.

Each command is a fresh interpreter, timed from spawn to exit (or, for `agent chat`, to its
first prompt on stdout): `agent --help`, offline `agent ask` for a sum and for the weather,
`agent explain-error` on one line, and `agent chat` with a key (the SDK must not hold up the
prompt) and offline. The baseline is `python -c "import httpx, pydantic"`, timed in the same
rounds, so a busy machine slows both sides alike: the commands and the baseline take turns,
round after round (the order rotating), and each row is the median of its runs, divided by
the baseline's median.

Start-up has no answer cache to hit, but two things are warmed first, and said so: the
weather gazetteer (an SQLite file built once into ~/.cache/failsafe-agent; the first run
builds it) and the bytecode and OS file caches (one untimed run of every command). The saved
conversations live in a temporary folder for the bench (AGENT_DATA_DIR): empty at the start,
as on a person's first run, and holding only the bench's own questions.

`python -m benchmarks.startup [--quick]` prints the table.
"""

from __future__ import annotations

import argparse
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from benchmarks.harness import REPO

__all__ = ["AIM", "CASES", "Case", "Row", "Startup", "main", "print_startup", "run_startup"]

AIM = 2.0  # offline `agent ask`: at most 2 × the baseline (plain imports, no import hook)
BASELINE = "python -c 'import httpx, pydantic'"
PROMPT = "you› "  # agent.repl.PROMPT (not imported: that would load the REPL here)
_EXPLAIN_LINE = (
    '{"error": "ConnectionResetError: [Errno 104] Connection reset by peer", '
    '"operation": "fetching the weather"}\n'
)
_KEY = {"ANTHROPIC_API_KEY": "sk-ant-startup-bench", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
_TIMEOUT_S = 60.0
_PROMPT_WAIT_S = 20.0  # then `/quit` is sent anyway, and the case is timed to its exit


@dataclass(frozen=True, slots=True)
class Case:
    """One command: its arguments after `python`, its stdin, extra environment, and whether
    it is timed to its first prompt (then `/quit` is sent) rather than to its exit."""

    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    to_prompt: bool = False
    aim: float | None = None


CASES: tuple[Case, ...] = (
    Case(BASELINE, ("-c", "import httpx, pydantic")),
    Case("agent --help", ("-m", "agent", "--help")),
    Case("agent ask --help", ("-m", "agent", "ask", "--help")),
    Case(
        'agent ask --offline "What\'s 2+2?"',
        ("-m", "agent", "ask", "--offline", "What's 2+2?"),
        aim=AIM,
    ),
    Case(
        'agent ask --offline "Weather in Rome?"',
        ("-m", "agent", "ask", "--offline", "Weather in Rome?"),
        aim=AIM,
    ),
    Case("agent explain-error (one line)", ("-m", "agent", "explain-error"), stdin=_EXPLAIN_LINE),
    Case(
        "agent chat --offline, to the prompt", ("-m", "agent", "chat", "--offline"), to_prompt=True
    ),
    Case("agent chat with a key, to the prompt", ("-m", "agent", "chat"), env=_KEY, to_prompt=True),
)


@dataclass(frozen=True, slots=True)
class Row:
    """One command's median wall time and its ratio to the baseline's."""

    case: Case
    median_s: float
    ratio: float
    runs: int
    reached_prompt: bool = True  # False: the prompt never showed; timed to exit instead

    @property
    def met(self) -> bool | None:
        return None if self.case.aim is None else self.ratio <= self.case.aim


@dataclass(frozen=True, slots=True)
class Startup:
    """The table, and the machine it was measured on."""

    baseline_s: float
    rows: tuple[Row, ...]
    runs: int
    cpus: int
    load: tuple[float, float, float]
    python: str


def run_startup(quick: bool = False, cases: Sequence[Case] = CASES) -> Startup:
    """Time every case (`cases[0]` is the baseline) in rotating rounds: 7 runs each with
    `quick`, else 15; the medians and their ratios to the baseline's."""
    runs = 7 if quick else 15
    times: dict[str, list[float]] = {case.name: [] for case in cases}
    prompts: dict[str, bool] = {case.name: True for case in cases}
    with tempfile.TemporaryDirectory(prefix="startup-data-") as data:
        # Saved conversations in a folder of the bench's own: they start empty, as on a first
        # run, rather than at whatever size this machine's have grown to (opening them checks
        # the whole file), and the bench's questions never land among yours.
        env = {**_clean_env(), "AGENT_DATA_DIR": data}
        _warm(cases, env)
        for round_ in range(runs):
            shift = round_ % len(cases)
            for case in (*cases[shift:], *cases[:shift]):
                seconds, prompted = _time(case, env)
                times[case.name].append(seconds)
                prompts[case.name] = prompts[case.name] and prompted
    baseline = statistics.median(times[cases[0].name])
    rows = tuple(
        Row(
            case,
            statistics.median(times[case.name]),
            statistics.median(times[case.name]) / baseline,
            runs,
            prompts[case.name],
        )
        for case in cases
    )
    return Startup(
        baseline, rows, runs, os.cpu_count() or 1, os.getloadavg(), sys.version.split()[0]
    )


def print_startup(result: Startup) -> None:
    """The start-up table, on stdout."""
    print(
        f"\nStart-up: median wall time of {result.runs} runs each, fresh interpreters, "
        f"as ratios to `{BASELINE}` in the same rounds"
    )
    one, five, fifteen = result.load
    print(
        f"(Python {result.python}, {result.cpus} CPUs, load average {one:.2f} {five:.2f} "
        f"{fifteen:.2f}; gazetteer cache and bytecode warmed by one untimed run of each; saved "
        "conversations in a fresh folder)\n"
    )
    width = max(len(row.case.name) for row in result.rows)
    print(f"  {'command':<{width}}  {'median':>9}  {'ratio':>6}  aim")
    print(f"  {'-' * width}  {'-' * 9}  {'-' * 6}  {'-' * 12}")
    for row in result.rows:
        aim = "" if row.case.aim is None else f"≤ {row.case.aim:g}×"
        mark = {True: " ✓", False: " ✗", None: ""}[row.met]
        note = "" if row.reached_prompt else "  (no prompt seen: timed to exit)"
        print(
            f"  {row.case.name:<{width}}  {row.median_s * 1000:>6.0f} ms  {row.ratio:>5.2f}×  "
            f"{aim}{mark}{note}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="7 runs each rather than 15")
    args = parser.parse_args(argv)
    print_startup(run_startup(quick=args.quick))
    return 0


def _clean_env() -> dict[str, str]:
    """This environment without a key, endpoints, tracing or a log file: offline and quiet;
    and without PYTHONDONTWRITEBYTECODE, so the warm-up run leaves bytecode as a first run
    on a person's machine does (with it set, every changed module is compiled every run)."""
    drop = ("ANTHROPIC_", "AGENT_", "OTEL_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["NO_COLOR"] = "1"
    return env


def _warm(cases: Sequence[Case], env: Mapping[str, str]) -> None:
    """One untimed run of each: builds the gazetteer if it is missing, compiles bytecode."""
    for case in cases:
        seconds, _ = _time(case, env)
        if seconds >= _TIMEOUT_S:
            raise RuntimeError(f"{case.name} took over {_TIMEOUT_S:.0f} s")


def _time(case: Case, env: Mapping[str, str]) -> tuple[float, bool]:
    """Seconds from spawn to exit, or to the first prompt for a `to_prompt` case (then
    `/quit`); and whether the prompt was seen."""
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, *case.argv],
        cwd=REPO,
        env={**env, **case.env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    if not case.to_prompt:
        process.communicate(case.stdin.encode(), timeout=_TIMEOUT_S)
        return time.perf_counter() - started, True
    seen = _wait_for_prompt(process.stdout.fileno(), started)
    elapsed = time.perf_counter() - started
    process.communicate(b"/quit\n", timeout=_TIMEOUT_S)
    return (elapsed, True) if seen else (time.perf_counter() - started, False)


def _wait_for_prompt(fd: int, started: float) -> bool:
    """Read `fd` until the prompt shows (True), or it closes or time runs out (False)."""
    wanted = PROMPT.encode()
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while time.perf_counter() - started < _PROMPT_WAIT_S:
            if not selector.select(timeout=0.5):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                return False
            seen += chunk
            if wanted in seen:
                return True
    return False


if __name__ == "__main__":
    raise SystemExit(main())
