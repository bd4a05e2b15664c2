"""The walk of one tool call: which of the project's modules run while the loop answers one
`tool_use` (from the model's reply to the `tool_result` it is sent back), traced with
`sys.setprofile`, offline. The offline world's own modules (the scripted model, the simulated
services) stand for the network and are listed apart.

    python scripts/walk.py              # a successful call, then a failed attempt + fallback

docs/architecture.md shows its output; tests/test_walk.py holds the counts to their bounds.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from dataclasses import dataclass
from types import FrameType
from typing import Any

import offline
from agent.loop import Turn
from agent.settings import Settings
from errors import error_to_action
from offline import GEOCODING, Fault, SimulatedServices

PACKAGES = ("agent", "tools", "resilience", "errors")
_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("inside", default=False)


@dataclass(frozen=True, slots=True)
class Walk:
    """The modules one tool call ran, in the order it first entered each."""

    project: list[str]
    offline_world: list[str]
    first: dict[str, str]  # module → the first function of it that ran


def trace(question: str, *, primary_down: bool = False) -> Walk:
    """Answer `question` offline and list the modules run inside its one round of tools
    (Open-Meteo refusing with 503 first, when `primary_down`)."""
    return asyncio.run(_trace(question, primary_down))


async def _trace(question: str, primary_down: bool) -> Walk:
    services = SimulatedServices()
    agent = await offline.open_agent(Settings(), transport=services.transport)
    # Once untraced: first-use work (an index, a client, the error reader's vocabulary, built
    # on its first text) is not the walk.
    await agent.ask(question)
    error_to_action("connection refused", "warming up")
    if primary_down:
        services.fail_always(GEOCODING, Fault.status(503))
    seen: dict[str, str] = {}

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        # A fresh call, not a coroutine resumed (which reports "call" again, outer frames too).
        if event == "call" and _INSIDE.get() and frame.f_lasti <= 0:
            seen.setdefault(frame.f_globals.get("__name__", ""), frame.f_code.co_qualname)

    original = Turn._run_tools

    async def inside(turn: Turn, *args: Any) -> Any:
        seen.setdefault("agent.loop", "Turn._run_tools")
        token = _INSIDE.set(True)  # the round's tasks copy this context
        try:
            return await original(turn, *args)
        finally:
            _INSIDE.reset(token)

    Turn._run_tools = inside  # type: ignore[method-assign]
    sys.setprofile(profile)
    try:
        await agent.ask(question)
    finally:
        sys.setprofile(None)
        Turn._run_tools = original  # type: ignore[method-assign]
        await agent.aclose()
    names = [name for name in seen if name.split(".")[0] in (*PACKAGES, "offline")]
    return Walk(
        [n for n in names if not n.startswith("offline")],
        [n for n in names if n.startswith("offline")],
        seen,
    )


def main() -> int:
    question = "What's the weather in Paris?"
    for title, walk in (
        ("one successful tool call", trace(question)),
        ("a failed attempt and a fallback", trace(question, primary_down=True)),
    ):
        print(f"{title}: {len(walk.project)} modules")
        for number, name in enumerate(walk.project, 1):
            print(f"  {number:2}. {name.replace('.', '/')}.py  ({walk.first[name]})")
        print(f"  (the offline world: {', '.join(walk.offline_world)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
