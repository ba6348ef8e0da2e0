"""io.columns: column titles to roles, and the words that name columns and rows in messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coarsenrank_core.io.columns import (
    PREFERENCE_ROLES,
    RANK_LABEL,
    TRUTH_ROLES,
    column_label,
    find_roles,
    ignored_note,
    normalise,
    plural,
    quote_list,
    role_base,
    rows_text,
    skipped_note,
)


@pytest.mark.parametrize("cell, key", [(" Winner_ID ", "winnerid"), ("Item-Name", "itemname"),
                                       ("first.choice", "firstchoice"), ("A  b", "ab")])
def test_normalise_drops_case_spaces_and_separators(cell, key):
    assert normalise(cell) == key


@pytest.mark.parametrize("key, base", [("winnername", ("winner", 0)), ("winnertext", ("winner", 0)),
                                       ("winner", ("winner", 1)), ("winnerid", ("winner", 2)),
                                       ("whiteid", ("white", 2)), ("notes", None)])
def test_role_base_tells_names_plain_and_ids(key, base):
    names = PREFERENCE_ROLES["winner"] | PREFERENCE_ROLES["left"]
    assert role_base(key, names) == base


@pytest.mark.parametrize("header, roles", [
    (["winner_id", "winner_name", "loser_id", "loser_name"], {"winner": 1, "loser": 3}),
    (["Winner Text", "Winner ID", "Loser ID", "Loser Text"], {"winner": 0, "loser": 3}),
    (["white_id", "black_id", "winner"], {"left": 0, "right": 1, "winner": 2}),
    (["Input.item_a", "Input.item_b", "Answer.choice"], {"left": 0, "right": 1, "item": 2}),
])
def test_find_roles_prefers_a_name_to_its_id_sibling(header, roles):
    found = find_roles(header, PREFERENCE_ROLES)
    assert {r: found[r] for r in roles} == roles


def test_find_roles_ranks_ranker_titles():
    # ranker words beat ids, which beat e-mails, which beat names
    assert find_roles(["name", "email", "id", "voter"], PREFERENCE_ROLES)["ranker"] == 3
    assert find_roles(["name", "email", "id"], PREFERENCE_ROLES)["ranker"] == 2
    assert find_roles(["name", "email"], PREFERENCE_ROLES)["ranker"] == 1
    assert find_roles(["item", "score"], TRUTH_ROLES) == {"item": 0, "score": 1}


@given(st.permutations(["winner", "loser", "weight", "voter"]))
def test_find_roles_does_not_depend_on_column_order(header):
    found = find_roles(header, PREFERENCE_ROLES)
    assert {role: header[j] for role, j in found.items()} == {
        "winner": "winner", "loser": "loser", "weight": "weight", "ranker": "voter"}


@pytest.mark.parametrize("title", ["Rank 1", "1st choice", "Choice_2", "third", "pref 10", "#3",
                                   "Top 5"])
def test_rank_label_recognises_rank_titles(title):
    assert RANK_LABEL.fullmatch(title)


@pytest.mark.parametrize("title", ["Margherita", "ranker", "Rank", "12 pizzas"])
def test_rank_label_refuses_other_titles(title):
    assert not RANK_LABEL.fullmatch(title)


def test_message_words():
    assert column_label(["a", "", "c"], 1) == "2"
    assert column_label(["a", "b"], 0) == "a"
    assert column_label(None, 4) == "5"
    assert quote_list("abcdefg", 3) == "'a', 'b', 'c' (and 4 more)"
    assert plural(1, "row") == "1 row" and plural(3, "row") == "3 rows"
    assert plural(2, "row", number=False) == "rows"
    assert rows_text(range(1, 13)) == "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (2 more)"
    assert skipped_note([4, 9], "row", "comparing an item with itself") == \
        "Skipped 2 rows comparing an item with itself: rows 4, 9"
    assert ignored_note(["a", "", "c"], {0}) == ["Ignored the columns '2', 'c'"]
    assert ignored_note(["a"], {0}) == []
