"""Saved conversations: every committed turn in SQLite, so that a chat can be picked up again.

    history = History.open()                   # the data folder's conversations.sqlite
    saved = history.new("claude-sonnet-4-6")   # a new conversation (written at its first turn)
    conversation = Conversation(keeper=saved)  # each committed turn is saved
    ...
    saved, messages = history.resume()         # the latest one (or `resume(id)`)
    conversation = Conversation(messages, keeper=saved)

**What is kept.** A turn is saved when it commits (`agent.conversation.TurnScope.commit`), in
one transaction, as the API's own blocks: a resumed chat sends exactly what the model saw. A
turn that did not commit (cancelled, unanswered, killed mid-way) leaves nothing behind, and a
turn that did is whole. Every string is masked (`errors.redact`: the registered secrets and
the patterns) before it is written.

**The file.** `conversations.sqlite` in the data folder: `$AGENT_DATA_DIR`, else
`$XDG_DATA_HOME/failsafe-agent`, else `~/.local/share/failsafe-agent` (conversations are data,
not cache: clearing `~/.cache` must not lose them). The folder is made 0700 and the file 0600;
the file is opened only when it is a regular file of ours that no one else may write, never
through a symbolic link or a FIFO (`tools.files.open_private`). WAL mode with a busy timeout:
two processes writing at once both land; readers never wait for writers.

**When it goes wrong, it says so in one sentence and carries on** (`History.notice`):

- a damaged file (not SQLite, torn, or not ours) is moved aside as
  `conversations.sqlite.damaged-<time>` and a fresh store takes its place;
- a file from a newer version of the agent is left alone, and this version keeps its own
  store beside it (`conversations.v1.sqlite`);
- a folder that cannot be written, or a file that is not private: nothing is saved this time.

A failed write (a full disk) loses that turn's record only, with one notice; the turn itself
was answered. `AGENT_HISTORY=off` stores nothing and reads nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, ValidationError

from agent.log import redact_value
from errors import error_to_action, redact
from tools.files import NotPrivate, open_private

if TYPE_CHECKING:
    from anthropic.types import MessageParam

__all__ = [
    "FILE_NAME",
    "SCHEMA_VERSION",
    "History",
    "NoSuchConversation",
    "Saved",
    "Summary",
    "Turn",
    "data_folder",
]

log = structlog.get_logger("agent")

SCHEMA_VERSION = 1
FILE_NAME = "conversations.sqlite"
_BUSY_MS = 5_000  # how long a write waits for another process's
_SCHEMA = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    started REAL NOT NULL,
    updated REAL NOT NULL,
    model TEXT NOT NULL,
    first_question TEXT NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE messages (
    conversation TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (conversation, seq)
) WITHOUT ROWID;
CREATE INDEX conversations_by_update ON conversations(updated);
"""
_TABLES = {"conversations", "messages"}


def data_folder() -> Path:
    """Where saved conversations live (see the module's doc)."""
    if folder := os.environ.get("AGENT_DATA_DIR"):
        return Path(folder)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "failsafe-agent"


@dataclass(frozen=True, slots=True)
class Summary:
    """One saved conversation, as `agent conversations` lists it."""

    id: str
    started: float  # seconds since the epoch
    turns: int
    first_question: str
    model: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One saved turn, as `/history` shows it: the question and the answer's text."""

    question: str
    answer: str


class NoSuchConversation(LookupError):
    """No saved conversation has this id (or this prefix names more than one)."""


