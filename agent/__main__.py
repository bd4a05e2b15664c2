"""`python -m agent`, the same as the `agent` console script."""

from agent.cli import main

raise SystemExit(main())
