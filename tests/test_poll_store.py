"""The live poll store on SQLite and PostgreSQL: lifecycle, keys, limits, concurrency, restart."""

import json
import os
import secrets
import sqlite3
import threading
import time

import pytest

from ui import poll_store
from ui.poll_store import (
    MAX_ANSWERS,
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    MAX_OPEN_POLLS,
    PollError,
    PollNotFound,
    PollStore,
    PollUnavailable,
    new_token,
)

#: the test server: .ci/run starts Debian's PostgreSQL and exports this URL
POSTGRES_URL = os.environ.get(
    "COARSENRANK_TEST_DATABASE_URL",
    "postgresql://coarsenrank:coarsenrank@127.0.0.1:5432/coarsenrank_test")


class Clock:
    """A clock the tests move by hand."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 1.5) -> None:
        self.now += seconds


def _postgres_location() -> str:
    """A fresh schema on the test server (dropped after the test), or a skip with the reason."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        connection = psycopg.connect(POSTGRES_URL, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable on CI at {POSTGRES_URL}: {error}")
        pytest.skip("PostgreSQL is not reachable at $COARSENRANK_TEST_DATABASE_URL "
                    f"({poll_store.describe_location(POSTGRES_URL)}): start it with "
                    "`pg_ctlcluster 15 main start` and create the role and database as "
                    ".ci/run does")
    schema = "test_" + secrets.token_hex(6)
    connection.execute(f"CREATE SCHEMA {schema}")
    connection.close()
    return schema


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request, tmp_path):
    """Where a store lives: an SQLite file, or a private schema on the PostgreSQL server."""
    if request.param == "sqlite":
        yield str(tmp_path / "data" / "polls.sqlite3")
        return
    schema = _postgres_location()
    yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    import psycopg
    with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(location, clock):
    store = PollStore(location, clock=clock)
    yield store
    store.close()


ITEMS = ["Pizza", "Pasta", "Salad", "Soup"]


def test_create_submit_change_close_reopen_delete(store, clock, location):
    poll, key = store.create_poll(ITEMS, question="Best lunch?")
    assert poll.items == tuple(ITEMS) and poll.question == "Best lunch?"
    assert poll.is_open(clock()) and len(key) >= 32
    student = new_token()
    store.submit(poll.poll_id, student, [[0], [2], [1], [3]])
    assert store.count(poll.poll_id, key) == 1
    clock.tick()
    changed = store.submit(poll.poll_id, student, [[3], [0, 1], [2]])
    assert changed.ranking == ((3,), (0, 1), (2,)) and changed.changes == 1
    _, answers = store.answers(poll.poll_id, key)
    assert [a.ranking for a in answers] == [((3,), (0, 1), (2,))]  # replaced, not added
    assert store.answer_of(poll.poll_id, student).ranking == ((3,), (0, 1), (2,))
    assert store.answer_of(poll.poll_id, new_token()) is None

    closed = store.close_poll(poll.poll_id, key)
    assert not closed.is_open(clock())
    clock.tick()
    with pytest.raises(PollError, match="closed"):
        store.submit(poll.poll_id, student, [[0], [1]])
    with pytest.raises(PollError, match="closed"):
        store.submit(poll.poll_id, new_token(), [[0], [1]])
    assert store.answer_of(poll.poll_id, student).ranking == ((3,), (0, 1), (2,))

    assert store.reopen_poll(poll.poll_id, key).is_open(clock())
    store.submit(poll.poll_id, new_token(), [[1], [0]])
    assert store.count(poll.poll_id, key) == 2

    store.delete_poll(poll.poll_id, key)
    with pytest.raises(PollNotFound):
        store.poll(poll.poll_id)
    with pytest.raises(PollNotFound):
        store.answers(poll.poll_id, key)
    with pytest.raises(PollNotFound):
        store.submit(poll.poll_id, new_token(), [[0], [1]])


