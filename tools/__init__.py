"""Tools the model can call, their registry, and `@tool` to make your own.

Every tool runs behind the resilience engine (`resilience`): retries decided by
error-to-action, fallback sources, deadlines and circuit breakers.

Each name is imported on first use (PEP 562), so reading the settings (`Endpoints`,
`check_http_url`) does not load the HTTP stack, the tools or the gazetteer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools._default import builtin_tools
    from tools._function import tool
    from tools._tool import Handler, Tool
    from tools._types import ToolResult
    from tools._urls import check_http_url
    from tools.calculator import calculate_tool
    from tools.http import make_client, read_capped
    from tools.registry import Registry
    from tools.weather import Endpoints, weather_tool

__all__ = [
    "Endpoints",
    "Handler",
    "Registry",
    "Tool",
    "ToolResult",
    "builtin_tools",
    "calculate_tool",
    "check_http_url",
    "make_client",
    "read_capped",
    "tool",
    "weather_tool",
]

# Where each name lives.
_HOMES = {
    "Endpoints": "tools.weather._endpoints",
    "Handler": "tools._tool",
    "Registry": "tools.registry",
    "Tool": "tools._tool",
    "ToolResult": "tools._types",
    "builtin_tools": "tools._default",
    "calculate_tool": "tools.calculator",
    "check_http_url": "tools._urls",
    "make_client": "tools.http",
    "read_capped": "tools.http",
    "tool": "tools._function",
    "weather_tool": "tools.weather._tool",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
