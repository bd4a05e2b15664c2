"""Finding 4 and the log file's mode in finding 9: a failing log sink never ends a turn, and
the log file is created readable by its owner only.

Before: `AGENT_LOG_FILE=/dev/full` ended every turn — exit 1, no model call, "Something went
wrong inside the agent" twice — and the log file was created 0644.
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

needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")


@needs_dev_full
@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "--verbose"])
def test_a_full_disk_costs_the_log_not_the_answer(verbose: bool) -> None:
    """`agent ask` with its log on /dev/full: the model is asked, the answer printed, exit 0,
    one notice on stderr, no crash sentence."""
    with HostileServer(messages=answer("Four.")) as server:
        argv = ["--verbose", "ask", "2+2?"] if verbose else ["ask", "2+2?"]
        code, out, err = cli(argv, server.env(AGENT_LOG_FILE="/dev/full"))
        asked = len(server.model_requests())
    assert (code, out, asked) == (EXIT_OK, "Four.\n", 1)
    assert err.count(DROPPED_NOTICE) == 1
    assert "Something went wrong" not in err
    if verbose:
        assert "agent.log_sink_dropped" in err


@needs_dev_full
def test_a_full_disk_does_not_end_a_chat() -> None:
    """The REPL goes on answering, question after question."""
    with HostileServer(messages=answer("Four.")) as server:
        code, out, _ = cli(["chat"], server.env(AGENT_LOG_FILE="/dev/full"), ["2+2?", "2+2?"])
        asked = len(server.model_requests())
    assert (code, asked) == (0, 2)
    assert out.count("Four.") == 2


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
