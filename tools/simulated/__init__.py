"""Simulated weather services for the offline app, the demo and the tests."""

from tools.simulated._faults import Fault
from tools.simulated._gazetteer import PLACES, Place, Weather
from tools.simulated._services import SOURCES, SimulatedServices

__all__ = ["PLACES", "SOURCES", "Fault", "Place", "SimulatedServices", "Weather"]