class _Message(BaseModel):
    """A stored message, checked as it is read back: the file is ours, but a file."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: list[dict[str, Any]]


class History:
    """The store of saved conversations; `open` never raises, `notice` says what went wrong."""

    def __init__(
        self, path: Path | None, connection: sqlite3.Connection | None, notice: str | None = None
    ) -> None:
        self.path = path
        self._db = connection
        self.notice = notice  # one plain sentence for the person, if something failed

    @classmethod
    def open(cls, folder: Path | None = None) -> History:
        """The store in `folder` (default: `data_folder()`), repaired or set aside as needed."""
        folder = folder or data_folder()
        path = folder / FILE_NAME
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            connection, notice = _connect(path)
        except (OSError, sqlite3.Error) as error:
            failure = error_to_action(error, "opening the saved conversations")
            log.warning("history.unavailable", path=str(path), **failure.log_fields())
            why = f" ({error})" if isinstance(error, NotPrivate) else ""  # our own words
            sentence = f"Conversations can't be saved in {folder}{why}; this one will not be kept."
            return cls(None, None, sentence)
        return cls(path, connection, notice)

    @property
    def available(self) -> bool:
        """Whether conversations are being saved."""
        return self._db is not None

    def close(self) -> None:
        """Close the file (the WAL is folded back into it by the last one to close)."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    # --- starting and resuming ---------------------------------------------------------------

    def new(self, model: str) -> Saved:
        """A conversation to save into; it is written at its first committed turn."""
        return Saved(self, secrets.token_hex(4), model)

    def resume(self, prefix: str | None = None) -> tuple[Saved, list[MessageParam]]:
        """The conversation `prefix` names (a whole id or its unique start; None: the latest)
        and its messages; `NoSuchConversation` if there is none."""
        if prefix is None:
            rows = self._rows("SELECT id, model FROM conversations ORDER BY updated DESC LIMIT 1")
        else:
            prefix = prefix.strip().lower()
            if not prefix:  # it would name every conversation
                raise NoSuchConversation(prefix)
            rows = self._rows(
                "SELECT id, model FROM conversations WHERE substr(id, 1, ?) = ? LIMIT 2",
                (len(prefix), prefix),
            )
        if len(rows) != 1:
            raise NoSuchConversation(prefix or "")
        saved = Saved(self, rows[0][0], rows[0][1], exists=True)
        return saved, self.messages(saved.id)

    def messages(self, conversation: str) -> list[MessageParam]:
        """The saved messages of `conversation`, in order; a message that does not read back
        as one ends the list there (what came before is still a valid history)."""
        rows = self._rows(
            "SELECT role, content FROM messages WHERE conversation = ? ORDER BY seq",
            (conversation,),
        )
        messages: list[MessageParam] = []
        for role, content in rows:
            try:
                message = _Message(role=role, content=json.loads(content))
            except (ValueError, ValidationError):
                log.warning("history.unreadable_message", conversation=conversation)
                break
            messages.append(message.model_dump())  # type: ignore[arg-type]
        return _whole_turns(messages)

    # --- listing and deleting ---------------------------------------------------------------

    def conversations(self, limit: int = 100) -> list[Summary]:
        """The saved conversations, the latest first."""
        rows = self._rows(
            "SELECT id, started, turns, first_question, model FROM conversations "
            "ORDER BY updated DESC LIMIT ?",
            (limit,),
        )
        return [Summary(*row) for row in rows]

    def delete(self, prefix: str) -> str:
        """Delete the conversation `prefix` names; its whole id. `NoSuchConversation` if none."""
        saved, _ = self.resume(prefix)
        assert self._db is not None
        with _transaction(self._db) as db:
            db.execute("DELETE FROM conversations WHERE id = ?", (saved.id,))
        return saved.id

    # --- writing ------------------------------------------------------------------------------

    def save_turn(self, saved: Saved, messages: Sequence[MessageParam]) -> bool:
        """One committed turn of `saved`, in one transaction; False (with one notice) if it
        could not be written."""
        if self._db is None or not messages:
            return False
        rows = [
            (m["role"], json.dumps(redact_value(m["content"]), ensure_ascii=False))
            for m in messages
        ]
        now = time.time()
        try:
            with _transaction(self._db) as db:
                if not saved.exists:
                    db.execute(
                        "INSERT INTO conversations (id, started, updated, model, first_question)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (saved.id, now, now, saved.model, _question(messages)),
                    )
                (turns, last) = db.execute(
                    "SELECT c.turns, (SELECT coalesce(max(seq), 0) FROM messages m"
                    " WHERE m.conversation = c.id) FROM conversations c WHERE c.id = ?",
                    (saved.id,),
                ).fetchone()
                db.executemany(
                    "INSERT INTO messages (conversation, seq, turn, role, content)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [(saved.id, last + i, turns + 1, role, body)
                     for i, (role, body) in enumerate(rows, 1)],
                )  # fmt: skip
                db.execute(
                    "UPDATE conversations SET turns = turns + 1, updated = ? WHERE id = ?",
                    (now, saved.id),
                )
        except (sqlite3.Error, OSError, TypeError) as error:
            self._failed(error)
            return False
        saved.exists = True
        return True

    def _failed(self, error: BaseException) -> None:
        failure = error_to_action(error, "saving a turn of the conversation")
        log.warning("history.save_failed", path=str(self.path), **failure.log_fields())
        self.notice = "This turn could not be saved to the conversation history; the chat goes on."

    def _rows(self, sql: str, parameters: Sequence[object] = ()) -> list[Any]:
        """A read's rows (none when nothing is saved)."""
        return [] if self._db is None else self._db.execute(sql, parameters).fetchall()


