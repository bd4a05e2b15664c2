"""The flaky MCP server (tests/mcp/flaky_server.py), as one that outlives its client: it
starts a helper process of its own (in its process group), and when its stdin closes it does
not exit but waits, as a server stuck in its own work would. Only ending its process group
ends it. Both process ids are written to PIDS, "server helper", as it starts.

    python tests/hostile/lingering_server.py PIDS PLAN
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script, by the SDK

from tests.mcp.flaky_server import build

LINGER_S = 600  # far past any test's guard


def main() -> None:
    pids, plan = Path(sys.argv[1]), Path(sys.argv[2])
    helper = subprocess.Popen(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", f"import time; time.sleep({LINGER_S})"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pids.write_text(f"{os.getpid()} {helper.pid}")
    build(plan).run()  # until stdin closes
    time.sleep(LINGER_S)


if __name__ == "__main__":
    main()
