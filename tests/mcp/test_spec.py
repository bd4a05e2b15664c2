"""Naming and parsing MCP servers (no SDK, no process)."""

from __future__ import annotations

import pytest

from errors import BadSetting
from tools.mcp import McpServer


@pytest.mark.parametrize(
    ("spec", "name", "command", "args"),
    [
        ("python tests/x_server.py", "x_server", "python", ["tests/x_server.py"]),
        ("/usr/bin/python3.11 -m mcp_time", "mcp_time", "/usr/bin/python3.11", ["-m", "mcp_time"]),
        ("npx -y @scope/server-files /", "server-files", "npx", ["-y", "@scope/server-files", "/"]),
        ("uvx mcp-fetch@1.2", "mcp-fetch", "uvx", ["mcp-fetch@1.2"]),
        ("uv run server.py", "server", "uv", ["run", "server.py"]),
        ("./bin/notes-server --port=0", "notes-server", "./bin/notes-server", ["--port=0"]),
        ("files=npx -y @a/files '/my docs'", "files", "npx", ["-y", "@a/files", "/my docs"]),
    ],
)  # fmt: skip
def test_a_command_is_split_and_named(spec: str, name: str, command: str, args: list[str]) -> None:
    """The name is the server's script or package, not its launcher, unless given as NAME=."""
    server = McpServer.parse(spec)
    assert (server.name, server.command, list(server.args)) == (name, command, args)
    assert server.transport == "stdio"


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("http://127.0.0.1:8000/mcp", "127-0-0-1-8000"),
        ("https://tools.example.com/mcp", "tools-example-com"),
        ("notes=http://127.0.0.1:8000/mcp?token=abc", "notes"),
    ],
)
def test_a_url_is_named_by_its_host(spec: str, name: str) -> None:
    server = McpServer.parse_url(spec)
    assert server.name == name
    assert server.transport == "http"
    assert "token" not in repr(server)  # a URL may carry a secret


@pytest.mark.parametrize("spec", ["", "   ", "'unclosed"])
def test_an_unusable_command_is_a_bad_setting(spec: str) -> None:
    with pytest.raises(BadSetting):
        McpServer.parse(spec)


@pytest.mark.parametrize("spec", ["ftp://host/mcp", "localhost:8000", "x=not a url"])
def test_an_unusable_url_is_a_bad_setting(spec: str) -> None:
    with pytest.raises(BadSetting):
        McpServer.parse_url(spec)


def test_a_name_must_fit_the_pattern() -> None:
    with pytest.raises(ValueError, match="name"):
        McpServer("bad name!", command="x")
    with pytest.raises(ValueError, match="either"):
        McpServer("x")
