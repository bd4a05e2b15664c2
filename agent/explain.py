"""`agent explain-error`: error-to-action on its own, JSON lines in, JSON lines out.

Each input line is `{error, operation, user_context, retry_count}` and gets one result on
stdout, in order, with exactly the six fields. Every input gets an answer: an empty (or null)
error is explained as an error that says nothing (`str(TimeoutError())` is empty); a line that
is any other JSON value — a string (`"connection refused"`), a number, `null` — is that value
as the error's text; and a line that is not JSON — a raw log line — is the error text itself.
A stack trace pasted as text is one error (read by its last exception line): lines not
separated by a blank line are one error when a line after the first is an indented frame or
they start "Traceback (most recent call last):"; other lines are one error each, as a log's
are (a run of more than `BLOCK_LINES` is read `BLOCK_LINES` at a time). `--text` takes the
whole of stdin as one error. A line that cannot be an input (a JSON object without `error`, a
line that starts like a JSON object but is broken, bytes that are not UTF-8) gets one plain
message naming its line number on stderr and nothing on stdout; processing continues and the
exit status is 1.

Input is read as it is answered, so memory is bounded however long the input: the rules
answer a line at a time; `--llm` reads a batch of `LLM_BATCH` lines, answers them together,
writes (and flushes) their results in order, and only then reads the next batch.

This path must stay light: it imports the anthropic SDK only for `--llm`, and then builds its
client with `agent.claude.new_client` (a bounded timeout, the SDK's retries off). `--llm` asks
Claude about every line; `--llm auto` only about those the rules cannot place, and says on
stderr how many went to Claude and how often its answer was kept. Whenever the rules answer in
Claude's place (offline settings, the key refused, the endpoint unreachable, an answer that
failed the checks, …) stderr says why: each reason once, without --verbose. Read from a
terminal, it first says on stderr what to type and how to finish (Ctrl-D).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import IO, TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.models import KEY_PROBLEMS
from agent.terminal import is_terminal
from errors import (
    Assisted,
    ErrorAction,
    ErrorType,
    classify,
    classify_with_fallback_model,
    error_to_action,
    explain_with_claude,
    is_stack_trace,
)

if TYPE_CHECKING:
    from agent.settings import Settings

__all__ = [
    "BLOCK_LINES",
    "LLM_BATCH",
    "TERMINAL_HINT",
    "ExplainRequest",
    "Line",
    "LlmMode",
    "parse_lines",
    "run",
]

_NOT_UTF8 = "not UTF-8 text"

LLM_BATCH = 8  # Claude calls in flight at once with --llm, and the lines read ahead for them
BLOCK_LINES = 500  # lines of text without a blank line between held to see if they are a trace
LlmMode = Literal["always", "auto"]
TERMINAL_HINT = (
    "explain-error: type or paste one error a line (its text, or JSON like "
    '{"error": "…", "operation": "…"}); end with Ctrl-D.'
)


class Fallbacks:
    """Says on stderr why the rules answered in Claude's place: each reason once."""

    def __init__(self, err: IO[str], *, base_url: str | None) -> None:
        self.err, self.base_url = err, base_url
        self.said: set[str] = set()

    def __call__(self, exc: BaseException) -> None:
        why = self._reason(exc)
        if why not in self.said:
            self.said.add(why)
            self.err.write(f"explain-error: {why}, so the rules answered instead.\n")

    def _reason(self, exc: BaseException) -> str:
        if isinstance(exc, ValueError):  # malformed JSON, the schema, a check it failed
            return "Claude's answer did not pass the checks"
        verdict = classify(exc, "asking Claude to explain an error")
        error_type = verdict.kind.error_type
        if error_type in KEY_PROBLEMS:
            return "Claude did not accept the API key in ANTHROPIC_API_KEY"
        if error_type is ErrorType.NETWORK and verdict.facts.connect_phase:
            where = "check ANTHROPIC_BASE_URL" if self.base_url else "check the network"
            return f"Claude could not be reached ({where})"
        if error_type is ErrorType.TIMEOUT:
            return "Claude took too long to answer"
        return f"asking Claude failed ({error_type.replace('_', ' ')})"


