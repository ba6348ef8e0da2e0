"""Live classroom polls: one thin store of polls and answers on SQLite or PostgreSQL.

The store needs nothing beyond the standard library by default: polls and answers live in an
SQLite file (WAL mode) under ``COARSENRANK_DATA_DIR`` (default ``~/.coarsenrank``). With
``COARSENRANK_DATABASE_URL=postgresql://...`` the same code runs on PostgreSQL (through
``psycopg``), for a school server with several app processes.

Safety rules kept here, whatever page calls it:

* poll ids and student tokens come from :mod:`secrets`; a teacher key holds 192 random bits
  and only its SHA-256 digest is stored; a wrong key gets the same :class:`PollNotFound` as
  a missing poll;
* limits (:data:`MAX_ITEMS` items, :data:`MAX_ANSWERS` answers a poll, :data:`MAX_OPEN_POLLS`
  open polls, :data:`MAX_ITEM_CHARS` characters an item); an open poll idle for
  :data:`IDLE_HOURS` stops counting towards the open polls, and a poll idle for
  :func:`keep_days` days is deleted with its answers, so nobody can fill the store for good;
* an answer is validated (known items, none repeated) and refused after closing; one token
  submits at most once every :data:`RATE_SECONDS` seconds;
* an answer is committed before :meth:`PollStore.submit` returns.

The schema is versioned (table ``poll_schema``); :data:`MIGRATIONS` brings any older store up
to :data:`SCHEMA_VERSION` when it is opened.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import numbers
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from coarsenrank_core.io.assembly import same_name_key, tidy_text

_LOG = logging.getLogger(__name__)

MAX_ITEMS = 30
MIN_ITEMS = 2
MAX_ANSWERS = 500
MAX_OPEN_POLLS = 100
#: An open poll with no new answer for this long no longer counts towards MAX_OPEN_POLLS (it
#: still takes answers): polls left open cannot lock a server's teachers out.
IDLE_HOURS = 24
#: Days a poll and its answers are kept after its last activity (COARSENRANK_POLL_KEEP_DAYS).
KEEP_DAYS = 180
MAX_ITEM_CHARS = 200
MAX_QUESTION_CHARS = 300
#: Beyond this many seconds from 1970 (about 3 million years) no time is meant.
_FAR = 1e14
#: A text longer than this many times its limit is refused before it is tidied (tidying
#: only trims and joins spaces, so it cannot shorten it below the limit).
_RAW_CHARS = 10
RATE_SECONDS = 1.0
#: join codes: easy to read aloud and type on a phone (no 0/O, 1/I/L)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
KEY_BYTES = 24  # 192-bit teacher keys
TOKEN_BYTES = 16  # 128-bit student tokens
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: exactly what :func:`new_token` makes: 16 bytes in unpadded URL-safe base64, 22 characters
TOKEN_FORMAT = re.compile(rf"[A-Za-z0-9_-]{{{-(-TOKEN_BYTES * 4 // 3)}}}")

SCHEMA_VERSION = 4
#: ``(version, statements)``: each brings the schema from ``version - 1`` to ``version``.
#: Written in the SQL that SQLite and PostgreSQL share.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, (
        "CREATE TABLE polls (id VARCHAR(16) PRIMARY KEY, key_hash VARCHAR(64) NOT NULL, "
        "question TEXT NOT NULL, items TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, "
        "closes_at DOUBLE PRECISION, closed INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE answers (poll_id VARCHAR(16) NOT NULL REFERENCES polls(id) "
        "ON DELETE CASCADE, token VARCHAR(64) NOT NULL, ranking TEXT NOT NULL, "
        "first_submitted DOUBLE PRECISION NOT NULL, submitted DOUBLE PRECISION NOT NULL, "
        "changes INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (poll_id, token))",
    )),
    # version 2: the teacher may show the result to the students once the poll is closed
    (2, ("ALTER TABLE polls ADD COLUMN show_results INTEGER NOT NULL DEFAULT 0",)),
    # version 3: polls in a session (the teacher's "next poll"): the session's first poll's
    # id (NULL: the poll is its own session, as every poll written before) and the place
    (3, ("ALTER TABLE polls ADD COLUMN session_id VARCHAR(16)",
         "ALTER TABLE polls ADD COLUMN position INTEGER NOT NULL DEFAULT 1")),
    # version 4: when a poll was last active (created, answered or reopened), which decides
    # whether it counts as open and how long it is kept
    (4, ("ALTER TABLE polls ADD COLUMN last_active DOUBLE PRECISION",
         "UPDATE polls SET last_active = COALESCE((SELECT MAX(submitted) FROM answers "
         "WHERE answers.poll_id = polls.id), created)")),
)


class PollError(ValueError):
    """A request the store refuses; the message is plain text for the user."""


class PollNotFound(PollError):
    """No such poll, or a wrong teacher key (the two are not told apart)."""

    def __init__(self, message: str = "There is no poll with this code (or the teacher "
                                      "key is wrong). Check the code or the link."):
        super().__init__(message)


class PollUnavailable(PollError):
    """The database did not answer (locked for too long, a server that is down)."""

    def __init__(self, message: str = "The poll store is not answering just now; nothing "
                                      "was changed. Try again in a moment."):
        super().__init__(message)


@dataclass(frozen=True)
class Poll:
    """One poll as students and the teacher see it (never its key)."""

    poll_id: str
    question: str
    items: tuple[str, ...]
    created: float
    closes_at: float | None
    closed: bool
    show_results: bool = False
    session_id: str = ""
    position: int = 1

    def __post_init__(self):
        if not self.session_id:  # a poll is its own session until a next one follows it
            object.__setattr__(self, "session_id", self.poll_id)

    def is_open(self, now: float | None = None) -> bool:
        """Whether answers are accepted now (not closed, closing time not passed)."""
        now = time.time() if now is None else now
        return not self.closed and (self.closes_at is None or now < self.closes_at)


@dataclass(frozen=True)
class Answer:
    """One browser's answer: groups of item indices, best first (a group of two is a tie)."""

    token: str
    ranking: tuple[tuple[int, ...], ...]
    first_submitted: float
    submitted: float
    changes: int


