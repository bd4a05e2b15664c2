"""`python -m agent`, the same as the `agent` console script."""

from agent.cli import run_process

raise SystemExit(run_process())
