"""`agent explain-error`: error-to-action on its own, JSON lines in, JSON lines out.

Each input line is `{error, operation, user_context, retry_count}`; each line gets one result
object on stdout, in order, with exactly the six fields. Every input gets an answer: an empty
(or null) error is explained as an error that says nothing (`str(TimeoutError())` is empty),
and a line that is not a JSON object — a raw log line — is taken as the error text itself. A
line that cannot be an input (a JSON object without `error`, a line that starts like a JSON
object but is broken, bytes that are not UTF-8) gets one plain message naming its line
number on stderr and nothing on stdout; processing continues and the exit status is 1.

This path must stay light: it imports the anthropic SDK only for `--llm`, and then builds its
client with `agent.claude.new_client` (a bounded timeout, the SDK's retries off).
`--llm` asks Claude about every line; `--llm auto` asks the rules first and Claude only about
the lines they cannot place, and says on stderr how many went to Claude and how often its
answer was kept. Offline settings (`--offline`, `AGENT_OFFLINE`, no key) turn `--llm` into
the rules, said once on stderr; so does every other reason the rules answer in Claude's place
(the key refused, the endpoint unreachable, an answer that failed the checks, …): each reason
once, the first time it happens, without --verbose.

Read from a terminal, it says once on stderr what to type and how to finish (Ctrl-D) rather
than waiting in silence.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.models import KEY_PROBLEMS
from errors import (
    ErrorAction,
    ErrorType,
    classify,
    classify_with_fallback_model,
    error_to_action,
    explain_with_claude,
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

    from agent.settings import Settings

__all__ = [
    "TERMINAL_HINT",
    "ExplainRequest",
    "Fallbacks",
    "LlmMode",
    "explain_lines",
    "explain_lines_llm",
    "run",
]

LLM_BATCH = 8  # Claude calls in flight at once with --llm
LlmMode = Literal["always", "auto"]
TERMINAL_HINT = (
    "explain-error: type or paste one error a line (its text, or JSON like "
    '{"error": "…", "operation": "…"}); end with Ctrl-D.'
)


class Fallbacks:
    """Says on stderr why the rules answered in Claude's place: each reason once."""

    def __init__(self, err: IO[str], *, base_url: str | None = None) -> None:
        self.err, self.base_url = err, base_url
        self.said: set[str] = set()

    def __call__(self, exc: BaseException) -> None:
        """One fallback, for `exc`; said unless its reason was said already."""
        kind, why = self._reason(exc)
        if kind not in self.said:
            self.said.add(kind)
            self.err.write(f"explain-error: {why}, so the rules answered instead.\n")

    def _reason(self, exc: BaseException) -> tuple[str, str]:
        if isinstance(exc, ValueError):  # malformed JSON, the schema, a check it failed
            return "invalid", "Claude's answer did not pass the checks"
        verdict = classify(exc, "asking Claude to explain an error")
        error_type = verdict.kind.error_type
        if error_type in KEY_PROBLEMS:
            return "key", "Claude did not accept the API key in ANTHROPIC_API_KEY"
        if error_type is ErrorType.NETWORK and verdict.facts.connect_phase:
            where = "check ANTHROPIC_BASE_URL" if self.base_url else "check the network"
            return "unreachable", f"Claude could not be reached ({where})"
        if error_type is ErrorType.TIMEOUT:
            return "timeout", "Claude took too long to answer"
        return error_type, f"asking Claude failed ({error_type.replace('_', ' ')})"


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


@dataclass(frozen=True, slots=True)
class Line:
    """One input line: its number and either a request or why it is not one."""

    number: int
    request: ExplainRequest | None = None
    problem: str = ""


def parse_lines(lines: Iterable[str]) -> Iterator[Line]:
    """Number and read the input lines, skipping blank ones."""
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield _parse(number, raw)


def _parse(number: int, raw: str) -> Line:
    if _has_undecodable_bytes(raw):
        return Line(number, problem="not UTF-8 text")
    try:
        return Line(number, ExplainRequest.model_validate_json(raw))
    except ValidationError as exc:
        if _is_text(raw, exc):
            return Line(number, ExplainRequest(error=raw.strip()))
        return Line(number, problem=_describe(exc))


def _has_undecodable_bytes(raw: str) -> bool:
    """Bytes that were not UTF-8, decoded with `surrogateescape`, are lone surrogates."""
    return any("\udc80" <= char <= "\udcff" for char in raw)


def _is_text(raw: str, exc: ValidationError) -> bool:
    """A line that is not JSON and does not start like a JSON object is an error's text."""
    first = exc.errors(include_url=False)[0]["type"]
    return first == "json_invalid" and not raw.lstrip().startswith('{"')


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return "not valid JSON"
    if first["type"] == "model_type":
        return "expected a JSON object with an 'error' key"
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return f"'{where}': {first['msg'].lower()}"


