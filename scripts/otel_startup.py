"""What tracing costs `agent ask` from start to exit: off, `--otel console`, and OTLP/HTTP.

Each run is a fresh `python -m agent ask --offline QUESTION`; the three kinds take turns, so
load on the machine falls on all of them alike. OTLP goes to a receiver on 127.0.0.1 that this
script starts and stops (it answers every export at once). Medians, and ratios to "off".

    python scripts/otel_startup.py            # 15 runs of each
    python scripts/otel_startup.py --runs 40
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "What's the weather in Paris?"


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return None


def _once(extra: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        [sys.executable, "-m", "agent", "ask", "--offline", QUESTION, *extra],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="runs of each kind")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # As an installed agent starts: no OTEL_/AGENT_ settings, bytecode cached (a warm-up run);
    # its saved conversations in a folder of the script's own, never the person's.
    data = tempfile.TemporaryDirectory(prefix="otel-startup-data-")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "AGENT_"))}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    base["AGENT_DATA_DIR"] = data.name
    otlp = {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}"}
    kinds = {
        "tracing off": ([], base),
        "--otel console": (["--otel", "console"], base),
        "OTLP/HTTP (loopback)": ([], otlp),
    }
    load_before = os.getloadavg()
    for extra, env in kinds.values():  # warm the file cache and the bytecode, unmeasured
        _once(extra, env)
    times: dict[str, list[float]] = {name: [] for name in kinds}
    try:
        for _ in range(args.runs):
            for name, (extra, env) in kinds.items():
                times[name].append(_once(extra, env))
    finally:
        server.shutdown()
        server.server_close()
        data.cleanup()
    off, off_min = statistics.median(times["tracing off"]), min(times["tracing off"])
    print(f"agent ask --offline, {args.runs} runs of each, interleaved")
    print(f"load average before: {load_before[0]:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(f"{'':22} {'median':>9} {'min':>9} {'max':>9}  ratio to off: median, min")
    for name, values in times.items():
        median, least = statistics.median(values), min(values)
        print(
            f"{name:22} {median * 1000:7.0f} ms {least * 1000:6.0f} ms "
            f"{max(values) * 1000:6.0f} ms  {median / off:.2f}×, {least / off_min:.2f}×"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