def new_token() -> str:
    """A random student token (128 bits) that keeps one answer per browser."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_token(value) -> bool:
    """Whether ``value`` has the form of a :func:`new_token` token (a string of exactly its
    22 characters): a token from an address or a cookie is used only if it does."""
    return isinstance(value, str) and TOKEN_FORMAT.fullmatch(value) is not None


def normalise_code(code: str) -> str:
    """A typed join code as stored: upper case, spaces and dashes removed."""
    return re.sub(r"[\s-]", "", str(code)).upper()


#: More characters than a typed join code holds, with all the spaces and dashes it may have.
MAX_CODE_CHARS = 64
_CODE = re.compile(rf"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")


def poll_code(code) -> str | None:
    """A join code from a link or a box as stored (:func:`normalise_code`), or None when it
    cannot be one: too long, or not :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET`.
    Such a code is no poll, so the database is never asked (a NUL character would make
    PostgreSQL fail, and the user would be told the store is down)."""
    if not isinstance(code, str) or len(code) > MAX_CODE_CHARS:
        return None
    code = normalise_code(code)
    return code if _CODE.fullmatch(code) else None


def _digest(key: str) -> str:
    return hashlib.sha256(str(key).encode("utf-8")).hexdigest()


#: Control characters (a NUL fails on PostgreSQL) and the marks that turn text around.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _tidy(text, what: str) -> str:
    """A poll's text as stored, tidied as the readers tidy names (:func:`tidy_text`: NFC
    form, invisible characters dropped, each run of spaces one space); :class:`PollError`
    naming ``what`` when it holds a control character (around it, line ends and other
    spaces are only trimmed)."""
    text = str(text).strip()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no database or CSV can hold it
        raise PollError(f"{what} holds a broken character (half of a pair); type it "
                        "again.") from None
    bad = _CONTROL.search(text)
    if bad:
        raise PollError(f"{what} holds the control character U+{ord(bad.group()):04X}, "
                        "which cannot be shown; type it again without it.")
    return tidy_text(text)


def clean_items(items: Sequence[str]) -> tuple[str, ...]:
    """The items of a new poll, checked: 2–30 distinct names of 1–200 characters.

    Names are tidied (:func:`_tidy`): a line with nothing visible is a blank line, and two
    names that differ only in case, Unicode form, invisible characters, spacing, quote marks
    or a spreadsheet's leading apostrophe repeat each other.
    """
    if isinstance(items, (str, bytes)):
        raise PollError("The items must be a list of names, one per line.")
    lines = [str(item) for item in items]
    if len(lines) > 10 * MAX_ITEMS:  # checked before any line is read
        raise PollError(f"A poll can have at most {MAX_ITEMS} items; this one has "
                        f"{len(lines):,} lines. Remove some lines.")
    for line, text in enumerate(lines, start=1):  # before any line is tidied
        if len(text) > _RAW_CHARS * MAX_ITEM_CHARS:
            raise PollError(f"Line {line} is {len(text):,} characters long; an item can "
                            f"have at most {MAX_ITEM_CHARS}. Shorten it.")
    names = tuple(name for line, text in enumerate(lines, start=1)
                  if (name := _tidy(text, f"Line {line}")))
    if len(names) < MIN_ITEMS:
        raise PollError(f"A poll needs at least {MIN_ITEMS} items, one per line.")
    if len(names) > MAX_ITEMS:
        raise PollError(f"A poll can have at most {MAX_ITEMS} items; this one has "
                        f"{len(names)}. Remove some lines.")
    for line, name in enumerate(names, start=1):
        if len(name) > MAX_ITEM_CHARS:
            raise PollError(f"Item {line} is {len(name)} characters long; an item can have "
                            f"at most {MAX_ITEM_CHARS}. Shorten it.")
    seen: dict[str, int] = {}
    for line, name in enumerate(names, start=1):
        # as the readers compare names (quote marks, a spreadsheet's apostrophe), and case:
        # the answers' download must read back as the same items
        key = same_name_key(name).casefold()
        if key in seen:
            raise PollError(f"Item {line} repeats item {seen[key]}; each item must appear "
                            "once.")
        seen[key] = line
    return names


def check_ranking(ranking, n_items: int) -> tuple[tuple[int, ...], ...]:
    """An answer, checked: groups of item indices, best first, each item at most once.

    A group is a list, tuple or set of item indices, or one index alone; an index is a whole
    number (never a text, a fraction or a truth value). The answer's size is checked before
    any entry is read, so a huge or deeply wrong one costs no more than a valid one.
    """
    wrong = PollError("The answer is not a ranking of the poll's items: it must list the "
                      "places, best first, each a group of item numbers.")
    if not isinstance(ranking, (list, tuple)):
        raise wrong
    if len(ranking) > n_items:
        raise PollError(f"The answer has {len(ranking):,} places; this poll has "
                        f"{n_items} items.")
    if any(isinstance(g, (list, tuple, set, frozenset)) and len(g) > n_items
           for g in ranking):  # before any group is copied
        raise PollError("The answer names more items than the poll has; each item can be "
                        "ranked once.")
    groups = tuple(tuple(g) if isinstance(g, (list, tuple, set, frozenset)) else (g,)
                   for g in ranking)
    if sum(map(len, groups)) > n_items:
        raise PollError("The answer names more items than the poll has; each item can be "
                        "ranked once.")
    if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool)
               for g in groups for i in g):
        raise wrong
    groups = tuple(tuple(sorted(int(i) for i in g)) for g in groups if g)
    flat = [i for g in groups for i in g]
    if any(i < 0 or i >= n_items for i in flat):
        raise PollError("The answer names an item that is not in this poll.")
    if len(set(flat)) != len(flat):
        raise PollError("The answer names an item twice; each item can be ranked once.")
    if len(groups) < 2:
        raise PollError("Rank at least two items, in two different places.")
    return groups


# ------------------------------------------------------------------ the two backends
class _Backend:
    """What differs between SQLite and PostgreSQL: connecting, placeholders, locking."""

    placeholder = "?"
    #: The driver's own errors, which the store reports as :class:`PollUnavailable`.
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def connect(self):  # pragma: no cover - each backend defines it
        raise NotImplementedError

    def begin_write(self, connection) -> None:
        """Start a transaction that serialises writers (called right after connecting)."""

    def begin_read(self, connection) -> None:
        """Start a transaction that reads one snapshot (called right after connecting)."""

    def lock_poll(self, cursor, poll_id: str) -> None:
        """Hold the poll's row until commit, so its submissions are counted one at a time."""

    def lock_polls(self, cursor) -> None:
        """Hold the polls table until commit (counting open polls before a new one)."""


class _SQLite(_Backend):
    def __init__(self, path: Path):
        self.path = Path(path)
        self.prepare()

    def prepare(self) -> None:
        """The folder, and the file in WAL mode (readers never wait for a writer)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=60)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
        finally:
            connection.close()

    def connect(self):
        connection = sqlite3.connect(self.path, timeout=60, isolation_level=None,
                                     check_same_thread=False)
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def begin_write(self, connection) -> None:
        # take the write lock at once: a later upgrade from a read lock could deadlock
        connection.execute("BEGIN IMMEDIATE")

    def begin_read(self, connection) -> None:
        connection.execute("BEGIN")


#: Words of a PostgreSQL refusal that passes once connections free up.
_SERVER_BUSY = ("too many clients", "remaining connection slots", "the database system is "
                "starting up")
_CONNECT_TRIES = 14
#: The advisory lock under which one process creates the store's first table.
_SCHEMA_LOCK = 0x0C0A75E2


class _Postgres(_Backend):
    placeholder = "%s"

    def __init__(self, url: str):
        try:
            import psycopg
        except ImportError as error:  # pragma: no cover - declared in requirements
            raise PollError("COARSENRANK_DATABASE_URL names PostgreSQL, but the psycopg "
                            "package is not installed (pip install 'psycopg[binary]').") \
                from error
        self._psycopg = psycopg
        self.url = url
        self.errors = (psycopg.Error,)

    def connect(self):
        """A connection; while the server has no free one ('too many clients': a class
        submitting at once), tried again with growing waits for up to about 20 s."""
        delay = 0.05
        for attempt in range(_CONNECT_TRIES):
            try:
                return self._psycopg.connect(self.url, autocommit=False)
            except self._psycopg.OperationalError as error:
                busy = any(w in str(error).lower() for w in _SERVER_BUSY)
                if not busy or attempt == _CONNECT_TRIES - 1:
                    raise
                time.sleep(delay * (0.5 + secrets.randbelow(1000) / 1000))
                delay = min(delay * 2, 2.0)
        raise AssertionError("unreachable")  # pragma: no cover

    def create_schema_table(self, cursor) -> None:
        """``poll_schema``, created under an advisory lock by one app process when it is
        missing (several starting on a fresh database race on ``CREATE TABLE IF NOT
        EXISTS``), never created where it exists (a role without CREATE may run the app)."""
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        cursor.execute("SELECT to_regclass('poll_schema')")
        if cursor.fetchone()[0] is None:
            cursor.execute("CREATE TABLE poll_schema (version INTEGER NOT NULL)")

    def begin_write(self, connection) -> None:
        pass  # psycopg opens a transaction with the first statement

    def begin_read(self, connection) -> None:
        pass

    def lock_poll(self, cursor, poll_id: str) -> None:
        cursor.execute("SELECT id FROM polls WHERE id = %s FOR UPDATE", (poll_id,))

    def lock_polls(self, cursor) -> None:
        cursor.execute("LOCK TABLE polls IN SHARE ROW EXCLUSIVE MODE")


def default_location() -> str:
    """Where the store lives: ``COARSENRANK_DATABASE_URL``, else the SQLite file
    ``polls.sqlite3`` under ``COARSENRANK_DATA_DIR`` (default ``~/.coarsenrank``)."""
    url = os.environ.get("COARSENRANK_DATABASE_URL", "").strip()
    if url:
        return url
    folder = os.environ.get("COARSENRANK_DATA_DIR", "").strip() or "~/.coarsenrank"
    return str(Path(folder).expanduser() / "polls.sqlite3")


#: What a driver's message says, and what the user is told instead of "try again"
_LASTING_FAILURES = (
    (("readonly", "read-only", "permission denied"),
     "The poll store cannot be written on the server (it is read-only); nothing was saved. "
     "Ask whoever runs this app to make COARSENRANK_DATA_DIR writable."),
    (("disk is full", "no space left", "disk full"),
     "The server's disk is full, so the poll store cannot save; nothing was saved. Ask "
     "whoever runs this app to free some space."),
)


def _unavailable(error: BaseException) -> PollUnavailable:
    """The plain message for a driver's error: one that waiting will not mend says so."""
    said = str(error).lower()
    for words, message in _LASTING_FAILURES:
        if any(word in said for word in words):
            return PollUnavailable(message)
    return PollUnavailable()


def keep_days() -> float | None:
    """Days a poll is kept after its session's last activity: ``COARSENRANK_POLL_KEEP_DAYS``
    (a number of at least 1, or ``forever``), else :data:`KEEP_DAYS`."""
    text = os.environ.get("COARSENRANK_POLL_KEEP_DAYS", "").strip()
    if not text:
        return float(KEEP_DAYS)
    if text.lower() == "forever":
        return None
    try:
        days = float(text)
    except ValueError:
        days = math.nan
    if not 1 <= days < 1e6:
        raise PollError(f"COARSENRANK_POLL_KEEP_DAYS is {text[:40]!r}; it must be a number of "
                        "days, at least 1 (for example 180), or 'forever'.")
    return days


def describe_location(location: str) -> str:
    """The store's location for people, without a password."""
    if location.startswith(("postgresql://", "postgres://")):
        return "PostgreSQL at " + re.sub(r"//[^@/]*@", "//", location).split("?", 1)[0]
    return f"SQLite file {location}"


# ------------------------------------------------------------------ the store
class PollStore:
    """Polls and answers, on SQLite (a file path) or PostgreSQL (a ``postgresql://`` URL).

    One store may be shared by threads and processes: each call uses a connection of its
    own, inside one transaction.

    Parameters
    ----------
    location : str, optional
        A ``postgresql://`` URL or an SQLite file path; :func:`default_location` if omitted.
    clock : callable, optional
        Returns the time in seconds (``time.time``); tests pass their own.
    """

    def __init__(self, location: str | os.PathLike | None = None,
                 clock: Callable[[], float] = time.time):
        location = default_location() if location is None else str(location)
        self.location = location
        self.backend: _Backend = (_Postgres(location)
                                  if location.startswith(("postgresql://", "postgres://"))
                                  else _SQLite(Path(location)))
        self.clock = clock
        self.keep_days = keep_days()
        self._migrating = threading.local()
        self._migrate()
        self.version = self.schema_version()

    @property
    def kind(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return "postgresql" if isinstance(self.backend, _Postgres) else "sqlite"

    # -------------------------------------------------------------- plumbing
    def close(self) -> None:
        """Nothing to release: every transaction opens and closes its own connection."""

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.backend.placeholder)

    @contextmanager
    def _transaction(self, write: bool = True):
        """A cursor inside one transaction on a connection of its own: committed on
        success, rolled back on error, and the connection closed either way (so a store
        shared by threads, or by a server's sessions, holds no connection between calls).
        The driver's own errors become :class:`PollUnavailable`, a plain message."""
        if isinstance(self.backend, _SQLite) and not getattr(self._migrating, "on", False) \
                and not self.backend.path.exists():
            self._start_again(self.backend)
        try:
            with self._connected_transaction(write) as cursor:
                yield cursor
        except self.backend.errors as error:
            _LOG.warning("the poll store did not answer: %s", error)
            if isinstance(self.backend, _SQLite) and "no such table" in str(error) \
                    and not getattr(self._migrating, "on", False):
                # emptied under us (deleted between the check and the connection, or a
                # migration cut short): made again, so the next call finds its tables
                self._start_again(self.backend)
            raise _unavailable(error) from error

    def _start_again(self, backend: _SQLite) -> None:
        """The SQLite file was deleted (or moved) while the app ran: a new, empty store, so
        polls made from now on are kept (the old ones are gone, as if deleted)."""
        _LOG.warning("the poll store %s is missing; starting a new, empty one", backend.path)
        try:
            backend.prepare()
        except (OSError, sqlite3.Error) as error:
            raise _unavailable(error) from error
        self._migrate()

    @contextmanager
    def _connected_transaction(self, write: bool):
        connection = self.backend.connect()
        try:
            if write:
                self.backend.begin_write(connection)
            else:
                self.backend.begin_read(connection)
            cursor = connection.cursor()
            yield cursor
            connection.commit() if self.kind == "postgresql" else connection.execute("COMMIT")
        except BaseException:
            try:
                if self.kind == "postgresql":
                    connection.rollback()
                elif connection.in_transaction:
                    connection.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - the connection is closed below anyway
                pass
            raise
        finally:
            connection.close()

    def _run(self, cursor, statement: str, parameters: Sequence = ()):
        cursor.execute(self._sql(statement), tuple(parameters))
        return cursor

    def schema_version(self) -> int:
        """The schema version the store is at (0 before the first migration)."""
        with self._transaction(write=False) as cursor:
            return self._version(cursor)

    def _version(self, cursor) -> int:
        row = self._run(cursor, "SELECT version FROM poll_schema").fetchone()
        return 0 if row is None else int(row[0])

    def _migrate(self, target: int | None = None) -> None:
        """Bring the schema up to ``target`` (:data:`SCHEMA_VERSION`), one migration per
        transaction."""
        target = SCHEMA_VERSION if target is None else target
        self._migrating.on = True
        try:
            self._migrate_to(target)
        finally:
            self._migrating.on = False

    def _migrate_to(self, target: int) -> None:
        with self._transaction() as cursor:
            if isinstance(self.backend, _Postgres):
                self.backend.create_schema_table(cursor)
            else:
                cursor.execute("CREATE TABLE IF NOT EXISTS poll_schema "
                               "(version INTEGER NOT NULL)")
        for version, statements in MIGRATIONS:
            if version > target:
                break
            with self._transaction() as cursor:
                if self.kind == "postgresql":
                    cursor.execute("LOCK TABLE poll_schema IN EXCLUSIVE MODE")
                current = self._version(cursor)
                if current >= version:
                    continue
                if current != version - 1:
                    raise PollError(f"The poll store is at schema version {current}, which "
                                    "this app cannot upgrade.")
                for statement in statements:
                    cursor.execute(statement)
                self._run(cursor, "DELETE FROM poll_schema")
                self._run(cursor, "INSERT INTO poll_schema (version) VALUES (?)", (version,))
        current = self.schema_version()
        if current > target:
            raise PollError(f"The poll store is at schema version {current}, newer than this "
                            f"app's {SCHEMA_VERSION}; update the app.")

    # -------------------------------------------------------------- polls
    def create_poll(self, items: Sequence[str], question: str = "",
                    closes_at: float | None = None, *,
                    after: tuple[str, str] | None = None) -> tuple[Poll, str]:
        """A new open poll and its teacher key (shown once; only its digest is stored).

        ``after=(poll_id, key)`` starts the next poll of that poll's session: it closes that
        poll, takes the next place in its session and keeps its teacher key (returned
        again), so one teacher link follows the session; a wrong key is
        :class:`PollNotFound`. Students move on with their own token, so their answers
        across the session are known to be one student's (never by name).
        """
        names = clean_items(items)
        if len(str(question)) > _RAW_CHARS * MAX_QUESTION_CHARS:  # before it is tidied
            raise PollError(f"The question is {len(str(question)):,} characters long; it can "
                            f"have at most {MAX_QUESTION_CHARS}.")
        question = _tidy(question, "The question")
        if len(question) > MAX_QUESTION_CHARS:
            raise PollError(f"The question is {len(question)} characters long; it can have at "
                            f"most {MAX_QUESTION_CHARS}.")
        now = self.clock()
        if closes_at is not None:
            if isinstance(closes_at, bool) or not isinstance(closes_at, (int, float)) \
                    or not -_FAR < closes_at < _FAR or not math.isfinite(closes_at):
                raise PollError("The closing time must be a time (seconds since 1970).")
            if not closes_at > now:
                raise PollError("The closing time has already passed; choose a later one.")
        if after is not None and (not isinstance(after, (tuple, list)) or len(after) != 2):
            raise PollNotFound()
        key = secrets.token_urlsafe(KEY_BYTES) if after is None else str(after[1])
        with self._transaction() as cursor:
            self.backend.lock_polls(cursor)
            session, position = None, 1
            if after is not None:
                previous = self._checked(cursor, after[0], key)
                self._touch(cursor, previous[0], now)  # the teacher is using its session
                session = self._poll_of(previous).session_id
                position = int(self._run(
                    cursor, "SELECT MAX(position) FROM polls WHERE id = ? OR session_id = ?",
                    (session, session)).fetchone()[0]) + 1
                self._run(cursor, "UPDATE polls SET session_id = ? WHERE id = ?",
                          (session, previous[0]))
                # the session moves on: every poll of it closes, not only the one named
                self._run(cursor, "UPDATE polls SET closed = 1 WHERE id = ? OR session_id = ?",
                          (session, session))
            self._forget_idle_polls(cursor, now)
            self._check_room(cursor, now)
            for _ in range(20):
                poll_id = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if self._run(cursor, "SELECT 1 FROM polls WHERE id = ?",
                             (poll_id,)).fetchone() is None:
                    break
            else:  # pragma: no cover - 887 million codes
                raise PollError("No free poll code was found; try again.")
            self._run(cursor, "INSERT INTO polls (id, key_hash, question, items, created, "
                      "closes_at, closed, show_results, session_id, position) "
                      "VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)",
                      (poll_id, _digest(key), question, json.dumps(names), now, closes_at,
                       session, position))
            self._touch(cursor, poll_id, now)
        return self.poll(poll_id), key

    @property
    def _tracks_activity(self) -> bool:
        # a store held at an older schema (its tests) has no last_active column
        return getattr(self, "version", SCHEMA_VERSION) >= 4

    def _touch(self, cursor, poll_id: str, now: float) -> None:
        if self._tracks_activity:
            self._run(cursor, "UPDATE polls SET last_active = ? WHERE id = ?", (now, poll_id))

    def _open_polls(self, cursor, now: float) -> int:
        """Open polls active within :data:`IDLE_HOURS`: those that count towards the limit."""
        statement = ("SELECT COUNT(*) FROM polls WHERE closed = 0 AND "
                     "(closes_at IS NULL OR closes_at > ?)")
        if not self._tracks_activity:
            return int(self._run(cursor, statement, (now,)).fetchone()[0])
        return int(self._run(cursor, statement + " AND last_active > ?",
                             (now, now - 3600 * IDLE_HOURS)).fetchone()[0])

    def _check_room(self, cursor, now: float) -> None:
        """Refuse one more open poll when :data:`MAX_OPEN_POLLS` are open and active."""
        if self._open_polls(cursor, now) >= MAX_OPEN_POLLS:
            raise PollError(f"This server already has {MAX_OPEN_POLLS} open polls; close or "
                            "delete one first.")

    def _forget_idle_polls(self, cursor, now: float) -> None:
        """Delete the polls, and their answers, of sessions idle for longer than the store
        keeps them (a session is as recent as its latest poll; a poll whose closing time is
        still ahead is kept)."""
        if self.keep_days is None or not self._tracks_activity:
            return
        before = now - 86400 * self.keep_days
        idle = ("SELECT p.id FROM polls p WHERE (p.closes_at IS NULL OR p.closes_at <= ?) AND "
                "(SELECT MAX(q.last_active) FROM polls q WHERE COALESCE(q.session_id, q.id) = "
                "COALESCE(p.session_id, p.id)) < ?")
        self._run(cursor, f"DELETE FROM answers WHERE poll_id IN ({idle})", (now, before))
        self._run(cursor, f"DELETE FROM polls WHERE id IN ({idle})", (now, before))

    @property
    def _poll_columns(self) -> str:
        # a store held at an older schema (its tests) has no session columns
        session = (", COALESCE(session_id, id), position"
                   if getattr(self, "version", SCHEMA_VERSION) >= 3 else "")
        return ("id, question, items, created, closes_at, closed, show_results, key_hash"
                + session)

    def _poll_row(self, cursor, poll_id: str):
        code = poll_code(poll_id)
        if code is None:
            return None
        return self._run(cursor, f"SELECT {self._poll_columns} FROM polls WHERE id = ?",
                         (code,)).fetchone()

    @staticmethod
    def _poll_of(row) -> Poll:
        return Poll(poll_id=row[0], question=row[1], items=tuple(json.loads(row[2])),
                    created=float(row[3]),
                    closes_at=None if row[4] is None else float(row[4]),
                    closed=bool(row[5]), show_results=bool(row[6]),
                    session_id=row[8] if len(row) > 8 else row[0],
                    position=int(row[9]) if len(row) > 9 else 1)

    def _session_rows(self, cursor, session: str) -> list:
        return self._run(cursor, f"SELECT {self._poll_columns} FROM polls WHERE id = ? OR "
                         "session_id = ? ORDER BY position", (session, session)).fetchall()

    def next_poll(self, poll_id: str) -> Poll | None:
        """The poll that follows this one in its session, if the teacher started one (no key
        needed: students move on to it with their own token)."""
        with self._transaction(write=False) as cursor:  # one snapshot of the session
            row = self._poll_row(cursor, str(poll_id))
            if row is None:
                raise PollNotFound()
            poll = self._poll_of(row)
            later = [p for p in map(self._poll_of, self._session_rows(cursor, poll.session_id))
                     if p.position > poll.position]
        return later[0] if later else None

    def session_answers(self, poll_id: str, key: str
                        ) -> tuple[tuple[Poll, tuple[Answer, ...]], ...]:
        """Every poll of this poll's session, in order, with its answers (teacher key)."""
        with self._transaction(write=False) as cursor:
            poll = self._poll_of(self._checked(cursor, poll_id, key))
            out = []
            for row in self._session_rows(cursor, poll.session_id):
                if not hmac.compare_digest(row[7], _digest(key)):
                    continue  # never another teacher's poll
                answers = self._run(cursor, "SELECT token, ranking, first_submitted, "
                                    "submitted, changes FROM answers WHERE poll_id = ? "
                                    "ORDER BY first_submitted, token", (row[0],)).fetchall()
                out.append((self._poll_of(row), tuple(self._answer_of(a) for a in answers)))
        return tuple(out)

    def poll(self, poll_id: str) -> Poll:
        """The poll a student link or join code names (raises :class:`PollNotFound`)."""
        with self._transaction(write=False) as cursor:
            row = self._poll_row(cursor, str(poll_id))
        if row is None:
            raise PollNotFound()
        return self._poll_of(row)

    def _checked(self, cursor, poll_id: str, key: str):
        row = self._poll_row(cursor, str(poll_id))
        # the digest is compared even for a missing poll, so both take the same time
        stored = row[7] if row is not None else "0" * 64
        if not hmac.compare_digest(stored, _digest(key or "")) or row is None:
            raise PollNotFound()
        return row

    def teacher_poll(self, poll_id: str, key: str) -> Poll:
        """The poll, for the holder of its teacher key (else :class:`PollNotFound`)."""
        with self._transaction(write=False) as cursor:
            return self._poll_of(self._checked(cursor, poll_id, key))

    def _set(self, poll_id: str, key: str, column: str, value: int) -> Poll:
        with self._transaction() as cursor:
            row = self._checked(cursor, poll_id, key)
            self._run(cursor, f"UPDATE polls SET {column} = ? WHERE id = ?", (value, row[0]))
        return self.teacher_poll(poll_id, key)

    def close_poll(self, poll_id: str, key: str) -> Poll:
        """Stop accepting answers."""
        return self._set(poll_id, key, "closed", 1)

    def reopen_poll(self, poll_id: str, key: str) -> Poll:
        """Accept answers again (a passed closing time is dropped); counts as an open poll."""
        now = self.clock()
        with self._transaction() as cursor:
            self.backend.lock_polls(cursor)
            row = self._checked(cursor, poll_id, key)
            was_open = not row[5] and (row[4] is None or float(row[4]) > now)
            if not was_open:
                self._check_room(cursor, now)
            closes_at = row[4] if row[4] is not None and float(row[4]) > now else None
            self._run(cursor, "UPDATE polls SET closed = 0, closes_at = ? WHERE id = ?",
                      (closes_at, row[0]))
            self._touch(cursor, row[0], now)
        return self.teacher_poll(poll_id, key)

    def show_results(self, poll_id: str, key: str, show: bool) -> Poll:
        """Let students see the result once the poll is closed (or hide it again)."""
        return self._set(poll_id, key, "show_results", int(bool(show)))

    def delete_poll(self, poll_id: str, key: str) -> None:
        """Delete the poll and all its answers."""
        with self._transaction() as cursor:
            row = self._checked(cursor, poll_id, key)
            self._run(cursor, "DELETE FROM answers WHERE poll_id = ?", (row[0],))
            self._run(cursor, "DELETE FROM polls WHERE id = ?", (row[0],))

    # -------------------------------------------------------------- answers
    def submit(self, poll_id: str, token: str, ranking) -> Answer:
        """Store (or replace) this token's answer; committed when this returns.

        Raises :class:`PollError` with a plain message when the poll is closed or full, the
        answer is not a valid ranking, or the token submitted less than
        :data:`RATE_SECONDS` ago.
        """
        token = str(token)
        if not _TOKEN.fullmatch(token):
            raise PollError("This link has no valid answer token; open the student link "
                            "again.")
        code = poll_code(poll_id)
        if code is None:
            raise PollNotFound()
        now = self.clock()
        with self._transaction() as cursor:
            self.backend.lock_poll(cursor, code)
            row = self._poll_row(cursor, str(poll_id))
            if row is None:
                raise PollNotFound()
            poll = self._poll_of(row)
            if not poll.is_open(now):
                raise PollError("This poll is closed: it accepts no more answers.")
            groups = check_ranking(ranking, len(poll.items))
            previous = self._run(cursor, "SELECT submitted FROM answers WHERE poll_id = ? "
                                 "AND token = ?", (poll.poll_id, token)).fetchone()
            if previous is None:
                count = self._run(cursor, "SELECT COUNT(*) FROM answers WHERE poll_id = ?",
                                  (poll.poll_id,)).fetchone()[0]
                if count >= MAX_ANSWERS:
                    raise PollError(f"This poll is full: it has the most answers a poll can "
                                    f"take ({MAX_ANSWERS}).")
                self._run(cursor, "INSERT INTO answers (poll_id, token, ranking, "
                          "first_submitted, submitted, changes) VALUES (?, ?, ?, ?, ?, 0)",
                          (poll.poll_id, token, json.dumps(groups), now, now))
            else:  # a clock set back since (a negative gap) is no reason to wait
                if 0 <= now - float(previous[0]) < RATE_SECONDS:
                    raise PollError("You have just submitted; wait a second and submit "
                                    "again.")
                self._run(cursor, "UPDATE answers SET ranking = ?, submitted = ?, "
                          "changes = changes + 1 WHERE poll_id = ? AND token = ?",
                          (json.dumps(groups), now, poll.poll_id, token))
            self._touch(cursor, poll.poll_id, now)
            # read back in the same transaction: a stored answer is never reported unsaved
            row = self._run(cursor, "SELECT token, ranking, first_submitted, submitted, "
                            "changes FROM answers WHERE poll_id = ? AND token = ?",
                            (poll.poll_id, token)).fetchone()
        return self._answer_of(row)

    @staticmethod
    def _answer_of(row) -> Answer:
        return Answer(token=row[0], ranking=tuple(tuple(g) for g in json.loads(row[1])),
                      first_submitted=float(row[2]), submitted=float(row[3]),
                      changes=int(row[4]))

    def answer_of(self, poll_id: str, token: str) -> Answer | None:
        """This token's own answer (a student sees only their own), or None."""
        code = poll_code(poll_id)
        if code is None or not isinstance(token, str) or not _TOKEN.fullmatch(token):
            return None
        with self._transaction(write=False) as cursor:
            row = self._run(cursor, "SELECT token, ranking, first_submitted, submitted, "
                            "changes FROM answers WHERE poll_id = ? AND token = ?",
                            (code, token)).fetchone()
        return None if row is None else self._answer_of(row)

    def answers(self, poll_id: str, key: str) -> tuple[Poll, tuple[Answer, ...]]:
        """The poll and all its answers, in order of first submission (teacher key needed)."""
        with self._transaction(write=False) as cursor:
            row = self._checked(cursor, poll_id, key)
            rows = self._run(cursor, "SELECT token, ranking, first_submitted, submitted, "
                             "changes FROM answers WHERE poll_id = ? "
                             "ORDER BY first_submitted, token", (row[0],)).fetchall()
        return self._poll_of(row), tuple(self._answer_of(r) for r in rows)

    def published_answers(self, poll_id: str) -> tuple[Answer, ...]:
        """The answers of a closed poll whose teacher chose to show the result, without the
        key (else :class:`PollNotFound`, as for a wrong key)."""
        with self._transaction(write=False) as cursor:
            row = self._poll_row(cursor, str(poll_id))
            if row is None or not self._poll_of(row).show_results \
                    or self._poll_of(row).is_open(self.clock()):
                raise PollNotFound()
            rows = self._run(cursor, "SELECT token, ranking, first_submitted, submitted, "
                             "changes FROM answers WHERE poll_id = ? "
                             "ORDER BY first_submitted, token", (row[0],)).fetchall()
        return tuple(self._answer_of(r) for r in rows)

    def count(self, poll_id: str, key: str) -> int:
        """How many browsers have answered (teacher key needed)."""
        with self._transaction(write=False) as cursor:
            row = self._checked(cursor, poll_id, key)
            return int(self._run(cursor, "SELECT COUNT(*) FROM answers WHERE poll_id = ?",
                                 (row[0],)).fetchone()[0])
