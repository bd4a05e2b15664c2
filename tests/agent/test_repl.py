"""The chat REPL, driven through injected input and output."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from agent.app import Agent
from agent.claude import ClaudeModel
from agent.console import Screen, trace_table
from agent.loop import Answer
from agent.models import ModelCaller
from agent.records import ASKED_AGAIN
from agent.repl import CANCELLED_EARLY, PROMPT, Repl, run_repl
from agent.settings import Settings
from offline import Fault, SimulatedServices, open_agent
from resilience import Event, Policy
from tests.agent.fake_claude import FakeClaude, stream, stream_error
from tests.agent.helpers import ScriptedModel, calls, model_policy_on, registry, text
from tools import Tool, ToolResult, make_client


def reader(lines: Iterable[str | BaseException]) -> Callable[[str], str]:
    """input(): the given lines (or exceptions, e.g. KeyboardInterrupt), then Ctrl-D."""
    pending = list(lines)

    def read(prompt: str) -> str:
        assert prompt == PROMPT
        if not pending:
            raise EOFError
        item = pending.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    return read


def chat(
    lines: Iterable[str | BaseException],
    *,
    agent: Callable[[Screen], Any] | None = None,
    services: SimulatedServices | None = None,
    terminal: bool = False,
    color: bool = False,
    width: int | None = None,
) -> str:
    """Run a whole session; returns everything written (`width`: a terminal that wide)."""
    written: list[str] = []
    columns = None if width is None else (lambda: width)
    screen = Screen(written.append, terminal=terminal, color=color, width=columns)

    async def no_sleep(_: float) -> None:
        return None

    async def open_repl() -> Repl:
        if agent is not None:
            return Repl(agent(screen), screen)
        sim = services or SimulatedServices()
        built = await open_agent(
            Settings(),
            http=make_client(transport=sim.transport),
            listener=screen.status,
            policy=Policy(sleep=no_sleep),
        )
        return Repl(built, screen)

    assert run_repl(open_repl, reader(lines), banner=Settings().banner) == 0
    return "".join(written)


def test_a_question_is_answered_and_the_session_ends_on_ctrl_d() -> None:
    """A question gets its streamed answer; end of input exits cleanly."""
    out = chat(["what is 2 + 2?"])
    assert "2 + 2 = 4." in out
    assert "Offline" in out


def test_help_lists_the_commands() -> None:
    """/help names every command."""
    out = chat(["/help"])
    assert all(c in out for c in ("/help", "/tools", "/reset", "/trace", "/quit"))


def test_tools_lists_the_tools() -> None:
    """/tools shows each tool the model may call."""
    out = chat(["/tools"])
    assert "get_weather" in out
    assert "calculate" in out


def test_quit_ends_the_session_before_later_input() -> None:
    """/quit stops reading."""
    out = chat(["/quit", "what is 2 + 2?"])
    assert "= 4" not in out


def test_an_unknown_command_is_explained() -> None:
    """A typo in a command gets a hint, not a model call."""
    assert "try /help" in chat(["/hepl"])


def test_trace_shows_every_attempt_of_the_last_turn() -> None:
    """/trace lists sources, outcomes, actions and waits, including a retried 503."""
    services = SimulatedServices()
    services.fail("open-meteo-geocoding", Fault.status(503, retry_after=1))
    out = chat(["weather in Paris?", "/trace"], services=services)
    assert "open-meteo" in out
    assert "service_unavailable" in out
    assert "wait" in out
    assert "1.0 s" in out


def test_trace_before_any_turn_says_there_is_nothing() -> None:
    """/trace with no turn yet says so."""
    assert "No turn yet" in chat(["/trace"])


def test_trace_after_reset_says_there_is_no_turn_yet() -> None:
    """/reset, then /trace: no turn yet in the new conversation, not "the last turn"."""
    out = chat(["what is 2 + 2?", "/reset", "/trace"])
    after = out[out.index("Started a new conversation.") :]
    assert "No turn yet" in after
    assert "last turn" not in after


def test_the_status_line_reports_a_retry() -> None:
    """A busy service shows a status line while the tool waits."""
    services = SimulatedServices()
    services.fail("open-meteo-geocoding", Fault.status(503, retry_after=2))
    out = chat(["weather in Paris?"], services=services)
    assert "… " in out
    assert "2 s" in out


def _two_turn_agent(model: ScriptedModel) -> Callable[[Screen], Agent]:
    async def no_sleep(_: float) -> None:
        return None

    return lambda screen: Agent(ModelCaller(model, model_policy_on(no_sleep)), registry())


def test_the_conversation_is_kept_across_turns_and_reset_clears_it() -> None:
    """The second question is sent with the first; after /reset it is sent alone."""
    model = ScriptedModel(text("one"), text("two"), text("three"))
    chat(["first", "second", "/reset", "third"], agent=_two_turn_agent(model))
    assert [len(r.messages) for r in model.requests] == [1, 3, 1]


def test_ctrl_c_at_the_prompt_does_not_exit() -> None:
    """KeyboardInterrupt while reading gives a fresh prompt."""
    out = chat([KeyboardInterrupt(), "what is 2 + 2?"])
    assert "2 + 2 = 4." in out


def test_ctrl_c_during_a_turn_cancels_only_that_turn() -> None:
    """SIGINT mid-turn: the turn is cancelled, history rolled back, the next question works."""

    class In(BaseModel):
        x: int

    async def interrupt(_: In) -> ToolResult:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()
        return ToolResult("never")

    model = ScriptedModel(calls(("interrupt", {"x": 1})), text("after"))
    tools = registry([Tool("interrupt", "sends Ctrl-C", In, interrupt, "interrupting")])
    out = chat(["go", "again"], agent=lambda screen: Agent(ModelCaller(model), tools))
    assert "(cancelled)" in out
    assert "after" in out
    assert len(model.requests[1].messages) == 1


def test_an_unreachable_model_is_one_plain_sentence() -> None:
    """The model down: the user reads one sentence; the session goes on."""
    from offline import api_error

    model = ScriptedModel(*(api_error(529, "overloaded_error") for _ in range(3)), text("back"))
    out = chat(["hi", "again"], agent=_two_turn_agent(model))
    assert "try again" in out
    assert "529" not in out
    assert "back" in out


def test_no_colour_off_a_terminal() -> None:
    """Piped output has no escape sequences."""
    assert "\x1b[" not in chat(["/help", "/unknown"])


def test_colour_on_a_terminal() -> None:
    """On a colour terminal, notes are styled."""
    assert "\x1b[" in chat(["/unknown"], terminal=True, color=True)


def test_a_terminal_without_colour_has_no_colour_codes() -> None:
    """NO_COLOR: a terminal, but no colour codes (only line clearing)."""
    out = chat(["/unknown"], terminal=True, color=False)
    assert "\x1b[3" not in out
    assert "\x1b[1m" not in out


def _claude_agent(*replies: Any) -> Callable[[Screen], Agent]:
    """Claude (the real SDK over a FakeClaude) with the screen's status line as observer."""

    async def no_sleep(_: float) -> None:
        return None

    def build(screen: Screen) -> Agent:
        fake = FakeClaude(*replies)
        backend = ClaudeModel(
            api_key="k", base_url="https://claude.test", transport=fake.transport()
        )
        caller = ModelCaller(
            backend, model_policy_on(no_sleep, base_backoff_s=0.01), listener=screen.status
        )
        return Agent(caller, registry(), closers=[backend.aclose])

    return build


