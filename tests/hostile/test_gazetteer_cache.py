"""Finding 5 of issue 19: the offline gazetteer's cache is checked when opened, rebuilt
atomically when bad, its rows checked against the source when read, its temporary files
removed however a build ends, and kept in memory when it can't be written.

Before: a garbage, empty, sparse 2 GB or wrong-schema cache made every offline weather question
fail for good with "the weather services are not answering", and was never rebuilt; renamed
rows in a valid cache became the answer's place name; SIGTERM or SIGHUP during the first
build, or a full disk, left `*.partial` and `*.partial-journal` files behind for good.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.hostile import REPO
from tests.hostile.children import GUARD_S, agent_env, finish, spawn, wait_until

QUESTION = ["ask", "What's the weather in Paris?"]
NOT_ANSWERING = "not answering"
LOOKUP = "from tools.weather import places; print(places.cities_named('Lima')[0].country_code)"


@dataclass(frozen=True, slots=True)
class Pristine:
    """A cache as the agent builds it, and the answer it gives about Paris."""

    file: Path
    answer: str


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Pristine:
    home = tmp_path_factory.mktemp("pristine")
    code, out, err = finish(spawn(QUESTION, agent_env(home)))
    assert code == 0, err
    (built,) = (home / "cache").glob("gazetteer-*.sqlite3")
    return Pristine(built, out)


def ask(home: Path, **popen: object) -> tuple[int, str, list[dict[str, object]]]:
    """The question asked offline with this home (its cache in home/cache); the exit code,
    the answer, and the log's events."""
    log = home / "agent.jsonl"
    code, out, _ = finish(spawn(QUESTION, agent_env(home, AGENT_LOG_FILE=str(log)), **popen))
    events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return code, out, events


def named(events: list[dict[str, object]], name: str) -> list[dict[str, object]]:
    return [event for event in events if event["event"] == name]


def leftovers(folder: Path) -> list[str]:
    """Temporary files of a build, anywhere in the folder."""
    return sorted(path.name for path in folder.glob("*partial*"))


def plant(home: Path, pristine: Pristine, make: Callable[[Path], None]) -> Path:
    """Make the file at the cache's own path in home/cache with `make`; the path."""
    folder = home / "cache"
    folder.mkdir()
    path = folder / pristine.file.name
    make(path)
    return path


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not an SQLite file\n" * 100)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def sparse_2gb(path: Path) -> None:
    with path.open("wb") as file:
        file.truncate(2 * 1024**3)  # no blocks written: 2 GB that take no room