class ExplainRequest(BaseModel):
    """One input line; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    error: str
    operation: str = ""
    user_context: str = ""
    retry_count: int = Field(default=0, ge=0, strict=True)

    @field_validator("error", mode="before")
    @classmethod
    def _error_as_text(cls, value: object) -> object:
        """A failure response given as a JSON object is explained as its text; null as empty."""
        if value is None:
            return ""
        return json.dumps(value) if isinstance(value, dict | list) else value

    def arguments(self) -> tuple[str, str, str, int]:
        """`error, operation, user_context, retry_count`, as error-to-action takes them."""
        return self.error, self.operation, self.user_context, self.retry_count


@dataclass(frozen=True, slots=True)
class Line:
    """One input line: its number and either a request or why it is not one."""

    number: int
    request: ExplainRequest | None = None
    problem: str = ""


def parse_lines(lines: Iterable[str], *, whole: bool = False) -> Iterator[Line]:
    """Number and read the inputs: a JSON line on its own, a pasted stack trace as one error,
    any other line as one error (blank lines skipped); with `whole`, everything as one."""
    if whole:
        text = "".join(lines)
        if text.strip():
            yield _text(1, text.strip())
        return
    for is_text, run in itertools.groupby(enumerate(lines, start=1), key=_is_text):
        if not is_text:  # blank lines, and JSON inputs each of its own
            yield from (_parse(number, raw) for number, raw in run if raw.strip())
            continue
        while block := list(itertools.islice(run, BLOCK_LINES)):  # held no longer than this
            yield from _block(block)


def _is_text(numbered: tuple[int, str]) -> bool:
    """Whether a line is error text: not blank, not JSON, not the start of a JSON object."""
    raw = numbered[1]
    if not raw.strip() or raw.lstrip().startswith('{"'):
        return False
    try:
        json.loads(raw)
    except ValueError:
        return True
    return False


def _block(block: list[tuple[int, str]]) -> Iterator[Line]:
    """Lines of text with no blank line between: one stack trace, or a line per error."""
    texts = [raw.rstrip("\r\n") for _, raw in block]
    if is_stack_trace(texts):
        yield _text(block[0][0], "\n".join(texts))
    else:
        yield from (_text(number, raw.strip()) for number, raw in block)


def _text(number: int, text: str) -> Line:
    if any("\udc80" <= char <= "\udcff" for char in text):
        return Line(number, problem=_NOT_UTF8)
    return Line(number, ExplainRequest(error=text))


def _parse(number: int, raw: str) -> Line:
    # Bytes that were not UTF-8, read with `surrogateescape`, are lone surrogates.
    if any("\udc80" <= char <= "\udcff" for char in raw):
        return Line(number, problem=_NOT_UTF8)
    try:
        return Line(number, ExplainRequest.model_validate_json(raw))
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return Line(number, problem="not valid JSON")
    if first["type"] == "model_type":  # a JSON value, not an object: it is the error's text
        value = json.loads(raw)
        text = value if isinstance(value, str) else "" if value is None else json.dumps(value)
        return Line(number, ExplainRequest(error=text))
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return Line(number, problem=f"'{where}': {first['msg'].lower()}")


def _write(line: Line, action: ErrorAction | None, out: IO[str], err: IO[str]) -> bool:
    """The line's answer on `out`, or why it was skipped on `err`; whether it was answered."""
    if action is None:
        err.write(f"explain-error: line {line.number}: {line.problem}; skipped\n")
        return False
    out.write(action.to_json() + "\n")
    return True


def run(
    settings: Settings,
    stdin: IO[str],
    stdout: IO[str],
    stderr: IO[str],
    *,
    llm: bool | LlmMode | None = False,
    whole: bool = False,
) -> int:
    """The subcommand: 0 when every line was handled, 1 when any line was not.

    `llm`: False/None, the rules; True or "always", Claude for every line; "auto", the rules
    first and Claude for what they cannot place. `whole`: all of stdin is one error's text."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if callable(reconfigure):  # bytes that are not UTF-8 become lone surrogates, not a crash
        reconfigure(errors="surrogateescape")
    if is_terminal(stdin):
        stderr.write(TERMINAL_HINT + "\n")
        stderr.flush()
    mode: LlmMode | None = "always" if llm is True else (llm or None)
    inputs = parse_lines(stdin, whole=whole)
    if mode and (key := settings.claude_key) is not None:
        return 0 if asyncio.run(_with_claude(settings, key, mode, inputs, stdout, stderr)) else 1
    if mode:
        why = "ANTHROPIC_API_KEY is not set"
        if settings.api_key is not None:
            why = "--offline or AGENT_OFFLINE is set"
        stderr.write(f"explain-error: --llm needs Claude, but {why}; using the rules instead.\n")
    ok = True
    for line in inputs:
        action = None if line.request is None else error_to_action(*line.request.arguments())
        ok &= _write(line, action, stdout, stderr)
    return 0 if ok else 1


async def _with_claude(
    settings: Settings, key: str, mode: LlmMode, lines: Iterable[Line], out: IO[str], err: IO[str]
) -> bool:
    from agent.claude import new_client  # heavy (the SDK): only for --llm

    said = Fallbacks(err, base_url=settings.base_url)
    async with new_client(api_key=key, base_url=settings.base_url) as client:
        if mode == "auto":
            assist = partial(classify_with_fallback_model, client, settings.model, on_fallback=said)
            return await _auto(assist, lines, out, err)
        explain = partial(explain_with_claude, client, settings.model, on_fallback=said)
        return await _always(explain, lines, out, err)


async def _always(
    explain: Callable[..., Awaitable[ErrorAction]],
    lines: Iterable[Line],
    out: IO[str],
    err: IO[str],
) -> bool:
    """Claude for every line, LLM_BATCH at once, the results in input order: a batch is read,
    answered and written before the next is read, so no more than a batch is held, however
    long the input."""

    async def answer(r: ExplainRequest | None) -> ErrorAction | None:
        return None if r is None else await explain(*r.arguments())

    ok = True
    lines = iter(lines)
    while batch := list(itertools.islice(lines, LLM_BATCH)):  # read only what is answered next
        answers = await asyncio.gather(*(answer(line.request) for line in batch))
        for line, action in zip(batch, answers, strict=True):
            ok &= _write(line, action, out, err)
        out.flush()  # this batch's answers out before the next is read
    return ok


async def _auto(
    assist: Callable[..., Awaitable[Assisted]], lines: Iterable[Line], out: IO[str], err: IO[str]
) -> bool:
    """The rules for every line, Claude only for those they cannot place; then how many lines
    went to Claude and how often its answer was kept."""
    ok, asked, kept, answered = True, 0, 0, 0
    for line in lines:
        action = None
        if line.request is not None:
            assisted = await assist(*line.request.arguments())
            action = assisted.result
            answered, asked, kept = answered + 1, asked + assisted.asked, kept + assisted.kept
        ok &= _write(line, action, out, err)
    share = asked / answered if answered else 0.0
    err.write(
        f"explain-error: {asked} of {answered} lines ({share:.0%}) went to Claude; "
        f"its answer was kept for {kept}.\n"
    )
    return ok