def test_a_retried_stream_does_not_run_into_the_partial_text() -> None:
    """ "Let me", a mid-stream overload, a retry: the partial line ends, a status line follows,
    and a line that stays says the model is asked again before the retried text."""
    out = chat(["hi"], agent=_claude_agent(stream_error("Let me"), stream("All good.")))
    assert "Let meAll good." not in out
    retrying = "… claude-sonnet-4-6 is busy — retrying now\n"
    assert f"Let me\n{retrying}{ASKED_AGAIN}\nAll good.\n" in out


def test_an_error_after_partial_text_starts_on_its_own_line() -> None:
    """Partial text, then the model stays down: the error sentence has a line of its own."""
    out = chat(["hi"], agent=_claude_agent(stream_error("Let me", "invalid_request_error")))
    assert "\nLet me\nAsking Claude for an answer " in out


def test_a_status_line_after_streamed_text_keeps_that_text() -> None:
    """On a terminal, a tool's status after "Checking." ends that line instead of erasing it."""
    written: list[str] = []
    screen = Screen(written.append, terminal=True)
    screen.text("Checking.")
    retrying = Event("failed", "get_weather", "wttr", 1, action="retry", wait_s=0.0)
    assert retrying.progress == ("retrying", "wttr failed — retrying now")
    screen.status(retrying)
    screen.text("Done.")
    out = "".join(written)
    assert out.startswith("Checking.\n")
    assert out.endswith("Done.")


# --- counting the seconds while the model is asked; nothing raw on the terminal -------------