def test_join_code_is_short_and_typed_in_any_case(store):
    poll, _ = store.create_poll(ITEMS)
    assert len(poll.poll_id) == 6 and set(poll.poll_id) <= set(poll_store.CODE_ALPHABET)
    spaced = poll.poll_id[:3].lower() + " " + poll.poll_id[3:].lower()
    assert store.poll(spaced).poll_id == poll.poll_id


def test_closing_time_stops_answers(store, clock):
    poll, key = store.create_poll(ITEMS, closes_at=clock() + 60)
    store.submit(poll.poll_id, new_token(), [[0], [1]])
    clock.tick(61)
    assert not store.poll(poll.poll_id).is_open(clock())
    with pytest.raises(PollError, match="closed"):
        store.submit(poll.poll_id, new_token(), [[0], [1]])
    with pytest.raises(PollError, match="passed"):
        store.create_poll(ITEMS, closes_at=clock() - 1)
    # reopening drops the passed closing time
    reopened = store.reopen_poll(poll.poll_id, key)
    assert reopened.closes_at is None and reopened.is_open(clock())


def test_wrong_key_looks_like_a_missing_poll(store):
    poll, key = store.create_poll(ITEMS)
    other, other_key = store.create_poll(["a", "b"])
    store.submit(poll.poll_id, new_token(), [[0], [1]])
    missing = str(PollNotFound())
    for wrong in ("", "x", key[:-1], other_key, key.upper() if key != key.upper() else "y"):
        for action in (store.teacher_poll, store.count, store.answers, store.close_poll,
                       store.reopen_poll, store.delete_poll):
            with pytest.raises(PollNotFound) as raised:
                action(poll.poll_id, wrong)
            assert str(raised.value) == missing
    with pytest.raises(PollNotFound) as raised:
        store.count("ZZZZZZ", key)
    assert str(raised.value) == missing
    # nothing changed
    assert store.count(poll.poll_id, key) == 1 and store.teacher_poll(poll.poll_id, key).items


def test_keys_and_ids_are_random_and_only_digests_are_stored(location):
    store = PollStore(location)
    made = [store.create_poll(ITEMS) for _ in range(5)]
    keys = [k for _, k in made]
    assert len(set(keys)) == 5 and len({p.poll_id for p, _ in made}) == 5
    assert all(len(k) >= 32 for k in keys)  # 24 random bytes: 192 bits
    if store.kind == "sqlite":
        dump = "\n".join(sqlite3.connect(location).iterdump())
        assert not any(k in dump for k in keys)


@pytest.mark.parametrize("items, message", [
    (["only one"], "at least 2"),
    ([f"item {i}" for i in range(MAX_ITEMS + 1)], "at most 30"),
    (["a", "x" * (MAX_ITEM_CHARS + 1)], "Item 2 is 201 characters"),
    (["Tea", "coffee", "tea"], "Item 3 repeats item 1"),
    (["", "  ", "a"], "at least 2"),
])
def test_bad_items_are_refused_with_the_reason(store, items, message):
    with pytest.raises(PollError, match=message):
        store.create_poll(items)


def test_largest_allowed_poll(store):
    items = [f"{i:02d}" + "x" * (MAX_ITEM_CHARS - 2) for i in range(MAX_ITEMS)]
    poll, _ = store.create_poll(items)
    assert len(poll.items) == MAX_ITEMS and max(map(len, poll.items)) == MAX_ITEM_CHARS


@pytest.mark.parametrize("ranking, message", [
    ([[0], [7]], "not in this poll"),
    ([[0], [-1]], "not in this poll"),
    ([[0], [1], [0]], "twice"),
    ([[0, 1], [1]], "twice"),
    ([[0, 1, 2]], "at least two"),
    ([[0]], "at least two"),
    ([], "at least two"),
    (["Pizza", "Pasta"], "not a ranking"),
    (None, "not a ranking"),
])
def test_bad_answers_are_refused_and_nothing_is_stored(store, ranking, message):
    poll, key = store.create_poll(ITEMS)
    with pytest.raises(PollError, match=message):
        store.submit(poll.poll_id, new_token(), ranking)
    assert store.count(poll.poll_id, key) == 0


