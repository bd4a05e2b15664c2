"""Model backends and the light types the loop reads.

`agent.models.claude` (Claude over HTTP) imports the anthropic SDK; nothing here does, so
offline mode (`offline.OfflineModel`) never loads it.
"""

from agent.models._base import ModelBackend, ModelRequest, PromptTooLong, TextSink
from agent.models._reply import Block, OtherBlock, Reply, Text, ToolCall, Usage

__all__ = [
    "Block",
    "ModelBackend",
    "ModelRequest",
    "OtherBlock",
    "PromptTooLong",
    "Reply",
    "Text",
    "TextSink",
    "ToolCall",
    "Usage",
]
