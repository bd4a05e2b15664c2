"""Models whose SDK loads in the background: loading is waited for, never an attempt's time."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.models import MODEL_POLICY, DeferredModels, ModelCaller, ModelRequest, ModelUnavailable
from offline import QueuedModel, text
from resilience import Event

REQUEST = ModelRequest(messages=[{"role": "user", "content": "hi"}])


@pytest.fixture
def slow_module(tmp_path: Path) -> Iterator[str]:
    """A module whose import takes 0.3 s, ten times the attempt deadline used below."""
    name = "slow_sdk_for_the_deferred_test"
    (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(0.3)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


async def test_a_slow_import_spends_no_attempt(slow_module: str) -> None:
    """With a 0.03 s attempt deadline and a 0.3 s import, the first call answers at once."""
    real = QueuedModel(text("hello"), name="claude-sonnet-4-6")
    deferred = DeferredModels([real.name], lambda: [real], slow_module)
    policy = dataclasses.replace(MODEL_POLICY, attempt_timeout_s=0.03)
    timeline: list[Event] = []
    reply = await ModelCaller(deferred.models, policy).create(REQUEST, timeline)
    assert [(a.source, a.number, a.outcome) for a in timeline] == [("claude-sonnet-4-6", 1, "ok")]
    assert reply.content[0].text == "hello"  # type: ignore[union-attr]


async def test_a_failed_import_is_classified_inside_an_attempt() -> None:
    """An SDK that cannot be imported is a failed attempt, not an exception out of the call."""
    deferred = DeferredModels(["claude-sonnet-4-6"], list, "no_such_sdk_module_anywhere")
    timeline: list[Event] = []
    with pytest.raises(ModelUnavailable):
        await ModelCaller(deferred.models, MODEL_POLICY).create(REQUEST, timeline)
    assert [a.outcome for a in timeline][:1] == ["internal_error"]


async def test_a_call_cancelled_while_loading_leaves_the_next_one_working(
    slow_module: str,
) -> None:
    """Ctrl-C during the import cancels that wait only; the next call answers."""
    real = QueuedModel(text("hello"), name="claude-sonnet-4-6")
    deferred = DeferredModels([real.name], lambda: [real], slow_module)
    caller = ModelCaller(deferred.models, MODEL_POLICY)
    first = asyncio.create_task(caller.create(REQUEST, []))
    await asyncio.sleep(0.05)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    timeline: list[Event] = []
    await caller.create(REQUEST, timeline)
    assert [a.outcome for a in timeline] == ["ok"]