class Saved:
    """One conversation being saved (`agent.conversation.Keeper`)."""

    def __init__(self, history: History, id: str, model: str, *, exists: bool = False) -> None:
        self.history = history
        self.id = id
        self.model = model
        self.exists = exists  # written already (its first turn committed)

    def keep(self, messages: Sequence[MessageParam]) -> None:
        """Save one committed turn; a failure is the history's notice, never the turn's."""
        self.history.save_turn(self, messages)

    def turns(self) -> list[Turn]:
        """The saved turns, as question and answer text, for `/history`."""
        return turns_of(self.history.messages(self.id)) if self.exists else []


def turns_of(messages: Sequence[MessageParam]) -> list[Turn]:
    """The questions (user text, not tool results) and the answers (the text of the last
    assistant message before the next question) in `messages`."""
    turns: list[Turn] = []
    question, answer = None, ""
    for message in messages:
        blocks = _blocks(message["content"])
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        answers_tools = any(b.get("type") == "tool_result" for b in blocks)
        if message["role"] == "user" and texts and not answers_tools:
            if question is not None:
                turns.append(Turn(question, answer))
            question, answer = "\n".join(texts), ""
        elif message["role"] == "assistant" and texts:
            answer = "\n".join(texts)
    if question is not None:
        turns.append(Turn(question, answer))
    return turns


# --- opening the file --------------------------------------------------------------------------


def _connect(path: Path, *, beside: bool = True) -> tuple[sqlite3.Connection, str | None]:
    """A connection to a store of our schema at `path` (or, if a newer version owns that
    file, beside it), and the notice to give, if any."""
    os.close(open_private(path, os.O_RDWR | os.O_CREAT))  # ours, private, no link, no FIFO
    db = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None)
    try:
        version = _version(db)  # read only: a newer version's file stays as it was
        if version in (0, SCHEMA_VERSION):
            _configure(db)
    except sqlite3.DatabaseError:  # not a database, or torn
        version = -1
    if version == SCHEMA_VERSION:
        return db, None
    if version == 0:
        _create(db)
        return db, None
    db.close()
    if version > SCHEMA_VERSION and beside:
        own = path.with_name(f"conversations.v{SCHEMA_VERSION}.sqlite")
        connection, _ = _connect(own, beside=False)
        return connection, (
            f"The saved conversations in {path} were written by a newer version of the agent; "
            f"this version keeps its own in {own}."
        )
    aside = _move_aside(path)
    connection, _ = _connect(path, beside=False)
    log.warning("history.damaged", path=str(path), moved_to=str(aside))
    return connection, (
        f"The saved conversations file was damaged; it was moved to {aside} and a new one "
        "was started."
    )


def _configure(db: sqlite3.Connection) -> None:
    """A busy timeout, so that two writers both land; WAL, so that readers never wait;
    NORMAL sync, which loses nothing committed when the process dies."""
    db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")


def _version(db: sqlite3.Connection) -> int:
    """Our schema's version; 0 for an empty file; -1 for a database that is not ours, or one
    damaged anywhere (`quick_check`: every page is read, before anything is written)."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if version == 0:
        return 0 if not tables else -1
    if version == SCHEMA_VERSION and not tables >= _TABLES:
        return -1
    if db.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok":
        return -1
    return version


def _create(db: sqlite3.Connection) -> None:
    """The schema, in one transaction (a crash leaves an empty file, made again next time)."""
    with _transaction(db):
        if int(db.execute("PRAGMA user_version").fetchone()[0]) == 0:  # not made meanwhile
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any error: all of it or none."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _move_aside(path: Path) -> Path:
    """Rename the damaged file (and its WAL and shared-memory files) out of the way."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    return aside


# --- what is written ----------------------------------------------------------------------------


def _question(messages: Sequence[MessageParam]) -> str:
    """The turn's question, masked and on one line, for the listing."""
    for message in messages:
        if message["role"] == "user":
            texts = [
                b.get("text", "") for b in _blocks(message["content"]) if b.get("type") == "text"
            ]
            return redact(" ".join(" ".join(map(str, texts)).split()))[:200]
    return ""


def _blocks(content: object) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [dict(block) for block in content] if isinstance(content, list) else []


def _whole_turns(messages: list[MessageParam]) -> list[MessageParam]:
    """`messages` up to the end of the last whole turn (an assistant message that asks for
    no tool): a history the API accepts, whatever was cut after it."""
    end = 0
    for index, message in enumerate(messages):
        blocks = _blocks(message["content"])
        if message["role"] == "assistant" and not any(b.get("type") == "tool_use" for b in blocks):
            end = index + 1
    return messages[:end]