def test_bad_tokens_are_refused(store):
    poll, key = store.create_poll(ITEMS)
    for token in ("", "short", "x" * 65, "has spaces in it!!!!!!", None):
        with pytest.raises(PollError, match="token"):
            store.submit(poll.poll_id, token, [[0], [1]])
    assert store.count(poll.poll_id, key) == 0


def test_rate_limit_per_token(store, clock):
    poll, key = store.create_poll(ITEMS)
    student, other = new_token(), new_token()
    store.submit(poll.poll_id, student, [[0], [1]])
    clock.tick(0.5)
    with pytest.raises(PollError, match="wait a second"):
        store.submit(poll.poll_id, student, [[1], [0]])
    store.submit(poll.poll_id, other, [[1], [0]])  # another browser is not held up
    assert store.answer_of(poll.poll_id, student).ranking == ((0,), (1,))
    clock.tick(0.6)
    store.submit(poll.poll_id, student, [[1], [0]])
    assert store.answer_of(poll.poll_id, student).ranking == ((1,), (0,))


def test_answer_limit(store, clock, monkeypatch):
    monkeypatch.setattr(poll_store, "MAX_ANSWERS", 3)
    poll, key = store.create_poll(ITEMS)
    tokens = [new_token() for _ in range(3)]
    for token in tokens:
        store.submit(poll.poll_id, token, [[0], [1]])
    with pytest.raises(PollError, match="full"):
        store.submit(poll.poll_id, new_token(), [[0], [1]])
    clock.tick()
    store.submit(poll.poll_id, tokens[0], [[1], [0]])  # changing an answer is still allowed
    assert store.count(poll.poll_id, key) == 3
    assert MAX_ANSWERS == 500


def test_open_poll_limit(store, clock, monkeypatch):
    monkeypatch.setattr(poll_store, "MAX_OPEN_POLLS", 3)
    made = [store.create_poll(ITEMS) for _ in range(3)]
    with pytest.raises(PollError, match="3 open polls"):
        store.create_poll(ITEMS)
    store.close_poll(made[0][0].poll_id, made[0][1])
    store.create_poll(ITEMS)  # a closed poll frees a place
    with pytest.raises(PollError, match="open polls"):
        store.reopen_poll(made[0][0].poll_id, made[0][1])
    store.delete_poll(made[1][0].poll_id, made[1][1])
    store.reopen_poll(made[0][0].poll_id, made[0][1])
    assert MAX_OPEN_POLLS == 100


def test_question_length_limit(store):
    with pytest.raises(PollError, match="question"):
        store.create_poll(ITEMS, question="?" * 301)


def test_restart_finds_everything(location, clock):
    first = PollStore(location, clock=clock)
    poll, key = first.create_poll(ITEMS, question="Q", closes_at=clock() + 600)
    tokens = [new_token() for _ in range(4)]
    for i, token in enumerate(tokens):
        first.submit(poll.poll_id, token, [[i % 4], [(i + 1) % 4]])
    first.show_results(poll.poll_id, key, True)
    before = first.answers(poll.poll_id, key)
    first.close()
    del first
    again = PollStore(location, clock=clock)
    assert again.answers(poll.poll_id, key) == before
    assert again.teacher_poll(poll.poll_id, key).show_results
    assert again.schema_version() == poll_store.SCHEMA_VERSION


