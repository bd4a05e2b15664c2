"""The one sanitiser for the terminal: no control character or escape sequence gets through,
and rich markup in text is shown, not interpreted."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.console import table
from agent.terminal import TerminalStream, cells, for_terminal

# Everything a terminal acts on: C0 but newline and tab, DEL, C1.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Text built from the characters that matter here, and ordinary ones.
ALPHABET = st.sampled_from(list("ab ;[]0/\\\n\t\r\x07\x1b\x9b\x9c\x9d\x90\x00\x7fPX^_2Jé😀"))


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b]0;pwned\x07b", "ab"),  # OSC: retitles the window
        ("a\x1b]0;pwned\x1b\\b", "ab"),  # OSC ended by ST
        ("\x1b[2Jcleared", "cleared"),  # CSI: clears the screen
        ("\x1b[31mred\x1b[0m", "red"),  # colour
        ("\x9b31mred", "red"),  # the C1 form of CSI
        ("\x1b]8;;http://x.test\x07link\x1b]8;;\x07", "link"),  # a hyperlink
        ("over\rwrite", "overwrite"),  # a bare carriage return
        ("bell\x07", "bell"),
        ("a\x1bPdcs string\x1b\\b", "ab"),  # DCS
        ("\x1b]0;never ended\nnext line", "\nnext line"),  # unterminated: to the line's end
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # kept
        ("Zürich 😀 [bold]", "Zürich 😀 [bold]"),  # plain text untouched
    ],
)
def test_controls_and_sequences_are_removed_whole(raw: str, shown: str) -> None:
    assert for_terminal(raw) == shown


def test_a_table_cell_is_shown_as_written_without_its_controls() -> None:
    """`[bold red]` in a tool name is shown as written, not interpreted; escapes go."""
    [_, _, row] = table(["tool"], [["get_[bold red]weather[/]\x1b[2J"]], 80)
    assert row == "get_[bold red]weather[/]"


def test_wide_characters_take_two_columns() -> None:
    """東京 is four columns wide, a combining accent none: tables line up on a terminal."""
    assert (cells("東京"), cells("e\u0301"), cells("Zürich")) == (4, 1, 6)


def test_a_sequence_split_between_pieces_is_removed_whole() -> None:
    """A stream cut mid-sequence leaves no debris: the tail is held for the next piece."""
    stream = TerminalStream()
    pieces = ["Hi \x1b]0;ti", "tle\x07 there\x1b", "[2J!", " x\x1b[3", "1mred"]
    assert "".join(stream.feed(p) for p in pieces) + stream.flush() == "Hi  there! xred"


@given(st.text(ALPHABET, max_size=60))
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    """Whatever the text: no control but newline and tab, and sanitising twice changes nothing."""
    once = for_terminal(text)
    assert not CONTROL.search(once)
    assert for_terminal(once) == once


@given(st.lists(st.text(ALPHABET, max_size=20), max_size=8))
def test_a_stream_shows_what_the_whole_text_would(pieces: list[str]) -> None:
    """However the text is cut into pieces, the stream shows what one sanitised text shows."""
    stream = TerminalStream()
    shown = "".join(stream.feed(piece) for piece in pieces) + stream.flush()
    assert not CONTROL.search(shown)
    assert shown == for_terminal("".join(pieces))
