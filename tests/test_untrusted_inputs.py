"""Untrusted input everywhere: hostile or careless answers, poll items, links and files."""

import numpy as np
import pytest

from tests.test_poll_store import Clock
from ui.poll_store import PollError, PollStore, check_ranking, new_token

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
