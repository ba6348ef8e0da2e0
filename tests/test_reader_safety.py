"""Readers never change data silently: first rows, look-alikes, numbered names, huge numbers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError, read_file, read_preferences


@pytest.mark.parametrize("text", [
    b"user,admin,guest\nadmin,guest,user\nguest,user,admin\n",
    b"item1,p3,C1\np3,item1,C1\nC1,p3,item1\n",
    b"option 1,option 2\noption 2,option 1\n",
    b"name,count,id\ncount,id,name\nid,name,count\n",
])
def test_headerless_wide_files_keep_their_first_ranking(text):
    result = read_file(text)
    rows = [line.split(",") for line in text.decode().splitlines()]
    assert result.preferences.to_lists(names=True) == rows
    assert result.report.header_rows == 0 and not result.preferences.has_rankers


def test_an_unambiguous_header_is_still_a_header():
    result = read_file(b"voter,1st,2nd\nann,tea,coffee\nbob,coffee,tea\n")
    assert result.report.header_rows == 1
    assert result.preferences.ranker_names == ("ann", "bob")


@pytest.mark.parametrize("twin", ["cafe\u0301", "caf\u00e9\u200b", " caf\u00e9", "caf\u00e9\ufeff"])
def test_look_alike_names_are_unified_with_a_note(twin):
    prefs = read_preferences(f"voter,1st,2nd\nann,caf\u00e9,tea\nbob,tea,{twin}\n".encode())
    assert prefs.item_names == ("caf\u00e9", "tea")
    assert prefs.to_lists(names=True) == [["caf\u00e9", "tea"], ["tea", "caf\u00e9"]]
    assert any("looked the same" in note for note in prefs.notes) or twin == " caf\u00e9"


def test_look_alike_names_in_pairs_are_unified():
    prefs = read_preferences("winner,loser\ncaf\u00e9,tea\ntea,cafe\u0301\n".encode())
    assert prefs.item_names == ("caf\u00e9", "tea")
    assert any("looked the same" in note for note in prefs.notes)


def test_look_alikes_in_one_ranking_are_refused_by_name():
    with pytest.raises(PreferenceFormatError, match="written in two ways") as info:
        read_preferences("voter,1st,2nd\nann,caf\u00e9,cafe\u0301\nbob,tea,x\n".encode())
    assert info.value.row == 2


def test_preflib_duplicate_names_become_unique():
    text = (b"# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: x\n"
            b"# ALTERNATIVE NAME 2: x (3)\n# ALTERNATIVE NAME 3: x\n1: 1,2,3\n")
    prefs = read_preferences(text)
    assert len(set(prefs.item_names)) == 3 and prefs.item_names[:2] == ("x", "x (3)")
    assert "shown as" in prefs.notes[0]


@pytest.mark.parametrize("text", [
    b"# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: x\n"
    b"# ALTERNATIVE NAME 1: y\n1: 1,2\n",
    b"2\n1,x\n1,y\n1,1,1\n1,1,2\n",
])
def test_preflib_alternative_named_twice_is_refused(text):
    with pytest.raises(PreferenceFormatError, match="named twice"):
        read_preferences(text)


@pytest.mark.parametrize("text", [
    b"# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 2\n1: 1," + b"9" * 5000 + b"\n",
    b"# DATA TYPE: soc\n# NUMBER ALTERNATIVES: " + b"9" * 5000 + b"\n1: 1,2\n",
    b"# DATA TYPE: soc\n# ALTERNATIVE NAME " + b"7" * 5000 + b": x\n1: 1,2\n",
    b"4 1\n1 1 2 0\n0\n\"a\"\n\"b\"\n\"c\"\n\"d\"\n".replace(b"4 1", b"9" * 5000 + b" 1"),
])
def test_huge_integers_get_a_specific_message(text):
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(text)
    assert "too large" in info.value.reason, info.value


def test_long_ranks_beyond_float_precision_are_refused():
    text = b"ranker,item,rank\nu,a,1\nu,b,9007199254740993\nu,c,9007199254740992\n"
    with pytest.raises(PreferenceFormatError, match="too large") as info:
        read_preferences(text)
    assert info.value.column == "rank"


def test_a_row_with_too_many_columns_is_refused_quickly():
    with pytest.raises(PreferenceFormatError, match="at most 20,000 columns") as info:
        read_preferences(b"a," * 30_000 + b"b\n")
    assert info.value.row == 1


def test_a_first_row_of_numbers_is_data_not_item_names():
    text = b"3,1,2\n1,2,3\n2,3,1\n"
    result = read_file(text)
    assert result.report.layout == "wide" and len(result.preferences) == 3


def test_a_column_of_numbers_beside_names_is_refused_not_read_as_items():
    with pytest.raises(PreferenceFormatError, match="holds only numbers") as info:
        read_preferences(b"voter,copies,1st,2nd\nann,3,tea,coffee\nbob,1,coffee,tea\n")
    assert info.value.column == "copies" and "count column" in info.value.fix


def test_a_spreadsheet_safe_export_reads_back_equal():
    from coarsenrank_core import Preferences

    prefs = Preferences.from_lists([[0, 1, 2], [2, {0, 1}]],
                                   item_names=["=SUM(A1)", "@cmd", "-1 start"],
                                   rankers=["+rater", "plain"])
    text = prefs.to_csv(neutralise=True)
    assert "'=SUM(A1)" in text and "'+rater" in text
    back = read_preferences(text.encode())
    assert back == prefs and back.ranker_names == ("+rater", "plain") and not back.notes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=2), min_size=1,
                         max_size=5), min_size=1, max_size=8),
       st.booleans())
def test_property_preflib_read_at_once_equals_line_by_line(orders, declared):
    from coarsenrank_core.io.preflib import _read_by_line, _read_fast

    lines = ["# DATA TYPE: toi"] + (["# NUMBER ALTERNATIVES: 6"] if declared else [])
    lines += ["# ALTERNATIVE NAME 1: one", "# ALTERNATIVE NAME 3: three"]
    for k, groups in enumerate(orders):
        cells = [str(g[0]) if len(g) == 1 else "{" + ",".join(map(str, g)) + "}"
                 for g in groups]
        lines.append(f"{k + 1}: " + ",".join(cells))
    text = "\n".join(lines) + "\n"
    try:
        slow = _read_by_line(text)
    except PreferenceFormatError:
        assert _read_fast(text) is None  # the line reader explains the problem
        return
    fast = _read_fast(text)
    assert fast is not None and fast == slow and fast.notes == slow.notes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.permutations([1, 2, 3, 4, 5]).flatmap(
           lambda p: st.integers(1, 5).map(lambda k: p[:k])), min_size=1, max_size=8),
       st.lists(st.integers(1, 9), min_size=8, max_size=8), st.booleans(), st.booleans())
def test_property_blt_read_at_once_equals_ballot_by_ballot(ballots, weights, withdraw, ids):
    from coarsenrank_core.io.blt import _read_by_ballot, _read_fast

    lines = ["5 2"] + (["-3"] if withdraw else [])
    lines += [(f"(b{k}) " if ids else "") + f"{weights[k]} " + " ".join(map(str, b)) + " 0"
              for k, b in enumerate(ballots)]
    lines += ["0", '"a"', '"b"', '"c"', '"d"', '"e"', '"Title"']
    text = "\n".join(lines) + "\n"
    try:
        slow = _read_by_ballot(text)
    except PreferenceFormatError:
        assert _read_fast(text) is None
        return
    fast = _read_fast(text)
    assert fast is not None and fast == slow and fast.notes == slow.notes
    assert not (withdraw and "c" in slow.item_names)  # a withdrawn candidate is no item


@pytest.mark.parametrize("ballots", [["1 1 2 3 0", "2 3 1 0"], ["1 1 2=3 0", "2 3 1 0"]])
def test_a_withdrawn_candidate_is_neither_an_item_nor_ranked(ballots):
    """Both readers (at once, and ballot by ballot for ties) leave Bob out entirely."""
    text = "\n".join(["3 1", "-2", *ballots, "0", '"Alice"', '"Bob"', '"Carol"', '"Club"'])
    prefs = read_preferences(text.encode(), format="blt")
    assert prefs.item_names == ("Alice", "Carol")
    assert prefs.to_lists(names=True)[1] == ["Carol", "Alice"]
    assert any("withdrawn" in note and "'Bob'" in note for note in prefs.notes)


# issue 21: the "declared versus present" rule. A 60-byte PrefLib file declaring 100,000
# alternatives cost about 1 GB and 7.5 s per session; a header may declare at most 10× the
# alternatives the file names or ranks, plus 1,000.
@pytest.mark.parametrize("text", [
    b"# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 100000\n1: 1,2\n",
    b"# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 1031\n1: 1,2\n1: 2,3\n",
    b"# DATA TYPE: toi\n# NUMBER ALTERNATIVES: 5000\n# ALTERNATIVE NAME 1: a\n1: 1,{2,3}\n",
])
def test_preflib_declaring_far_more_alternatives_than_it_holds_is_refused(text):
    assert len(text) <= 80
    with pytest.raises(PreferenceFormatError, match="declares .* alternatives but names or "
                                                    "ranks only") as error:
        read_preferences(text)
    assert error.value.row == 2 and "Correct the number of alternatives" in error.value.fix


@pytest.mark.parametrize("declared", [3, 1030, 1040])
def test_preflib_may_declare_alternatives_nobody_ranked(declared):
    text = (f"# DATA TYPE: soi\n# NUMBER ALTERNATIVES: {declared}\n"
            "# ALTERNATIVE NAME 3: c\n1: 1,2\n1: 2,{3,4}\n" if declared > 4 else
            "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n1: 1,2\n1: 2,3\n")
    prefs = read_preferences(text.encode())
    assert prefs.n_items == declared


def test_blt_declaring_more_candidates_than_it_names_is_refused():
    with pytest.raises(PreferenceFormatError, match="declares 100000 candidates but names "
                                                    "only 3"):
        read_preferences(b'100000 1\n1 1 2 0\n0\n"a"\n"b"\n"t"\n', format="blt")
