"""The offline world, in one place: simulated weather services with a fault plan, the
scripted model, and the wire encoders every fake speaks (Open-Meteo, wttr.in, the Messages
API in JSON and server-sent events).

The app uses it when there is no API key; the tests and the benchmark use the same pieces,
so every fake answers in the real services' shapes. It depends on the public types of
`agent.models` and `tools`; nothing in `agent` or `tools` imports it except where offline
mode is chosen (`agent.app`).

Each name is imported on first use (PEP 562): the scripted model alone does not load the
simulated services (and with them httpx).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from offline._faults import Fault
    from offline._model import OFFLINE_MODEL, OfflineModel
    from offline._model_faults import FlakyModel, MangledInputModel, api_error
    from offline._queued import QueuedModel, calls, text
    from offline._services import FORECAST, GEOCODING, SOURCES, WTTR, SimulatedServices
    from offline._world import HAND_SET, Place, Weather, hand_set

__all__ = [
    "FORECAST",
    "GEOCODING",
    "HAND_SET",
    "OFFLINE_MODEL",
    "SOURCES",
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
    "calls",
    "hand_set",
    "text",
]

# Where each name lives.
_HOMES = {
    "FORECAST": "offline._services",
    "Fault": "offline._faults",
    "FlakyModel": "offline._model_faults",
    "GEOCODING": "offline._services",
    "HAND_SET": "offline._world",
    "MangledInputModel": "offline._model_faults",
    "OFFLINE_MODEL": "offline._model",
    "OfflineModel": "offline._model",
    "Place": "offline._world",
    "QueuedModel": "offline._queued",
    "SOURCES": "offline._services",
    "SimulatedServices": "offline._services",
    "WTTR": "offline._services",
    "Weather": "offline._world",
    "api_error": "offline._model_faults",
    "calls": "offline._queued",
    "hand_set": "offline._world",
    "text": "offline._queued",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'offline' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