class _Ticks:
    """A clock that moves one second per tick, and a sleep that ticks it."""

    def __init__(self) -> None:
        self.now = 100.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, _seconds: float) -> None:
        self.now += 1.0
        await asyncio.sleep(0)


def _attempt(source: str = "claude-sonnet-4-6", caller: str = "model") -> Event:
    return Event("attempting", caller, source, 1)


async def test_a_model_attempt_counts_the_seconds_on_a_terminal() -> None:
    """ "… waiting for claude-sonnet-4-6 (N s)", rewritten each second until text arrives."""
    written: list[str] = []
    ticks = _Ticks()
    screen = Screen(written.append, terminal=True, clock=ticks.clock, sleep=ticks.sleep)
    screen.status(_attempt())
    for _ in range(5):
        await asyncio.sleep(0)
    assert "waiting for claude-sonnet-4-6 (0 s)" in "".join(written)
    assert "waiting for claude-sonnet-4-6 (3 s)" in "".join(written)
    screen.text("Hello")
    shown = len(written)
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(written) == shown  # the count stopped with the first text
    assert "".join(written).endswith("\r\x1b[2KHello")


async def test_a_tool_attempt_replaces_the_model_count_with_its_own() -> None:
    """A tool's attempt after the model's reply: the model's count is cleared and the tool's
    own count starts at 0 s; the model's count never comes back."""
    written: list[str] = []
    ticks = _Ticks()
    screen = Screen(written.append, terminal=True, clock=ticks.clock, sleep=ticks.sleep)
    screen.status(_attempt())
    await asyncio.sleep(0)
    screen.status(_attempt("open-meteo", caller="get_weather"))
    shown = len(written)
    for _ in range(3):
        await asyncio.sleep(0)
    later = "".join(written[shown:])
    assert "waiting for open-meteo (0 s)" in "".join(written)
    assert "waiting for open-meteo (2 s)" in later
    assert "claude-sonnet-4-6" not in later


async def test_a_retry_line_counts_and_gives_way_to_the_next_attempt() -> None:
    """ "retrying in 1 second" counts its own seconds, and is gone (replaced, not left up)
    as soon as the next attempt goes out; the count then is the attempt's."""
    written: list[str] = []
    ticks = _Ticks()
    screen = Screen(written.append, terminal=True, clock=ticks.clock, sleep=ticks.sleep)
    retry = "claude-sonnet-4-6 failed — retrying in 1 second"
    failed = Event("failed", "model", "claude-sonnet-4-6", 1, action="retry", wait_s=1.0)
    assert failed.progress == ("retrying", retry)
    screen.status(failed)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert f"{retry} (1 s)" in "".join(written)
    screen.status(_attempt())
    shown = len(written)
    for _ in range(3):
        await asyncio.sleep(0)
    assert "retrying" not in "".join(written[shown - 2 :])
    assert written[shown - 2] == "\r\x1b[2K"  # the retry line erased before the attempt's
    assert "waiting for claude-sonnet-4-6 (2 s)" in "".join(written[shown:])


async def test_the_count_stops_and_clears_when_the_turn_ends() -> None:
    """clear_status (the end of a turn) erases the count and stops the ticker."""
    written: list[str] = []
    ticks = _Ticks()
    screen = Screen(written.append, terminal=True, clock=ticks.clock, sleep=ticks.sleep)
    screen.status(_attempt("wttr.in", caller="get_weather"))
    await asyncio.sleep(0)
    screen.clear_status()
    shown = len(written)
    for _ in range(3):
        await asyncio.sleep(0)
    assert len(written) == shown
    assert written[-1] == "\r\x1b[2K"


def test_off_a_terminal_an_attempt_shows_nothing() -> None:
    """Piped output gets plain lines only: no count, no line for an attempt."""
    written: list[str] = []
    screen = Screen(written.append, terminal=False)
    screen.status(_attempt())
    assert written == []


def test_escape_sequences_from_the_model_never_reach_the_terminal() -> None:
    """A streamed answer with OSC and CSI sequences: printed without them, on a terminal too."""
    hostile = "Sunny\x1b]0;pwned\x07 today\x1b[2J.\r"
    out = chat(["hi"], agent=_claude_agent(stream(hostile)), terminal=True)
    assert "Sunny today." in out
    assert "\x1b]" not in out
    assert "\x1b[2J" not in out
    assert "\x07" not in out


def test_trace_shows_a_hostile_tool_name_as_text() -> None:
    """/trace: markup and escape sequences in a tool name the model chose are shown inert."""
    name = "get_[bold red]x[/]\x1b]0;pwned\x07"
    model = ScriptedModel(calls((name, {})), text("done"))
    out = chat(
        ["hi", "/trace"],
        agent=lambda screen: Agent(ModelCaller(model, listener=screen.status), registry()),
    )
    assert "get_[bold red]x[/]" in out
    assert "pwned" not in out
    assert "\x1b" not in out


