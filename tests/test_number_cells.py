"""Numbers in cells: scores with decimals, signs, missing-value codes and numeric item titles."""

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_preferences
from coarsenrank_core.io.survey import is_plain_number, rank_values, score_values

WORST = ReadOptions(one_is_best=False)
SCORES = [[8.5, 7.0, 9.25, 6.0], [7.5, 8.0, 6.5, 9.0], [9.0, 7.5, 8.0, 6.5]]
DESSERTS = ["Café", "Crème", "Tarte", "Éclair"]


def score_table(separator: str, decimal: str) -> bytes:
    rows = [separator.join(["Juror", *DESSERTS])]
    for juror, scores in zip("ABC", SCORES):
        cells = [f"{s:g}".replace(".", decimal) for s in scores]
        if separator == decimal:
            cells = [f'"{c}"' for c in cells]
        rows.append(separator.join([juror, *cells]))
    return ("\n".join(rows) + "\n").encode("utf-8")


def orders(prefs) -> list[list[str]]:
    return [[prefs.item_names[i] for i in ranking] for ranking in
            [prefs.items[a:b] for a, b in zip(prefs.offsets[:-1], prefs.offsets[1:])]]


@pytest.mark.parametrize("separator, decimal", [(";", ","), (";", "."), (",", "."), (",", ","),
                                                ("\t", ",")])
def test_a_table_of_scores_is_refused_when_detected_and_read_when_chosen(separator, decimal):
    data = score_table(separator, decimal)
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data)
    message = str(info.value)
    assert "score" in message and "--format ranks" in message and "--one-is-worst" in message
    assert f"'8{decimal}5'" in message
    prefs = read_preferences(data, "ranks", options=WORST)
    assert list(prefs.item_names) == DESSERTS
    assert list(prefs.ranker_names) == ["A", "B", "C"]
    expected = [[DESSERTS[j] for j in np.argsort(-np.asarray(s), kind="stable")] for s in SCORES]
    assert orders(prefs) == expected


@pytest.mark.parametrize("cell, value", [
    ("8", 8.0), ("8.5", 8.5), ("8,5", 8.5), (" 7 ", 7.0), ("2.0", 2.0), ("+2", 2.0),
    ("1st", 1.0), ("Rank 3", 3.0), ("-", 0.0), ("", 0.0), ("-99", 0.0), ("0", 0.0),
    ("-3", np.nan), ("1,000", np.nan), ("x", np.nan), ("1e3", np.nan),
])
def test_score_values_read_decimals_either_way_and_never_a_sign_as_a_prefix(cell, value):
    read = score_values(np.array([cell], dtype=object))[0]
    assert read == value or (np.isnan(value) and np.isnan(read))
    rank = rank_values(np.array([cell], dtype=object))[0]
    whole = np.isfinite(value) and value == int(value)
    assert rank == value if whole else np.isnan(rank)


@settings(max_examples=200, deadline=None)
@given(st.integers(-10 ** 6, 10 ** 6), st.integers(0, 99))
def test_every_written_number_is_a_number_and_only_positive_whole_ones_are_ranks(whole, cents):
    for text in (f"{whole}", f"{whole}.{cents:02d}", f"{whole},{cents:02d}"):
        assert is_plain_number(np.array([text], dtype=object))[0]
        rank = rank_values(np.array([text], dtype=object))[0]
        exact = float(text.replace(",", "."))
        if text == "-99" or whole == 0 and exact == 0:
            assert rank == 0
        elif exact >= 1 and exact == int(exact):
            assert rank == exact
        else:
            assert np.isnan(rank), text


def test_the_qualtrics_code_for_seen_but_unanswered_is_not_a_rank_given():
    data = (b"ResponseId,Q1_1,Q1_2,Q1_3\nR1,1,2,3\nR2,-99,-99,-99\nR3,2,1,3\n")
    prefs = read_preferences(data, "ranks")
    assert prefs.n_preferences == 2


@pytest.mark.parametrize("cell, chosen", [("-3", "ranks"), ("-3", "auto"), ("2.5", "auto")])
def test_a_number_that_is_no_rank_is_named_with_what_to_do(cell, chosen):
    """Detection reads the first 200 rows; a later cell that is no rank is named."""
    rows = ["Student,Essay A,Essay B,Essay C"] + [f"S{i},1,2,3" for i in range(210)]
    data = ("\n".join(rows) + f"\nBo,2,{cell},1\n").encode()
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data, chosen)
    error = info.value
    assert (error.row, error.column) == (len(rows) + 1, "Essay B")
    assert f"'{cell}'" in error.reason
    if cell == "2.5":
        assert "--one-is-worst" in error.fix and "--format ranks" in error.fix
    else:
        assert "below 0" in error.reason
    if chosen == "ranks" or cell == "-3":
        return
    prefs = read_preferences(data, "ranks")  # chosen by hand: a score, smaller better
    assert orders(prefs)[-1] == ["Essay C", "Essay A", "Essay B"]


