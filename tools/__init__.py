"""Tools the model can call, their registry, and `@tool` to make your own.

Every tool runs behind the resilience engine (`resilience`): retries decided by
error-to-action, fallback sources, deadlines and circuit breakers. `builtin_tools` gives the
agent's own two, `get_weather` and `calculate`; your MCP servers' tools are in `tools.mcp`.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from resilience import Listener, Policy
from tools._function import tool
from tools.calculator import calculate_tool
from tools.http import check_http_url, get_json, make_client, read_capped
from tools.registry import Handler, Registry, Tool, ToolResult, to_result
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
    "get_json",
    "make_client",
    "read_capped",
    "to_result",
    "tool",
    "weather_tool",
]


def builtin_tools(
    client: httpx.AsyncClient | Callable[[], httpx.AsyncClient],
    *,
    endpoints: Endpoints | None = None,
    policy: Policy | None = None,
    listener: Listener | None = None,
) -> list[Tool]:
    """Both tools, sharing `policy` (and so its retry budget, if it carries one); `client`
    may be a function that makes the HTTP client, called on the first weather question."""
    weather = weather_tool(client, endpoints=endpoints, policy=policy, listener=listener)
    return [weather, calculate_tool().bound(policy, listener)]