def test_old_schema_is_migrated_and_keeps_its_polls(location, clock, monkeypatch):
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 1)
    old = PollStore(location, clock=clock)
    old._migrate(target=1)
    assert old.schema_version() == 1
    with old._transaction() as cursor:  # a poll written by the version-1 app
        old._run(cursor, "INSERT INTO polls (id, key_hash, question, items, created, "
                 "closes_at, closed) VALUES (?, ?, ?, ?, ?, NULL, 0)",
                 ("ABCDEF", poll_store._digest("k" * 32), "Old?", json.dumps(ITEMS), 5.0))
    old.close()
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 2)
    new = PollStore(location, clock=clock)
    assert new.schema_version() == 2
    poll = new.teacher_poll("ABCDEF", "k" * 32)
    assert poll.question == "Old?" and poll.items == tuple(ITEMS) and not poll.show_results
    assert new.show_results("ABCDEF", "k" * 32, True).show_results


def test_newer_schema_is_refused(location, clock):
    store = PollStore(location, clock=clock)
    with store._transaction() as cursor:
        store._run(cursor, "UPDATE poll_schema SET version = ?", (99,))
    store.close()
    with pytest.raises(PollError, match="newer"):
        PollStore(location, clock=clock)


STUDENTS = 60
WINDOW = 8.0  # seconds over which the students' first submissions are spread


