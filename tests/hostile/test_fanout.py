"""Finding 8: no unbounded fan-out, and duplicate ids never make an invalid request.

Before: 300 tool_use blocks in one reply started 300 calls at once (pool time-outs, breakers
open, everything degraded), and duplicate tool_use ids were sent back as they came (the API
refuses a request whose tool_use ids repeat). Now at most 8 calls of a reply run, the rest
are answered plainly as not run, and a repeated id is kept once and refused.
"""

from __future__ import annotations

import asyncio

from structlog.testing import capture_logs

from agent.records import DUPLICATE_ID, too_many
from benchmarks.hostile_server import HostileServer, scripted, tool_uses
from offline._messages_wire import message_body, protocol_error, text_block
from tests.agent.helpers import check_history
from tests.hostile.agents import GUARD_S, ask, claude_agent, events


async def test_300_tool_calls_in_one_reply_run_8_and_answer_all() -> None:
    """300 calls: 8 run, 292 refused with one sentence each, one tool_result per tool_use,
    and the next request is one the real API accepts."""
    route = scripted(tool_uses(300), message_body(text_block("Done.")))
    async with HostileServer(messages=route) as server, asyncio.timeout(GUARD_S):
        with capture_logs() as logs:
            answer = await ask(claude_agent(server))
    assert answer.answered is True
    second = server.model_requests()[1]["messages"]
    assert protocol_error(second) is None
    check_history(second)
    results = second[-1]["content"]
    assert len(results) == 300
    ran = [r for r in results if not r.get("is_error")]
    assert len(ran) == 8
    assert {r["content"] for r in results if r.get("is_error")} == {too_many(8).user_message}
    assert len(events(logs, "agent.fanout_capped")) == 1


async def test_repeated_ids_are_refused_and_the_next_request_is_valid() -> None:
    """Ids that repeat (10 calls, 2 ids): each id kept once and refused; nothing runs."""
    reply = tool_uses(10, ids=lambda n: f"toolu_dup{n % 2}")
    route = scripted(reply, message_body(text_block("Nothing ran.")))
    async with HostileServer(messages=route) as server, asyncio.timeout(GUARD_S):
        answer = await ask(claude_agent(server))
    assert answer.answered is True
    second = server.model_requests()[1]["messages"]
    assert protocol_error(second) is None
    check_history(second)
    uses = [b["id"] for b in second[-2]["content"] if b["type"] == "tool_use"]
    assert uses == ["toolu_dup0", "toolu_dup1"]
    assert [r["content"] for r in second[-1]["content"]] == [DUPLICATE_ID.user_message] * 2
