"""The offline world, in one place: simulated weather services with a fault plan, the
scripted model, and the wire encoders every fake speaks (Open-Meteo, wttr.in, the Messages
API in JSON and server-sent events).

The app uses it when there is no API key; the tests and the benchmark use the same pieces,
so every fake answers in the real services' shapes. It depends on the public types of
`agent.models` and `tools`; nothing in `agent` or `tools` imports it except where offline
mode is chosen (`agent.app`).
"""

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