@pytest.mark.parametrize("titles", [["2019", "2020", "2021", "2022"], ["101", "102", "103", "104"]])
@pytest.mark.parametrize("first", ["Taster", "Wine lover"])
def test_numbers_above_the_count_of_columns_title_the_items_beside_who_answered(titles, first):
    """Years or room numbers as item titles, beside a column of who answered (by its title,
    or names over ranks): read as a table of ranks, not as places or data."""
    rows = [[first, *titles], ["Ann", "1", "2", "3", "4"], ["Bob", "2", "1", "4", "3"],
            ["Cy", "1", "3", "2", "4"]]
    data = ("\n".join(",".join(r) for r in rows) + "\n").encode()
    prefs = read_preferences(data)
    assert list(prefs.item_names) == titles and prefs.ranker_names == ("Ann", "Bob", "Cy")
    assert orders(prefs)[1] == [titles[1], titles[0], titles[3], titles[2]]


def test_names_beside_numbers_without_titles_are_refused_rather_than_read_as_items():
    data = b"Ann,3,1,2\nBob,1,3,2\nCy,3,2,1\n"
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data)
    assert info.value.row == 1 and "first column holds names" in info.value.reason
    assert "'ranker,1st,2nd,3rd'" in info.value.fix


def test_ranks_counted_from_zero_are_refused_rather_than_losing_each_best_item():
    data = b"Student,Essay A,Essay B,Essay C,Essay D\ns1,0,1,2,3\ns2,1,0,3,2\ns3,0,2,1,3\n"
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data)
    assert (info.value.row, info.value.column) == (2, "Essay A")
    assert "count from 0" in info.value.reason and "add 1" in info.value.fix
    shifted = b"Student,Essay A,Essay B,Essay C,Essay D\ns1,1,2,3,4\ns2,2,1,4,3\ns3,1,3,2,4\n"
    assert orders(read_preferences(shifted))[0] == ["Essay A", "Essay B", "Essay C", "Essay D"]
    # a 0 that only some rows hold still means not ranked
    partial = b"Student,Essay A,Essay B,Essay C\ns1,0,1,2\ns2,1,2,3\n"
    assert orders(read_preferences(partial)) == [["Essay B", "Essay C"],
                                                 ["Essay A", "Essay B", "Essay C"]]


def test_a_rating_grid_is_refused_rather_than_read_upside_down():
    titles = ["Margherita", "Funghi", "Hawaii", "Diavola", "Veggie"]
    head = "Timestamp," + ",".join(f"How much do you like each pizza? [{t}]" for t in titles)
    rows = ["2024/05/01 10:00,5,4,1,5,3", "2024/05/01 10:01,4,4,1,5,2",
            "2024/05/01 10:02,5,3,1,4,4", "2024/05/01 10:03,5,4,2,4,3"]
    data = ("\n".join([head, *rows]) + "\n").encode()
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data)
    assert (info.value.row, info.value.column) == (2, "Margherita")
    assert "ratings" in info.value.reason and "--one-is-worst" in info.value.fix
    prefs = read_preferences(data, options=WORST)  # higher is better: each row an order
    assert orders(prefs)[0][0] in ("Margherita", "Diavola") and orders(prefs)[0][-1] == "Hawaii"
    # ranks with a tie here and there are still ranks
    ranks = ["2024/05/01 10:00,1,2,5,3,4", "2024/05/01 10:01,2,2,5,1,4",
             "2024/05/01 10:02,1,3,5,2,4"]
    assert orders(read_preferences(("\n".join([head, *ranks]) + "\n").encode()))[0][0] == \
        "Margherita"


def test_rows_giving_one_place_to_several_items_are_named_in_a_note():
    from coarsenrank_core.io import read_file

    data = (b"Timestamp,Rank [Film A],Rank [Film B],Rank [Film C]\n"
            b"2024/05/01 10:00,1st,1st,2nd\n2024/05/01 10:01,1st,2nd,3rd\n"
            b"2024/05/01 10:02,2nd,1st,3rd\n")
    result = read_file(data)
    assert result.preferences.has_ties
    assert any("1 row gives the same place to several items" in n and "row 2" in n
               and "'Film A', 'Film B'" in n for n in result.report.notes)
    clean = read_file(data.replace(b"1st,1st,2nd", b"1st,2nd,3rd"))
    assert not any("same place" in n for n in clean.report.notes)


