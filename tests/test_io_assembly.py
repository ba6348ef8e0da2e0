"""io.assembly: cell values to Preferences (numbers, weights, rankers, names, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coarsenrank_core.errors import Cancelled, PreferenceFormatError
from coarsenrank_core.io.assembly import (
    UNEXPECTED,
    assemble,
    declared_within_present,
    factorize,
    first_repeat,
    guard,
    parse_numbers,
    parse_weights,
    ranker_ids,
    tidy_name,
    unify_names,
    unique_names,
    unneutralise,
    whole,
)


def test_parse_numbers_and_weights():
    values = np.array(["1", " 2", "x", "", "1e3", "-0.5"], dtype=object)
    assert np.array_equal(parse_numbers(values), [1, np.nan, np.nan, np.nan, 1000, -0.5],
                          equal_nan=True)
    assert parse_weights(np.array(["", "3"], dtype=object), np.array([2, 3]), "n").tolist() \
        == [1.0, 3.0]
    with pytest.raises(PreferenceFormatError, match="not a positive number") as info:
        parse_weights(np.array(["2", "0"], dtype=object), np.array([2, 3]), "n")
    assert info.value.row == 3


def test_ranker_ids():
    codes, names = ranker_ids(np.array(["b", "a", "b"], dtype=object), np.arange(3), "r")
    assert codes.tolist() == [0, 1, 0] and names == ("b", "a")
    assert ranker_ids(np.array(["", ""], dtype=object), np.arange(2), "r") == (None, None)
    with pytest.raises(PreferenceFormatError, match="ranker is blank"):
        ranker_ids(np.array(["a", ""], dtype=object), np.arange(2), "r")
    notes: list[str] = []  # one ranking a row: a blank name is an anonymous ranker
    codes, names = ranker_ids(np.array(["a", "", "a", ""], dtype=object), np.arange(2, 6),
                              "Name", notes, anonymous=True)
    assert codes.tolist() == [0, 1, 0, 2] and names == ("a", "(row 3)", "(row 5)")
    assert notes == ["2 rankings name no one in 'Name': each is taken as a ranker of its own"]
    codes, names = ranker_ids(np.array(["'=x", "=x"], dtype=object), np.arange(2), "r")
    assert codes.tolist() == [0, 0] and names == ("=x",)


def test_names():
    assert unneutralise("'=SUM(A1)") == "=SUM(A1)" and unneutralise("'quoted") == "'quoted"
    assert tidy_name(" Cafe\u0301\u200b ") == "Café"
    codes, names, note = unify_names(np.array([0, 1, 2]), ["a", "a ", "b"])
    assert codes.tolist() == [0, 0, 1] and names == ("a", "b") and "Merged 1 item name" in note
    assert unify_names(np.array([0]), ["a"])[2] is None
    names, notes = unique_names(["x", "y", "x"], "Alternatives")
    assert names == ["x", "y", "x (3)"] and "1 and 3" in notes[0]


def test_whole_refuses_long_numbers():
    assert whole(" 042 ") == 42
    with pytest.raises(PreferenceFormatError, match="too large"):
        whole("1" * 13)


@given(st.lists(st.integers(0, 5), max_size=12))
def test_first_repeat(codes):
    found = first_repeat(np.array(codes, dtype=np.int64))
    seen = {}
    for i, c in enumerate(codes):
        if c in seen:
            assert found == (seen[c], i)
            return
        seen[c] = i
    assert found is None


def test_declared_within_present():
    assert declared_within_present(1_000 + 10 * 5, 5)
    assert not declared_within_present(1_001 + 10 * 5, 5)


def test_assemble_skips_one_item_lists_with_a_note():
    #               pref 0: a > b, pref 1: c alone, pref 2: b > c
    pref = np.array([0, 0, 1, 2, 2])
    group = np.array([0, 1, 0, 0, 1])
    item, names = factorize(np.array(["a", "b", "c", "b", "c"], dtype=object))
    prefs = assemble(pref, group, item, 3, names, np.array([2, 3, 4]),
                     rankers=np.array(["u", "v", "w"], dtype=object), ranker_column="who")
    assert len(prefs) == 2 and prefs.item_names == ("a", "b", "c")
    assert prefs.ranker_names == ("u", "w")
    assert any("Skipped 1 row with fewer than 2 items: row 3" in n for n in prefs.notes)


def test_assemble_refuses_an_item_written_twice_in_two_ways():
    pref, group = np.array([0, 0]), np.array([0, 1])
    with pytest.raises(PreferenceFormatError, match="appears twice"):
        assemble(pref, group, np.array([0, 1]), 1, ("a", "a\u200b"), np.array([2]))


def test_guard_turns_other_failures_into_a_format_error():
    assert guard(lambda: 3) == 3
    with pytest.raises(PreferenceFormatError, match=UNEXPECTED):
        guard(lambda: 1 / 0)
    with pytest.raises(Cancelled):
        guard(lambda: (_ for _ in ()).throw(Cancelled()))
