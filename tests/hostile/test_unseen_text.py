"""Finding 7 of issue 19: text that changes how it reads without being seen.

Before: bidi overrides and isolates (U+202A–202E, U+2066–2069), U+200B–200F, U+FEFF, U+061C
and a run of 400 combining marks were printed as they came by `agent ask`, `agent chat` and
`/tools` (an MCP tool's description); U+202E and U+202C from an upstream body were written
raw into the JSON log. Now the one terminal sanitiser (`agent.terminal.for_terminal`) removes
them and keeps a few marks on a character (`MAX_MARKS`), and the log escapes them in every
value (`errors._redact.escape_invisible`).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.terminal import TerminalStream, for_terminal
from benchmarks.hostile_server import HostileServer, answer, in_pieces, raw_json
from offline._messages_wire import error_body
from tests.hostile.agents import run_agent

# What must not reach a terminal or a log line raw.
UNSEEN = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
FLOOD = "Z" + "\u0301" * 400 + "algo"
SAID = (
    "Your file is\u202e txt.exe\u202c ready\u200b\u200c\u200d\u200e\u200f \ufeffnow "
    "\u2066\u202a\u202b\u202d\u2069 \u061c" + FLOOD
)
SERVER = Path(__file__).with_name("unseen_server.py")
FEW = 8  # combining marks on one character that are still an accent, not a flood


def _longest_run_of_marks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char) in {"Mn", "Me"} else 0
        longest = max(longest, run)
    return longest


def _reads_plainly(text: str) -> None:
    assert not UNSEEN.search(text)
    assert 0 < _longest_run_of_marks(text) <= FEW  # the accent stays, the flood goes
    assert "algo" in text


def test_agent_ask_prints_no_bidi_zero_width_or_flood() -> None:
    """`agent ask`: the answer is printed without bidi controls, zero-width characters or
    the BOM, its words intact, and a flood of marks cut to a few."""
    with HostileServer(messages=answer(SAID)) as server:
        ran = run_agent(["ask", "hi"], server.env())
    assert ran.code == 0
    _reads_plainly(ran.out)
    assert "Your file is txt.exe ready now" in ran.out


def test_agent_chat_prints_a_streamed_answer_plainly_however_it_is_cut() -> None:
    """`agent chat`, the answer streamed a character a delta: the marks are counted across
    the pieces, so the flood is cut all the same."""
    with HostileServer(messages=in_pieces(SAID, size=1)) as server:
        ran = run_agent(["chat"], server.env(), "hi\n")
    assert ran.code == 0
    _reads_plainly(ran.out)
    assert "Your file is txt.exe ready now" in ran.out


def test_tools_shows_an_mcp_description_plainly() -> None:
    """`/tools`: an MCP server's description of its tool is printed plainly."""
    mcp = f"unseen={sys.executable} {SERVER}"
    ran = run_agent(["chat", "--offline", "--mcp", mcp], {}, "/tools\n")
    assert ran.code == 0
    [line] = [line for line in ran.out.splitlines() if line.startswith("notes")]
    _reads_plainly(line)
    assert "Reads files and notes here" in line


def test_the_log_escapes_what_an_upstream_body_hides(tmp_path: Path) -> None:
    """An upstream error body with an RLO, a PDF, a zero-width space and a C1 character: the
    log file holds them as JSON escapes (the value reads back unchanged), and stderr with
    --verbose as `\\uXXXX` text."""
    message = "the key \u202eyek_eht\u202c is\u200b wrong \x9b2J"
    body = json.dumps(error_body("api_error", message), ensure_ascii=False).encode()
    log = tmp_path / "agent.jsonl"
    with HostileServer(messages=raw_json(body, status=500)) as server:
        ran = run_agent(["--verbose", "ask", "hi"], server.env(AGENT_LOG_FILE=str(log)))
    assert ran.code == 1
    raw = log.read_text(encoding="utf-8")
    assert not UNSEEN.search(raw)
    assert not re.search("[\x7f-\x9f]", raw)
    notes = [json.loads(line).get("developer_note", "") for line in raw.splitlines()]
    assert any("\u202eyek_eht\u202c" in note for note in notes)  # escaped, not lost
    assert not UNSEEN.search(ran.err)
    assert "\\u202eyek_eht\\u202c" in ran.err


@pytest.mark.parametrize(
    "text",
    [
        "Tiếng Việt",  # two marks on one letter, decomposed or not
        "Tie\u0302\u0301ng Vie\u0323\u0302t",
        "हिन्दी और संस्कृत",  # vowel signs and viramas
        "שָׁלוֹם",  # Hebrew points
        "مرحبا بالعالم",  # Arabic, right to left by itself
        "ภาษาไทย",  # Thai vowels and tones
        "東京 😀 Zürich",
    ],
)
def test_ordinary_text_in_any_script_is_printed_unchanged(text: str) -> None:
    """What the sanitiser removes is never part of ordinary writing in any script."""
    assert for_terminal(text) == text


@given(
    st.text(st.sampled_from(list("ab \n\u0301\u0489\u202e\u200b\ufeff\u2066é\x1b[")), max_size=80)
)
def test_nothing_unseen_and_no_flood_gets_through(text: str) -> None:
    """On any text: no bidi control, zero-width character or BOM, and only a few combining
    marks in a row, whether printed whole or streamed a character at a time."""
    stream = TerminalStream()
    streamed = "".join(stream.feed(char) for char in text) + stream.flush()
    for shown in (for_terminal(text), streamed):
        assert not UNSEEN.search(shown)
        assert _longest_run_of_marks(shown) <= FEW