def test_one_is_the_worst_says_when_the_layout_has_no_rank_numbers_to_turn():
    from coarsenrank_core.io import read_file

    wide = b"voter,Rank 1,Rank 2,Rank 3\nv1,A,B,C\nv2,B,A,C\n"
    result = read_file(wide, options=WORST)
    assert any("was not used: wide rankings hold no rank numbers" in n
               for n in result.report.notes)
    assert orders(result.preferences)[0] == ["A", "B", "C"]
    ranks = read_file(b"who,A,B,C\nv1,1,2,3\nv2,2,1,3\n", options=WORST)
    assert not any("was not used" in n for n in ranks.report.notes)
    assert orders(ranks.preferences)[0] == ["C", "B", "A"]


# ------------------------------------------- shared places: the vectorised read against a loop
def _tied_rank_values_by_loop(cells):
    """The reading of shared places as it was before it was vectorised: one match a cell."""
    import pandas as pd

    from coarsenrank_core.io.survey import _TIED_PLACE, _rank_value

    cells = np.asarray(cells, dtype=object)
    codes, unique = pd.factorize(cells.ravel())
    ranks = rank_values(unique)
    for i in np.flatnonzero(~np.isfinite(ranks)):
        match = _TIED_PLACE.fullmatch(str(unique[i]).strip())
        if match is not None:
            place = _rank_value(match["after"] or match["before"])
            ranks[i] = place if place >= 1 else np.nan
    return ranks[codes].reshape(cells.shape) if codes.size else np.full(cells.shape, np.nan)


_PLACE_PARTS = st.sampled_from(["", "=", "T", "t-", "T-", "Tied ", "tied", "Joint ", "JT.",
                                "jt ", " ", "-", "Rank ", "x"])
_PLACE_CORES = st.sampled_from(["1", "2", "3", "10", "0", "-1", "2.0", "2.5", "1st", "2nd",
                                "third", "First", "first choice", "n/a", "-99", "A", "Tea",
                                "=", "", "é", "2 =", "1\n"])
_CELL = st.one_of(
    st.builds(lambda a, b, c: a + b + c, _PLACE_PARTS, _PLACE_CORES,
              st.sampled_from(["", "=", " =", " ", "= ", "x"])),
    st.integers(-3, 12), st.floats(-3, 12, allow_nan=False).map(lambda v: round(v, 1)),
    st.text(alphabet="=Tt- 1203jointied.", max_size=8))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_CELL, min_size=3, max_size=3), min_size=0, max_size=8))
def test_shared_places_read_as_the_cell_by_cell_loop_did(grid):
    from coarsenrank_core.io.survey import tied_rank_values

    cells = np.array(grid, dtype=object).reshape(len(grid), 3)
    np.testing.assert_array_equal(tied_rank_values(cells), _tied_rank_values_by_loop(cells))


def test_shared_places_are_read_and_names_are_not():
    from coarsenrank_core.io.survey import tied_rank_values

    cells = np.array([["=1", "T2", "Joint 3rd", "4=", "Joint first", "jt. 2nd", "T-2"],
                      ["T0", "=0", "Tea", "T2.5", "2", "", "Tied"]], dtype=object)
    np.testing.assert_array_equal(tied_rank_values(cells),
                                  [[1, 2, 3, 4, 1, 2, 2],
                                   [np.nan, np.nan, np.nan, np.nan, 2, 0, np.nan]])


@pytest.mark.parametrize("shared", ["Tied 2nd", "tied 2nd", "Joint 2nd", "T2", "=2", "2="])
def test_a_shared_place_spelt_out_reads_as_a_tie(shared):
    """``Tied 2nd`` (as the README lists it) is read as ``Joint 2nd`` is; it was read as
    ``T`` and ``ied 2nd``, no rank, and the file was refused as a layout of names."""
    table = f"judge,Anna,Bea,Cleo\nJ1,1st,{shared},{shared}\nJ2,{shared},1st,3rd\n"
    prefs = read_preferences(io.BytesIO(table.encode()))
    assert prefs.to_lists(names=True) == [["Anna", frozenset({"Bea", "Cleo"})],
                                          ["Bea", "Anna", "Cleo"]]