# --- laid out for a person: wrapping, the reply set apart, /trace readable -------------------


def test_replies_wrap_between_words_to_the_terminal_width() -> None:
    """Streamed in pieces that split words, a reply is wrapped only between words, every
    line indented and within the width."""
    written: list[str] = []
    screen = Screen(written.append, width=lambda: 30)
    reply = "In Paris it's 18 °C and partly cloudy; in Lima it's 21 °C under an overcast sky."
    for start in range(0, len(reply), 7):
        screen.text(reply[start : start + 7])
    screen.end_line()
    lines = "".join(written).splitlines()
    assert len(lines) > 2
    assert all(len(line) <= 30 and line.startswith("  ") for line in lines)
    assert " ".join(line.strip() for line in lines) == reply  # no word broken


def test_the_width_is_read_again_for_each_line() -> None:
    """A resized terminal: later lines follow the new width."""
    written: list[str] = []
    widths = [40]
    screen = Screen(written.append, width=lambda: widths[0])
    screen.text("alpha beta gamma delta epsilon zeta eta theta iota kappa ")
    widths[0] = 20
    screen.text("lambda mu nu xi omicron pi rho sigma tau upsilon")
    screen.end_line()
    last = "".join(written).splitlines()[-1]
    assert len(last) <= 20


def test_a_reply_is_set_apart_from_the_prompt_line() -> None:
    """On a terminal: a blank line, the reply indented, a blank line before the next prompt."""
    out = chat(["what is 2 + 2?", "/help"], width=80)
    assert "Claude.\n\n  Let me work that out.\n  2 + 2 = 4.\n\nAsk about" in out


def test_an_error_sentence_wraps_between_words_too() -> None:
    """The model down: its sentence, too, is wrapped to the width and indented."""
    from offline import api_error

    model = ScriptedModel(*(api_error(529, "overloaded_error") for _ in range(3)))
    out = chat(["hi"], agent=_two_turn_agent(model), width=40)
    after_banner = out.split("Claude.\n", 1)[1]
    lines = [line for line in after_banner.splitlines() if line.strip()]
    assert len(lines) > 1
    assert all(len(line) <= 40 and line.startswith("  ") for line in lines)


def _rendered(attempts: list[Event], title: str = "Last turn") -> str:
    return "\n".join(trace_table(attempts, 120, title))


def test_trace_durations_read_as_seconds_or_milliseconds() -> None:
    """ "5.0 s" and "12 ms", never "5015 ms"."""
    out = _rendered(
        [
            Event("failed", "model", "claude-sonnet-4-6", 1, 5.015, "timeout", "retry", 1.0),
            Event("answered", "get_weather", "open-meteo", 1, 0.012, "ok", subject="Paris"),
        ]
    )
    assert "5.0 s" in out
    assert "12 ms" in out
    assert "5015" not in out


def test_trace_names_the_city_of_each_row() -> None:
    """Two cities at once: each tool row says which city it was for."""
    out = chat(["weather in Paris and Lima?", "/trace"])
    table = out[out.index("Last turn") :]
    rows = [line for line in table.splitlines() if "get_weather" in line]
    assert any("Paris" in row for row in rows)
    assert any("Lima" in row for row in rows)
    assert "for" in table.splitlines()[1].split()  # the column's heading


def test_a_retry_without_a_wait_is_not_shown_as_a_wait() -> None:
    """A 0.0 s wait (an immediate retry) reads "at once", not "0.0 s"."""
    out = _rendered(
        [Event("failed", "model", "claude-sonnet-4-6", 1, 0.2, "network", "retry", 0.0)]
    )
    assert "0.0 s" not in out
    assert "at once" in out


# --- TERM=dumb and pipes: no control codes ------------------------------------------------


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _session_on(stdout: io.StringIO, env: dict[str, str], lines: list[str]) -> str:
    from agent.repl import make_screen

    screen = make_screen(stdout, env)
    services = SimulatedServices()
    services.fail("open-meteo-geocoding", Fault.status(503, retry_after=1))

    async def no_sleep(_: float) -> None:
        await asyncio.sleep(0)

    async def open_repl() -> Repl:
        built = await open_agent(
            Settings(),
            http=make_client(transport=services.transport),
            listener=screen.status,
            policy=Policy(sleep=no_sleep),
        )
        return Repl(built, screen)

    assert run_repl(open_repl, reader(lines), banner=Settings().banner) == 0
    return stdout.getvalue()


