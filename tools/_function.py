"""`@tool`: a `Tool` from a typed Python function, behind the same engine as `get_weather`.

    @tool(activity="getting the exchange rate from {base} to {quote}", fallbacks=[backup])
    async def exchange_rate(base: Currency, quote: Currency) -> dict[str, float]:
        '''Today's exchange rate between two currencies.'''
        ...

The input schema comes from the type hints (`Annotated[str, Field(...)]` for limits and a
description), or from the one pydantic model the function takes. The description is the
docstring. Sync functions run in a worker thread. Whatever a function raises is classified by
error-to-action, which decides whether to try it again; `fallbacks` (functions taking the
same arguments) are tried in order after it; `retry_on` (exception types, or a predicate)
narrows which failures may be retried. The value is sent to the model as JSON (a `str` as it
is). With no answer from any source, the model gets the last failure's one plain sentence.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import typing
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, create_model

from resilience import AttemptInfo, Engine, Observer, Policy, RetryOn, Source
from tools._result import to_result
from tools._tool import Tool
from tools._types import ToolResult

__all__ = ["tool"]

Function = Callable[..., Any]
RetryOnSpec = type[Exception] | tuple[type[Exception], ...] | RetryOn
_INPUT_CONFIG = ConfigDict(extra="forbid", str_strip_whitespace=True)


@overload
def tool(fn: Function, /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    activity: str | None = None,
    fallbacks: Sequence[Function] = (),
    retry_on: RetryOnSpec | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> Callable[[Function], Tool]: ...


def tool(
    fn: Function | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    activity: str | None = None,
    fallbacks: Sequence[Function] = (),
    retry_on: RetryOnSpec | None = None,
    policy: Policy | None = None,
    observer: Observer | None = None,
) -> Tool | Callable[[Function], Tool]:
    """Make a `Tool` of `fn` (see the module's doc); `activity` may name inputs in braces."""

    def make(function: Function) -> Tool:
        spec = _spec(function, name, description, activity, fallbacks, retry_on)
        return _build(spec, policy, observer)

    return make if fn is None else make(fn)


@dataclass(frozen=True, slots=True)
class _Spec:
    """Everything about a function tool but the engine it runs on."""

    name: str
    description: str
    activity: str
    input_model: type[BaseModel]
    functions: tuple[Function, ...]  # the primary, then the fallbacks
    takes_model: bool  # the function takes the input model itself, not its fields
    retry_on: RetryOn

    def operation(self, args: BaseModel) -> str:
        """The activity in words, with the call's inputs filled in."""
        values = {key: _short(value) for key, value in args.model_dump().items()}
        try:
            return self.activity.format(**values)
        except (KeyError, IndexError, ValueError):
            return self.activity


def _spec(
    fn: Function,
    name: str | None,
    description: str | None,
    activity: str | None,
    fallbacks: Sequence[Function],
    retry_on: RetryOnSpec | None,
) -> _Spec:
    tool_name = name or fn.__name__
    model, takes_model = _input_model(fn, tool_name)
    return _Spec(
        name=tool_name,
        description=description or inspect.getdoc(fn) or f"The {tool_name} tool.",
        activity=activity or f"running {tool_name}",
        input_model=model,
        functions=(fn, *fallbacks),
        takes_model=takes_model,
        retry_on=_predicate(retry_on),
    )


def _input_model(fn: Function, tool_name: str) -> tuple[type[BaseModel], bool]:
    """The pydantic model the function takes, or one built from its parameters' hints."""
    hints = typing.get_type_hints(fn, include_extras=True)
    params = list(inspect.signature(fn).parameters.values())
    if len(params) == 1 and _is_model(hints.get(params[0].name)):
        return hints[params[0].name], True
    fields: dict[str, Any] = {}
    for param in params:
        if param.kind in {param.VAR_POSITIONAL, param.VAR_KEYWORD}:
            raise TypeError(f"@tool: {fn.__name__} takes *args or **kwargs; name each input")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints.get(param.name, Any), default)
    title = "".join(part.title() for part in tool_name.split("_")) + "Input"
    return create_model(title, __config__=_INPUT_CONFIG, **fields), False


def _is_model(hint: object) -> bool:
    return inspect.isclass(hint) and issubclass(hint, BaseModel)


def _predicate(retry_on: RetryOnSpec | None) -> RetryOn:
    if retry_on is None:
        return lambda _error: True
    if isinstance(retry_on, type | tuple):
        kinds = retry_on
        return lambda error: isinstance(error, kinds)
    return retry_on


def _build(spec: _Spec, policy: Policy | None, observer: Observer | None) -> Tool:
    engine = Engine(spec.name, policy, observer)

    async def handler(args: BaseModel) -> ToolResult:
        operation = spec.operation(args)
        sources = [_source(spec, fn, args) for fn in spec.functions]
        outcome = await engine.run(operation, sources)
        return to_result(outcome, operation, str)

    return Tool(
        spec.name,
        spec.description,
        spec.input_model,
        handler,
        spec.activity,
        rebind=lambda policy, observer: _build(spec, policy, observer),
    )


def _source(spec: _Spec, fn: Function, args: BaseModel) -> Source[str]:
    async def fetch(_info: AttemptInfo) -> str:
        value = await _call(fn, args, spec.takes_model)
        return _as_text(value)  # inside the attempt: a value that won't render is a failure

    return Source(fn.__name__, fetch, retry_on=spec.retry_on)


async def _call(fn: Function, args: BaseModel, takes_model: bool) -> object:
    call_args: dict[str, Any] = {} if takes_model else dict(args)
    positional = (args,) if takes_model else ()
    if inspect.iscoroutinefunction(fn):
        result: Awaitable[object] = fn(*positional, **call_args)
        return await result
    return await asyncio.to_thread(fn, *positional, **call_args)


def _as_text(value: object) -> str:
    """What the model reads: a string as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.dumps(value, ensure_ascii=False)


def _short(value: object) -> object:
    """An input as it may appear in a sentence: text cut to 60 characters."""
    return value[:60] if isinstance(value, str) else value
