"""@tool: a Tool from a typed function — schema, sync and async, fallbacks, retry_on, what the
model reads, and the functions it refuses when the tool is made (never on the first call)."""

from __future__ import annotations

import functools
import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from errors import BadUpstreamData, NotFound
from resilience import Policy
from tests.tools.upstream import is_safe_for_a_model
from tools import Registry, Tool, ToolResult, tool

Word = Annotated[str, Field(min_length=1, max_length=20, description="One English word.")]


async def call(made: Tool, policy: Policy, **tool_input: Any) -> ToolResult:
    """Dispatch one call as the agent would, on `policy` (fake time: nothing sleeps)."""
    bound = made.bound(policy, None)
    return await Registry([bound]).dispatch(bound.name, tool_input)


def sources(result: ToolResult) -> list[tuple[str, int, str]]:
    return [(a.source, a.number, a.outcome) for a in result.attempts]


class Counter:
    """A source that fails with the queued errors, then answers."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self, word: str) -> dict[str, str]:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return {"word": word}


# --- what the model is shown ---


def test_the_schema_comes_from_the_type_hints() -> None:
    """Annotated limits and descriptions, defaults and required inputs reach input_schema."""

    @tool
    async def define(word: Word, limit: int = 3) -> str:
        """The meanings of an English word."""
        return word

    assert define.definition() == {
        "name": "define",
        "description": "The meanings of an English word.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "word": {
                    "description": "One English word.",
                    "maxLength": 20,
                    "minLength": 1,
                    "title": "Word",
                    "type": "string",
                },
                "limit": {"default": 3, "title": "Limit", "type": "integer"},
            },
            "required": ["word"],
            "title": "DefineInput",
            "type": "object",
        },
    }


class Lookup(BaseModel):
    """The input of `look_up`."""

    word: Word
    language: str = "en"


def test_a_pydantic_model_parameter_is_the_schema() -> None:
    """A function taking one pydantic model shows that model's schema."""

    @tool
    def look_up(query: Lookup) -> str:
        """Look a word up."""
        return query.word

    assert look_up.definition()["input_schema"] == Lookup.model_json_schema()


async def test_the_function_taking_a_model_receives_it(policy: Policy) -> None:
    """The validated model instance is what the function is given."""
    seen: list[object] = []

    @tool
    def look_up(query: Lookup) -> str:
        seen.append(query)
        return "ok"

    await call(look_up, policy, word="apple")
    assert seen == [Lookup(word="apple")]


def test_name_and_description_can_be_given() -> None:
    """`name=` and `description=` override the function's name and docstring."""

    @tool(name="dictionary", description="Look words up.")
    async def define(word: Word) -> str:
        """Unused."""
        return word

    assert (define.name, define.description) == ("dictionary", "Look words up.")


# --- sync and async ---


async def test_an_async_function_answers(policy: Policy) -> None:
    """An async function is awaited and its value is the result."""

    @tool
    async def echo(word: Word) -> str:
        return word.upper()

    assert (await call(echo, policy, word="apple")).content == "APPLE"


async def test_a_sync_function_runs_in_a_worker_thread(policy: Policy) -> None:
    """A sync function answers too, off the event loop's thread."""
    threads: list[threading.Thread] = []

    @tool
    def echo(word: Word) -> str:
        threads.append(threading.current_thread())
        return word

    result = await call(echo, policy, word="apple")
    assert result.content == "apple"
    assert threads != [threading.main_thread()]


# --- what the model reads ---


@dataclass
class Point:
    x: int
    y: int


class Pair(BaseModel):
    left: str
    right: str


@pytest.mark.parametrize(
    ("value", "content"),
    [
        pytest.param("plain text", "plain text", id="str as it is"),
        pytest.param({"a": 1, "b": [1.5, None]}, '{"a": 1, "b": [1.5, null]}', id="dict"),
        pytest.param({"on": date(2025, 9, 30)}, '{"on": "2025-09-30"}', id="date"),
        pytest.param({"rate": Decimal("0.852966")}, '{"rate": "0.852966"}', id="decimal"),
        pytest.param(Point(1, 2), '{"x": 1, "y": 2}', id="dataclass"),
        pytest.param(Pair(left="a", right="b"), '{"left": "a", "right": "b"}', id="model"),
        pytest.param({"city": "Zürich"}, '{"city": "Zürich"}', id="unicode"),
    ],
)
async def test_return_values_reach_the_model_as_json(
    value: object, content: str, policy: Policy
) -> None:
    """Strings as they are; everything else as JSON the model can read."""

    @tool
    def give(word: Word) -> object:
        return value

    result = await call(give, policy, word="x")
    assert (result.content, result.is_error) == (content, False)