def class_submits(location) -> tuple[dict, list, float, str, str]:
    """60 students, each from their own connection, submit twice in about 10 seconds."""
    teacher = PollStore(location)
    poll, key = teacher.create_poll([f"item {i}" for i in range(8)])
    finals: dict[str, tuple] = {}
    errors: list[str] = []
    start = time.monotonic()

    def student(number: int) -> None:
        store = PollStore(location)
        token = new_token()
        first = [[(number + j) % 8] for j in range(8)]
        final = [[(number * 3 + j) % 8] for j in range(8)]
        try:
            time.sleep(max(0.0, number * WINDOW / STUDENTS - (time.monotonic() - start)))
            store.submit(poll.poll_id, token, first)
            time.sleep(poll_store.RATE_SECONDS + 0.1)
            store.submit(poll.poll_id, token, final)
            finals[token] = tuple(tuple(g) for g in final)
        except Exception as error:  # noqa: BLE001 - recorded and asserted below
            errors.append(repr(error))
        finally:
            store.close()

    threads = [threading.Thread(target=student, args=(n,)) for n in range(STUDENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return finals, errors, time.monotonic() - start, poll.poll_id, key


@pytest.mark.slow
def test_sixty_students_submit_twice_and_every_final_answer_is_stored_once(location):
    finals, errors, seconds, poll_id, key = class_submits(location)
    assert errors == []
    teacher = PollStore(location)
    _, answers = teacher.answers(poll_id, key)
    assert teacher.count(poll_id, key) == STUDENTS == len(answers) == len(finals)
    assert {a.token: a.ranking for a in answers} == finals
    assert all(a.changes == 1 for a in answers)
    lost = len(finals) - sum(1 for a in answers if finals.get(a.token) == a.ranking)
    print(f"{teacher.kind}: {2 * STUDENTS} submissions from {STUDENTS} students in "
          f"{seconds:.1f} s; {len(answers)} final answers stored, lost = {lost}")


def test_answers_are_published_only_after_closing_and_only_when_the_teacher_says(store):
    poll, key = store.create_poll(ITEMS)
    for i in range(3):
        store.submit(poll.poll_id, new_token(), [[i], [3]])
    with pytest.raises(PollNotFound):
        store.published_answers(poll.poll_id)
    store.show_results(poll.poll_id, key, True)
    with pytest.raises(PollNotFound):  # still open
        store.published_answers(poll.poll_id)
    store.close_poll(poll.poll_id, key)
    assert len(store.published_answers(poll.poll_id)) == 3
    store.show_results(poll.poll_id, key, False)
    with pytest.raises(PollNotFound):
        store.published_answers(poll.poll_id)


def test_next_poll_in_a_session_keeps_the_key_and_links_the_students(store, clock):
    first, key = store.create_poll(ITEMS, question="Lunch?")
    assert first.session_id == first.poll_id and first.position == 1
    students = [new_token() for _ in range(3)]
    for token in students:
        store.submit(first.poll_id, token, [[0], [1], [2], [3]])
    with pytest.raises(PollNotFound):  # another teacher cannot continue this session
        store.create_poll(["A", "B"], after=(first.poll_id, "x" * 32))
    second, again = store.create_poll(["Tea", "Coffee", "Juice"], question="Drink?",
                                       after=(first.poll_id, key))
    assert again == key and second.poll_id != first.poll_id
    assert (second.session_id, second.position) == (first.poll_id, 2)
    assert not store.poll(first.poll_id).is_open(clock())  # the previous poll closes
    assert store.next_poll(first.poll_id) == second and store.next_poll(second.poll_id) is None
    for token in students[:2]:  # the same browsers move on with their own tokens
        store.submit(second.poll_id, token, [[2], [0], [1]])
    third, _ = store.create_poll(["X", "Y"], after=(second.poll_id, key))
    assert third.position == 3 and store.next_poll(second.poll_id) == third
    session = store.session_answers(third.poll_id, key)
    assert [p.poll_id for p, _ in session] == [first.poll_id, second.poll_id, third.poll_id]
    assert [len(a) for _, a in session] == [3, 2, 0]
    assert {a.token for a in session[1][1]} <= {a.token for a in session[0][1]}
    assert store.teacher_poll(second.poll_id, key).position == 2
    with pytest.raises(PollNotFound):
        store.session_answers(first.poll_id, "y" * 32)
    other, other_key = store.create_poll(ITEMS)  # a new session of its own
    assert other.session_id == other.poll_id and store.next_poll(other.poll_id) is None
    assert [p.poll_id for p, _ in store.session_answers(other.poll_id, other_key)] == [
        other.poll_id]


def test_starting_the_next_poll_from_an_earlier_link_closes_the_sessions_latest(store,
                                                                                 clock):
    first, key = store.create_poll(ITEMS)
    second, _ = store.create_poll(["A", "B"], after=(first.poll_id, key))
    assert store.poll(second.poll_id).is_open(clock())
    third, _ = store.create_poll(["C", "D"], after=(first.poll_id, key))  # the old link
    assert third.position == 3
    assert not store.poll(second.poll_id).is_open(clock())  # the session moved on
    assert store.poll(third.poll_id).is_open(clock())
    assert store.next_poll(first.poll_id) == store.poll(second.poll_id)


def test_version_2_store_is_migrated_to_sessions(location, clock, monkeypatch):
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 2)
    old = PollStore(location, clock=clock)
    assert old.schema_version() == 2
    key = "k" * 32
    with old._transaction() as cursor:  # a poll and an answer written by the version-2 app
        old._run(cursor, "INSERT INTO polls (id, key_hash, question, items, created, "
                 "closes_at, closed, show_results) VALUES (?, ?, ?, ?, ?, NULL, 0, 0)",
                 ("ABCDEF", poll_store._digest(key), "Old?", json.dumps(ITEMS), 5.0))
    poll = old.poll("ABCDEF")
    old.submit(poll.poll_id, "t" * 22, [[1], [0]])
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 3)
    new = PollStore(location, clock=clock)
    assert new.schema_version() == 3
    kept = new.teacher_poll(poll.poll_id, key)
    assert (kept.session_id, kept.position, kept.question) == (poll.poll_id, 1, "Old?")
    nxt, _ = new.create_poll(["A", "B"], after=(poll.poll_id, key))
    assert nxt.position == 2 and new.next_poll(poll.poll_id) == nxt
    assert [len(a) for _, a in new.session_answers(nxt.poll_id, key)] == [1, 0]


