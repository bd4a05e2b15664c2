#!/usr/bin/env bash
# Set everything up in .venv and run every check CI runs: lint, types, tests, a quick benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
# The shared-state tests start their own redis-server on a loopback port; install it if missing.
if ! command -v redis-server >/dev/null; then
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo -n"; fi
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null \
        || echo "test.sh: could not install redis-server; the shared-state tests will say so" >&2
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest -q
if [ -f scripts/bench.py ]; then .venv/bin/python scripts/bench.py --quick; fi
