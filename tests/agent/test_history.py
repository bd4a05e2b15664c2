"""Saved conversations: real SQLite files in a temporary folder."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agent.conversation import Conversation
from agent.history import FILE_NAME, History, NoSuchConversation, turns_of
from agent.settings import Settings
from errors import register_secret
from offline import open_agent

REPO = Path(__file__).resolve().parents[2]


def one_turn(conversation: Conversation, question: str, answer: str) -> None:
    """A committed turn with a tool call in it, as the loop would leave it."""
    with conversation.turn() as turn:
        conversation.add_user_text(question)
        use = {"type": "tool_use", "id": f"toolu_{len(conversation)}", "name": "calculate",
               "input": {"expression": "2+2"}}  # fmt: skip
        conversation._messages.append({"role": "assistant", "content": [use]})
        result = {"type": "tool_result", "tool_use_id": use["id"], "content": "4"}
        conversation.add_tool_results([result])  # type: ignore[list-item]
        conversation.add_assistant_text(answer)
        turn.commit()


def test_a_resumed_conversation_sends_what_the_model_saw(tmp_path: Path) -> None:
    """Every committed turn is saved as the API's blocks, tool calls included; resuming
    gives back exactly the messages the conversation held."""
    history = History.open(tmp_path)
    saved = history.new("offline-scripted")
    conversation = Conversation(keeper=saved)
    one_turn(conversation, "What's 2+2?", "It is 4.")
    one_turn(conversation, "And again?", "Still 4.")
    resumed, messages = History.open(tmp_path).resume()
    assert resumed.id == saved.id
    assert messages == conversation.messages
    assert [t.question for t in turns_of(messages)] == ["What's 2+2?", "And again?"]
    assert turns_of(messages)[1].answer == "Still 4."


def test_a_turn_that_does_not_commit_leaves_nothing(tmp_path: Path) -> None:
    """A cancelled or unanswered turn is rolled back in memory and never written."""
    history = History.open(tmp_path)
    conversation = Conversation(keeper=history.new("m"))
    one_turn(conversation, "first", "one")
    with conversation.turn():
        conversation.add_user_text("second, never answered")
    _, messages = history.resume()
    assert [t.question for t in turns_of(messages)] == ["first"]
    assert history.conversations()[0].turns == 1


def test_a_chat_with_no_turn_is_not_listed(tmp_path: Path) -> None:
    """A conversation is written at its first committed turn: opening and quitting saves
    nothing."""
    history = History.open(tmp_path)
    history.new("m")
    assert history.conversations() == []
    with pytest.raises(NoSuchConversation):
        history.resume()


def test_registered_secrets_are_masked_before_they_are_stored(tmp_path: Path) -> None:
    """A secret in a question, a tool input or an answer never reaches the file."""
    secret = "hist-secret-7f3a9c2e11"
    register_secret(secret)
    history = History.open(tmp_path)
    conversation = Conversation(keeper=history.new("m"))
    with conversation.turn() as turn:
        conversation._messages.append(
            {"role": "user", "content": [{"type": "text", "text": f"my key is {secret}"}]}
        )
        conversation.add_assistant_text(f"noted: {secret}")
        turn.commit()
    history.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    assert secret.encode() not in raw
    assert History.open(tmp_path).conversations()[0].first_question.startswith("my key is ")


def test_the_file_is_private(tmp_path: Path) -> None:
    """The folder is made 0700 and the file 0600."""
    folder = tmp_path / "data"
    History.open(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / FILE_NAME).stat().st_mode) == 0o600


def test_a_damaged_file_is_moved_aside_with_one_sentence(tmp_path: Path) -> None:
    """A file that is not a database is kept aside, named in the notice, and a fresh store
    works in its place."""
    (tmp_path / FILE_NAME).write_bytes(b"this is not SQLite at all\n" * 200)
    os.chmod(tmp_path / FILE_NAME, 0o600)
    history = History.open(tmp_path)
    assert history.notice is not None
    assert "damaged" in history.notice
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not SQLite")
    conversation = Conversation(keeper=history.new("m"))
    one_turn(conversation, "q", "a")
    assert len(history.conversations()) == 1


def damaged_inside(folder: Path, conversations: int = 30) -> Path:
    """A store of `conversations` saved chats, then every page after the schema's overwritten:
    a file whose header and schema still read, damaged where its rows are."""
    history = History.open(folder)
    for n in range(conversations):
        one_turn(Conversation(keeper=history.new("m")), f"question {n} " + "x" * 2000, "a" * 2000)
    history.close()
    path = folder / FILE_NAME
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")  # the page size, from the file's header
    for start in range(2 * page, len(data), page):
        data[start : start + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))
    return path


def test_damage_inside_the_file_is_found_when_it_is_opened(tmp_path: Path) -> None:
    """A file whose header and schema read but whose rows are damaged is found so on opening,
    before anything is written: set aside whole, said once, and a fresh store carries on."""
    path = damaged_inside(tmp_path)
    damaged = path.read_bytes()
    history = History.open(tmp_path)
    assert history.notice is not None
    assert "damaged" in history.notice
    aside = [p for p in tmp_path.iterdir() if p.name.endswith(tuple("0123456789"))]
    assert [p.read_bytes() for p in aside] == [damaged]
    assert history.conversations() == []
    one_turn(Conversation(keeper=history.new("m")), "q", "a")
    assert len(history.conversations()) == 1


def test_a_newer_schema_is_left_alone(tmp_path: Path) -> None:
    """A file written by a newer version is not touched; this version keeps its own store
    beside it, and says so once."""
    newer = tmp_path / FILE_NAME
    with sqlite3.connect(newer) as db:
        db.execute("CREATE TABLE future (x)")
        db.execute("PRAGMA user_version = 99")
    os.chmod(newer, 0o600)
    before = newer.read_bytes()
    history = History.open(tmp_path)
    assert history.notice is not None
    assert "newer version" in history.notice
    one_turn(Conversation(keeper=history.new("m")), "q", "a")
    history.close()
    assert newer.read_bytes() == before
    assert (tmp_path / "conversations.v1.sqlite").exists()


def test_a_link_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    """A symbolic link where the file should be: nothing is saved, nothing written through
    it, and the notice says so."""
    target = tmp_path / "elsewhere"
    target.write_text("precious")
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / FILE_NAME).symlink_to(target)
    history = History.open(folder)
    assert not history.available
    assert history.notice is not None
    assert "symbolic link" in history.notice
    assert target.read_text() == "precious"


def test_an_unreadable_message_cuts_the_history_at_the_last_whole_turn(tmp_path: Path) -> None:
    """A message edited into nonsense: the turns before it come back, nothing after."""
    history = History.open(tmp_path)
    conversation = Conversation(keeper=history.new("m"))
    one_turn(conversation, "first", "one")
    one_turn(conversation, "second", "two")
    history.close()
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("UPDATE messages SET content = '{not json' WHERE seq = 6")
    _, messages = History.open(tmp_path).resume()
    assert [t.question for t in turns_of(messages)] == ["first"]
    assert messages[-1]["role"] == "assistant"


def test_ids_by_prefix_listing_and_deleting(tmp_path: Path) -> None:
    """A unique start of an id names a conversation; the listing is the latest first; a
    deleted conversation is gone with its messages."""
    history = History.open(tmp_path)
    first, second = history.new("m"), history.new("m")
    one_turn(Conversation(keeper=first), "older", "a")
    one_turn(Conversation(keeper=second), "newer", "b")
    assert [c.first_question for c in history.conversations()] == ["newer", "older"]
    assert history.resume(first.id[:6])[0].id == first.id
    assert history.delete(first.id) == first.id
    with pytest.raises(NoSuchConversation):
        history.resume(first.id)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        left = db.execute("SELECT count(*) FROM messages WHERE conversation = ?", (first.id,))
        assert left.fetchone()[0] == 0


def test_an_empty_prefix_names_no_conversation(tmp_path: Path) -> None:
    """An empty or blank id never matches every conversation: nothing is resumed or deleted."""
    history = History.open(tmp_path)
    one_turn(Conversation(keeper=history.new("m")), "keep me", "a")
    for blank in ("", "  "):
        with pytest.raises(NoSuchConversation):
            history.delete(blank)
    assert [c.first_question for c in history.conversations()] == ["keep me"]


_WRITER = """
import sys
from pathlib import Path
from agent.conversation import Conversation
from agent.history import History
history = History.open(Path(sys.argv[1]))
saved, messages = history.resume(sys.argv[2])
conversation = Conversation(messages, keeper=saved)
for n in range(40):
    with conversation.turn() as turn:
        conversation.add_user_text(f"{sys.argv[3]} question {n}")
        conversation.add_assistant_text(f"answer {n}")
        turn.commit()
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    """Two processes adding 40 turns each to one conversation at the same time: all 80 are
    there, each whole."""
    history = History.open(tmp_path)
    saved = history.new("m")
    one_turn(Conversation(keeper=saved), "start", "ok")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), saved.id, name], env=env)  # noqa: S603
        for name in ("left", "right")
    ]
    assert [writer.wait(60) for writer in writers] == [0, 0]
    _, messages = history.resume(saved.id)
    questions = [t.question for t in turns_of(messages)]
    assert len(questions) == 81
    for name in ("left", "right"):
        assert [q for q in questions if q.startswith(name)] == [
            f"{name} question {n}" for n in range(40)
        ]
    assert history.conversations()[0].turns == 81


