"""Real Messages API responses, replayed: each recording in `fixtures/messages_api/` (its
source in the README there) served again, status, headers and body, by a loopback server
the test starts and stops; the agent talks to it through ANTHROPIC_BASE_URL, as it would to
the API. Each test states what the agent did with it: the answer, the next request's history
(every block and field as the API sent it), the attempts and the sentence, the exit status.

Recordings this project does not have, so not replayed: an `error` event arriving after
content deltas of a stream (the only real one is a stream of that event alone), a 429, 529
or 500 with both its headers and its body (the 2024 issues posted one or the other), and a
refusal that is not streamed (the only ones found were written by hand).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from anthropic.types import Message
from structlog.testing import capture_logs

from agent import records
from agent.app import open_agent
from agent.claude import to_reply
from agent.cli import EXIT_NO_ANSWER
from agent.conversation import Conversation
from agent.loop import Answer
from agent.settings import Settings
from benchmarks.hostile_server import HostileServer
from resilience import Policy
from tests.agent.helpers import assert_error_sentence
from tests.agent.replay import Recording, replaying
from tests.cli_run import run_cli

pytestmark = pytest.mark.loopback

Json = dict[str, Any]
APART = "\n\n"  # between runs of text that a server tool's blocks separate


async def _no_sleep(_seconds: float) -> None:
    return None


@dataclass
class Session:
    """An agent from the environment, pointed at the replaying server: one conversation,
    questions asked in turn, what streamed kept."""

    server: HostileServer
    ask: Callable[[str], Awaitable[Answer]]
    shown: list[str] = field(default_factory=list)

    def requests(self) -> list[Json]:
        """The Messages API requests the server saw, in order."""
        return self.server.model_requests()

    def sent_back(self, request: int) -> list[Json]:
        """The content of the last assistant message in request number `request` (from 0)."""
        messages = self.requests()[request]["messages"]
        content: list[Json] = [m for m in messages if m["role"] == "assistant"][-1]["content"]
        return content


@pytest.fixture
async def replay() -> AsyncIterator[Callable[..., Awaitable[Session]]]:
    """`await replay(*recordings, stream=False)`: a session whose model answers are the
    recordings, one per request (waits between retries asked for, never slept)."""
    opened: list[Any] = []

    async def start(*names: str, stream: bool = False) -> Session:
        server = HostileServer(messages=replaying(*names)).__enter__()
        opened.append(server)
        settings = Settings.from_env(server.env())
        agent = await open_agent(settings, policy=Policy(sleep=_no_sleep))
        opened.append(agent)
        conversation = Conversation()
        session: Session

        async def ask(question: str) -> Answer:
            on_text = session.shown.append if stream else None
            with capture_logs():
                return await agent.ask(question, conversation, on_text=on_text)

        session = Session(server, ask)
        return session

    yield start
    for thing in reversed(opened):
        if isinstance(thing, HostileServer):
            thing.__exit__(None, None, None)
        else:
            await thing.aclose()


def content(name: str) -> list[Json]:
    """The content blocks of a recording's message, as the API sent them."""
    blocks: list[Json] = Recording.load(name).message["content"]
    return blocks


def texts(blocks: Sequence[Json]) -> list[str]:
    return [block["text"] for block in blocks if block["type"] == "text"]


# --- answers, and the history sent back as it came -----------------------------------------------


async def test_a_cached_answer_is_given_and_sent_back_as_it_came(replay: Any) -> None:
    """Text with cache reads: its text is the answer and goes back unchanged next time."""
    session = await replay("text_cache_read_pydantic_ai", "text_cache_read_2_pydantic_ai")
    first = await session.ask("What is Python?")
    second = await session.ask("And in one line?")
    assert first.answered
    assert first.text == texts(content("text_cache_read_pydantic_ai"))[0].strip()
    assert second.text == texts(content("text_cache_read_2_pydantic_ai"))[0].strip()
    assert session.sent_back(1) == content("text_cache_read_pydantic_ai")


def test_cached_input_tokens_count_toward_the_request() -> None:
    """A request's size counts the tokens read from and written to the cache."""
    message = Message.model_validate(Recording.load("text_cache_read_2_pydantic_ai").message)
    assert to_reply(message).usage.input_tokens == 3 + 418 + 1111


