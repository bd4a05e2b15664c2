"""The offline world, in one place: the scripted model, simulated weather services with a
fault plan, models that misbehave on purpose, and the wire encoders every fake speaks
(Open-Meteo, wttr.in, the Messages API in JSON and server-sent events).

The command line uses it when there is no API key (`agent/cli.py` wires it in); the tests,
the demo and the benchmark use the same pieces, so every fake answers in the real services'
shapes. It depends on the public types of `agent` and `tools`; nothing in `agent` imports
it but the command line.

    agent = await offline.open_agent(Settings())     # the scripted model, simulated services
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.app import Agent, Answer
from agent.app import ask as _ask
from agent.app import open_agent as _open_agent
from offline._fakes import FlakyModel, MangledInputModel, QueuedModel, api_error, calls, text
from offline._model import OFFLINE_MODEL, OfflineModel
from offline._services import FORECAST, GEOCODING, WTTR, Fault, SimulatedServices
from offline._world import Place, Weather, hand_set

if TYPE_CHECKING:
    from agent.settings import Settings

__all__ = [
    "FORECAST",
    "GEOCODING",
    "OFFLINE_MODEL",
    "WTTR",
    "Fault",
    "FlakyModel",
    "MangledInputModel",
    "OfflineModel",
    "Place",
    "QueuedModel",
    "SimulatedServices",
    "Weather",
    "api_error",
    "ask",
    "calls",
    "hand_set",
    "open_agent",
    "text",
]


def _offline(settings: Settings, options: dict[str, Any]) -> dict[str, Any]:
    """`options`, with the scripted model and the simulated services where none is given."""
    options.setdefault("backend", OfflineModel())
    if options.get("http") is None and options.get("transport") is None:
        options["transport"] = SimulatedServices(settings.endpoints).transport
    return options


async def open_agent(settings: Settings, **options: Any) -> Agent:
    """`agent.app.open_agent` in the offline world: the scripted model answers (unless a
    `backend` is given) and the tools call the simulated services (unless `http` or a
    `transport` is given)."""
    return await _open_agent(settings, **_offline(settings, options))


async def ask(question: str, settings: Settings, **options: Any) -> Answer:
    """`agent.app.ask` in the offline world, as `open_agent`."""
    return await _ask(question, settings, **_offline(settings, options))
