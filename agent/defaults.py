"""Defaults that `agent --help` shows: standard library only, so that help stays quick."""

__all__ = ["DEFAULT_MODEL"]

DEFAULT_MODEL = "claude-sonnet-4-6"
