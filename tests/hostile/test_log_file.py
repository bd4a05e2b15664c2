"""Finding 4 of issue 19: the log file is opened without following a link or waiting on a
FIFO, and used only when it is a regular file of ours that no one else may write.

Before: a symbolic link was followed (JSON appended to the link's 0644 target), a file created
0666 by another user was written into, and a FIFO nobody reads hung `agent ask` before it did
anything, silently, until killed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile.children import agent_env, finish, spawn

QUESTION = ["ask", "What is 2 + 2?"]
ANSWER = "2 + 2 = 4.\n"
THEIRS = "someone else's lines\n"


def ask_logging_to(log: Path, home: Path) -> tuple[int, str, str]:
    """`agent ask` offline with AGENT_LOG_FILE=log, in a child."""
    return finish(spawn(QUESTION, agent_env(home, AGENT_LOG_FILE=str(log))))


def one_notice(err: str, why: str) -> bool:
    """stderr holds one notice about the log file, and it says why."""
    return err.count("AGENT_LOG_FILE") == 1 and why in err


def test_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    """A link at AGENT_LOG_FILE: its target is left as it was, one notice, the answer given."""
    target = tmp_path / "target.txt"
    target.write_text(THEIRS)
    target.chmod(0o644)
    link = tmp_path / "agent.jsonl"
    link.symlink_to(target)
    code, out, err = ask_logging_to(link, tmp_path)
    assert (code, out) == (0, ANSWER)
    assert target.read_text() == THEIRS
    assert link.is_symlink()
    assert one_notice(err, "it is a symbolic link")


def test_a_fifo_nobody_reads_does_not_hang_the_command(tmp_path: Path) -> None:
    """A FIFO at AGENT_LOG_FILE with no reader: refused at once, one notice, the answer given."""
    fifo = tmp_path / "agent.jsonl"
    os.mkfifo(fifo)
    code, out, err = ask_logging_to(fifo, tmp_path)
    assert (code, out) == (0, ANSWER)
    assert one_notice(err, "it is a FIFO")


def test_a_file_others_may_write_is_left_alone(tmp_path: Path) -> None:
    """A log file of ours made 0666: not written, one notice, the answer given."""
    log = tmp_path / "agent.jsonl"
    log.write_text(THEIRS)
    log.chmod(0o666)
    code, out, err = ask_logging_to(log, tmp_path)
    assert (code, out) == (0, ANSWER)
    assert log.read_text() == THEIRS
    assert one_notice(err, "others may write to it")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_file_another_user_owns_is_left_alone(tmp_path: Path) -> None:
    """A log file pre-created 0666 by another user: not written, one notice, the answer given."""
    log = tmp_path / "agent.jsonl"
    log.write_text(THEIRS)
    os.chown(log, 65534, 65534)
    log.chmod(0o666)
    code, out, err = ask_logging_to(log, tmp_path)
    assert (code, out) == (0, ANSWER)
    assert log.read_text() == THEIRS
    assert one_notice(err, "another user owns it")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_not_a_log_file(tmp_path: Path) -> None:
    """AGENT_LOG_FILE=/dev/null (a device, not a regular file): one notice, the answer given."""
    code, out, err = ask_logging_to(Path("/dev/null"), tmp_path)
    assert (code, out) == (0, ANSWER)
    assert one_notice(err, "it is not a regular file")


def test_a_log_file_of_ours_is_appended_to(tmp_path: Path) -> None:
    """A log file of ours, 0644 from an earlier version: appended to, its lines kept."""
    log = tmp_path / "agent.jsonl"
    log.write_text('{"event": "earlier"}\n')
    log.chmod(0o644)
    code, out, err = ask_logging_to(log, tmp_path)
    assert (code, out) == (0, ANSWER)
    assert "AGENT_LOG_FILE" not in err
    lines = log.read_text().splitlines()
    assert lines[0] == '{"event": "earlier"}'
    assert '"agent.turn_started"' in lines[1]