async def test_nan_is_not_sent_as_json(policy: Policy) -> None:
    """A NaN (not JSON) is a failure of the tool, never `NaN` in a tool_result."""

    @tool
    def give(word: Word) -> dict[str, float]:
        return {"rate": math.nan}

    result = await call(give, policy, word="x")
    assert result.is_error
    assert "NaN" not in result.content


# --- fallbacks, retries and the timeline ---


async def test_fallbacks_answer_in_order_and_the_timeline_names_each(policy: Policy) -> None:
    """The primary fails twice (a retry), the first fallback answers; the second is not called."""
    calls: list[str] = []

    async def mirror(word: Word) -> str:
        calls.append("mirror")
        return f"{word} from the mirror"

    async def archive(word: Word) -> str:
        calls.append("archive")
        return "unused"

    @tool(fallbacks=[mirror, archive])
    async def define(word: Word) -> str:
        calls.append("define")
        raise BadUpstreamData("the primary sent HTML")

    result = await call(define, policy, word="apple")
    assert result.content == "apple from the mirror"
    assert calls == ["define", "define", "mirror"]
    assert sources(result) == [
        ("define", 1, "bad_data"),
        ("define", 2, "bad_data"),
        ("mirror", 1, "ok"),
    ]


async def test_a_repeated_source_name_is_numbered(policy: Policy) -> None:
    """Two fallbacks with the same function name are two sources, numbered."""

    def mirror(n: int) -> Any:
        async def fetch(word: Word) -> str:
            if n == 1:
                raise BadUpstreamData("down")
            return word

        return fetch

    made = tool(mirror(1), name="define", fallbacks=[mirror(1), mirror(2)])
    result = await call(made, policy, word="apple")
    assert [source for source, _, _ in sources(result)] == [
        "fetch", "fetch", "fetch-2", "fetch-2", "fetch-3"
    ]  # fmt: skip


async def test_no_source_answering_gives_one_plain_sentence(policy: Policy) -> None:
    """Every source down: the model reads the last failure's sentence, nothing raw."""

    async def mirror(word: Word) -> str:
        raise ConnectionRefusedError("[Errno 111] Connection refused to 10.0.0.7:443")

    @tool(activity="looking up {word}", fallbacks=[mirror])
    async def define(word: Word) -> str:
        raise BadUpstreamData("<html>502 Bad Gateway</html>")

    result = await call(define, policy, word="apple")
    assert result.is_error
    assert result.content.startswith("Looking up apple")
    assert result.content.count(".") == 1
    assert is_safe_for_a_model(result.content)


async def test_a_name_that_does_not_exist_is_input_to_fix(policy: Policy) -> None:
    """NotFound from the primary: fix_input, naming the word; the activity fills in inputs."""

    @tool(activity="looking up {word}")
    async def define(word: Word) -> str:
        raise NotFound(word, what="word")

    result = await call(define, policy, word="aple")
    assert result.error is not None
    assert result.error.action == "fix_input"
    assert "aple" in result.content
    assert sources(result) == [("define", 1, "not_found")]


@pytest.mark.parametrize(
    ("retry_on", "retried"),
    [
        pytest.param(None, True, id="default: error-to-action decides"),
        pytest.param(TimeoutError, False, id="a type that does not match"),
        pytest.param((TimeoutError, BadUpstreamData), True, id="a tuple that matches"),
        pytest.param(lambda error: "HTML" not in str(error), False, id="a predicate"),
    ],
)
async def test_retry_on_narrows_which_failures_are_retried(
    retry_on: Any, retried: bool, policy: Policy
) -> None:
    """Bad data is retried once by default; retry_on can only take that retry away."""
    source = Counter(BadUpstreamData("HTML instead of JSON"))
    made = tool(source.__call__, name="define", retry_on=retry_on)
    result = await call(made, policy, word="apple")
    assert source.calls == (2 if retried else 1)
    assert result.is_error is not retried


async def test_retry_on_never_adds_a_retry(policy: Policy) -> None:
    """A failure error-to-action will not retry stays unretried, whatever retry_on says."""
    source = Counter(NotFound("apple", what="word"))
    made = tool(source.__call__, name="define", retry_on=NotFound)
    await call(made, policy, word="apple")
    assert source.calls == 1


