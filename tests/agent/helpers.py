"""Test doubles and checks for the agent: a scripted model, small tools in a real Registry,
agents on Claude over `FakeClaude`, and the invariants every request to the model must hold."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pydantic import BaseModel, Field

from agent.app import Agent, open_agent
from agent.claude import ClaudeModel
from agent.loop import Limits
from agent.models import MODEL_POLICY, Block, ModelCaller, ModelRequest, Reply
from agent.settings import Settings
from errors import NotFound, UpstreamStatus, classify, plainness_problems
from offline import QueuedModel, SimulatedServices, calls, text
from resilience import Event, Policy
from tests.agent.fake_claude import FakeClaude
from tools import Registry, Tool, ToolResult, make_client

__all__ = ["QueuedModel", "ScriptedModel", "calls", "reply", "text"]

ScriptedModel = QueuedModel  # the tests' name for the queued fake

SECRET = "sk-ant-api03-SECRETSECRETSECRET1234567890"
API_KEY = "sk-ant-api03-TESTSECRET-0123456789abcdefghijklmnop"  # the agent's own Claude key
CLAUDE_BASE = "https://claude.test"
CLAUDE_URL = f"{CLAUDE_BASE}/v1/messages"
ONLINE = Settings(api_key=API_KEY, base_url=CLAUDE_BASE, offline=False)
# What must never reach the model (docs/architecture.md, "Invariants"): tracebacks, exception names,
# status codes, URLs, upstream bodies (JSON errors, HTML pages, the simulated faults' words).
RAW = re.compile(
    r"Traceback|Error\b|Exception|\b[1-5]\d\d\b|https?://|Simulated failure|sk-ant|\{\"error\""
    r"|<html|nginx",
    re.IGNORECASE,
)


class CityInput(BaseModel):
    city: str = Field(min_length=1)


class SumInput(BaseModel):
    expression: str


async def _weather(args: CityInput) -> ToolResult:
    if args.city == "Atlantis":
        verdict = classify(NotFound(args.city, source="geo"), "getting the weather for Atlantis")
        return ToolResult(verdict.result.user_message, is_error=True, error=verdict.result)
    if args.city == "Down":
        error = UpstreamStatus(503, f"upstream 503 body key={SECRET}", source="geo")
        verdict = classify(error, "getting the weather for Down", retry_count=2)
        attempt = Event("failed", "get_weather", "geo", 1, 0.01, "server_error", "escalate")
        return ToolResult(
            verdict.result.user_message, is_error=True, error=verdict.result, attempts=(attempt,)
        )
    report = {"city": args.city, "temperature": "21.0°C", "condition": "Clear sky"}
    attempt = Event("answered", "get_weather", "geo", 1, 0.01, "ok")
    return ToolResult(json.dumps(report), attempts=(attempt,))


async def _calculate(args: SumInput) -> ToolResult:
    if args.expression == "boom":
        raise RuntimeError(f"bug with secret {SECRET}")
    return ToolResult(json.dumps({"expression": args.expression, "result": 4}))


def registry(extra: Iterable[Tool] = ()) -> Registry:
    """get_weather (Atlantis: not found; Down: service down) and calculate ("boom" crashes)."""
    return Registry(
        [
            Tool(
                "get_weather",
                "Current weather for a city.",
                CityInput,
                _weather,
                "getting the weather",
            ),
            Tool("calculate", "Evaluate arithmetic.", SumInput, _calculate, "doing the sum"),
            *extra,
        ]
    )


def user_blocks(request: ModelRequest, index: int = -1) -> list[dict[str, Any]]:
    """The content blocks of one user message a request carried."""
    message = request.messages[index]
    assert message["role"] == "user"
    return list(message["content"])  # type: ignore[arg-type]


# --- what the model is sent ----------------------------------------------------------------


def assert_plain(text: str) -> None:
    """Nothing raw in `text` (see `RAW`), and neither secret."""
    assert not RAW.search(text), text
    assert API_KEY not in text
    assert SECRET not in text


def assert_error_sentence(text: str) -> None:
    """An `is_error` tool_result: one plain sentence (errors' own check), nothing raw."""
    assert plainness_problems(text) == [], text
    assert_plain(text)


def _ids(content: list[dict[str, Any]], kind: str, key: str) -> list[str]:
    return [block[key] for block in content if block.get("type") == kind]


def check_answered(messages: list[dict[str, Any]]) -> None:
    """Every tool_use id is unique, and answered, once each and in order, by the very next
    (user) message."""
    for current, following in itertools.pairwise(messages):
        uses = _ids(current["content"], "tool_use", "id")
        assert len(set(uses)) == len(uses), messages
        if uses:
            assert following["role"] == "user", messages
            assert _ids(following["content"], "tool_result", "tool_use_id") == uses, messages
    assert not _ids(messages[-1]["content"], "tool_use", "id"), messages


def check_history(messages: list[dict[str, Any]]) -> None:
    """Roles alternate from a user message, and every tool_use is answered."""
    assert messages[0]["role"] == "user"
    for current, following in itertools.pairwise(messages):
        assert current["role"] != following["role"], messages
    check_answered(messages)


def check_every_request(fake: FakeClaude) -> None:
    """Every request the model was sent carries a valid history."""
    for body in fake.bodies:
        check_history(body["messages"])


def error_results(fake: FakeClaude) -> list[dict[str, Any]]:
    """Every is_error tool_result the model was sent."""
    blocks = (b for body in fake.bodies for m in body["messages"] for b in m["content"])
    return [b for b in blocks if b.get("type") == "tool_result" and b.get("is_error")]


# --- agents on Claude ----------------------------------------------------------------------


class Connector:
    """Opens agents on Claude (the real SDK over a `FakeClaude`); `aclose` closes them all.

    The tools are the real ones over `services`, or the `tools` registry given; every wait
    goes to `sleep`.
    """

    def __init__(self, services: SimulatedServices, sleep: Callable[[float], Awaitable[None]]):
        self.services = services
        self.sleep = sleep
        self.opened: list[Agent] = []

    async def __call__(
        self,
        fake: FakeClaude,
        *,
        limits: Limits | None = None,
        tools: Registry | None = None,
        policy: Policy | None = None,
    ) -> Agent:
        backend = ClaudeModel(api_key=API_KEY, base_url=CLAUDE_BASE, transport=fake.transport())
        if tools is not None:
            agent = Agent(
                ModelCaller(backend, model_policy_on(self.sleep)), tools, limits or Limits()
            )
            agent.closers.append(backend.aclose)
        else:
            agent = await open_agent(
                ONLINE,
                http=make_client(transport=self.services.transport),
                backend=backend,
                policy=policy or Policy(sleep=self.sleep, base_backoff_s=0.01),
                limits=limits or Limits(),
            )
        self.opened.append(agent)
        return agent

    async def aclose(self) -> None:
        for agent in self.opened:
            await agent.aclose()


def model_policy_on(sleep: Any, **changes: Any) -> Policy:
    """The model-call policy, sleeping through `sleep` (and with any other knob changed)."""
    return dataclasses.replace(MODEL_POLICY, sleep=sleep, **changes)


def reply(
    content: Iterable[Block] = (), stop_reason: str | None = "end_turn", **fields: Any
) -> Reply:
    """A model reply with exactly these blocks."""
    return Reply(tuple(content), stop_reason, **fields)
