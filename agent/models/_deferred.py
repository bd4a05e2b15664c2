"""Models whose SDK loads on a thread of its own, so that `agent chat` shows its prompt at once.

Importing the anthropic SDK takes a second or more. `open_agent` builds Claude through
`DeferredModels`: each model is a stand-in with the real one's name, the import runs on a
background thread started once the agent is otherwise ready (after any MCP server, so the
two threads never import the same packages at once), and the first model call waits for
it (without blocking the event loop, so Ctrl-C still cancels) and then builds the models.
`ModelCaller` awaits `ready()` before its first attempt, so the import never spends an
attempt's time (a short AGENT_MODEL_TIMEOUT on a busy machine would otherwise expire in it).
The thread is not a daemon: a `/quit` typed at once waits for the import to finish rather
than ending the interpreter in the middle of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from agent.models._base import ModelBackend, ModelRequest
from agent.models._reply import Reply

__all__ = ["DeferredModels"]


class DeferredModels:
    """Stand-ins for the models `build` makes once `module` is imported (in the background)."""

    def __init__(
        self, names: Sequence[str], build: Callable[[], list[ModelBackend]], module: str
    ) -> None:
        self._build = build
        self._module = module
        self._loaded: Future[None] | None = None
        self._built: list[ModelBackend] | None = None
        self.models: list[ModelBackend] = [
            _Deferred(self, index, name) for index, name in enumerate(names)
        ]

    def start(self) -> None:
        """Begin the import on a thread of its own (once)."""
        if self._loaded is not None:
            return
        loaded: Future[None] = Future()
        loaded.set_running_or_notify_cancel()  # running: a cancelled waiter cannot cancel it
        self._loaded = loaded

        def load() -> None:
            try:
                importlib.import_module(self._module)
            except BaseException as exc:  # handed to the first model call, which raises it
                loaded.set_exception(exc)
            else:
                loaded.set_result(None)

        threading.Thread(target=load, name=f"import {self._module}").start()

    async def model(self, index: int) -> ModelBackend:
        """The real model at `index`, built (all of them) on first use."""
        if self._built is None:
            self.start()
            assert self._loaded is not None
            await asyncio.shield(asyncio.wrap_future(self._loaded))  # Ctrl-C cancels the wait only
            if self._built is None:  # a concurrent first call may have built them meanwhile
                self._built = self._build()
        return self._built[index]

    async def aclose(self, index: int) -> None:
        if self._built is not None:
            await self._built[index].aclose()


class _Deferred:
    """One model, as the caller sees it before the SDK is loaded."""

    def __init__(self, models: DeferredModels, index: int, name: str) -> None:
        self._models = models
        self._index = index
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    async def ready(self) -> None:
        """Wait until the real model is built; a failed import is left for `create` to raise,
        inside an attempt, where error-to-action classifies it."""
        with contextlib.suppress(Exception):
            await self._models.model(self._index)

    async def create(self, request: ModelRequest) -> Reply:
        return await (await self._models.model(self._index)).create(request)

    async def aclose(self) -> None:
        await self._models.aclose(self._index)
