"""The offline gazetteer's index: built once into the cache folder, then opened read-only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LOOKUP = (
    "from tools.weather import places as g;"
    "print(g.cities_named('Lima')[0].country_code, g.city_by_id(3169070).name)"
)


def _lookup(cache: Path) -> str:
    """The lookup's answer: the last line a fresh process prints (structlog, unconfigured in
    a program of one's own, prints its events before it)."""
    return _run(cache).strip().splitlines()[-1]


def _run(cache: Path, code: str = LOOKUP) -> str:
    """What a fresh process running `code` with this cache folder prints."""
    env = {**os.environ, "AGENT_CACHE_DIR": str(cache)}
    done = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_first_lookup_builds_the_index_and_answers(tmp_path: Path) -> None:
    """The first lookup in a fresh cache folder builds the index file and still answers."""
    assert _lookup(tmp_path) == "PE Rome"
    built = list(tmp_path.glob("gazetteer-*.sqlite3"))
    assert len(built) == 1
    assert not list(tmp_path.glob("*.partial"))


def test_a_built_index_is_reused(tmp_path: Path) -> None:
    """A second process opens the index already built instead of building another."""
    _lookup(tmp_path)
    (built,) = tmp_path.glob("gazetteer-*.sqlite3")
    stamp = built.stat().st_mtime_ns
    assert _lookup(tmp_path) == "PE Rome"
    assert built.stat().st_mtime_ns == stamp


def test_an_unwritable_cache_falls_back_to_memory(tmp_path: Path) -> None:
    """A cache folder that cannot be made (a file in the way) means an index in memory."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    printed = _run(blocker / "cache")
    assert printed.strip().splitlines()[-1] == "PE Rome"
    assert printed.count("gazetteer.in_memory") == 1  # one line says so
    assert blocker.read_text() == "not a folder"


def test_the_whole_index_is_checked_once_when_a_lookup_first_finds_nothing(tmp_path: Path) -> None:
    """Opening reads no page to check it; the first lookup that finds nothing runs SQLite's
    quick_check, once per process, however many lookups find nothing after it."""
    code = (
        "from tools.weather import places as g\n"
        "g.cities_named('Lima')\n"
        "seen = []\n"
        "g._current.index.db.set_trace_callback(seen.append)\n"
        "print(len(g.cities_named('Xyzzy Nowhere')), len(g.cities_named('Qwerty Nowhere')))\n"
        "print(sum('quick_check' in statement for statement in seen))\n"
    )
    assert _run(tmp_path, code).strip().splitlines()[-2:] == ["0 0", "1"]


def test_an_index_that_fails_the_whole_check_is_rebuilt(tmp_path: Path) -> None:
    """A lookup finding nothing in an index that fails the whole check: rebuilt (said once in
    the log), then looked up again."""
    code = (
        "from tools.weather import places as g\n"
        "g.cities_named('Lima')\n"
        "real, calls = g._Index.check_whole, []\n"
        "def once(index):\n"
        "    calls.append(index)\n"
        "    if len(calls) == 1:\n"
        "        raise g._Damaged('a page that hid rows')\n"
        "    real(index)\n"
        "g._Index.check_whole = once\n"
        "print(len(g.cities_named('Xyzzy Nowhere')), calls[0] is not calls[-1])\n"
    )
    printed = _run(tmp_path, code)
    assert printed.count("gazetteer.rebuilt") == 1
    assert printed.strip().splitlines()[-1] == "0 True"  # nothing found, in a new index