def test_term_dumb_gets_plain_text_without_any_control_code() -> None:
    """TERM=dumb on a terminal: no escape sequence, no carriage return; statuses as plain
    lines; the reply still laid out to COLUMNS."""
    out = _session_on(_Tty(), {"TERM": "dumb", "COLUMNS": "40"}, ["weather in Paris?", "/trace"])
    assert "\x1b" not in out
    assert "\r" not in out
    assert "… " in out  # the retry, as a line of its own
    reply = [line for line in out.splitlines() if line.startswith("  ") and "°" in line]
    assert reply
    assert all(len(line) <= 40 for line in reply)


def test_off_a_terminal_there_is_no_control_code() -> None:
    """stdout a pipe (even with a capable TERM): no escape sequence, no carriage return."""
    out = _session_on(io.StringIO(), {"TERM": "xterm-256color"}, ["weather in Paris?", "/trace"])
    assert "\x1b" not in out
    assert "\r" not in out


def test_a_capable_terminal_rewrites_the_status_line() -> None:
    """The contrast: a capable terminal does get the status line rewritten in place."""
    out = _session_on(_Tty(), {"TERM": "xterm", "COLUMNS": "80"}, ["weather in Paris?"])
    assert "\r\x1b[2K" in out


# --- /trace after Ctrl-C ------------------------------------------------------------------


class _Interrupt(Exception):
    """Queued for `_InterruptingModel`: at this attempt, Ctrl-C."""


class _InterruptingModel(ScriptedModel):
    """The queued fake, which sends SIGINT (and waits) where an `_Interrupt` is queued."""

    async def create(self, request: Any) -> Any:
        if self.replies and isinstance(self.replies[0], _Interrupt):
            self.replies.popleft()
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.Event().wait()
        return await super().create(request)


def test_trace_after_ctrl_c_shows_the_cancelled_turn_so_far() -> None:
    """Ctrl-C during the second attempt of a turn: /trace shows that turn (the overloaded
    attempt, and the one cut short), not the turn before it."""
    from offline import api_error

    model = _InterruptingModel(
        text("first answer"), api_error(529, "overloaded_error"), _Interrupt(), text("after")
    )
    out = chat(["first", "go", "/trace"], agent=_two_turn_agent(model))
    trace = out[out.index("(cancelled)\n") + len("(cancelled)\n") :]
    assert "Last turn (cancelled" in trace
    rows = [line for line in trace.splitlines() if line.strip().startswith("model")]
    assert len(rows) == 2
    assert "overloaded" in rows[0]
    assert "cancelled" in rows[1]


class _CancelledAgent:
    """An agent whose first question is answered (one attempt) and whose second is cut by
    Ctrl-C before any attempt goes out."""

    def __init__(self) -> None:
        self.registry = registry()
        self.asked = 0

    async def ask(self, question: str, *_: Any, **__: Any) -> Answer:
        self.asked += 1
        if self.asked == 1:
            return Answer(
                "one", attempts=(Event("answered", "model", "earlier-model", 1, 0.1, "ok"),)
            )
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()
        raise AssertionError("not reached")

    async def aclose(self) -> None:
        return None


def test_trace_after_ctrl_c_before_any_attempt_says_so_plainly() -> None:
    """Cancelled before anything went out: /trace says so, and not the previous turn."""
    out = chat(["first", "second", "/trace"], agent=lambda screen: _CancelledAgent())  # type: ignore[arg-type,return-value]
    trace = out[out.index("(cancelled)") :]
    assert CANCELLED_EARLY in trace
    assert "earlier-model" not in trace


def test_trace_at_40_columns_is_one_block_per_row() -> None:
    """A 40-column terminal: /trace gives each attempt a block, every line within the width."""
    out = chat(["weather in Paris?", "/trace"], width=40)
    trace = out[out.index("Last turn") :].splitlines()
    assert "--- get_weather" in trace
    assert "source: open-meteo" in trace
    assert all(len(line) <= 40 for line in out.splitlines())


def test_a_skipped_source_shows_no_attempt_number_or_time() -> None:
    """A source whose breaker is open made no attempt: its row has no "0" and no "0 ms"."""
    skipped = Event("skipped", "model", "claude-sonnet-4-6", 0, 0.0, "source_skipped", "skip")
    [row] = [line for line in _rendered([skipped]).splitlines() if "source_skipped" in line]
    assert row.split() == ["model", "claude-sonnet-4-6", "source_skipped", "skip"]
