"""Finding 7, the history half: the conversation is kept within a token budget at turn
boundaries, not only after the API refuses a too-long prompt (and then all at once).

Before: 152 KiB per request by turn 200, 30 MiB sent over 200 turns. Now the oldest whole
turns are dropped before each question once the history passes `Limits.history_tokens`,
tool_use/tool_result pairs never split, and the person is told once.
(The caches keyed on cut text are another branch's; the model body cap is in
test_model_endpoints.)
"""

from __future__ import annotations

import json

from structlog.testing import capture_logs

from agent.app import Agent
from agent.console import Screen
from agent.loop import Limits
from agent.models import ModelCaller
from agent.repl import HISTORY_NOTE, Repl
from offline._messages_wire import protocol_error
from tests.agent.helpers import ScriptedModel, calls, check_history, model_policy_on, registry, text
from tests.hostile.agents import no_sleep

BUDGET = 3_000  # tokens: about 12 KB of history


async def test_200_turns_stay_within_the_budget_and_the_person_is_told_once() -> None:
    """A long chat with tool calls every turn: every request stays near the budget, every
    request is valid, the history was trimmed, and the REPL said so once."""
    replies = []
    for n in range(200):
        replies += [calls(("calculate", {"expression": f"{n}+1"})), text(f"It is {n + 1}. " * 20)]
    model = ScriptedModel(*replies)
    agent = Agent(
        ModelCaller(model, model_policy_on(no_sleep)), registry(), Limits(history_tokens=BUDGET)
    )
    written: list[str] = []
    repl = Repl(agent, Screen(written.append))
    with capture_logs() as logs:
        for n in range(200):
            assert await repl.handle(f"what is {n} + 1? " + "please " * 20)
    sizes = [len(json.dumps(list(r.messages))) for r in model.requests]
    assert max(sizes) < BUDGET * 4 + 4_000  # the budget, plus the turn under way
    assert sum(sizes) < 200 * 2 * (BUDGET * 4 + 4_000)
    for request in model.requests[-4:]:
        messages = [dict(m) for m in request.messages]
        check_history(messages)  # type: ignore[arg-type]
        assert protocol_error(messages) is None
    assert "".join(written).count(HISTORY_NOTE) == 1
    trims = [e for e in logs if e["event"] == "agent.history_budget"]
    assert trims
    assert all(e["tokens_after"] <= BUDGET for e in trims)