# --- refused when the tool is made ---


def positional_only(word: str, /) -> str:
    return word


def star_args(*words: str) -> str:
    return ""


def no_hint(word):  # the hint this test is about is missing
    return word


def unresolvable(word: Undefined) -> str:  # noqa: F821 - the name is the point
    return ""


def generator(word: str) -> Iterator[str]:
    yield word


def fine(word: str) -> str:
    return word


def other_inputs(text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("make", "says"),
    [
        pytest.param(lambda: tool(lambda word: word), "is not a name the model", id="lambda"),
        pytest.param(lambda: tool(fine, name="look up"), "pass name=", id="space in name"),
        pytest.param(lambda: tool(fine, name="x" * 65), "1 to 64", id="name too long"),
        pytest.param(lambda: tool(positional_only), "positional-only", id="positional-only"),
        pytest.param(lambda: tool(star_args), "*args or **kwargs", id="*args"),
        pytest.param(lambda: tool(no_hint), "give word of no_hint a type hint", id="no hint"),
        pytest.param(lambda: tool(unresolvable), "cannot be resolved", id="unresolvable"),
        pytest.param(lambda: tool(generator), "yields values", id="generator"),
        pytest.param(lambda: tool(functools.partial(fine)), "is not a function", id="partial"),
        pytest.param(lambda: tool(42), "is not a function", id="not callable"),
        pytest.param(
            lambda: tool(fine, fallbacks=[other_inputs]),
            "fallback other_inputs cannot take the inputs of fine (word)",
            id="fallback with other inputs",
        ),
        pytest.param(
            lambda: tool(fine, fallbacks=[positional_only]),
            "fallback positional_only cannot take",
            id="fallback positional-only",
        ),
        pytest.param(
            lambda: tool(fine, activity="looking up {wrod}"),
            "names {wrod}, which is not one of its inputs (word)",
            id="activity typo",
        ),
        pytest.param(
            lambda: tool(fine, activity="looking up {}"), "names {}", id="positional activity"
        ),
        pytest.param(lambda: tool(fine, activity="looking {up"), "not a template", id="brace"),
        pytest.param(lambda: tool(fine, retry_on=(ValueError, "x")), "retry_on", id="retry_on"),
    ],
)
def test_what_cannot_work_is_refused_when_the_tool_is_made(make: Any, says: str) -> None:
    """A TypeError naming the problem, before any model ever calls the tool."""
    with pytest.raises(TypeError, match="@tool") as refused:
        make()
    assert says in str(refused.value)


def test_an_activity_may_use_an_attribute_of_an_input() -> None:
    """`{query.word}` is accepted when `query` is an input."""

    def look_up(query: Lookup, extra: int = 0) -> str:
        return query.word

    assert tool(look_up, activity="looking up {query.word}").activity == "looking up {query.word}"


def test_the_registry_lists_a_made_tool_like_any_other() -> None:
    """A made tool's definition is valid JSON for the Messages API."""
    made = tool(fine)
    assert json.loads(json.dumps(Registry([made]).definitions()))[0]["name"] == "fine"


# --- built once per process ---


def test_a_function_made_into_tools_twice_shares_one_input_model_and_schema() -> None:
    """A second tool from the same function reuses its pydantic model and JSON schema."""

    async def spell(word: Word) -> str:
        """Spell a word."""
        return word

    first, second = tool(spell), tool(spell)
    assert first.input_model is second.input_model
    assert first.definition()["input_schema"] == second.definition()["input_schema"]
    assert (
        first.definition()["input_schema"]["properties"]
        is (second.definition()["input_schema"]["properties"])
    )


def test_builtin_tools_for_each_question_reuse_the_calculators_model() -> None:
    """`agent ask` opens tools per question; the calculator's model is not rebuilt each time."""
    import httpx

    from tools import builtin_tools

    made = [builtin_tools(httpx.AsyncClient) for _ in range(3)]
    models = {id(t.input_model) for tools in made for t in tools if t.name == "calculate"}
    assert len(models) == 1


def test_a_method_of_an_unhashable_object_still_becomes_a_tool() -> None:
    """An object without a hash is not cached, and its method's tool works all the same."""

    @dataclass
    class Glossary:  # eq=True without frozen: instances cannot be hashed
        prefix: str

        async def lookup(self, word: Word) -> str:
            """Look a word up."""
            return self.prefix + word

    made = tool(Glossary("g:").lookup)
    assert made.definition()["input_schema"]["required"] == ["word"]