def test_a_database_that_does_not_answer_is_a_plain_message_and_nothing_changes(store,
                                                                                monkeypatch):
    poll, _ = store.create_poll(ITEMS)
    token = new_token()
    store.submit(poll.poll_id, token, [[0], [1], [2], [3]])
    real_connect = store.backend.connect

    def refused():
        raise store.backend.errors[0]("database is locked")

    monkeypatch.setattr(store.backend, "connect", refused)
    for call in (lambda: store.poll(poll.poll_id), lambda: store.next_poll(poll.poll_id),
                 lambda: store.submit(poll.poll_id, token, [[3], [2], [1], [0]])):
        with pytest.raises(PollUnavailable, match="not answering") as info:
            call()
        assert isinstance(info.value, PollError)  # the pages' one catch
    monkeypatch.setattr(store.backend, "connect", real_connect)
    stored = store.answer_of(poll.poll_id, token)
    assert stored.ranking[0] == (0,) and stored.changes == 0  # the stored answer stands


def test_a_clock_set_back_does_not_lock_a_student_out(store, clock):
    poll, _ = store.create_poll(ITEMS)
    token = new_token()
    store.submit(poll.poll_id, token, [[0], [1], [2], [3]])
    clock.tick(-3600)
    assert store.submit(poll.poll_id, token, [[3], [2], [1], [0]]).changes == 1


def test_a_submit_reads_its_answer_back_on_its_own_connection(store, monkeypatch):
    poll, _ = store.create_poll(ITEMS)
    opened = []
    real_connect = store.backend.connect
    monkeypatch.setattr(store.backend, "connect", lambda: opened.append(1) or real_connect())
    answer = store.submit(poll.poll_id, new_token(), [[1], [0], [2], [3]])
    assert answer.ranking[0] == (1,) and len(opened) == 1


def test_postgresql_waits_for_a_free_connection_when_the_class_submits_at_once(monkeypatch):
    class Refused(Exception):
        pass

    tries = []

    class Driver:
        OperationalError = Refused

        @staticmethod
        def connect(url, autocommit):
            tries.append(url)
            if len(tries) < 3:
                raise Refused("FATAL: sorry, too many clients already")
            return "a connection"

    backend = object.__new__(poll_store._Postgres)
    backend._psycopg, backend.url = Driver, "postgresql://x"
    monkeypatch.setattr(poll_store.time, "sleep", lambda seconds: None)
    assert backend.connect() == "a connection" and len(tries) == 3
    tries.clear()
    Driver.connect = staticmethod(lambda url, autocommit: (_ for _ in ()).throw(
        Refused("password authentication failed")))
    with pytest.raises(Refused):
        backend.connect()  # any other refusal is not waited for


def test_app_processes_starting_together_on_a_fresh_database_all_open_it(location):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        stores = list(pool.map(lambda _: PollStore(location), range(8)))
    assert {s.version for s in stores} == {poll_store.SCHEMA_VERSION}


def test_huge_items_and_answers_are_refused_before_they_are_read(store):
    with pytest.raises(PollError, match="Line 2 is 1,000,000 characters"):
        store.create_poll(["Pizza", "x" * 1_000_000, "Soup"])
    with pytest.raises(PollError, match="question is 100,000 characters"):
        store.create_poll(ITEMS, question="?" * 100_000)
    poll, _ = store.create_poll(ITEMS)
    with pytest.raises(PollError, match="more items than the poll has"):
        store.submit(poll.poll_id, new_token(), [list(range(10 ** 7))])


def test_a_far_closing_time_and_a_broken_character_are_plain_refusals(store):
    with pytest.raises(PollError, match="closing time must be a time"):
        store.create_poll(ITEMS, closes_at=10 ** 400)
    with pytest.raises(PollError, match="broken character"):
        store.create_poll(["Pizza", "Pa\ud800sta", "Soup"])
    with pytest.raises(PollError, match="broken character"):
        store.create_poll(ITEMS, question="Which\udfff?")


def test_an_emoji_sequence_keeps_its_joiner_and_a_direction_mark_repeats_an_item(store):
    poll, _ = store.create_poll(["\U0001f469\u200d\U0001f4bb coding", "Pizza", "Soup"])
    assert poll.items[0] == "\U0001f469\u200d\U0001f4bb coding"
    with pytest.raises(PollError, match="repeats item 1"):
        store.create_poll(["Pizza", "Pizza\u200e", "Soup"])


