"""`agent explain-error`: error-to-action on its own, JSON lines in, JSON lines out.

Each input line is `{error, operation, user_context, retry_count}`; each valid line gets one
result object on stdout, in order. An invalid line gets a message naming its line number on
stderr and nothing on stdout; processing continues and the exit status is 1. This path must
stay light: it imports the anthropic SDK only for `--llm`, and then builds its client with
`agent.models.claude.new_client` (a bounded timeout, the SDK's retries off). Offline settings
(`--offline`, `AGENT_OFFLINE`, no key) turn `--llm` into the rules, said once on stderr.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from errors import ErrorAction, error_to_action, explain_with_claude

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

    from agent.settings import Settings

__all__ = ["ExplainRequest", "explain_lines", "explain_lines_llm", "run"]

LLM_BATCH = 8  # Claude calls in flight at once with --llm


class ExplainRequest(BaseModel):
    """One input line; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    error: str = Field(min_length=1)
    operation: str = ""
    user_context: str = ""
    retry_count: int = Field(default=0, ge=0, strict=True)

    @field_validator("error", mode="before")
    @classmethod
    def _error_as_text(cls, value: object) -> object:
        """A failure response given as a JSON object is explained as its text."""
        return json.dumps(value) if isinstance(value, dict | list) else value


@dataclass(frozen=True, slots=True)
class Line:
    """One input line: its number and either a request or why it is not one."""

    number: int
    request: ExplainRequest | None = None
    problem: str = ""


def parse_lines(lines: Iterable[str]) -> Iterator[Line]:
    """Number and validate the input lines, skipping blank ones."""
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield _parse(number, raw)


def _parse(number: int, raw: str) -> Line:
    try:
        return Line(number, ExplainRequest.model_validate_json(raw))
    except ValidationError as exc:
        return Line(number, problem=_describe(exc))


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    if first["type"] == "json_invalid":
        return "not valid JSON"
    if first["type"] == "model_type":
        return "expected a JSON object with an 'error' key"
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return f"'{where}': {first['msg'].lower()}"


def explain_lines(lines: Iterable[str], out: IO[str], err: IO[str]) -> bool:
    """Explain each line with the rules; True when every line was valid."""
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
    settings: Settings, stdin: IO[str], stdout: IO[str], stderr: IO[str], *, llm: bool = False
) -> int:
    """The subcommand: 0 when every line was handled, 1 when any line was not."""
    if llm and (key := settings.claude_key) is not None:
        return asyncio.run(_run_llm(settings, key, stdin, stdout, stderr))
    if llm:
        why = _why_offline(settings)
        stderr.write(f"explain-error: --llm needs Claude, but {why}; using the rules instead.\n")
    return 0 if explain_lines(stdin, stdout, stderr) else 1


def _why_offline(settings: Settings) -> str:
    if settings.api_key is None:
        return "ANTHROPIC_API_KEY is not set"
    return "--offline or AGENT_OFFLINE is set"


async def _run_llm(settings: Settings, key: str, stdin: IO[str], out: IO[str], err: IO[str]) -> int:
    from agent.models.claude import new_client  # heavy (the SDK): only for --llm

    async with new_client(api_key=key, base_url=settings.base_url) as client:
        return await explain_lines_llm(client, settings.model, stdin, out, err)


async def explain_lines_llm(
    client: AsyncAnthropic, model: str, lines: Iterable[str], out: IO[str], err: IO[str]
) -> int:
    """Explain each line with Claude, a few at once, writing results in input order."""
    parsed = list(parse_lines(lines))
    ok = True
    for start in range(0, len(parsed), LLM_BATCH):
        batch = parsed[start : start + LLM_BATCH]
        answers = await asyncio.gather(*(_one_llm(client, model, line) for line in batch))
        for line, answer in zip(batch, answers, strict=True):
            if answer is None:
                ok = _complain(err, line) and ok
            else:
                out.write(answer.to_json() + "\n")
    return 0 if ok else 1


async def _one_llm(client: AsyncAnthropic, model: str, line: Line) -> ErrorAction | None:
    if (r := line.request) is None:
        return None
    return await explain_with_claude(
        client, model, r.error, r.operation, r.user_context, r.retry_count
    )
