"""A small MCP server that fails on command, for the tests (and the README's example).

    python tests/mcp/flaky_server.py [--plan FILE] [--http PORT]
                                     [--exit-at-start | --hang-at-start | --fail-list]

Tools: `echo(text)` answers with the text; `add(a, b)` with the sum; `pid()` with the
process id (to see a restart, and that closing stopped the process). Each call takes the next
step from the plan file (a JSON object: tool name → list of steps; a missing or empty list
means "ok"), so a plan survives the process being restarted:

    ok                 answer normally
    crash              the process exits mid-call, without a word
    hang               never answer
    slow:SECONDS       answer after SECONDS
    is_error:TEXT      an `isError` result whose text is TEXT
    answer:TEXT        answer TEXT instead (an answer the test chose: a file, an attack)
    rpc_error:CODE     a JSON-RPC error with that code (and a message with a fake secret)
    malformed          a response that breaks the MCP result schema

`--exit-at-start` exits before speaking MCP, `--hang-at-start` never starts speaking it, and
`--fail-list` answers tools/list with an error.
With `--http PORT` it serves streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.server.context import CallNext, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

SECRET = "sk-ant-api03-MCPSECRET-0123456789abcdefghij"  # must never reach the model


def _next_step(plan: Path | None, tool: str) -> str:
    """Pop the tool's next step from the plan file (kept on disk across restarts)."""
    if plan is None or not plan.exists():
        return "ok"
    steps: dict[str, list[str]] = json.loads(plan.read_text() or "{}")
    queue = steps.get(tool) or []
    if not queue:
        return "ok"
    step = queue.pop(0)
    plan.write_text(json.dumps(steps))
    return step


def _peek(plan: Path | None, tool: str) -> str:
    if plan is None or not plan.exists():
        return "ok"
    steps: dict[str, list[str]] = json.loads(plan.read_text() or "{}")
    return (steps.get(tool) or ["ok"])[0]


def _malformed(plan: Path | None) -> ServerMiddleware[Any]:
    """Middleware answering a call whose next step is "malformed" with a result that breaks
    the schema (its content is not a list), before the tool runs."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        tool = str((ctx.params or {}).get("name", ""))
        if ctx.method == "tools/call" and _peek(plan, tool) == "malformed":
            _next_step(plan, tool)
            return {"content": "not a list"}
        return await call_next(ctx)

    return middleware


async def _act(plan: Path | None, tool: str) -> str | None:
    """Carry out the next step of the plan before answering (or instead of it); the answer
    to give instead, if the step chose one."""
    step = _next_step(plan, tool)
    kind, _, arg = step.partition(":")
    if kind == "answer":
        return arg
    if kind == "crash":
        os._exit(3)
    if kind == "hang":
        await anyio.sleep_forever()
    if kind == "slow":
        await anyio.sleep(float(arg))
    if kind == "is_error":
        raise ToolError(arg or f"upstream exploded with key={SECRET}")
    if kind == "rpc_error":
        raise MCPError(int(arg), f"server said no (token={SECRET})")
    return None


class _FailingList(MCPServer):
    async def list_tools(self) -> Any:
        raise MCPError(-32603, f"the tool registry is broken (key={SECRET})")


def build(plan: Path | None, *, fail_list: bool = False) -> MCPServer:
    """The server, its tools acting on `plan`."""
    kind = _FailingList if fail_list else MCPServer
    server = kind("flaky", middleware=[_malformed(plan)])

    @server.tool()
    async def echo(text: str) -> str:
        """Answer with the same text."""
        return await _act(plan, "echo") or text

    @server.tool()
    async def add(a: int, b: int) -> str:
        """Add two whole numbers."""
        await _act(plan, "add")
        return str(a + b)

    @server.tool()
    async def pid() -> str:
        """This server's process id."""
        await _act(plan, "pid")
        return str(os.getpid())

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plan", type=Path)
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--exit-at-start", action="store_true")
    parser.add_argument("--hang-at-start", action="store_true")
    parser.add_argument("--fail-list", action="store_true")
    args = parser.parse_args()
    if args.exit_at_start:
        sys.stderr.write("flaky: refusing to start\n")
        sys.exit(2)
    if args.hang_at_start:
        time.sleep(60)
    server = build(args.plan, fail_list=args.fail_list)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