async def test_an_agent_turn_is_saved_and_resumed(tmp_path: Path) -> None:
    """A real turn (the offline model, a tool call) is saved; a conversation resumed from
    the file asks the model with the earlier turn in its history."""
    history = History.open(tmp_path)
    agent = await open_agent(Settings())
    try:
        conversation = Conversation(keeper=history.new(agent.model_name))
        answer = await agent.ask("What's the weather in Paris?", conversation)
        assert answer.answered
        saved, messages = History.open(tmp_path).resume()
        assert messages == conversation.messages
        assert any(b["type"] == "tool_use" for m in messages for b in m["content"])  # type: ignore[index, union-attr]
        again = Conversation(messages, keeper=saved)
        await agent.ask("And in Rome?", again)
        _, after = History.open(tmp_path).resume()
        assert after[: len(messages)] == messages
        assert [t.question for t in turns_of(after)] == [
            "What's the weather in Paris?",
            "And in Rome?",
        ]
    finally:
        await agent.aclose()


def test_the_stored_json_is_the_api_blocks(tmp_path: Path) -> None:
    """What the file holds is the message content as JSON, readable by any tool."""
    history = History.open(tmp_path)
    one_turn(Conversation(keeper=history.new("m")), "q", "a")
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        rows = db.execute("SELECT role, content FROM messages ORDER BY seq").fetchall()
    assert [role for role, _ in rows] == ["user", "assistant", "user", "assistant"]
    assert json.loads(rows[1][1])[0]["type"] == "tool_use"
