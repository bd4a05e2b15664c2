"""The agent: the tool_use loop, model backends, settings, logging, the CLI and the REPL.

Import from the modules: `agent.app` (`ask`, `open_agent`), `agent.settings` (`Settings`).
This package imports nothing itself, so `agent --help` starts with the standard library only.
"""

__all__ = ["DEFAULT_MODEL"]

DEFAULT_MODEL = "claude-sonnet-4-6"  # the model asked unless --model or AGENT_MODEL says
