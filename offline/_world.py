"""A small, fixed world: ten places with coordinates and deterministic current weather.

Two names are shared (Paris, Texas and London, Ontario come after the capitals), so a search
by name finds several places, as the real geocoding does.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PLACES", "Place", "Weather", "find", "near", "search", "wwo_of"]


@dataclass(frozen=True, slots=True)
class Weather:
    """Current conditions, always the same for a place."""

    temperature_c: float
    humidity_pct: int
    wmo_code: int
    wind_kmh: float


@dataclass(frozen=True, slots=True)
class Place:
    """A gazetteer entry, with the fields Open-Meteo's geocoding returns."""

    id: int
    name: str
    latitude: float
    longitude: float
    country: str
    country_code: str
    admin1: str
    timezone: str
    population: int
    weather: Weather


PLACES = (
    Place(2988507, "Paris", 48.85341, 2.3488, "France", "FR", "Île-de-France", "Europe/Paris",
          2138551, Weather(8.8, 87, 63, 28.8)),
    Place(2643743, "London", 51.50853, -0.12574, "United Kingdom", "GB", "England",
          "Europe/London", 8961989, Weather(11.2, 81, 3, 17.3)),
    Place(1850147, "Tokyo", 35.6895, 139.69171, "Japan", "JP", "Tokyo", "Asia/Tokyo",
          9733276, Weather(17.5, 60, 1, 9.4)),
    Place(1275339, "Mumbai", 19.07283, 72.88261, "India", "IN", "Maharashtra", "Asia/Kolkata",
          12691836, Weather(31.4, 70, 2, 14.0)),
    Place(2946447, "Bonn", 50.73438, 7.09549, "Germany", "DE", "North Rhine-Westphalia",
          "Europe/Berlin", 330579, Weather(9.0, 76, 45, 6.1)),
    Place(5128581, "New York", 40.71427, -74.00597, "United States", "US", "New York",
          "America/New_York", 8804190, Weather(14.3, 55, 0, 19.8)),
    Place(2147714, "Sydney", -33.86785, 151.20732, "Australia", "AU", "New South Wales",
          "Australia/Sydney", 4627345, Weather(22.1, 64, 80, 22.3)),
    Place(2950159, "Berlin", 52.52437, 13.41053, "Germany", "DE", "Land Berlin",
          "Europe/Berlin", 3426354, Weather(6.4, 82, 71, 12.9)),
    Place(4717560, "Paris", 33.66094, -95.55551, "United States", "US", "Texas",
          "America/Chicago", 24782, Weather(18.6, 58, 1, 15.1)),
    Place(6058560, "London", 42.98339, -81.23304, "Canada", "CA", "Ontario",
          "America/Toronto", 346765, Weather(4.2, 73, 3, 20.5)),
)  # fmt: skip


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def search(name: str, count: int = 10) -> tuple[Place, ...]:
    """Up to `count` places called exactly `name` (any case), biggest first: name only, so
    "Paris, France" finds nothing, as at Open-Meteo."""
    wanted = _folded(name)
    matches = [place for place in PLACES if _folded(place.name) == wanted]
    return tuple(sorted(matches, key=lambda place: -place.population))[:count]


def find(query: str) -> Place | None:
    """The place wttr.in would pick for free text: "Paris", or "Paris, Texas" by country,
    country code or region after the comma; None when no place has that name."""
    name, _, rest = query.partition(",")
    matches = search(name)
    hints = {_folded(part) for part in rest.split(",")} - {""}
    fitting = (place for place in matches if _regions(place) & hints)
    return next(fitting, matches[0] if matches else None)


def _regions(place: Place) -> set[str]:
    return {_folded(place.country), _folded(place.country_code), _folded(place.admin1)}


def near(latitude: float, longitude: float) -> Place | None:
    """The place at these coordinates (to within about 5 km), if there is one."""
    for place in PLACES:
        if abs(place.latitude - latitude) < 0.05 and abs(place.longitude - longitude) < 0.05:
            return place
    return None


# WMO code → WorldWeatherOnline code and description, as wttr.in reports them.
_WWO = {
    0: (113, "Sunny"),
    1: (116, "Partly cloudy"),
    2: (116, "Partly cloudy"),
    3: (122, "Overcast"),
    45: (248, "Fog"),
    63: (302, "Moderate rain"),
    71: (326, "Light snow"),
    80: (353, "Light rain shower"),
}


def wwo_of(wmo_code: int) -> tuple[int, str]:
    """wttr.in's code and words for a WMO code."""
    return _WWO.get(wmo_code, (119, "Cloudy"))
