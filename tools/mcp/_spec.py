"""How to reach one MCP server: a command to run (stdio) or a URL (streamable HTTP).

Nothing here imports the `mcp` SDK, so naming servers costs nothing at start-up.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Literal, TypedDict, Unpack
from urllib.parse import urlsplit

from errors import BadSetting
from tools.http import check_http_url

__all__ = ["Bounds", "McpServer"]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_NAMED = re.compile(r"^([A-Za-z0-9_-]{1,32})=(.+)$", re.DOTALL)
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]+")
# Launchers whose first argument, not themselves, names the server.
_LAUNCHERS = frozenset(
    {"python", "python3", "py", "node", "npx", "uv", "uvx", "pipx", "deno", "bun", "bunx", "pnpm"}
)
_LAUNCHER_WORDS = frozenset({"run", "exec", "dlx", "tool", "-m", "--from"})


class Bounds(TypedDict, total=False):
    """How patient to be with a server; what is left out keeps `McpServer`'s default."""

    connect_timeout_s: float
    max_restarts: int
    restart_window_s: float


@dataclass(frozen=True, slots=True)
class McpServer:
    """One MCP server the agent may use, and how patient to be with it.

    `connect_timeout_s` bounds starting it and reading its tool list. A stdio server whose
    process dies is restarted on the next call, at most `max_restarts` times within
    `restart_window_s` (an HTTP server's session is opened anew within the same bound).
    `env` is added to the few variables the SDK passes on (PATH, HOME, …): a server sees
    none of the agent's other variables, such as its API key.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    url: str | None = field(default=None, repr=False)  # may carry a token
    env: Mapping[str, str] | None = field(default=None, repr=False)
    cwd: str | None = None
    connect_timeout_s: float = 15.0
    max_restarts: int = 3
    restart_window_s: float = 60.0

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError("an MCP server's name is 1-32 letters, digits, '_' or '-'")
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server has either a command or a URL")
        if self.command is not None and not self.command.strip():
            raise ValueError("an MCP server's command is empty")

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **bounds: Unpack[Bounds],
    ) -> McpServer:
        """A server run as `command args…`, spoken to over its stdin and stdout."""
        name = name or _name_of_command(command, args)
        return cls(name, command=command, args=tuple(args), env=env, cwd=cwd, **bounds)

    @classmethod
    def http(cls, url: str, *, name: str | None = None, **bounds: Unpack[Bounds]) -> McpServer:
        """A server at `url`, spoken to over streamable HTTP; `BadSetting` unless http(s)."""
        check_http_url("--mcp-url", url)
        return cls(name or _name_of_url(url), url=url, **bounds)

    @classmethod
    def parse(cls, spec: str) -> McpServer:
        """The CLI's `--mcp`: `[NAME=]COMMAND ARGS…`, split as a shell would (`BadSetting`
        for an empty one, or quotes that do not close)."""
        name, rest = _named(spec)
        try:
            argv = shlex.split(rest)
        except ValueError:
            raise BadSetting("--mcp", "has a quote that is not closed") from None
        if not argv:
            raise BadSetting("--mcp", "needs a command to run")
        return cls.stdio(argv[0], argv[1:], name=name)

    @classmethod
    def parse_url(cls, spec: str) -> McpServer:
        """The CLI's `--mcp-url`: `[NAME=]URL`."""
        name, url = _named(spec)
        return cls.http(url.strip(), name=name)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """ "stdio" for a command, "http" for a URL."""
        return "stdio" if self.command is not None else "http"


def _named(spec: str) -> tuple[str | None, str]:
    """An explicit `NAME=` prefix, if the spec has one, and the rest."""
    match = _NAMED.match(spec.strip())
    return (match[1], match[2]) if match else (None, spec)


def _name_of_command(command: str, args: Sequence[str]) -> str:
    """The server's script or package, not its launcher: `python tests/x_server.py` →
    "x_server", `npx -y @scope/server-files /tmp` → "server-files", `uvx mcp-time` →
    "mcp-time"."""
    if _stem(command).lower().rstrip("0123456789.") in _LAUNCHERS:
        for word in args:
            if not word.startswith("-") and word not in _LAUNCHER_WORDS:
                return _as_name(_stem(word))
    return _as_name(_stem(command))


def _stem(word: str) -> str:
    """The last part of a path or package (`@scope/pkg@1.2` → "pkg"), without a suffix."""
    last = PurePath(word.rstrip("/")).name or word
    last = last.split("@", 1)[0] or last.lstrip("@")
    if last.endswith((".py", ".js", ".mjs", ".ts", ".exe")):
        last = last.rsplit(".", 1)[0]
    parts = last.split(".")
    return parts[-1] if all(p.isidentifier() for p in parts) else last  # "pkg.mod" → "mod"


def _name_of_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or "server"
    return _as_name(f"{host}-{parts.port}" if parts.port else host)


def _as_name(text: str) -> str:
    name = _NOT_NAME.sub("-", text).strip("-")[:32].strip("-")
    return name or "mcp"
