"""Tools the model can call, their registry, and `@tool` to make your own.

Every tool runs behind the resilience engine (`resilience`): retries decided by
error-to-action, fallback sources, deadlines and circuit breakers.
"""

from tools._default import builtin_tools
from tools._function import tool
from tools._tool import Handler, Tool
from tools._types import ToolResult
from tools.calculator import calculate_tool
from tools.http import check_http_url, make_client, read_capped
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
