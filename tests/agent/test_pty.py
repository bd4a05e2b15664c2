"""`agent chat` on a real pseudo-terminal: readline, colour, and a clean exit."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _chat_on_a_pty(lines: list[bytes], env: dict[str, str], tmp_path: Path) -> str:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command line, on the terminal
        os.chdir(ROOT)
        argv = [sys.executable, "-m", "agent", "chat"]
        child_env = {"HOME": str(tmp_path), "PATH": "", "TERM": "xterm", **env}
        os.execve(sys.executable, argv, child_env)  # noqa: S606 - our own interpreter, fixed argv
    for line in lines:
        os.write(fd, line)
    output = _read_until_exit(fd)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    return output


def _read_until_exit(fd: int, limit_s: float = 30.0) -> str:
    chunks: list[bytes] = []
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_chat_on_a_terminal_answers_in_colour_and_quits(tmp_path: Path) -> None:
    """On a terminal: the banner in colour, the answer, and /quit exits 0."""
    output = _chat_on_a_pty([b"what is 2 + 2?\n", b"/quit\n"], {}, tmp_path)
    assert "2 + 2 = 4." in output
    assert "\x1b[2m" in output
    assert (tmp_path / ".agent_history").exists()
