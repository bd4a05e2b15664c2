#!/usr/bin/env bash
# Set everything up in .venv and run every check CI runs: lint, types, tests, a quick benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest -q
if [ -f scripts/bench.py ]; then .venv/bin/python scripts/bench.py --quick; fi