def explain_lines(lines: Iterable[str], out: IO[str], err: IO[str]) -> bool:
    """Explain each line with the rules; True when every line could be read."""
    ok = True
    for line in parse_lines(lines):
        if line.request is None:
            ok = _complain(err, line)
        else:
            out.write(_rules(line.request).to_json() + "\n")
    return ok


def _rules(request: ExplainRequest) -> ErrorAction:
    return error_to_action(
        request.error, request.operation, request.user_context, request.retry_count
    )


def _complain(err: IO[str], line: Line) -> bool:
    err.write(f"explain-error: line {line.number}: {line.problem}; skipped\n")
    return False


def run(
    settings: Settings,
    stdin: IO[str],
    stdout: IO[str],
    stderr: IO[str],
    *,
    llm: bool | LlmMode | None = False,
) -> int:
    """The subcommand: 0 when every line was handled, 1 when any line was not.

    `llm`: False/None, the rules; True or "always", Claude for every line; "auto", the rules
    first and Claude for what they cannot place."""
    _tolerate_bad_bytes(stdin)
    if _isatty(stdin):
        stderr.write(TERMINAL_HINT + "\n")
        stderr.flush()
    mode: LlmMode | None = "always" if llm is True else (llm or None)
    if mode and (key := settings.claude_key) is not None:
        return asyncio.run(_run_llm(settings, key, mode, stdin, stdout, stderr))
    if mode:
        why = _why_offline(settings)
        stderr.write(f"explain-error: --llm needs Claude, but {why}; using the rules instead.\n")
    return 0 if explain_lines(stdin, stdout, stderr) else 1


def _tolerate_bad_bytes(stdin: IO[str]) -> None:
    """Read bytes that are not UTF-8 as markers (lone surrogates), not as a crash."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(errors="surrogateescape")


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _why_offline(settings: Settings) -> str:
    if settings.api_key is None:
        return "ANTHROPIC_API_KEY is not set"
    return "--offline or AGENT_OFFLINE is set"


async def _run_llm(
    settings: Settings, key: str, mode: LlmMode, stdin: IO[str], out: IO[str], err: IO[str]
) -> int:
    from agent.claude import new_client  # heavy (the SDK): only for --llm

    fallbacks = Fallbacks(err, base_url=settings.base_url)
    async with new_client(api_key=key, base_url=settings.base_url) as client:
        if mode == "auto":
            return await explain_lines_auto(client, settings.model, stdin, out, err, fallbacks)
        return await explain_lines_llm(client, settings.model, stdin, out, err, fallbacks)


async def explain_lines_llm(
    client: AsyncAnthropic,
    model: str,
    lines: Iterable[str],
    out: IO[str],
    err: IO[str],
    fallbacks: Fallbacks | None = None,
) -> int:
    """Explain each line with Claude, a few at once, writing results in input order; each
    reason the rules answered instead is said once on `err`."""
    parsed = list(parse_lines(lines))
    ok = True
    said = fallbacks or Fallbacks(err)
    for start in range(0, len(parsed), LLM_BATCH):
        batch = parsed[start : start + LLM_BATCH]
        answers = await asyncio.gather(*(_one_llm(client, model, line, said) for line in batch))
        for line, answer in zip(batch, answers, strict=True):
            if answer is None:
                ok = _complain(err, line) and ok
            else:
                out.write(answer.to_json() + "\n")
    return 0 if ok else 1


async def _one_llm(
    client: AsyncAnthropic, model: str, line: Line, fallbacks: Fallbacks
) -> ErrorAction | None:
    if (r := line.request) is None:
        return None
    return await explain_with_claude(
        client, model, r.error, r.operation, r.user_context, r.retry_count, on_fallback=fallbacks
    )


async def explain_lines_auto(
    client: AsyncAnthropic,
    model: str,
    lines: Iterable[str],
    out: IO[str],
    err: IO[str],
    fallbacks: Fallbacks | None = None,
) -> int:
    """The rules for every line, Claude only for those they cannot place; in input order."""
    ok, asked, kept, answered = True, 0, 0, 0
    said = fallbacks or Fallbacks(err)
    for line in parse_lines(lines):
        if (r := line.request) is None:
            ok = _complain(err, line)
            continue
        assisted = await classify_with_fallback_model(
            client, model, r.error, r.operation, r.user_context, r.retry_count, on_fallback=said
        )
        out.write(assisted.result.to_json() + "\n")
        answered, asked, kept = answered + 1, asked + assisted.asked, kept + assisted.kept
    share = asked / answered if answered else 0.0
    err.write(
        f"explain-error: {asked} of {answered} lines ({share:.0%}) went to Claude; "
        f"its answer was kept for {kept}.\n"
    )
    return 0 if ok else 1
