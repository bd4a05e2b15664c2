"""`python -m agent …` in a child process of its own, with an environment the test controls.

For what only a real process shows: a FIFO that would hang it, a signal, a pipe its reader
closes, a file size limit, the processes it leaves behind. Every wait is bounded by `GUARD_S`,
a hang guard only: a child still running past it is killed and the test fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchmarks.hostile import REPO

__all__ = ["GUARD_S", "agent_env", "alive", "finish", "spawn", "wait_until"]

GUARD_S = 60.0


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with nothing of the caller's in it but PATH: offline (no key), a home
    and cache folder of the test's own, no bytecode written."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "AGENT_CACHE_DIR": str(home / "cache"),
        "PYTHONPATH": str(REPO),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        **extra,
    }


def spawn(argv: list[str], env: Mapping[str, str], **popen: Any) -> subprocess.Popen[bytes]:
    """`python -m agent argv…`, its stdin, stdout and stderr pipes unless told otherwise."""
    options: dict[str, Any] = {
        "stdin": subprocess.PIPE,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
    }
    return subprocess.Popen(  # noqa: S603 - this interpreter, the project's own module
        [sys.executable, "-m", "agent", *argv], cwd=REPO, env=dict(env), **(options | popen)
    )


def finish(child: subprocess.Popen[bytes], stdin: bytes = b"") -> tuple[int, str, str]:
    """Feed `stdin`, wait for the child (killed past the guard, failing the test); its exit
    code, stdout and stderr."""
    try:
        out, err = child.communicate(stdin, timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise AssertionError(f"the child was still running after {GUARD_S:g} s") from None
    return child.returncode, _text(out), _text(err)


def _text(captured: bytes | None) -> str:
    """What a pipe of the child's held, or "" for a stream the test did not capture."""
    return (captured or b"").decode(errors="replace")


def wait_until(done: Callable[[], bool], what: str) -> None:
    """Poll `done` until it holds; fail the test if it does not within the guard."""
    deadline = time.monotonic() + GUARD_S
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {GUARD_S:g} s for {what}")
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"
