"""The agent: the tool_use loop, model backends, settings, logging, the CLI and the REPL.

Import from the modules: `agent.app` (`ask`, `open_agent`), `agent.settings` (`Settings`).
This package imports nothing itself, so `agent --help` starts with the standard library only.
"""

__all__ = ["AGENT_NAME", "DEFAULT_MODEL", "QUESTION_CHARS"]

AGENT_NAME = "failsafe-agent"  # gen_ai.agent.name, and the service name of its traces
DEFAULT_MODEL = "claude-sonnet-4-6"  # the model asked unless --model or AGENT_MODEL says
# The longest question (or line typed into the chat) sent to the model: about 8,000 tokens,
# well inside the history's budget. A longer one is refused before anything is sent.
QUESTION_CHARS = 32_000
