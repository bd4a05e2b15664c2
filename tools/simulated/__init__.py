"""Simulated weather services for the offline app, the demo and the tests."""

from tools.simulated._faults import Fault
from tools.simulated._gazetteer import PLACES, Place, Weather
from tools.simulated._services import FORECAST, GEOCODING, SOURCES, WTTR, SimulatedServices

__all__ = [
    "FORECAST",
    "GEOCODING",
    "PLACES",
    "SOURCES",
    "WTTR",
    "Fault",
    "Place",
    "SimulatedServices",
    "Weather",
]
