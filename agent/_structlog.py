"""structlog, imported without rich: import it from here first (`agent.log` does).

structlog's `dev` and `tracebacks` modules import rich whenever it is installed, only to
render pretty tracebacks, which this project never uses (`format_exc_info` turns an exception
into text before any renderer sees it). That costs every command some 50 ms and 60 modules,
so while structlog is first imported, rich is marked missing; structlog then takes its plain
paths, and rich stays importable for the REPL.
"""

from __future__ import annotations

import sys

_PLAIN = "structlog" not in sys.modules and "rich" not in sys.modules
if _PLAIN:
    sys.modules["rich"] = None  # type: ignore[assignment]  # `import rich` now fails
try:
    import structlog as structlog  # after the guard, on purpose
finally:
    if _PLAIN:
        del sys.modules["rich"]

__all__ = ["structlog"]
