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
narrows which failures may be retried. Each function is a source of its own, named after it
in the timeline ("exchange_rate", then "backup"). The value is sent to the model as JSON
(a `str` as it is; dates, decimals, dataclasses and pydantic models as JSON values). With no
answer from any source, the model gets the last failure's one plain sentence.

What cannot work is refused when the tool is made, with a `TypeError` saying what to change,
never on the model's first call: a name the Messages API would reject, a parameter without a
type hint (or positional-only, or `*args`), hints that cannot be resolved, a generator, a
callable that is not a function, a fallback that cannot take the tool's inputs, an `activity`
naming something that is not an input, a `retry_on` that is not exception types.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import re
import string
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, create_model
from pydantic_core import to_jsonable_python

from resilience import AttemptInfo, Engine, Listener, Policy, RetryOn, Source
from tools.registry import Tool, ToolResult, subject_of, to_result

__all__ = ["tool"]

Function = Callable[..., Any]
RetryOnSpec = type[Exception] | tuple[type[Exception], ...] | RetryOn
_INPUT_CONFIG = ConfigDict(extra="forbid", str_strip_whitespace=True)
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # what the Messages API accepts as a name


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
    listener: Listener | None = None,
    trusted: bool = False,
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
    listener: Listener | None = None,
    trusted: bool = False,
) -> Tool | Callable[[Function], Tool]:
    """Make a `Tool` of `fn` (see the module's doc); `activity` may name inputs in braces.
    `trusted`: its answers are composed by this app from vetted values (the built-in
    `calculate`), sent as they are; else they are data from outside, sent to the model as such."""

    def make(function: Function) -> Tool:
        _check_function(function, "@tool")
        tool_name = name or function.__name__
        if not _TOOL_NAME.fullmatch(tool_name):
            raise TypeError(
                f"@tool: {tool_name!r} is not a name the model can call; pass name= with 1 to "
                "64 letters, digits, '_' or '-'"
            )
        model, takes_model = _input_model(function, tool_name)
        inputs = tuple(model.model_fields)
        for fallback in fallbacks:
            _check_fallback(fallback, function, inputs, takes_model)
        template = activity or f"running {tool_name}"
        _check_activity(template, inputs, tool_name)
        functions = (function, *fallbacks)
        spec = _Spec(
            name=tool_name,
            description=description or inspect.getdoc(function) or f"The {tool_name} tool.",
            activity=template,
            input_model=model,
            functions=functions,
            sources=_source_names(functions),
            takes_model=takes_model,
            retry_on=_predicate(retry_on),
            foreign=not trusted,
        )
        return _build(spec, policy, listener)

    return make if fn is None else make(fn)


@dataclass(frozen=True, slots=True)
class _Spec:
    """Everything about a function tool but the engine it runs on."""

    name: str
    description: str
    activity: str
    input_model: type[BaseModel]
    functions: tuple[Function, ...]  # the primary, then the fallbacks
    sources: tuple[str, ...]  # their names in the timeline, one each
    takes_model: bool  # the function takes the input model itself, not its fields
    retry_on: RetryOn
    foreign: bool  # its answers are data from outside the project (not `trusted`)

    def operation(self, args: BaseModel) -> str:
        """The activity in words, with the call's inputs filled in."""
        values = {key: _short(value) for key, value in args.model_dump().items()}
        try:
            return self.activity.format(**values)
        except (KeyError, IndexError, ValueError):  # a format spec the value does not fit
            return self.activity


def _check_function(fn: object, role: str) -> None:
    """A plain function or method that returns its answer: what `_source` knows how to call."""
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        raise TypeError(
            f"{role}: {fn!r} is not a function; wrap it in a def (a function defined inside "
            "a factory can hold a client or a setting)"
        )
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"{role}: {fn.__name__} yields values; return the answer instead")


def _input_model(fn: Function, tool_name: str) -> tuple[type[BaseModel], bool]:
    """The pydantic model the function takes, or one built from its parameters' hints: built
    once per function and name (a pydantic model takes a millisecond to make), however many
    agents offer the tool; a method of an object that cannot be hashed, each time."""
    try:
        hash(fn)
    except TypeError:
        return _new_input_model(fn, tool_name)
    return _kept_input_model(fn, tool_name)


def _new_input_model(fn: Function, tool_name: str) -> tuple[type[BaseModel], bool]:
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except NameError as exc:  # e.g. a type defined inside the function that makes the tool
        raise TypeError(
            f"@tool: the type hints of {fn.__name__} cannot be resolved ({exc}); define the "
            "types they name at module level"
        ) from exc
    params = list(inspect.signature(fn).parameters.values())
    hint = hints.get(params[0].name) if len(params) == 1 else None
    if inspect.isclass(hint) and issubclass(hint, BaseModel):  # the function takes the model
        return hint, True
    fields: dict[str, Any] = {}
    for param in params:
        _check_parameter(fn, param)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], default)
    title = "".join(part.title() for part in tool_name.split("_")) + "Input"
    return create_model(title, __config__=_INPUT_CONFIG, **fields), False


