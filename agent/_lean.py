"""Two third-party imports made lean for the command line: import this module first
(`agent.log` does, and every command configures logging before it loads anything else).

- structlog's `dev` and `tracebacks` modules import rich whenever it is installed, only to
  render pretty tracebacks, which this project never uses (`format_exc_info` turns an
  exception into text before any renderer sees it). While structlog is first imported here,
  rich is marked missing, so structlog takes its plain paths; rich stays importable for the
  REPL.
- httpx imports its command-line client (`httpx._main`: click, pygments and rich) whenever
  those are installed; this process never runs it. A finder refuses that one module, which
  httpx expects (`httpx.main` then only says its dependencies are missing).

Together some 50 modules and tens of milliseconds of every command's start.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["structlog"]


class _NoHttpxCommandLine:
    """A meta path finder that refuses `httpx._main` and finds nothing else."""

    @staticmethod
    def find_spec(
        fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname == "httpx._main":
            raise ImportError("httpx's command line is not used here")
        return None


if "httpx" not in sys.modules:  # once imported, it has its command line already
    sys.meta_path.insert(0, _NoHttpxCommandLine())

_PLAIN = "structlog" not in sys.modules and "rich" not in sys.modules
if _PLAIN:
    sys.modules["rich"] = None  # type: ignore[assignment]  # `import rich` now fails
try:
    import structlog as structlog  # after the guard, on purpose
finally:
    if _PLAIN:
        del sys.modules["rich"]
