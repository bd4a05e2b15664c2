"""An MCP tool's JSON Schema as a pydantic input model, so the registry can stop bad input
before it is sent.

The model checks what pydantic states well, with each input's own name in the message (a
missing required input, a top-level input of the wrong JSON type, an unknown input when the
schema forbids extras), strictly, so the arguments sent are exactly the ones the model gave.
Everything else in the schema (enums, ranges, patterns, nested objects) is checked with
`jsonschema`; a failure there is worded by us, never with the validator's text. The tool's
definition sends the server's own schema, untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

import structlog
from jsonschema import exceptions as schema_errors
from jsonschema import validators
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

__all__ = ["arguments", "input_model"]

log = structlog.get_logger("tools")

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
    check = _checker(tool, schema)
    title = "".join(part.title() for part in _words(tool).split()) + "Input"
    return create_model(
        title or "McpToolInput",
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


def _checker(tool: str, schema: Mapping[str, Any]) -> Any:
    """An after-validator checking the whole schema, or None when the schema itself is not
    valid JSON Schema (then the server alone judges its input; logged once)."""
    try:
        cls = validators.validator_for(dict(schema))
        cls.check_schema(dict(schema))
        validator = cls(dict(schema))
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
    return f"{_words(name)} {what}"


def _words(name: str) -> str:
    return " ".join(name.replace("_", " ").replace("-", " ").split())
