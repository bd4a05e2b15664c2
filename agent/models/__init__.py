"""Model backends: Claude over HTTP, the offline scripted model, fault-injecting wrappers.

Import `agent.models.claude` / `agent.models.offline` where needed: both pull in `anthropic`.
"""

from agent.models._base import ModelBackend, ModelRequest, PromptTooLong, TextSink

__all__ = ["ModelBackend", "ModelRequest", "PromptTooLong", "TextSink"]