_kept_input_model = functools.lru_cache(maxsize=512)(_new_input_model)


def _check_parameter(fn: Function, param: inspect.Parameter) -> None:
    """A parameter the model can fill in by name, with a type it is shown."""
    where = f"{param.name} of {fn.__name__}"
    if param.kind in {param.VAR_POSITIONAL, param.VAR_KEYWORD}:
        raise TypeError(f"@tool: {fn.__name__} takes *args or **kwargs; name each input")
    if param.kind is param.POSITIONAL_ONLY:
        raise TypeError(f"@tool: {where} is positional-only; the model passes inputs by name")
    if param.annotation is param.empty:
        raise TypeError(
            f"@tool: give {where} a type hint (Any if it takes anything); the model is shown "
            "each input's type"
        )


def _check_fallback(
    fallback: Function, primary: Function, inputs: Sequence[str], takes_model: bool
) -> None:
    """A fallback must take what the primary is given: the input model, or its fields."""
    _check_function(fallback, f"@tool fallback for {primary.__name__}")
    signature = inspect.signature(fallback)
    try:
        signature.bind(None) if takes_model else signature.bind(**dict.fromkeys(inputs))
    except TypeError as exc:
        raise TypeError(
            f"@tool: fallback {fallback.__name__} cannot take the inputs of {primary.__name__} "
            f"({', '.join(inputs)}): {exc}"
        ) from exc


def _check_activity(template: str, inputs: Sequence[str], tool_name: str) -> None:
    """Every `{name}` in the activity is one of the inputs."""
    try:
        fields = [
            field for _, field, _, _ in string.Formatter().parse(template) if field is not None
        ]
    except ValueError as exc:
        raise TypeError(f"@tool: the activity of {tool_name} is not a template: {exc}") from exc
    for field in fields:
        if re.split(r"[.\[]", field, maxsplit=1)[0] not in inputs:
            raise TypeError(
                f"@tool: the activity of {tool_name} names {{{field}}}, which is not one of its "
                f"inputs ({', '.join(inputs) or 'none'})"
            )


def _source_names(functions: Sequence[Function]) -> tuple[str, ...]:
    """Each function's name; a repeated one gets a number ("fetch", "fetch-2"), so that no two
    sources share a circuit breaker or a line in the timeline."""
    names: list[str] = []
    for fn in functions:
        name, count = fn.__name__, 1
        while name in names:
            count += 1
            name = f"{fn.__name__}-{count}"
        names.append(name)
    return tuple(names)


def _predicate(retry_on: RetryOnSpec | None) -> RetryOn:
    if retry_on is None:
        return lambda _error: True
    if callable(retry_on) and not isinstance(retry_on, type):
        return retry_on
    kinds = retry_on if isinstance(retry_on, tuple) else (retry_on,)
    if not all(inspect.isclass(kind) and issubclass(kind, BaseException) for kind in kinds):
        raise TypeError("@tool: retry_on takes exception types, or a predicate")
    return lambda error: isinstance(error, kinds)


def _build(spec: _Spec, policy: Policy | None, listener: Listener | None) -> Tool:
    engine = Engine(spec.name, policy, listener)

    async def handler(args: BaseModel) -> ToolResult:
        operation = spec.operation(args)
        named = zip(spec.functions, spec.sources, strict=True)
        sources = [_source(spec, fn, name, args) for fn, name in named]
        outcome = await engine.run(operation, sources, subject=subject_of(args))
        return to_result(outcome, str)

    return Tool(
        spec.name,
        spec.description,
        spec.input_model,
        handler,
        spec.activity,
        rebind=lambda policy, listener: _build(spec, policy, listener),
        foreign=spec.foreign,
    )


def _source(spec: _Spec, fn: Function, name: str, args: BaseModel) -> Source[str]:
    """`fn` called with `args` (a sync function in a worker thread), as a source."""
    call = functools.partial(fn, args) if spec.takes_model else functools.partial(fn, **dict(args))

    async def fetch(_info: AttemptInfo) -> str:
        if inspect.iscoroutinefunction(fn):
            value = await call()
        else:
            value = await asyncio.to_thread(call)
        return _as_text(value)  # inside the attempt: a value that won't render is a failure

    return Source(name, fetch, retry_on=spec.retry_on)


def _as_text(value: object) -> str:
    """What the model reads: a string as it is, anything else as JSON (NaN is not JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(to_jsonable_python(value), ensure_ascii=False, allow_nan=False)


def _short(value: object) -> object:
    """An input as it may appear in a sentence: text cut to 60 characters."""
    return value[:60] if isinstance(value, str) else value