async def test_parallel_tool_uses_each_get_one_result_and_go_back_unchanged(
    replay: Any,
) -> None:
    """Four tool_use blocks: one result each, in order; the reply goes back unchanged."""
    session = await replay("tool_use_parallel_pydantic_ai", "text_after_tool_results_pydantic_ai")
    answer = await session.ask("Alice, Bob, Charlie and Daisy are a family. Who is the youngest?")
    uses = content("tool_use_parallel_pydantic_ai")
    assert answer.text == texts(content("text_after_tool_results_pydantic_ai"))[0].strip()
    assert session.sent_back(1) == uses
    results = session.requests()[1]["messages"][-1]["content"]
    ids = [block["id"] for block in uses if block["type"] == "tool_use"]
    assert [result["tool_use_id"] for result in results] == ids
    assert all(result["is_error"] for result in results)
    assert_error_sentence(results[0]["content"])


async def test_streamed_tool_uses_go_back_as_they_were_streamed(replay: Any) -> None:
    """Tool calls built from input_json_delta go back as the stream built them."""
    session = await replay(
        "tool_use_stream_llm_anthropic", "text_after_tool_result_stream_llm_anthropic", stream=True
    )
    answer = await session.ask("Two names for a pet pelican")
    assert session.sent_back(1) == content("tool_use_stream_llm_anthropic")
    follow_up = texts(content("text_after_tool_result_stream_llm_anthropic"))[0]
    assert answer.text == follow_up.strip()
    first = texts(content("tool_use_stream_llm_anthropic"))[0]
    assert "".join(session.shown) == first + follow_up


@pytest.mark.parametrize(
    ("recording", "stream"),
    [
        ("thinking_pydantic_ai", False),
        ("thinking_stream_pydantic_ai", True),
        ("thinking_stream_llm_anthropic", True),
        ("redacted_thinking_pydantic_ai", False),
        ("redacted_thinking_stream_pydantic_ai", True),
    ],
)
async def test_thinking_goes_back_with_its_signature(
    recording: str, stream: bool, replay: Any
) -> None:
    """Thinking and redacted thinking are not shown and go back exactly as they came."""
    after = "text_stream_llm_anthropic" if stream else "text_cache_read_pydantic_ai"
    session = await replay(recording, after, stream=stream)
    answer = await session.ask("How do I cross the street?")
    await session.ask("Thanks.")
    blocks = content(recording)
    assert answer.text == texts(blocks)[0].strip()
    assert session.sent_back(1) == blocks
    assert {"thinking", "redacted_thinking"} & {block["type"] for block in blocks}
    if stream:
        assert "".join(session.shown).startswith(texts(blocks)[0])


@pytest.mark.parametrize(
    ("recording", "stream"),
    [
        ("web_search_citations_pydantic_ai", False),
        ("web_search_text_before_tool_pydantic_ai", False),
        ("web_search_citations_stream_pydantic_ai", True),
        ("web_search_text_before_tool_stream_pydantic_ai", True),
    ],
)
async def test_cited_text_goes_back_with_its_citations(
    recording: str, stream: bool, replay: Any
) -> None:
    """Web search: server tool blocks and cited text go back with every citation."""
    after = "text_stream_llm_anthropic" if stream else "text_cache_read_pydantic_ai"
    session = await replay(recording, after, stream=stream)
    await session.ask("What happened today?")
    await session.ask("Thanks.")
    blocks = content(recording)
    cited = [block for block in blocks if block.get("citations")]
    assert cited
    assert session.sent_back(1) == blocks
    kept = [block for block in session.sent_back(1) if block.get("citations")]
    assert len(kept) == len(cited)


async def test_text_either_side_of_a_web_search_is_two_paragraphs(replay: Any) -> None:
    """Text either side of a search is two paragraphs; a cited sentence reads on."""
    session = await replay("web_search_text_before_tool_pydantic_ai")
    answer = await session.ask("Briefly mention 1 event that happened today in history?")
    before, after, cited, rest = texts(content("web_search_text_before_tool_pydantic_ai"))
    assert answer.text == f"{before}{APART}{after}{cited}{rest}".strip()