def test_an_idle_open_poll_stops_counting_but_still_takes_answers(store, clock, monkeypatch):
    monkeypatch.setattr(poll_store, "MAX_OPEN_POLLS", 2)
    (idle, _), (busy, _) = store.create_poll(ITEMS), store.create_poll(ITEMS)
    with pytest.raises(PollError, match="2 open polls"):
        store.create_poll(ITEMS)
    clock.tick(3600 * poll_store.IDLE_HOURS - 60)
    store.submit(busy.poll_id, new_token(), [[0], [1]])  # busy is answered: it stays counted
    clock.tick(120)
    third, third_key = store.create_poll(ITEMS)  # idle, left open a day, frees its place
    with pytest.raises(PollError, match="2 open polls"):
        store.create_poll(ITEMS)
    assert store.submit(idle.poll_id, new_token(), [[1], [0]])  # and still takes answers
    assert store.poll(idle.poll_id).is_open(clock())
    assert poll_store.IDLE_HOURS == 24


def test_a_poll_idle_longer_than_it_is_kept_is_deleted_with_its_answers(store, clock):
    assert store.keep_days == poll_store.KEEP_DAYS == 180
    old, old_key = store.create_poll(ITEMS)
    store.submit(old.poll_id, new_token(), [[0], [1]])
    answered, answered_key = store.create_poll(ITEMS)
    clock.tick(86400 * 179)
    store.submit(answered.poll_id, new_token(), [[1], [0]])  # its last answer keeps it
    clock.tick(86400 * 2)
    assert store.count(old.poll_id, old_key) == 1  # only a new poll sweeps
    store.create_poll(ITEMS)
    with pytest.raises(PollNotFound):
        store.answers(old.poll_id, old_key)
    assert store.count(answered.poll_id, answered_key) == 1
    with store._transaction(write=False) as cursor:
        orphans = store._run(cursor, "SELECT COUNT(*) FROM answers WHERE poll_id = ?",
                             (old.poll_id,)).fetchone()[0]
    assert orphans == 0


@pytest.mark.parametrize("said, days", [("30", 30.0), (" 1.5 ", 1.5), ("forever", None),
                                        ("FOREVER", None), ("", 180.0)])
def test_the_keeping_time_is_read_from_the_environment(monkeypatch, said, days):
    monkeypatch.setenv("COARSENRANK_POLL_KEEP_DAYS", said)
    assert poll_store.keep_days() == days


@pytest.mark.parametrize("said", ["0", "0.5", "-3", "ten", "nan", "inf", "1e9"])
def test_a_keeping_time_that_is_not_days_is_refused_by_name(monkeypatch, tmp_path, said):
    monkeypatch.setenv("COARSENRANK_POLL_KEEP_DAYS", said)
    with pytest.raises(PollError, match="COARSENRANK_POLL_KEEP_DAYS .* number of days"):
        PollStore(tmp_path / "polls.sqlite3")


def test_polls_kept_forever_are_never_swept(tmp_path, clock, monkeypatch):
    monkeypatch.setenv("COARSENRANK_POLL_KEEP_DAYS", "forever")
    store = PollStore(tmp_path / "polls.sqlite3", clock=clock)
    poll, key = store.create_poll(ITEMS)
    clock.tick(86400 * 10_000)
    store.create_poll(ITEMS)
    assert store.teacher_poll(poll.poll_id, key).poll_id == poll.poll_id


