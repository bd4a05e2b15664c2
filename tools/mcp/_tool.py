"""One MCP tool as a `Tool`: each call one run of the resilience engine, whose one source is
the server (sharing its circuit breaker with the server's other tools), and input checked
against the server's JSON Schema before it is sent.

The input model checks what pydantic states well, with each input's own name in the message
(a missing required input, a top-level input of the wrong JSON type, an unknown input when
the schema forbids extras), strictly, so the arguments sent are exactly the ones the model
gave. The rest of the schema (enums, ranges, patterns, nested objects) is checked with
`jsonschema`, and a failure there is worded by us, never with the validator's text. The
model is sent the server's own schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Union

import structlog
from jsonschema import exceptions as schema_errors
from jsonschema import validators
from mcp.types import CallToolResult
from mcp.types import Tool as RemoteTool
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    create_model,
    model_validator,
)

from resilience import Breaker, Engine, Listener, Policy, Source
from tools.mcp._connection import Connection
from tools.mcp._errors import McpToolError
from tools.registry import Tool, ToolResult, subject_of, to_result

__all__ = ["MAX_RESULT_CHARS", "arguments", "input_model", "mcp_tool"]

log = structlog.get_logger("tools")

MAX_RESULT_CHARS = 50_000  # a larger answer is cut, and says so


def mcp_tool(
    connection: Connection,
    remote: RemoteTool,
    name: str,
    policy: Policy,
    listener: Listener | None,
    *,
    model: type[BaseModel] | None = None,
) -> Tool:
    """`remote`, a tool of `connection`'s server, as the `Tool` `name` on `policy`; its input
    `model` made from the server's schema, once (a rebound tool keeps its model)."""
    server = connection.server.name
    schema = dict(remote.input_schema)
    schema.setdefault("type", "object")
    model = model or input_model(name, schema)
    spoken = words(remote.name) or "MCP"
    activity = f"running the {spoken} tool"
    engine = _ServerEngine(name, policy, listener, connection.breaker_for(policy))

    async def call(args: BaseModel) -> str:
        result = await connection.call(remote.name, arguments(args))
        if result.is_error:  # its text is for error-to-action and the log only
            raise McpToolError(" ".join(_parts(result))[:4000], server=server)
        return _render(result)

    async def handler(args: BaseModel) -> ToolResult:
        source = Source(server, lambda _attempt: call(args))
        operation = f"{activity} via the MCP server {server}"
        outcome = await engine.run(operation, [source], subject=subject_of(args))
        return to_result(outcome, str)

    def rebind(new_policy: Policy | None, new_listener: Listener | None) -> Tool:
        return mcp_tool(connection, remote, name, new_policy or policy, new_listener, model=model)

    return Tool(
        name,
        (remote.description or remote.title or "").strip() or f"The {spoken} tool.",
        model,
        handler,
        activity,
        rebind=rebind,
        input_schema=schema,
        origin=f"MCP server {server}",
        foreign=True,
    )


class _ServerEngine(Engine):
    """An engine whose source, the server, has the breaker all the server's tools share."""

    def __init__(
        self, caller: str, policy: Policy, listener: Listener | None, breaker: Breaker
    ) -> None:
        super().__init__(caller, policy, listener)
        self._server_breaker = breaker

    def breaker(self, source: str) -> Breaker:
        return self._server_breaker