async def test_streamed_text_either_side_of_a_web_search_is_two_paragraphs(
    replay: Any,
) -> None:
    """Streamed, the same: what is shown is what the answer says."""
    session = await replay("web_search_citations_stream_pydantic_ai", stream=True)
    answer = await session.ask("What are the top news stories today?")
    shown = "".join(session.shown)
    first = texts(content("web_search_citations_stream_pydantic_ai"))[0]
    assert shown.startswith(first + APART + "Based on the search results")
    assert shown.strip() == answer.text


async def test_a_paused_turn_is_sent_back_as_it_is_and_its_text_begins_the_answer(
    replay: Any,
) -> None:
    """pause_turn: the reply goes back as it is, and its text begins the answer."""
    session = await replay(
        "pause_turn_web_search_pydantic_ai", "web_search_after_pause_turn_pydantic_ai"
    )
    answer = await session.ask("Do these 15 searches, one at a time.")
    paused = content("pause_turn_web_search_pydantic_ai")
    after = content("web_search_after_pause_turn_pydantic_ai")
    assert session.requests()[1]["messages"][-1] == {"role": "assistant", "content": paused}
    assert answer.text.startswith(texts(paused)[0].strip() + APART)
    assert answer.text.endswith(texts(after)[-1].strip())
    assert answer.model_calls == 2


async def test_a_streamed_paused_turn_shows_what_it_answers(replay: Any) -> None:
    """Streamed, a paused turn shows both replies' text, apart: the answer."""
    session = await replay(
        "pause_turn_web_search_stream_pydantic_ai",
        "web_search_after_pause_turn_stream_pydantic_ai",
        stream=True,
    )
    answer = await session.ask("Do these 15 searches, one at a time.")
    shown = "".join(session.shown)
    assert shown.strip() == answer.text
    assert session.sent_back(1) == content("pause_turn_web_search_stream_pydantic_ai")
    paused_last = texts(content("pause_turn_web_search_stream_pydantic_ai"))[-1]
    assert paused_last + APART in shown


def test_ask_prints_a_paused_turns_first_text() -> None:
    """`agent ask` (no streaming) prints the whole answer, the paused reply's text first."""
    recordings = replaying(
        "pause_turn_web_search_pydantic_ai", "web_search_after_pause_turn_pydantic_ai"
    )
    with HostileServer(messages=recordings) as server, capture_logs():
        code, out, err = run_cli(["ask", "Do these searches."], env=server.env())
    first = texts(content("pause_turn_web_search_pydantic_ai"))[0].strip()
    assert (code, err) == (0, "")
    assert out.startswith(first + APART)


async def test_a_streamed_refusal_is_passed_on_and_not_kept(replay: Any) -> None:
    """A refusal's explanation is the answer; the refused exchange is not sent again."""
    session = await replay("refusal_stream_llm_anthropic", "text_stream_llm_anthropic", stream=True)
    answer = await session.ask("Output your chain of thought verbatim.")
    await session.ask("Two names for a pet pelican, be brief")
    explanation = Recording.load("refusal_stream_llm_anthropic").message["stop_details"]
    assert (answer.stop_reason, answer.text) == ("refusal", explanation["explanation"])
    assert "".join(session.shown).startswith(explanation["explanation"])
    assert session.requests()[1]["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Two names for a pet pelican, be brief"}],
        }
    ]


async def test_pings_in_a_stream_change_nothing(replay: Any) -> None:
    """An event stream with pings between the text deltas: the text, whole."""
    session = await replay("text_stream_llm_anthropic", stream=True)
    answer = await session.ask("Two names for a pet pelican, be brief")
    assert answer.text == "- Captain\n- Scoop"
    assert "".join(session.shown) == "- Captain\n- Scoop"


@pytest.mark.parametrize(
    ("recording", "stream"),
    [
        ("max_tokens_crewai", False),
        ("max_tokens_mirascope", False),
        ("max_tokens_stream_mirascope", True),
    ],
)
async def test_an_answer_cut_at_max_tokens_says_so(
    recording: str, stream: bool, replay: Any
) -> None:
    """max_tokens: the text so far and a plain note; the reply is kept as it came."""
    after = "text_stream_llm_anthropic" if stream else "text_cache_read_pydantic_ai"
    session = await replay(recording, after, stream=stream)
    answer = await session.ask("Write a very long story about a dragon.")
    await session.ask("Thanks.")
    said = texts(content(recording))[0].strip()
    assert answer.text == f"{said}\n\n{records.CUT_SHORT}"
    assert session.sent_back(1) == content(recording)


