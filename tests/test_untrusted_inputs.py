"""Untrusted input everywhere: hostile or careless answers, poll items, links and files."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.test_app import APP, no_failure
from tests.test_poll_store import Clock, clock, location  # noqa: F401 - fixtures
from tests.test_share_safety import valid_document
from ui import share
from ui.poll_store import PollError, PollNotFound, PollStore, check_ranking, new_token

ITEMS = ["Pizza", "Pasta", "Salad", "Soup"]


@pytest.fixture
def store(tmp_path):
    return PollStore(str(tmp_path / "polls.sqlite3"), clock=Clock())


# ------------------------------------------------------------------ submitted answers
@pytest.mark.parametrize("ranking", [
    [[float("inf")], [0]],  # was an OverflowError, a traceback
    [[float("nan")], [0]],
    [[1.9], [0]],  # was stored as item 1
    [[0], [1], [2.5]],
    [[True], [2]],  # a truth value is no item number
    [["1"], ["2"]],  # nor a text
    "12",  # a text is no list of places
    {0: 1, 1: 2},
    [[0], [[1]]],
    [[0], [1e300]],
])
def test_an_answer_of_anything_but_item_numbers_is_refused_and_nothing_is_stored(store,
                                                                                  ranking):
    poll, key = store.create_poll(ITEMS)
    with pytest.raises(PollError, match="not a ranking"):
        store.submit(poll.poll_id, new_token(), ranking)
    assert store.count(poll.poll_id, key) == 0


@pytest.mark.parametrize("ranking", [
    [[i] for i in range(2_000_000)],  # two million places for four items
    [[0], [1], *[[]] * 1_000_000],
    [[0], list(range(5_000_000))],
])
def test_a_huge_answer_is_refused_by_its_size_before_its_entries_are_read(ranking):
    with pytest.raises(PollError, match="has 4 items|more items than the poll has"):
        check_ranking(ranking, 4)


def test_item_numbers_of_any_integer_type_are_kept():
    assert check_ranking([[2, 0], (np.int64(1),), np.int32(3)], 4) == ((0, 2), (1,), (3,))


@pytest.fixture
def any_store(location, clock):  # noqa: F811 - the fixtures of test_poll_store
    """A store on SQLite, and on PostgreSQL when its test server answers."""
    return PollStore(location, clock=clock)


@pytest.mark.parametrize("code", ["AB\x00CDE", "\x00", pytest.param("A" * 5_000_000, id="huge"),
                                  "ABC", "ABCDEFG", "<script>", "ÄBCDEF", "ABCDE0"])
def test_a_code_that_cannot_be_a_join_code_is_no_poll_on_every_database(any_store, code):
    # on PostgreSQL a NUL made the query fail: "the store is not answering, try again"
    poll, key = any_store.create_poll(ITEMS)
    for ask in (lambda: any_store.poll(code), lambda: any_store.teacher_poll(code, key),
                lambda: any_store.submit(code, new_token(), [[0], [1]]),
                lambda: any_store.next_poll(code), lambda: any_store.published_answers(code)):
        with pytest.raises(PollNotFound):
            ask()
    assert any_store.answer_of(code, new_token()) is None
    assert any_store.answer_of(poll.poll_id, "A\x00" * 11) is None
    assert any_store.poll(f" {poll.poll_id[:3].lower()}-{poll.poll_id[3:]} ") == poll


# ------------------------------------------------------------------ a poll's items and question
@pytest.mark.parametrize("items, message", [
    (["Tea", "\u200b", "\u200b\u00ad", "Coffee"], None),  # nothing visible: blank lines
    (["Café", "Cafe\u0301"], "Item 2 repeats item 1"),  # the same name in two Unicode forms
    (["Tea", "T\u200bea"], "Item 2 repeats item 1"),
    (["Green  tea", "green\u00a0tea", "x"], "Item 2 repeats item 1"),
    (["Tea", "Co\x00ffee"], "Line 2 holds the control character U\\+0000"),
    (["Tea", "\x1b[31mCoffee"], "Line 2 holds the control character U\\+001B"),
    (["\u202eeeffoC", "Tea"], "Line 1 holds the control character U\\+202E"),
    ("TeaCoffee", "a list of names"),  # a text is not a list of lines
    ([""] * 1_000_000 + ["Tea", "Coffee"], "1,000,002 lines"),
])
def test_poll_items_are_tidied_like_the_readers_names_and_controls_refused(any_store, items,
                                                                           message):
    if message is None:
        poll, _ = any_store.create_poll(items)
        assert poll.items == ("Tea", "Coffee")
        return
    with pytest.raises(PollError, match=message):
        any_store.create_poll(items)


@pytest.mark.parametrize("question", ["Best\x00 drink?", "Best\x07 drink?", "Best\ndrink?"])
def test_a_question_with_a_control_character_is_refused_plainly(any_store, question):
    # a NUL made PostgreSQL fail: "the store is not answering, try again"
    with pytest.raises(PollError, match="The question holds the control character"):
        any_store.create_poll(ITEMS, question=question)


def test_line_ends_around_an_item_or_the_question_are_trimmed_not_refused(any_store):
    # a list pasted with Windows line ends, or an item read from a file with its own
    poll, _ = any_store.create_poll(["Tea\r", "\x1cCoffee\r\n"], question="Which?\r\n")
    assert poll.items == ("Tea", "Coffee") and poll.question == "Which?"


def test_a_question_is_tidied_like_the_items(any_store):
    poll, _ = any_store.create_poll(ITEMS, question="  Best\u200b  drink\u00a0? ")
    assert poll.question == "Best drink ?"


# ------------------------------------------------------------------ session files
def session_refusal(document) -> str:
    with pytest.raises(share.SessionFileError) as error:
        share.read_session(json.dumps(document).encode())
    return str(error.value)


@pytest.mark.parametrize("field, texts, message", [
    ("notes", ["x"] * 1_000_000, "holds 1,000,000 texts; a session has at most 100"),
    ("notes", ["x" * 10_000_000], "longer than 20,000 characters"),
    ("read_as", ["<b>read</b>"] * 1_000_000, "holds 1,000,000 texts"),
    ("read_as", ["x" * 10_000_000], "longer than 20,000 characters"),
])
def test_a_session_files_notes_are_held_to_a_budget(field, texts, message):
    # each note is a box of the Data page: a million of them hung the page
    document = valid_document()
    (document["preferences"] if field == "notes" else document)[field] = texts
    refused = session_refusal(document)
    assert f"“{'preferences.' if field == 'notes' else ''}{field}”" in refused
    assert message in refused and "Save the session again" in refused


def test_a_session_files_few_short_notes_still_load():
    document = valid_document()
    document["preferences"]["notes"] = ["Merged 2 item names"] * share.MAX_NOTES
    document["read_as"] = ["Read as a long table"]
    dataset, _, _ = share.read_session(json.dumps(document).encode())
    assert len(dataset.notes) == share.MAX_NOTES and dataset.read_as == ("Read as a long table",)


@pytest.mark.parametrize("names, message", [
    (["A"] * 6, "gives items 1 and 2 the same name"),
    (["Café", "Cafe\u0301", "c", "d", "e", "f"], "gives items 1 and 2 the same name"),
    (["a", "b", "Green  tea", "green tea", "Green\u00a0tea", "f"],
     "gives items 3 and 5 the same name"),
    (["a", "", "c", "d", "e", "f"], "gives item 2 a name with nothing visible"),
    (["a", "b", "\u200b \u00ad", "d", "e", "f"], "gives item 3 a name with nothing visible"),
])
def test_a_session_files_item_names_must_tell_the_items_apart(names, message):
    # they loaded, and every table and chart showed items that could not be told apart
    document = valid_document()
    document["recipe"] = ""
    document["preferences"]["item_names"] = names
    refused = session_refusal(document)
    assert "“preferences.item_names”" in refused and message in refused


@pytest.mark.parametrize("closes_at", ["soon", float("inf"), float("nan"), True, [5.0]])
def test_a_closing_time_that_is_no_time_is_refused_plainly(any_store, closes_at):
    # a text was a TypeError, infinity a poll that never closes yet says it will
    with pytest.raises(PollError, match="closing time"):
        any_store.create_poll(ITEMS, closes_at=closes_at)


@pytest.mark.parametrize("after", [("ABCDEF",), "ABCDEF", ("ABCDEF", "k", "x"), None])
def test_a_next_poll_after_something_that_is_no_poll_and_key_is_no_poll(any_store, after):
    if after is None:  # the real one still works
        poll, key = any_store.create_poll(ITEMS)
        following, same = any_store.create_poll(ITEMS, after=(poll.poll_id, key))
        assert same == key and following.position == 2
        return
    with pytest.raises(PollNotFound):  # ("ABCDEF",) was an IndexError
        any_store.create_poll(ITEMS, after=after)


def test_a_session_file_naming_two_raters_alike_is_refused():
    # they loaded, and the rater charts drew the two raters as one bar
    document = valid_document()
    names = document["preferences"]["ranker_names"]
    document["preferences"]["ranker_names"] = ["<b>r</b>"] * 2 + names[2:]
    refused = session_refusal(document)
    assert "“preferences.ranker_names” names two raters “<b>r</b>”" in refused


def test_the_data_page_refuses_a_session_of_a_million_notes_and_keeps_the_data_loaded():
    document = valid_document()
    document["preferences"]["notes"] = ["<b>x</b>"] * 1_000_000
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    loaded = at.session_state["dataset"].key
    at.radio(key="data_source").set_value("A saved session").run()
    at.file_uploader(key="upload_session").set_value(
        ("s.json", json.dumps(document).encode(), "application/json"))
    at.run()
    no_failure(at)
    [error] = [e.value for e in at.error]
    assert "“preferences.notes” holds 1,000,000 texts" in error
    assert len(at.info) < 10  # not a box per note
    assert any(i.value.startswith("Still loaded:") for i in at.info)
    assert at.session_state["dataset"].key == loaded  # nothing the user had is lost


def test_a_token_with_a_line_end_is_no_token(any_store):
    # "$" matched before a final line end, so "<token>\n" was stored as another browser
    poll, key = any_store.create_poll(ITEMS)
    with pytest.raises(PollError, match="no valid answer token"):
        any_store.submit(poll.poll_id, new_token() + "\n", [[0], [1]])
    assert any_store.count(poll.poll_id, key) == 0


def test_a_refused_session_file_is_read_once_however_often_the_page_reruns(monkeypatch):
    # it stays in its uploader, and every click on the Data page read the whole file again
    reads = []
    opened = share.open_session_file

    def counted(data):
        reads.append(len(data))
        return opened(data)

    monkeypatch.setattr(share, "open_session_file", counted)
    document = valid_document()
    document["preferences"]["item_names"] = ["A"] * 6
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("A saved session").run()
    at.file_uploader(key="upload_session").set_value(
        ("s.json", json.dumps(document).encode(), "application/json"))
    for _ in range(3):
        at.run()
        no_failure(at)
        [error] = [e.value for e in at.error]
        assert "the same name" in error
    assert len(reads) == 1
    good = json.dumps(valid_document()).encode()  # another file is read at once
    at.file_uploader(key="upload_session").set_value(("t.json", good, "application/json"))
    at.run()
    assert len(reads) == 2 and not at.error
