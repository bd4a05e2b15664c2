"""The agent: the tool_use loop, model backends, settings, logging, the CLI and the REPL.

Kept empty of imports on purpose: `agent.cli` must start without loading `anthropic` or `rich`.
Import from the submodules: `agent.app` (`ask`, `open_agent`), `agent.settings` (`Settings`).
"""

__all__: list[str] = []