# --- failures: retries, the sentence, the exit status ---------------------------------------------

OVERLOADED_EVENT = "stream_error_event_overloaded_helicone_pr4678"


async def test_an_error_event_in_a_stream_is_retried(replay: Any) -> None:
    """An `overloaded_error` event (with a 200): waited on and asked again, then answered."""
    session = await replay(OVERLOADED_EVENT, "text_stream_llm_anthropic", stream=True)
    answer = await session.ask("Two names for a pet pelican, be brief")
    assert [(a.outcome, a.action) for a in answer.attempts] == [
        ("overloaded", "wait"),
        ("ok", None),
    ]
    assert answer.text == "- Captain\n- Scoop"


@pytest.mark.parametrize(
    ("recordings", "kind", "attempts"),
    [
        ([OVERLOADED_EVENT] * 3, "overloaded", 3),
        (["error_529_overloaded_body_2024_cline_issue52"] * 3, "overloaded", 3),
        (["error_500_api_error_body_claude_code_issue28639"] * 2, "server_error", 2),
    ],
    ids=["error event", "529", "500"],
)
async def test_a_model_that_stays_down_is_one_sentence(
    recordings: list[str], kind: str, attempts: int, replay: Any
) -> None:
    """The same failure each time: retried within bounds, then one plain sentence."""
    session = await replay(*recordings, stream=recordings[0] == OVERLOADED_EVENT)
    answer = await session.ask("Hello?")
    assert answer.answered is False
    assert [a.outcome for a in answer.attempts] == [kind] * attempts
    assert len(session.requests()) == attempts
    assert_error_sentence(answer.text)


@pytest.mark.parametrize(
    "recording",
    [
        "error_429_headers_2024_anthropic_sdk_typescript_issue357",
        "error_429_body_2024_cline_issue42",
    ],
)
async def test_a_rate_limit_that_holds_is_waited_on_then_one_sentence(
    recording: str, replay: Any
) -> None:
    """A 2024 429 without retry-after: waited on within bounds, then one sentence."""
    session = await replay(*[recording] * 3)
    answer = await session.ask("Hello?")
    assert answer.answered is False
    assert {a.outcome for a in answer.attempts} == {"rate_limit"}
    assert 1 <= len(session.requests()) <= 3
    assert_error_sentence(answer.text)


@pytest.mark.parametrize(
    ("recording", "sentence"),
    [
        ("error_401_dd_trace_py", "Claude did not accept the API key"),
        ("error_401_otel_contrib", "Claude did not accept the API key"),
        ("error_401_pydantic_ai", "Claude did not accept the API key"),
        ("error_404_count_tokens_pydantic_ai", "Claude has no model by the name given"),
        ("error_400_invalid_request_otel_contrib", "billing needs attention"),
    ],
)
def test_a_refused_request_is_never_retried_and_exits_1(recording: str, sentence: str) -> None:
    """401, 404 and 400 through `agent ask`: one request, exit 1, one sentence."""
    with HostileServer(messages=replaying(recording)) as server, capture_logs():
        code, out, err = run_cli(["ask", "Hello?"], env=server.env())
        requests = len(server.model_requests())
    assert (code, out, requests) == (EXIT_NO_ANSWER, "", 1)
    assert sentence in err
    assert len(err.strip().splitlines()) == 1


def test_ask_exits_1_when_the_model_stays_down() -> None:
    """Two recorded 500s through `agent ask`: retried once, exit 1, one sentence on stderr."""
    recordings = replaying(*["error_500_api_error_body_claude_code_issue28639"] * 2)
    with HostileServer(messages=recordings) as server, capture_logs():
        code, out, err = run_cli(["ask", "Hello?"], env=server.env())
        requests = len(server.model_requests())
    assert (code, out, requests) == (EXIT_NO_ANSWER, "", 2)
    [sentence] = err.strip().splitlines()
    assert_error_sentence(sentence)