def wrong_schema(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE place (what TEXT)")
        db.execute("INSERT INTO place VALUES ('not a gazetteer')")
    db.close()


def fifo(path: Path) -> None:
    os.mkfifo(path)


def link_elsewhere(path: Path) -> None:
    target = path.parent.parent / "elsewhere.txt"
    target.write_text("someone else's file\n")
    path.symlink_to(target)


@pytest.mark.parametrize("make", [garbage, empty, sparse_2gb, wrong_schema, fifo, link_elsewhere])
def test_a_bad_cache_is_rebuilt_and_the_question_answered(
    tmp_path: Path, pristine: Pristine, make: Callable[[Path], None]
) -> None:
    """Whatever is at the cache's path, the question is answered as with a good cache, the
    cache is rebuilt in its place (a regular file), the rebuild is logged, nothing is left."""
    path = plant(tmp_path, pristine, make)
    code, out, events = ask(tmp_path)
    assert (code, out) == (0, pristine.answer)
    assert NOT_ANSWERING not in out
    assert path.is_file()
    assert not path.is_symlink()
    assert 1_000_000 < path.stat().st_size < 256 * 1024**2
    assert len(named(events, "gazetteer.rebuilt")) == 1
    assert leftovers(path.parent) == []
    if make is link_elsewhere:
        assert (tmp_path / "elsewhere.txt").read_text() == "someone else's file\n"


def test_a_cache_cut_short_is_rebuilt_when_opened(tmp_path: Path, pristine: Pristine) -> None:
    """A cache cut to half its length (a copy or a disk that ran out) is found damaged by
    SQLite itself, without a whole-file check, and rebuilt once; the answer is as with a good
    cache."""
    whole = pristine.file.read_bytes()
    plant(tmp_path, pristine, lambda path: path.write_bytes(whole[: len(whole) // 2]))
    code, out, events = ask(tmp_path)
    assert (code, out) == (0, pristine.answer)
    problems = [event["problem"] for event in named(events, "gazetteer.rebuilt")]
    assert problems == ["database disk image is malformed"]


# Each fits this version's tables (a test fails if one no longer does).
TAMPERING = {  # Paris is 2988507 in GeoNames, Lima 3936456
    "Paris's name given to Lima": "UPDATE name SET id = 3936456 WHERE rowid ="
    " (SELECT min(rowid) FROM name WHERE key = 'paris' AND id = 2988507)",
    "Paris pointed at Lima": "UPDATE city SET at = (SELECT at FROM city WHERE id = 3936456),"
    " size = (SELECT size FROM city WHERE id = 3936456) WHERE id = 2988507",
    "Lima called Paris": "INSERT INTO name VALUES ('paris', 3936456, 1)",
}


@pytest.mark.parametrize("statement", TAMPERING.values(), ids=TAMPERING.keys())
def test_rows_rewritten_in_a_valid_cache_never_reach_the_answer(
    tmp_path: Path, pristine: Pristine, statement: str
) -> None:
    """A cache that passes every check but whose rows were rewritten: the answer is still
    about Paris, France, with nothing of the rewrite in it, and the cache is rebuilt."""
    path = plant(tmp_path, pristine, lambda path: shutil.copyfile(pristine.file, path))
    with sqlite3.connect(path) as db:
        changed = db.execute(statement).rowcount
    db.close()
    assert changed == 1
    code, out, events = ask(tmp_path)
    assert (code, out) == (0, pristine.answer)
    assert "Lima" not in out
    assert len(named(events, "gazetteer.rebuilt")) == 1


def started_build(child: subprocess.Popen[bytes], folder: Path) -> None:
    """Wait until the child is building (a temporary file is in the folder)."""
    wait_until(lambda: bool(leftovers(folder)) or child.poll() is not None, "a build to start")
    assert child.poll() is None, "the build ended before the test could signal it"


def test_sigterm_during_a_build_leaves_no_temporary_files(tmp_path: Path) -> None:
    """A program of yours using the gazetteer (SIGTERM left to its default action), stopped
    during the first build: it still ends by SIGTERM, and no temporary file is left."""
    folder = tmp_path / "cache"
    env = agent_env(tmp_path)
    child = subprocess.Popen(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", LOOKUP], cwd=REPO, env=env, stdout=subprocess.DEVNULL
    )
    try:
        started_build(child, folder)
        child.send_signal(signal.SIGTERM)
        code = child.wait(GUARD_S)
    finally:
        child.kill()
        child.wait(GUARD_S)
    assert code == -signal.SIGTERM
    assert leftovers(folder) == []


def test_sighup_during_the_agents_first_build_leaves_no_temporary_files(tmp_path: Path) -> None:
    """`agent ask` told to stop (SIGHUP) while it builds the cache: exit 129, no temporary
    file left, and whatever cache is there is whole."""
    folder = tmp_path / "cache"
    child = spawn(QUESTION, agent_env(tmp_path))
    started_build(child, folder)
    child.send_signal(signal.SIGHUP)
    code, _, err = finish(child)
    assert code == 129
    assert "Traceback" not in err
    assert leftovers(folder) == []
    for cache in folder.glob("gazetteer-*.sqlite3"):
        with sqlite3.connect(f"{cache.as_uri()}?mode=ro", uri=True) as db:
            assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        db.close()


def full_disk() -> None:
    """In the child: no file may grow past 1 MB (a disk that fills during the build)."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (1024**2, 1024**2))


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_a_full_disk_means_an_index_in_memory(tmp_path: Path, pristine: Pristine) -> None:
    """The cache can't be written (the disk fills mid-build): the question is answered from an
    index in memory, one log line says so, and no temporary file is left."""
    code, out, events = ask(tmp_path, preexec_fn=full_disk)
    assert (code, out) == (0, pristine.answer)
    assert len(named(events, "gazetteer.in_memory")) == 1
    assert leftovers(tmp_path / "cache") == []
    assert list((tmp_path / "cache").glob("gazetteer-*.sqlite3")) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anyway")
def test_a_read_only_folder_means_an_index_in_memory(tmp_path: Path, pristine: Pristine) -> None:
    """A cache folder that can't be written: answered from memory, one log line."""
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, out, events = ask(tmp_path)
    finally:
        folder.chmod(0o700)
    assert (code, out) == (0, pristine.answer)
    assert len(named(events, "gazetteer.in_memory")) == 1
    assert leftovers(folder) == []


def test_a_dead_builds_temporary_files_are_swept(tmp_path: Path, pristine: Pristine) -> None:
    """A build killed outright (SIGKILL: no handler runs) left its temporary files; the next
    build removes them."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(GUARD_S)
    folder = tmp_path / "cache"
    folder.mkdir()
    for suffix in (".partial", ".partial-journal"):
        (folder / f"{pristine.file.name}.{gone.pid}.0a1b2c3d{suffix}").write_bytes(b"half")
    code, out, _ = ask(tmp_path)
    assert (code, out) == (0, pristine.answer)
    assert leftovers(folder) == []
