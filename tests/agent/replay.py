"""The recorded Messages API responses (`fixtures/messages_api/`, each with its source), served
again by a loopback server: the recorded status, headers and body, one recording per request,
in the order given.

    with HostileServer(messages=replaying("thinking_pydantic_ai")) as server:
        env = server.env()   # ANTHROPIC_BASE_URL at the server

What is not sent as recorded, and why: `Content-Length` (the server counts the body it sends;
some bodies were re-serialised from a cassette's YAML, so the recorded length is another
body's), `Content-Encoding` and `Transfer-Encoding` (bodies are stored decoded and are sent
whole) and `Connection`. A recording that kept no `Content-Type` (a body quoted in an issue)
is sent as `text/event-stream` when it is a stream, else `application/json`. A request past
the last recording is answered 500 with a body saying so, and the test's counts show it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.hostile_server import Exchange, Route

__all__ = ["FIXTURES", "Recording", "replaying", "streamed_content"]

FIXTURES = Path(__file__).with_name("fixtures") / "messages_api"
_NOT_SENT = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection"})
Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded response, as its fixture file holds it."""

    name: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: str
    streaming: bool

    @classmethod
    def load(cls, name: str) -> Recording:
        """`fixtures/messages_api/{name}.json`; one with no recorded status cannot be served."""
        data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
        if data["status"] is None:
            raise ValueError(f"{name} has no recorded status")
        return cls(
            name, data["status"], _headers(data["headers"]), data["body"] or "", data["streaming"]
        )

    @property
    def message(self) -> Json:
        """The message the response carries: the JSON body, or the stream's message rebuilt."""
        if not self.streaming:
            body: Json = json.loads(self.body)
            return body
        events = list(_events(self.body))
        message: Json = dict(events[0]["message"])
        message["content"] = streamed_content(events)
        for event in events:
            if event["type"] == "message_delta":
                message.update(event["delta"])
        return message

    def serve(self, exchange: Exchange) -> None:
        """Send the recorded status, headers and body."""
        kept = [(name, value) for name, value in self.headers if name.lower() not in _NOT_SENT]
        types = [value for name, value in kept if name.lower() == "content-type"]
        default = "text/event-stream" if self.streaming else "application/json"
        others = [(name, value) for name, value in kept if name.lower() != "content-type"]
        exchange.send(self.status, self.body.encode(), types[0] if types else default, others)


def _headers(recorded: dict[str, str | list[str]]) -> tuple[tuple[str, str], ...]:
    """Name and value pairs; a cassette keeps each header as a list of values."""
    pairs: list[tuple[str, str]] = []
    for name, value in recorded.items():
        pairs.extend((name, one) for one in (value if isinstance(value, list) else [value]))
    return tuple(pairs)


def replaying(*names: str) -> Route:
    """A Messages API route that answers the n-th request with the n-th recording."""
    recordings = [Recording.load(name) for name in names]
    lock = threading.Lock()

    def route(exchange: Exchange) -> None:
        with lock:
            recording = recordings.pop(0) if recordings else None
        if recording is None:
            exchange.send(500, b'{"error": "more requests than recordings"}')
            return
        recording.serve(exchange)

    return route


def _events(body: str) -> Iterator[Json]:
    """The JSON of each `data:` line of an event stream."""
    for line in body.splitlines():
        if line.startswith("data:"):
            yield json.loads(line.removeprefix("data:"))


def streamed_content(events: list[Json]) -> list[Json]:
    """The content blocks a stream's events build, read off the wire independently of the SDK:
    each block as it started, its deltas applied."""
    blocks: dict[int, Json] = {}
    partial: dict[int, str] = {}
    for event in events:
        index = event.get("index", -1)
        match event["type"], event.get("delta", {}).get("type"):
            case "content_block_start", _:
                blocks[index] = dict(event["content_block"])
            case "content_block_delta", "text_delta":
                blocks[index]["text"] += event["delta"]["text"]
            case "content_block_delta", "thinking_delta":
                blocks[index]["thinking"] += event["delta"]["thinking"]
            case "content_block_delta", "signature_delta":
                blocks[index]["signature"] = event["delta"]["signature"]
            case "content_block_delta", "citations_delta":
                blocks[index]["citations"] = [
                    *(blocks[index].get("citations") or []),
                    event["delta"]["citation"],
                ]
            case "content_block_delta", "input_json_delta":
                partial[index] = partial.get(index, "") + event["delta"]["partial_json"]
    for index, text in partial.items():
        blocks[index]["input"] = json.loads(text) if text else {}
    return [blocks[index] for index in sorted(blocks)]
