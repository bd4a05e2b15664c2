"""Finding 8 of issue 19: sizes.

Before: a 10 MB line typed into the REPL was sent to the model as a 10 MB request, and so was
a question of any length given to `agent ask`; `explain-error --llm` read every line before
answering any (230 MB for 150 lines of 1 MB; nothing streamed). Now a question, or a line
typed into the chat, is at most `agent.QUESTION_CHARS` characters: past it, one sentence and
nothing sent (`agent ask` exits 2, a usage error; the REPL reads the next line); and
`explain-error --llm` reads, answers and writes a batch of lines at a time.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO

from agent import explain
from agent.cli import EXIT_OK, EXIT_USAGE
from agent.explain import LLM_BATCH, parse_lines, run
from agent.settings import Settings
from benchmarks.hostile_server import HostileServer, answer
from tests.hostile.agents import (
    CHILD_GUARD_S,
    REPO,
    agent_command,
    child_env,
    cli,
    run_agent,
)

CAP = 32_000  # agent.QUESTION_CHARS: the longest question sent


def test_agent_ask_refuses_a_question_past_the_cap_and_sends_nothing() -> None:
    """A 100,000-character question: exit 2 (a usage error), one sentence saying how long it
    may be, and the model is never asked."""
    with HostileServer(messages=answer("Four.")) as server:
        ran = run_agent(["ask", "w" * 100_000], server.env())
        asked = server.model_requests()
    assert (ran.code, ran.out, asked) == (EXIT_USAGE, "", [])
    assert ran.err.count("\n") == 1
    assert "100,000" in ran.err
    assert f"{CAP:,}" in ran.err
    assert "nothing was sent" in ran.err


def test_a_question_at_the_cap_is_still_sent() -> None:
    """The cap is on what is too long, not on what is long: 32,000 characters are asked."""
    with HostileServer(messages=answer("Four.")) as server:
        code, out, _ = cli(["ask", "w" * CAP], server.env())
        asked = server.model_requests()
    assert (code, out, len(asked)) == (EXIT_OK, "Four.\n", 1)


def test_the_repl_refuses_a_10_mb_line_and_takes_the_next() -> None:
    """`agent chat`: a 10 MB line gets one sentence and is not sent; the next question is
    asked and answered, in a request of ordinary size."""
    huge = "x" * (10 * 1024 * 1024)
    with HostileServer(messages=answer("Four.")) as server:
        ran = run_agent(["chat"], server.env(), f"{huge}\n2+2?\n")
        asked = server.model_requests()
    assert ran.code == EXIT_OK
    assert "nothing was sent" in ran.out
    assert f"{len(huge):,}" in ran.out
    assert "Four." in ran.out
    assert len(asked) == 1
    assert len(json.dumps(asked[0])) < 64 * 1024
    assert "2+2?" in json.dumps(asked[0])


class _Counted:
    """stdin that counts the lines read from it (JSON lines, `count` of them)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.read = 0

    def __iter__(self) -> Iterator[str]:
        for n in range(self.count):
            self.read += 1
            yield json.dumps({"error": f"connection refused {n}", "operation": "op"}) + "\n"


class _Watched:
    """stdout that notes, at each result written, how many lines had been read but not yet
    answered."""

    def __init__(self, stdin: _Counted) -> None:
        self.stdin = stdin
        self.written = 0
        self.ahead: list[int] = []

    def write(self, text: str) -> int:
        self.ahead.append(self.stdin.read - self.written)
        self.written += 1
        return len(text)

    def flush(self) -> None:
        return None


def test_explain_error_llm_holds_at_most_a_batch_of_lines() -> None:
    """`explain-error --llm` over 200 lines: whenever a result is written, at most one batch
    of lines has been read ahead of the results; every line is answered, in order."""
    with HostileServer(messages=answer("not JSON, so the rules answer")) as server:
        settings = Settings.from_env(server.env())
        stdin = _Counted(200)
        stdout = _Watched(stdin)
        status = run(settings, stdin, stdout, sys.stderr, llm="always")  # type: ignore[arg-type]
        asked = len(server.model_requests())
    assert (status, stdout.written, asked) == (0, 200, 200)
    assert max(stdout.ahead) <= LLM_BATCH


def test_lines_of_text_are_held_a_bounded_number_at_a_time() -> None:
    """100,000 lines of text with no blank line between them: the first errors come out
    after at most `BLOCK_LINES` lines are read, not after all of them."""
    read = 0

    def lines() -> Iterator[str]:
        nonlocal read
        for n in range(100_000):
            read += 1
            yield f"error {n}: connection refused\n"

    first = next(parse_lines(lines()))
    assert first.request is not None
    assert first.request.error == "error 0: connection refused"
    assert read <= explain.BLOCK_LINES


def test_explain_error_llm_answers_before_its_input_ends() -> None:
    """In a child process, stdin left open after one batch of lines: that batch's results
    arrive while the input is still open (nothing waits for the end of it)."""
    results: queue.Queue[bytes] = queue.Queue()
    with (
        HostileServer(messages=answer("not JSON, so the rules answer")) as server,
        subprocess.Popen(  # noqa: S603 - this interpreter, this repository's module
            agent_command(["explain-error", "--llm"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(server.env()),
            cwd=REPO,
        ) as child,
    ):
        assert child.stdin is not None
        assert child.stdout is not None
        reader = threading.Thread(target=_lines_into, args=(child.stdout, results), daemon=True)
        reader.start()
        try:
            for n in range(LLM_BATCH):
                child.stdin.write(json.dumps({"error": f"timed out {n}"}).encode() + b"\n")
            child.stdin.flush()
            first = [json.loads(results.get(timeout=CHILD_GUARD_S)) for _ in range(LLM_BATCH)]
        finally:
            child.stdin.close()
            code = child.wait(CHILD_GUARD_S)
            reader.join(CHILD_GUARD_S)
    assert code == 0
    assert [result["error_type"] for result in first] == ["timeout"] * LLM_BATCH


def _lines_into(stream: IO[bytes], into: queue.Queue[bytes]) -> None:
    for line in stream:
        into.put(line)