def test_version_3_store_takes_its_last_activity_from_its_answers(location, clock,
                                                                   monkeypatch):
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 3)
    old = PollStore(location, clock=clock)
    assert old.schema_version() == 3
    poll, key = old.create_poll(ITEMS)
    clock.tick(86400 * 100)
    old.submit(poll.poll_id, new_token(), [[0], [1]])
    quiet, quiet_key = old.create_poll(ITEMS)
    monkeypatch.setattr(poll_store, "SCHEMA_VERSION", 4)
    clock.tick(86400 * 100)  # 200 days after the first poll was made, 100 after its answer
    new = PollStore(location, clock=clock)
    assert new.schema_version() == 4
    new.create_poll(ITEMS)
    assert new.count(poll.poll_id, key) == 1
    assert new.count(quiet.poll_id, quiet_key) == 0
    clock.tick(86400 * 81)
    new.create_poll(ITEMS)
    with pytest.raises(PollNotFound):
        new.count(poll.poll_id, key)


def test_a_deleted_sqlite_file_starts_a_new_store_instead_of_failing(tmp_path, clock):
    location = tmp_path / "data" / "polls.sqlite3"
    store = PollStore(location, clock=clock)
    poll, key = store.create_poll(ITEMS)
    for path in location.parent.iterdir():
        path.unlink()
    location.parent.rmdir()
    with pytest.raises(PollNotFound):  # gone, as if deleted: not "try again in a moment"
        store.poll(poll.poll_id)
    fresh, fresh_key = store.create_poll(ITEMS)
    store.submit(fresh.poll_id, new_token(), [[0], [1]])
    assert store.count(fresh.poll_id, fresh_key) == 1
    with sqlite3.connect(location) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_read_only_store_says_so_instead_of_try_again(tmp_path, clock, monkeypatch):
    location = tmp_path / "polls.sqlite3"
    store = PollStore(location, clock=clock)
    poll, _ = store.create_poll(ITEMS)
    monkeypatch.setattr(store.backend, "connect", lambda: sqlite3.connect(
        f"file:{location}?mode=ro", uri=True, isolation_level=None))
    with pytest.raises(PollUnavailable, match="read-only.*nothing was saved") as raised:
        store.submit(poll.poll_id, new_token(), [[0], [1]])
    assert "Try again" not in str(raised.value)
    assert store.poll(poll.poll_id).poll_id == poll.poll_id  # reading still works


def test_a_session_is_kept_while_any_of_its_polls_is_recent(store, clock):
    first, key = store.create_poll(ITEMS)
    store.submit(first.poll_id, new_token(), [[0], [1]])
    clock.tick(86400 * 181)  # the teacher comes back to the session after half a year
    second, _ = store.create_poll(["A", "B"], after=(first.poll_id, key))
    assert [len(a) for _, a in store.session_answers(second.poll_id, key)] == [1, 0]
    clock.tick(86400 * 100)
    store.create_poll(ITEMS)  # the session's latest poll is 100 days old: all of it is kept
    assert len(store.session_answers(first.poll_id, key)) == 2
    clock.tick(86400 * 81)
    store.create_poll(ITEMS)
    with pytest.raises(PollNotFound):
        store.session_answers(first.poll_id, key)


def test_a_poll_scheduled_to_close_later_than_it_would_be_kept_is_kept_until_then(store,
                                                                                  clock):
    poll, key = store.create_poll(ITEMS, closes_at=clock() + 86400 * 200)
    clock.tick(86400 * 190)
    store.create_poll(ITEMS)
    assert store.teacher_poll(poll.poll_id, key).is_open(clock())
    clock.tick(86400 * 11)
    store.create_poll(ITEMS)
    with pytest.raises(PollNotFound):
        store.teacher_poll(poll.poll_id, key)


def test_a_store_emptied_between_the_check_and_the_connection_mends_itself(tmp_path, clock):
    location = tmp_path / "polls.sqlite3"
    store = PollStore(location, clock=clock)
    store.create_poll(ITEMS)
    for path in tmp_path.iterdir():
        path.unlink()
    location.touch()  # the file is back, empty: as sqlite3.connect leaves it after a race
    with pytest.raises(PollUnavailable, match="nothing was changed"):
        store.create_poll(ITEMS)
    poll, key = store.create_poll(ITEMS)  # the next call finds the tables again
    assert store.teacher_poll(poll.poll_id, key).poll_id == poll.poll_id
