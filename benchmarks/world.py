"""The bench's fake world: which places exist, where they are, and how warm it is there.

Every name is a place except the few in `UNKNOWN_PLACES` and those starting "Nowhere";
coordinates and weather are derived from a hash, so the fault server, the scripted model and
the judge agree without sharing state.
Open-Meteo reports one decimal; wttr.in reports whole degrees, as strings.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["UNKNOWN_PLACES", "Place", "conditions_at", "place"]

UNKNOWN_PLACES = frozenset({"atlantis", "xyzzyville"})

# A few WMO codes and the WorldWeatherOnline code wttr.in uses for the same sky.
_SKIES = ((0, 113, "Clear sky"), (2, 116, "Partly cloudy"), (3, 122, "Overcast"), (63, 302, "Rain"))


@dataclass(frozen=True, slots=True)
class Place:
    """A place and its current weather."""

    name: str
    latitude: float
    longitude: float
    temperature: float  # °C, one decimal
    humidity: int
    wmo_code: int
    wwo_code: int
    sky: str

    @property
    def wttr_temperature(self) -> int:
        """The whole-degree temperature wttr.in reports for this place."""
        return round(self.temperature)

    def temperatures(self) -> frozenset[float]:
        """Every reading a correct answer may quote: Open-Meteo's or wttr.in's."""
        return frozenset({self.temperature, float(self.wttr_temperature)})


def place(name: str) -> Place | None:
    """The place called `name`, or None if there is no such place."""
    key = name.strip().lower()
    if not key or key in UNKNOWN_PLACES or key.startswith("nowhere"):
        return None
    digest = hashlib.sha256(key.encode()).digest()
    latitude = round(digest[0] / 255 * 120 - 60, 4) + digest[1] / 1e6
    longitude = round(digest[2] / 255 * 340 - 170, 4) + digest[3] / 1e6
    return conditions_at(name.strip(), round(latitude, 5), round(longitude, 5))


def conditions_at(name: str, latitude: float, longitude: float) -> Place:
    """The weather at a coordinate, the same for every spelling of it."""
    digest = hashlib.sha256(f"{latitude:.2f},{longitude:.2f}".encode()).digest()
    wmo, wwo, sky = _SKIES[digest[2] % len(_SKIES)]
    temperature = round(digest[0] / 255 * 45 - 10, 1)
    return Place(name, latitude, longitude, temperature, 30 + digest[1] % 60, wmo, wwo, sky)
