"""Tools, their registry and the resilience middleware around them."""

from tools._default import default_registry
from tools._tool import Handler, Tool
from tools._types import Attempt, Observer, Progress, ProgressKind, ToolResult
from tools.calculator import calculate_tool
from tools.http import check_http_url, make_client, read_capped
from tools.middleware import CircuitBreaker, Policy, RetryBudget
from tools.registry import Registry
from tools.simulated import Fault, SimulatedServices
from tools.weather import Endpoints, weather_tool

__all__ = [
    "Attempt",
    "CircuitBreaker",
    "Endpoints",
    "Fault",
    "Handler",
    "Observer",
    "Policy",
    "Progress",
    "ProgressKind",
    "Registry",
    "RetryBudget",
    "SimulatedServices",
    "Tool",
    "ToolResult",
    "calculate_tool",
    "check_http_url",
    "default_registry",
    "make_client",
    "read_capped",
    "weather_tool",
]
