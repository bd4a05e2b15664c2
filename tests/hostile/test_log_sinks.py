"""Finding 4 and the log file's mode in finding 9: a failing log sink never ends a turn, and
the log file is created readable by its owner only.

Before: `AGENT_LOG_FILE=/dev/full` ended every turn — exit 1, no model call, "Something went
wrong inside the agent" twice — and the log file was created 0644. A device is no log file
any more (tests/hostile/test_log_file.py), so a full disk is played here by a log file that
may not grow: the child runs under a file size limit (RLIMIT_FSIZE) its log already fills.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agent.cli import EXIT_OK
from agent.log import DROPPED_NOTICE
from benchmarks.hostile_server import HostileServer, answer
from tests.hostile.agents import cli
from tests.hostile.children import agent_env, finish, spawn

resource = pytest.importorskip("resource")

LIMIT = 64 * 1024  # bytes any file of the child may reach


def full_log(tmp_path: Path) -> Path:
    """A log file already as large as the child may make any file: no line more fits."""
    log = tmp_path / "agent.jsonl"
    log.write_text(("x" * 99 + "\n") * (LIMIT // 100) + "x" * (LIMIT % 100))
    log.chmod(0o600)
    return log


def limited() -> None:
    """In the child, before it runs: no file may grow past LIMIT (writes fail with EFBIG;
    Python ignores SIGXFSZ, so the process goes on)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "--verbose"])
def test_a_full_disk_costs_the_log_not_the_answer(tmp_path: Path, verbose: bool) -> None:
    """`agent ask` with its log on a full disk: the model is asked, the answer printed, exit 0,
    one notice on stderr, no crash sentence."""
    log = full_log(tmp_path)
    with HostileServer(messages=answer("Four.")) as server:
        argv = ["--verbose", "ask", "2+2?"] if verbose else ["ask", "2+2?"]
        env = agent_env(tmp_path, **server.env(AGENT_LOG_FILE=str(log)))
        code, out, err = finish(spawn(argv, env, preexec_fn=limited))
        asked = len(server.model_requests())
    assert (code, out, asked) == (EXIT_OK, "Four.\n", 1)
    assert err.count(DROPPED_NOTICE) == 1
    assert "Something went wrong" not in err
    assert log.stat().st_size == LIMIT
    if verbose:
        assert "agent.log_sink_dropped" in err


def test_a_full_disk_does_not_end_a_chat(tmp_path: Path) -> None:
    """The REPL goes on answering, question after question."""
    log = full_log(tmp_path)
    with HostileServer(messages=answer("Four.")) as server:
        env = agent_env(tmp_path, **server.env(AGENT_LOG_FILE=str(log)))
        code, out, err = finish(spawn(["chat"], env, preexec_fn=limited), b"2+2?\n2+2?\n")
        asked = len(server.model_requests())
    assert (code, asked) == (0, 2)
    assert out.count("Four.") == 2
    assert err.count(DROPPED_NOTICE) == 1


def test_the_log_file_is_created_readable_by_its_owner_only(tmp_path: Path) -> None:
    """A new AGENT_LOG_FILE is 0600 whatever the umask; its events are JSON lines."""
    log = tmp_path / "agent.jsonl"
    old = os.umask(0o022)
    try:
        with HostileServer(messages=answer("Four.")) as server:
            code, _, _ = cli(["ask", "2+2?"], server.env(AGENT_LOG_FILE=str(log)))
    finally:
        os.umask(old)
    assert code == EXIT_OK
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert all(json.loads(line)["event"] for line in log.read_text().splitlines())
