"""The `agent` command run in process, as the tests drive it."""

from __future__ import annotations

import io
from collections.abc import Sequence

from agent.cli import main

__all__ = ["run_cli"]


def run_cli(
    argv: list[str], env: dict[str, str] | None = None, lines: Sequence[str] = ()
) -> tuple[int, str, str]:
    """Run `agent argv` with this environment, typing `lines` at its prompts (then end of
    input); returns the exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    pending = list(lines)

    def read(_prompt: str) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    code = main(argv, env=env or {}, stdout=out, stderr=err, read=read)
    return code, out.getvalue(), err.getvalue()