def _render(result: CallToolResult) -> str:
    """What the model reads of an answer: its text blocks, or its structured content as
    JSON; what it can't read (an image, a binary resource) is named; cut past a cap."""
    parts = _parts(result)
    if not any(parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n".join(parts) or "(the tool answered with nothing)"
    if len(text) > MAX_RESULT_CHARS:
        return f"{text[:MAX_RESULT_CHARS]}\n… (cut: the answer was {len(text)} characters)"
    return text


def _parts(result: CallToolResult) -> list[str]:
    parts: list[str] = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "resource":
            text = getattr(block.resource, "text", None)  # a blob has none
            parts.append(text if text is not None else "(a binary resource)")
        elif block.type == "resource_link":
            parts.append(f"(a link to {block.uri})")
        else:
            parts.append(f"(an {block.type} the agent cannot show)")
    return parts


# --- the input model ----------------------------------------------------------------------

_JSON_TYPES: dict[str, Any] = {
    "string": StrictStr,
    "integer": StrictInt,
    "number": StrictInt | StrictFloat,
    "boolean": StrictBool,
    "array": list[Any],
    "object": dict[str, Any],
    "null": None,
}
# What a failed check means, in words, by the JSON Schema keyword that failed.
_PROBLEMS = {
    "enum": "is not one of the values it accepts",
    "const": "is not the value it accepts",
    "minimum": "is too small",
    "exclusiveMinimum": "is too small",
    "maximum": "is too large",
    "exclusiveMaximum": "is too large",
    "minLength": "is too short",
    "maxLength": "is too long",
    "minItems": "has too few items",
    "maxItems": "has too many items",
    "pattern": "is not in the form it needs",
    "format": "is not in the form it needs",
    "required": "lacks a part it needs",
    "type": "has a part of the wrong kind",
    "additionalProperties": "has a part it does not accept",
}


def input_model(tool: str, schema: Mapping[str, Any]) -> type[BaseModel]:
    """A pydantic model accepting exactly what `schema` (an MCP `inputSchema`) accepts."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    fields: dict[str, Any] = {}
    for index, (name, spec) in enumerate(properties.items()):
        python_type = _python_type(spec if isinstance(spec, Mapping) else {})
        default = ... if name in required else None
        # Internal field names: the server's may clash with BaseModel or not be identifiers.
        fields[f"field_{index}"] = (python_type, Field(default, alias=str(name)))
    closed = schema.get("additionalProperties") is False
    config = ConfigDict(extra="forbid" if closed else "allow", strict=True, populate_by_name=False)
    check = _checker(tool, dict(schema))
    return create_model(
        words(tool).title().replace(" ", "") + "Input",
        __config__=config,
        __validators__={"schema_check": check} if check else None,
        **fields,
    )


def arguments(args: BaseModel) -> dict[str, Any]:
    """The validated input as the server's own names, only those the model gave."""
    return args.model_dump(by_alias=True, exclude_unset=True)


def _python_type(spec: Mapping[str, Any]) -> Any:
    kind = spec.get("type")
    if isinstance(kind, str):
        return _JSON_TYPES.get(kind, Any)
    if isinstance(kind, list) and kind and all(k in _JSON_TYPES for k in kind):
        return Union[tuple(_JSON_TYPES[k] for k in kind)]  # noqa: UP007 - built at run time
    return Any


def _checker(tool: str, schema: dict[str, Any]) -> Any:
    """An after-validator checking the whole schema, or None when the schema itself is not
    valid JSON Schema (then the server alone judges its input; logged once)."""
    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema)
    except (schema_errors.SchemaError, TypeError):
        log.warning("mcp.schema_unusable", tool=tool[:80])
        return None

    def check(model: BaseModel) -> BaseModel:
        error = schema_errors.best_match(validator.iter_errors(arguments(model)))
        if error is not None:
            raise ValueError(_problem(error))
        return model

    return model_validator(mode="after")(check)


def _problem(error: schema_errors.ValidationError) -> str:
    """The failed check in our words, read after "the input": which input (by its top-level
    name), and what is wrong with it ("count is too small")."""
    path = [part for part in error.absolute_path if isinstance(part, str)]
    what = _PROBLEMS.get(str(error.validator), "is not valid")
    name = path[0] if path and path[0].isidentifier() and len(path[0]) <= 30 else "value"
    return f"{words(name)} {what}"


def words(name: str) -> str:
    """A name as plain words: `find_things` → "find things"."""
    return " ".join(re.sub(r"[_./:-]+", " ", name).split())
