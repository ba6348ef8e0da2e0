"""File readers: every layout, each documented error, encodings, fuzzing for stray exceptions."""

import io
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError, Preferences
from coarsenrank_core.io import (
    FORMATS,
    detect_format,
    example_file,
    read_preferences,
    read_truth,
)
from coarsenrank_core.io import UNEXPECTED as _UNEXPECTED
from coarsenrank_core.io.assembly import tidy_name

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read(text: str, fmt: str = "auto") -> Preferences:
    return read_preferences(text.encode("utf-8"), fmt)


def fails(text, fmt: str = "auto", truth_of: Preferences | None = None) -> PreferenceFormatError:
    """The PreferenceFormatError raised for ``text`` (which must not be the safety net's)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    with pytest.raises(PreferenceFormatError) as info:
        if truth_of is None:
            read_preferences(data, fmt)
        else:
            read_truth(data, truth_of)
    assert not info.value.reason.startswith(_UNEXPECTED), info.value
    return info.value


def rankers_of(prefs: Preferences):
    return None if prefs.rankers is None else [prefs.ranker_names[r] for r in prefs.rankers]


def same(a: Preferences, b: Preferences) -> bool:
    return (a.to_lists(names=True) == b.to_lists(names=True) and rankers_of(a) == rankers_of(b)
            and a.weights.tolist() == b.weights.tolist())


# ---------------------------------------------------------------------------- formats, examples
def test_format_registry_describes_every_layout():
    assert set(FORMATS) == {"wide", "long", "pairwise", "preflib", "ranks", "cell", "blt",
                            "pgn", "condorcet"}
    assert all(len(f.description.split()) > 30 for f in FORMATS.values())
    assert all(f.extensions and f.title and f.example for f in FORMATS.values())


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_example_file_reads_back_and_is_detected(fmt):
    data = example_file(fmt)
    assert isinstance(data, bytes)
    assert detect_format(data) == fmt
    explicit, auto = read_preferences(data, format=fmt), read_preferences(data)
    assert same(explicit, auto) and explicit == auto
    # the notes allowed: the ranks example (a Google Forms grid) ties two places on
    # purpose, which a form usually lets happen by mistake, so the read names that row; the
    # ballots that list only some candidates say how they are read
    assert len(auto) >= 3 and (auto.has_ties or fmt == "cell")
    assert all(note.startswith("1 row gives the same place") or "list only some" in note
               for note in auto.notes)
    assert bool(auto.notes) == (fmt in ("ranks", "preflib", "blt"))
    assert "margherita" in auto.item_names


def test_example_contents():
    wide = read_preferences(example_file("wide"))
    assert wide.to_lists(names=True)[1] == ["funghi", frozenset({"margherita", "hawaii"})]
    assert wide.ranker_names == ("alice", "bob", "carol", "dave")
    preflib = read_preferences(example_file("preflib"))
    assert preflib.weights.tolist() == [3, 2, 1]
    pairwise = read_preferences(example_file("pairwise"))
    assert pairwise.to_lists(names=True)[:3] == [["margherita", "funghi"], ["funghi", "hawaii"],
                                                 ["quattro formaggi", "hawaii"]]
    with pytest.raises(PreferenceFormatError):
        example_file("xlsx")


# ---------------------------------------------------------------------------- wide
def test_wide_with_header_ranker_ties_and_blank_cells():
    prefs = read("Voter,1st,2nd,3rd\nann, tea ,coffee|milk,\nbob,coffee,tea,water\n")
    assert prefs.to_lists(names=True) == [["tea", frozenset({"coffee", "milk"})],
                                          ["coffee", "tea", "water"]]
    assert prefs.item_names == ("tea", "coffee", "milk", "water")  # first appearance
    assert rankers_of(prefs) == ["ann", "bob"]
    assert prefs.to_lists() == [[0, frozenset({1, 2})], [1, 0, 3]]


@pytest.mark.parametrize("header", ["rank1,rank2,rank3", "1st,2nd,3rd", "first,second,third",
                                    "Rank 1,Rank 2,Rank 3", "choice_1,choice_2,choice_3",
                                    "1,2,3"])
def test_wide_header_variants_are_recognised(header):
    prefs = read(f"{header}\na,b,c\nc,a\n")
    assert prefs.to_lists(names=True) == [["a", "b", "c"], ["c", "a"]]


def test_wide_first_row_of_numbers_is_data_when_items_are_numbers():
    prefs = read("1,2,3\n3,01,1\n")
    assert prefs.to_lists(names=True) == [["1", "2", "3"], ["3", "01", "1"]]
    assert prefs.item_names == ("1", "2", "3", "01")
    assert not prefs.has_rankers


def test_wide_weight_column():
    prefs = read("count,1st,2nd\n3,a,b\n,b,a\n0.5,a,b\n")
    assert prefs.weights.tolist() == [3.0, 1.0, 0.5]
    error = fails("count,1st,2nd\nmany,a,b\n")
    assert (error.row, error.column) == (2, "count") and "'many'" in error.reason


def test_wide_skips_one_item_rows_with_a_note_and_blank_rows_silently():
    text = "a,b,c\n\nd\n,,\ne,f\n,g,\nh,i\n"
    prefs = read(text)
    assert prefs.to_lists(names=True) == [["a", "b", "c"], ["e", "f"], ["h", "i"]]
    # a name seen only in those rows ('Total' under a column, or one lone answer) is no
    # item: kept, it would be ranked by the prior alone, last under PL-EM's
    assert prefs.notes == ("Skipped 2 rows with fewer than 2 items: rows 3, 6",
                           "Left out 2 names found only in those rows, never beside another "
                           "item: 'd', 'g'")
    assert prefs.item_names == ("a", "b", "c", "e", "f", "h", "i")


def test_wide_duplicate_item_names_both_cells():
    error = fails("voter,1st,2nd,3rd\nann,a,b,c\nbob,a,b,a\n")
    assert (error.row, error.column) == (3, "3rd")
    assert "'a'" in error.reason and "'1st'" in error.reason and "'3rd'" in error.reason
    headerless = fails("x,y\nb,a|b\n")
    assert (headerless.row, headerless.column) == (2, "2")
    assert "column '1'" in headerless.reason
    same_cell = fails("x,y|y\n")
    assert "same cell" in same_cell.reason


def test_wide_blank_ranker_among_named_ones_is_a_ranker_of_its_own():
    prefs = read("ranker,1st,2nd\nann,a,b\n,b,a\nann,a,b\n")
    assert rankers_of(prefs) == ["ann", "(row 3)", "ann"]
    assert any("name no one in 'ranker'" in n for n in prefs.notes)
    assert not read("ranker,1st,2nd\n,a,b\n,b,a\n").has_rankers


def test_wide_rows_of_single_values_give_a_hint_about_separators():
    error = fails("a\nb\n")
    assert "two or more items" in error.reason and "commas" in error.fix


def test_space_separated_rows_are_one_ranking_per_cell():
    assert read("1 2 3\n2 1 3\n").to_lists(names=True) == [["1", "2", "3"], ["2", "1", "3"]]


def test_wide_refuses_a_long_header_when_chosen_explicitly():
    error = fails("ranker,item,rank\nu,a,1\n", fmt="wide")
    assert "'long'" in error.fix and error.row == 1


def test_names_are_kept_literally():
    risky = ["<img src=x onerror=alert(1)>", "=SUM(A1:A2)", "@cmd", "  spaced out  ", "007"]
    wide = read(",".join(f'"{r}"' for r in risky) + "\n")
    assert wide.item_names == ("<img src=x onerror=alert(1)>", "=SUM(A1:A2)", "@cmd",
                               "spaced out", "007")
    formula = "=cmd|' /C calc'!A0"
    long = read(f'ranker,item,rank\nu,"{formula}",1\nu,"<b>x</b>",2\n')
    assert long.item_names == (formula, "<b>x</b>")
    pairs = read(f'winner,loser\n"{formula}",b\n')
    assert pairs.item_names == (formula, "b")


# ---------------------------------------------------------------------------- long
def test_long_ties_and_non_consecutive_ranks():
    prefs = read("user,item,rank\nu,c,7\nu,a,1\nu,b,3\nv,b,2\nv,a,2\nv,d,5\n")
    assert prefs.to_lists(names=True) == [["a", "b", "c"], [frozenset({"a", "b"}), "d"]]
    assert prefs.item_names == ("c", "a", "b", "d")
    assert rankers_of(prefs) == ["u", "v"]


def test_long_list_column_separates_lists_of_one_ranker():
    text = "Worker ID,Task,item,rank\nw1,t1,a,1\nw1,t1,b,2\nw1,t2,b,1\nw1,t2,a,2\nw2,t1,a,1\n" \
           "w2,t1,c,2\n"
    prefs = read(text)
    assert prefs.to_lists(names=True) == [["a", "b"], ["b", "a"], ["a", "c"]]
    assert rankers_of(prefs) == ["w1", "w1", "w2"]
    without = text.replace("Worker ID,Task,", "Worker ID,").replace(",t1,", ",").replace(
        ",t2,", ",")
    error = fails(without)  # without the list column, w1's two lists merge into one
    assert error.row == 4 and "'b'" in error.reason


@pytest.mark.parametrize("rank,found", [("x", "'x'"), ("1.5", "'1.5'"), ("0", "'0'"),
                                        ("-2", "'-2'"), ("", "a blank cell"),
                                        ("inf", "'inf'")])
def test_long_bad_ranks_name_row_and_column(rank, found):
    error = fails(f"ranker,item,Rank\nu,a,1\n\nu,b,{rank}\n")
    assert (error.row, error.column) == (4, "Rank")
    assert found in error.reason and "whole number" in error.reason
    assert error.fix


def test_long_accepts_integral_decimals_as_ranks():
    assert read("ranker,item,rank\nu,a,2.0\nu,b,1\n").to_lists(names=True) == [["b", "a"]]


def test_long_duplicate_item_in_one_list_names_both_rows():
    error = fails("ranker,item,rank\nu,a,1\nu,b,2\nv,a,1\nu,a,3\n")
    assert (error.row, error.column) == (5, "item")
    assert "rows 2 and 5" in error.reason


def test_long_weight_must_be_constant_within_a_list():
    prefs = read("ranker,item,rank,weight\nu,a,1,2\nu,b,2,2\nv,b,1,0.5\nv,a,2,0.5\n")
    assert prefs.weights.tolist() == [2.0, 0.5]
    error = fails("ranker,item,rank,count\nu,a,1,2\nu,b,2,3\n")
    assert (error.row, error.column) == (3, "count") and "row 2" in error.reason
    negative = fails("ranker,item,rank,count\nu,a,1,-1\nu,b,2,-1\n")
    assert negative.row == 2 and "positive" in negative.reason


def test_long_without_ranker_or_list_column():
    error = fails("item,rank\na,1\nb,2\n")
    assert "ranker" in error.fix and "ground truth" in error.fix


def test_long_skips_one_item_lists_and_notes_ignored_columns():
    prefs = read("ranker,item,rank,comment\nu,a,1,x\nu,b,2,\nv,a,1,\nw,b,1,\nw,a,2,\n")
    assert prefs.to_lists(names=True) == [["a", "b"], ["b", "a"]]
    assert rankers_of(prefs) == ["u", "w"]
    assert prefs.notes == ("Ignored the columns 'comment'",
                           "Skipped 1 ranking with fewer than 2 items: row 4")


def test_long_row_with_more_values_than_the_header():
    error = fails("ranker,item,rank\nu,a,1\nu,Smith, J,2\n")
    assert error.row == 3 and error.column == "4" and "quote" in error.fix


def test_long_blank_item():
    error = fails("ranker,item,rank\nu,,1\nu,b,2\n")
    assert (error.row, error.column) == (2, "item")


def test_canonical_csv_round_trip_with_rankers_weights_and_without():
    prefs = Preferences.from_lists([[0, 1, 2], [2, {0, 1}], [1, 0]], item_names=["x", "y", "z"],
                                   rankers=["r1", "r2", "r1"], weights=[1, 2.5, 3])
    back = read(prefs.to_csv())
    assert same(back, prefs) and back == prefs
    plain = Preferences.from_lists([[1, 0], [0, 1, 2]])
    again = read(plain.to_csv())
    assert same(again, plain) and not again.has_rankers
    assert again.item_names == ("1", "0", "2")  # numeric names stay text


# ---------------------------------------------------------------------------- pairwise
def test_pairwise_winner_loser_with_self_pairs_skipped():
    prefs = read("winner,loser,weight\na,b,2\nb,b,1\nc,a,1\nc,c,1\n")
    assert prefs.to_lists(names=True) == [["a", "b"], ["c", "a"]]
    assert prefs.weights.tolist() == [2.0, 1.0]
    assert prefs.notes == ("Skipped 2 rows comparing an item with itself: rows 3, 5",)
    assert prefs.is_pairwise


def test_pairwise_left_right_labels_and_ties():
    text = ("worker,left,right,label\nw1,a,b,a\nw1,a,b,b\nw2,b,c,Left\nw2,b,c,right\n"
            "w3,c,a,tie\nw3,a,c,DRAW\nw3,left,b,left\n")
    prefs = read(text)
    assert prefs.to_lists(names=True) == [
        ["a", "b"], ["b", "a"], ["b", "c"], ["c", "b"], [frozenset({"a", "c"})],
        [frozenset({"a", "c"})], ["left", "b"]]
    assert rankers_of(prefs) == ["w1", "w1", "w2", "w2", "w3", "w3", "w3"]
    assert prefs.item_names == ("a", "b", "c", "left")  # order of first appearance


def test_pairwise_arena_style_columns():
    prefs = read("model_a,model_b,winner\nx,y,model_b\nx,z,model_a\ny,z,tie (bothbad)\n")
    assert prefs.to_lists(names=True) == [["y", "x"], ["x", "z"], [frozenset({"y", "z"})]]


def test_pairwise_unknown_winner():
    error = fails("left,right,winner\na,b,a\na,b,c\n")
    assert (error.row, error.column) == (3, "winner")
    assert "'c'" in error.reason and "'a'" in error.reason and "'b'" in error.reason


def test_pairwise_headerless_when_chosen_explicitly():
    prefs = read("a,b\nb,c\n", fmt="pairwise")
    assert prefs.to_lists(names=True) == [["a", "b"], ["b", "c"]]
    error = fails("a,b,c\n", fmt="pairwise")
    assert "winner" in error.reason


def test_pairwise_blank_cell():
    error = fails("winner,loser\na,\n")
    assert (error.row, error.column) == (2, "loser")


# ---------------------------------------------------------------------------- PrefLib
CURRENT = """# FILE NAME: 00004-00000001.soi
# TITLE: Test
# DATA TYPE: soi
# NUMBER ALTERNATIVES: 5
# ALTERNATIVE NAME 1: Ann
# ALTERNATIVE NAME 2: Bob
# ALTERNATIVE NAME 3: Cy, Jr.
# ALTERNATIVE NAME 4: Dee
4: 1,2,3
2: 3, {1, 2} ,4
1: 2
3: {4,1},2
"""

OLD = "3\n1,Ann\n2,Bob, the second\n3,Cy\n6,6,2\n4,1,2,3\n2,3,{1,2}\n"


def test_preflib_current_format():
    prefs = read_preferences(CURRENT.encode())
    assert prefs.item_names == ("Ann", "Bob", "Cy, Jr.", "Dee", "5")
    assert prefs.to_lists(names=True) == [["Ann", "Bob", "Cy, Jr."],
                                          ["Cy, Jr.", frozenset({"Ann", "Bob"}), "Dee"],
                                          [frozenset({"Ann", "Dee"}), "Bob"]]
    assert prefs.weights.tolist() == [4, 2, 3]
    assert prefs.notes == ("Skipped 1 order with fewer than 2 items: row 11",
                           "9 of the 9 orders read list only some of the 5 items: each is read "
                           "as a ranking of those it lists, so one it leaves off is not placed "
                           "below them (as an election count would place it), and an order "
                           "listing one alone is left out")


def test_preflib_old_format():
    prefs = read_preferences(OLD.encode())
    assert prefs.item_names == ("Ann", "Bob, the second", "Cy")
    assert prefs.to_lists() == [[0, 1, 2], [2, frozenset({0, 1})]]
    assert prefs.weights.tolist() == [4, 2]
    assert detect_format(OLD.encode()) == "preflib"


def test_preflib_detected_by_extension(tmp_path):
    body = b"1: 1,2\n2: 2,3,1\n"  # no header lines: only the extension says PrefLib
    path = tmp_path / "votes.TOC"
    path.write_bytes(body)
    assert detect_format(path) == "preflib" and detect_format(str(path)) == "preflib"
    assert read_preferences(path).to_lists() == [[0, 1], [1, 2, 0]]
    upload = io.BytesIO(body)
    upload.name = "votes.soi"
    assert read_preferences(upload).weights.tolist() == [1, 2]
    assert detect_format(body) == "wide"


@pytest.mark.parametrize("line,words", [("2: 1,7", "between 1 and 5"),
                                        ("2: 1,2,1", "appears twice"),
                                        ("x: 1,2", "'x'"),
                                        ("0: 1,2", "'0'"),
                                        ("2: 1,{2,3", "braces"),
                                        ("2: 1,two", "'two'"),
                                        ("just words", "colon")])
def test_preflib_errors_name_the_line(line, words):
    error = fails(CURRENT + line + "\n", fmt="preflib")
    assert error.row == 13 and words in str(error)


def test_preflib_declared_size_and_unknown_start():
    error = fails("# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 3: C\n1: 1,2\n")
    assert error.row == 2 and "only 2" in error.reason
    error = fails("a,b\n", fmt="preflib")
    assert error.row == 1 and "PrefLib" in error.reason
    error = fails("# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 3\n")
    assert "no orders" in error.reason
    error = fails(CURRENT, fmt="long")
    assert "'preflib'" in error.fix


# ---------------------------------------------------------------------------- input problems
@pytest.mark.parametrize("data", [b"", b"   \n\t \r\n\n"])
def test_empty_file(data):
    assert fails(data).reason == "The file is empty."
    for fmt in FORMATS:
        assert "empty" in fails(data, fmt).reason
    with pytest.raises(PreferenceFormatError, match="empty"):
        detect_format(data)


@pytest.mark.parametrize("text", ["a\na\n\na\n", "voter,1st,2nd\nann,a,\n",
                                  "winner,loser\na,a\n", "ranker,item,rank\nu,a,1\nv,a,1\n",
                                  "# ALTERNATIVE NAME 1: a\n3: 1\n"])
def test_a_file_with_only_one_item(text):
    error = fails(text)
    assert "only one item in total ('a')" in error.reason


@pytest.mark.parametrize("text", ["rank1,rank2,rank3\n", "voter,1st,2nd\n\n",
                                  "ranker,item,rank\n", "winner,loser\n",
                                  "left,right,label\n"])
def test_header_only_file(text):
    error = fails(text)
    assert error.reason == "The file has a header but no rows below it." and error.row == 1


@pytest.mark.parametrize("text,bad_row", [("a,b\nc;d\n", 2), ("a;b\nc;d\ne,f\ng;h\n", 3),
                                          ("a\tb\nc\td\ne;f\n", 3),
                                          ("a,b\nc,d\n\ne;f\ng,h\n", 4)])
def test_mixed_delimiters_name_the_first_offending_row(text, bad_row):
    error = fails(text)
    assert error.row == bad_row and "separates its values" in error.reason


def test_delimiter_sniffing():
    expected = [["a", "b", "c"], ["c", "a"]]
    assert read("1st;2nd;3rd\na;b;c\nc;a\n").to_lists(names=True) == expected
    assert read("1st\t2nd\t3rd\na\tb\tc\nc\ta\n").to_lists(names=True) == expected
    assert read('"a;1",b\nb,"a;1"\n').item_names == ("a;1", "b")
    assert read("ranker;item;rank\nu;a,b;1\nu;c;2\n").item_names == ("a,b", "c")


def test_row_numbers_count_blank_lines_and_multi_line_cells():
    error = fails('ranker,item,rank\n\n"u\nv",a,1\n\nu,b,zero\n')
    assert error.row == 6  # the ranker's name over lines 3-4 is kept, and counted
    error = fails("ranker,item,rank\n\nu,a,1\n\n\nu,b,zero\n")
    assert error.row == 6


def test_unclosed_quote():
    error = fails('a,b\n"c,d\ne,f\n')
    assert error.row == 2 and "quote" in error.reason
    huge = fails('a,b\nc,"' + "x" * 140_000 + "\n")
    assert huge.row == 2 and "quote" in huge.reason


def test_old_mac_line_endings_and_long_skip_notes():
    assert read("1st,2nd\ra,b\rb,a\r").to_lists(names=True) == [["a", "b"], ["b", "a"]]
    prefs = read("a,b\n" + "".join(f"x{i}\n" for i in range(12)))
    assert prefs.notes == ("Skipped 12 rows with fewer than 2 items: rows 2, 3, 4, 5, 6, 7, 8, "
                           "9, 10, 11, ... (2 more)",
                           "Left out 12 names found only in those rows, never beside another "
                           "item: 'x0', 'x1', 'x2', 'x3', 'x4' (and 7 more)")


@pytest.mark.parametrize("text,words", [("item,score\na,1\nb,2\n", "ground truth"),
                                        ("left,right\na,b\n", "winner"),
                                        ("winner,points\na,3\n", "loser"),
                                        ("ranker,item\nu,a\n", "'rank'"),
                                        ("rank,ranker\n1,u\n", "'item'")])
def test_unknown_layout(text, words):
    with pytest.raises(PreferenceFormatError) as info:
        detect_format(text.encode())
    assert "not recognised" in info.value.reason and words in info.value.reason
    assert info.value.row == 1 and "wide" in info.value.fix
    assert fails(text).reason == info.value.reason


def test_unknown_layout_can_still_be_read_as_wide_when_chosen():
    assert read("left,right\nup,down\n", fmt="wide").to_lists(names=True) == [
        ["left", "right"], ["up", "down"]]


def test_binary_and_spreadsheet_files():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    xlsx = fails(buffer.getvalue())
    assert "Excel" in xlsx.reason and "CSV" in xlsx.fix
    xls = fails(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
    assert "Excel" in xls.reason
    nul = fails(b"a,b\nc,\x00d\n")
    assert "binary" in nul.reason and "Save As" in nul.fix
    padded = fails(b"3,1,2,0\n1,2,0,0\n")  # MATLAB's zero padding, as CSV
    assert padded.row == 2 and "most likely padding" in padded.reason
    assert "blank instead of 0" in padded.fix
    # the paper's own data came as MATLAB files: named, with a way out that reads
    mat = fails(b"MATLAB 5.0 MAT-file, Platform: PCWIN64" + bytes(100) + b"\x0e\x00")
    assert "MATLAB data file" in mat.reason and "blank cell (not 0)" in mat.fix
    control = fails(b"a,b\nc,\x07d\n")
    assert control.row == 2 and "U+0007" in control.reason
    with pytest.raises(PreferenceFormatError, match="Excel"):
        detect_format(buffer.getvalue())
    with pytest.raises(PreferenceFormatError, match="Excel"):
        read_truth(buffer.getvalue(), read("a,b\n"))


def test_encodings_are_detected():
    text = "voter,1st,2nd\nzoë,crème brûlée,café\nbob,café,€uro\n"
    expected = read(text)
    for data in (text.encode("utf-8-sig"), text.encode("utf-16"),
                 b"\xfe\xff" + text.encode("utf-16-be"), text.encode("cp1252")):
        assert read_preferences(data) == expected
    latin = read_preferences(text.replace("€", "¤").encode("latin-1"))
    assert latin.ranker_names == ("zoë", "bob") and latin.item_names[-1] == "¤uro"
    assert expected.ranker_names[0] == "zoë"  # the BOM does not stick to the header
    explicit = read_preferences(text.encode("cp1252"), encoding="cp1252")
    assert explicit == expected


def test_undecodable_text_and_bad_encodings():
    error = fails(b"a,b\nc,\x81d\n")  # not text in UTF-8, Windows-1252 or Latin-1
    assert error.row == 2 and "encoding" in error.reason
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(b"a,b\n\xe9,c\n", encoding="utf-8")
    assert info.value.row == 2 and "utf-8" in info.value.reason
    with pytest.raises(PreferenceFormatError, match="not a known text encoding"):
        read_preferences(b"a,b\n", encoding="klingon")
    with pytest.raises(PreferenceFormatError, match="UTF-16"):
        read_preferences(b"\xff\xfea\x00,\x00\x00\xd8")


def test_sources(tmp_path):
    data = b"1st,2nd\na,b\n"
    path = tmp_path / "ranks.csv"
    path.write_bytes(data)

    class Upload(io.BytesIO):  # what Streamlit's UploadedFile looks like
        name = "ranks.csv"

    upload = Upload(data)
    upload.read()  # getvalue() must not depend on the read position
    expected = read_preferences(data)
    for source in (path, str(path), upload, io.BytesIO(data), io.StringIO(data.decode()),
                   bytearray(data), memoryview(data)):
        assert read_preferences(source) == expected
    missing = fails_source(tmp_path / "nope.csv")
    assert "no file" in missing.reason
    assert "bytes" in fails_source("a,b\nc,d").fix
    assert read_preferences(tmp_path) == expected  # a folder: its files as one collection
    (tmp_path / "empty").mkdir()
    assert "folder" in fails_source(tmp_path / "empty").reason
    assert "int" in fails_source(42).reason
    with pytest.raises(PreferenceFormatError, match="not a known format"):
        read_preferences(data, format="excel")


def fails_source(source) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(source)
    return info.value


# ---------------------------------------------------------------------------- ground truth
PIZZA = read_preferences(example_file("wide"))  # margherita, funghi, hawaii, quattro formaggi


@pytest.mark.parametrize("text", ["item,score\nmargherita,3\nfunghi,2.5\n",
                                  "margherita,3\nfunghi,2.5\n",
                                  "3;margherita\n2.5;funghi\n",
                                  "Pizza,Rating\nmargherita,3\nfunghi,2.5\n",
                                  "doc,value\nmargherita,3\nfunghi,2.5\n",
                                  "what,how good\nmargherita,3\nfunghi,2.5\n",
                                  "margherita 3\nfunghi 2.5\n"])
def test_truth_item_and_score(text):
    truth = read_truth(text.encode(), PIZZA)
    assert truth.shape == (4,) and truth.dtype == float
    np.testing.assert_array_equal(truth, [3.0, 2.5, np.nan, np.nan])


def test_truth_item_and_rank_and_order():
    by_rank = read_truth(b"item,rank\nhawaii,2\nmargherita,1\n", PIZZA)
    np.testing.assert_array_equal(by_rank, [-1, np.nan, -2, np.nan])
    order = read_truth(b"hawaii\nmargherita\nquattro formaggi\nfunghi\n", PIZZA)
    assert [PIZZA.item_names[i] for i in np.argsort(-order)] == [
        "hawaii", "margherita", "quattro formaggi", "funghi"]
    titled = read_truth(b"Order\nhawaii\nmargherita\n", PIZZA)
    assert titled[2] > titled[0] and np.isnan(titled[1])


def test_truth_unknown_items_listed_with_row():
    text = "item,score\nmargherita,1\n" + "".join(f"pizza{i},{i}\n" for i in range(7))
    error = fails(text, truth_of=PIZZA)
    assert (error.row, error.column) == (3, "item")
    assert "7 items" in error.reason and "'pizza4'" in error.reason
    assert "'pizza5'" not in error.reason and "2 more" in error.reason
    assert "spelling" in error.fix
    one = fails("Margherita,1\n", truth_of=PIZZA)
    assert "1 item in the ground truth is not" in one.reason and "capital" in one.fix


def test_truth_duplicates_bad_scores_and_empty():
    duplicate = fails("item,score\nfunghi,1\nhawaii,2\nfunghi,3\n", truth_of=PIZZA)
    assert duplicate.row == 4 and "rows 2 and 4" in duplicate.reason
    bad = fails("item,score\nfunghi,1\nhawaii,good\n", truth_of=PIZZA)
    assert (bad.row, bad.column) == (3, "score") and "'good'" in bad.reason
    blank = fails("item,rank\nfunghi,\n", truth_of=PIZZA)
    assert "rank" in blank.reason and "blank" in blank.reason
    assert "header" in fails("item,score\n", truth_of=PIZZA).reason
    assert "empty" in fails(b" \n", truth_of=PIZZA).reason


# ---------------------------------------------------------------------------- properties
# canonical names: the readers store names in NFC form without invisible characters
NAME = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=6).filter(
    lambda s: s == s.strip() == tidy_name(s) and not (s[:1] == "'" and s[1:2] in "=+-@"))


@st.composite
def collections(draw):
    names = draw(st.lists(NAME, min_size=2, max_size=6, unique=True))
    n = draw(st.integers(1, 6))
    lists = []
    for _ in range(n):
        chosen = draw(st.permutations(range(len(names))))[:draw(st.integers(2, len(names)))]
        cuts = draw(st.lists(st.booleans(), min_size=len(chosen) - 1,
                             max_size=len(chosen) - 1))
        groups, current = [], [chosen[0]]
        for item, cut in zip(chosen[1:], cuts):
            if cut:
                groups.append(current)
                current = []
            current.append(item)
        groups.append(current)
        lists.append([g[0] if len(g) == 1 else frozenset(g) for g in groups])
    pool = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    rankers = draw(st.none() | st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    weights = draw(st.none() | st.lists(
        st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False), min_size=n, max_size=n))
    return Preferences.from_lists(lists, item_names=names, rankers=rankers, weights=weights)


@pytest.mark.slow  # 250 examples: fuzzing, not the fast loop
@FUZZ
@given(collections())
def test_property_canonical_csv_round_trips(prefs):
    back = read_preferences(prefs.to_csv().encode())
    assert same(back, prefs)
    assert back.has_rankers == prefs.has_rankers and not back.notes


def only_format_errors(task):
    try:
        result = task()
    except PreferenceFormatError as error:
        assert not error.reason.startswith(_UNEXPECTED), error
        assert isinstance(error.reason, str) and error.reason
        return None
    return result


@pytest.mark.slow  # 250 examples: fuzzing, not the fast loop
@FUZZ
@given(st.binary(max_size=400))
@example(b"!\n=")  # a ranking cell holding only a tie mark: no item, no crash
def test_property_random_bytes_never_escape(data):
    for fmt in ("auto", *FORMATS):
        result = only_format_errors(lambda f=fmt: read_preferences(data, f))
        assert result is None or isinstance(result, Preferences)
    only_format_errors(lambda: detect_format(data))
    only_format_errors(lambda: read_truth(data, PIZZA))


LINES = st.sampled_from([
    "ranker,item,rank", "voter,1st,2nd", "winner,loser", "worker,left,right,label",
    "left,right,winner", "item,score", "preference,ranker,weight,item,rank", "u,a,1", "u,b,2",
    "v,a,x", "a,b", "a|b,c", "b;a", "a\tb", "# DATA TYPE: soi", "# NUMBER ALTERNATIVES: 3",
    "# ALTERNATIVE NAME 1: a", "2: 1,{2,3}", "1: 3,1", "3", "1,a", "2,b", "3,c", "4,4,2",
    "2,1,{2,3}", "", ",,", '"x', "w,a,b,a", "w,a,b,tie", "margherita,1", "1,u,2,a,1",
    "funghi", "0: 1,2"])


@pytest.mark.slow  # 250 examples: fuzzing, not the fast loop
@FUZZ
@given(st.lists(LINES | st.text(",;\t|{}:#\"' ab1\n", max_size=12), min_size=0, max_size=8))
def test_property_structured_text_never_escapes(lines):
    data = "\n".join(lines).encode()
    for fmt in ("auto", *FORMATS):
        result = only_format_errors(lambda f=fmt: read_preferences(data, f))
        if result is not None:
            assert len(result) >= 1 and np.all(result.lengths >= 2)
            assert result.n_items == len(result.item_names)
    only_format_errors(lambda: read_truth(data, PIZZA))


@FUZZ
@given(st.text(max_size=300))
def test_property_random_text_never_escapes(text):
    for encoding in ("utf-8", "utf-16"):
        data = text.encode(encoding, errors="surrogatepass")
        only_format_errors(lambda d=data: read_preferences(d))


def test_readlevel_pairs_and_truth(data_dir):
    """The Readlevel comparisons as a crowd-kit CSV: 2 self-pairs skipped; truth for all 490."""
    rows = np.loadtxt(data_dir / "readlevel" / "read_data" / "all_pair.txt", dtype=str)
    text = "worker,left,right,label\n" + "".join(f"{w},{a},{b},{a}\n" for w, a, b in rows)
    prefs = read(text)
    assert len(prefs) == len(rows) - 2 and prefs.n_items == 490 and prefs.is_pairwise
    assert prefs.notes[0].startswith("Skipped 2 rows comparing an item with itself")
    truth = read_truth(data_dir / "readlevel" / "read_data" / "doc_info.txt", prefs)
    levels = dict(np.loadtxt(data_dir / "readlevel" / "read_data" / "doc_info.txt", dtype=str))
    assert np.isfinite(truth).all()
    assert all(truth[i] == float(levels[name]) for i, name in enumerate(prefs.item_names))


def test_names_differing_only_in_capitals_or_spaces_are_named_in_the_check():
    from coarsenrank_core.io import read_file

    result = read_file(b"judge,1st,2nd,3rd\na,Red,Blue,Green\nb,red,blue ,Green\n"
                       b"c,RED,Green,Blue\n")
    warning = result.report.warning or ""
    assert "differ only in capitals or spaces ('Red', 'red', 'RED')" in warning
    clean = read_file(b"judge,1st,2nd,3rd\na,Red,Blue,Green\nb,Blue,Red,Green\n")
    assert "capitals" not in (clean.report.warning or "")


@pytest.mark.parametrize("header", ["rater,item1,item2,choice", "rater,model_1,model_2,winner",
                                    "rater,option_a,option_b,selected",
                                    "rater,Photo A,Photo B,preferred"])
def test_two_numbered_sides_and_a_choice_column_are_pairwise(header):
    rows = ["r1,Cat,Dog,Dog", "r1,Dog,Fish,Fish", "r2,Cat,Fish,Fish", "r2,Cat,Dog,Cat"]
    prefs = read(header + "\n" + "\n".join(rows) + "\n")
    assert prefs.is_pairwise and prefs.has_rankers
    assert prefs.to_lists(names=True) == [["Dog", "Cat"], ["Fish", "Dog"], ["Fish", "Cat"],
                                          ["Cat", "Dog"]]


def test_numbered_columns_without_a_choice_stay_a_ranking():
    prefs = read("voter,item1,item2,item3\nv1,Cat,Dog,Fish\nv2,Dog,Cat,Fish\n")
    assert not prefs.is_pairwise
    assert prefs.to_lists(names=True)[0] == ["Cat", "Dog", "Fish"]


def test_a_true_order_of_names_with_spaces_is_not_split_into_item_and_score():
    prefs = read("r1,r2,r3\nFilm A,Film B,Film C\nFilm B,Film A,Film C\n")
    assert read_truth(b"Film C\nFilm A\nFilm B\n", prefs).tolist() == [2.0, 1.0, 3.0]
    other = read("r1,r2\nx,y\ny,x\n")
    error = fails(b"Film C\nFilm A\n", truth_of=other)
    assert "not in the preferences: 'Film C', 'Film A'" in error.reason
    assert read_truth(b"x 2\ny 1\n", other).tolist() == [2.0, 1.0]


def test_a_file_separated_by_vertical_bars_is_read_by_columns():
    text = "voter|first|second|third\nv1|Tea|Coffee|Juice\nv2|Coffee|Tea\nv3|Tea|Juice|Coffee\n"
    prefs = read(text)
    assert prefs.ranker_names == ("v1", "v2", "v3")
    assert prefs.to_lists(names=True)[1] == ["Coffee", "Tea"]
    # a bar inside a comma file, or in a '>' list, still ties items
    tied = read("voter,first,second\nv1,Tea|Coffee,Juice\nv2,Juice,Tea\n")
    assert tied.has_ties and "Tea|Coffee" not in tied.item_names
    cells = read("ranking\nTea > Coffee|Juice\nJuice > Tea > Coffee\n")
    assert sorted(cells.item_names) == ["Coffee", "Juice", "Tea"]


def test_a_header_pasted_again_below_is_refused_naming_its_row():
    text = ("voter,first,second,third\nv1,Tea,Coffee,Juice\nv2,Coffee,Tea,Juice\n"
            "voter,first,second,third\nv3,Tea,Juice,Coffee\n")
    error = fails(text)
    assert error.row == 4 and "repeats the first row's column titles" in error.reason
    # rows of data that repeat the first row of a file without titles are answers
    assert len(read("Tea,Coffee,Juice\nCoffee,Tea,Juice\nTea,Coffee,Juice\n")) == 3


@pytest.mark.parametrize("places", ["1st,2nd,3rd",
                                    "1st place votes,2nd place votes,3rd place votes"])
def test_a_summary_of_counts_per_place_is_refused(places):
    text = f"Option,{places}\nPizza,2,1,0\nSushi,1,1,1\nTacos,0,1,2\n"
    error = fails(text)
    assert error.row == 1 and "summary of how many people put each option" in error.reason
    # numbered items in order, one ranking per row, are read
    assert read("voter,1st,2nd,3rd\nv1,3,1,2\nv2,1,3,2\n").to_lists(names=True)[0] == \
        ["3", "1", "2"]


def test_json_rankings_with_a_null_a_tie_group_or_ranks_by_item_are_read():
    with_null = read('[{"r":["A",null,"C"]},{"r":["B","A"]},{"r":["C","A"]}]')
    assert with_null.to_lists(names=True)[0] == ["A", "C"]
    tie = read('[{"r":[["A","B"],"C"]},{"r":["C","A","B"]},{"r":["B","C","A"]}]')
    assert tie.has_ties and len(tie) == 3
    assert tie.to_lists(names=True)[0][-1] == "C"
    by_rank = read('[{"judge":"x","ranking":{"A":1,"B":2,"C":3}},'
                   '{"judge":"y","ranking":{"C":1,"A":2,"B":2}}]')
    assert by_rank.to_lists(names=True)[0] == ["A", "B", "C"]
    assert by_rank.has_ties and by_rank.ranker_names == ("x", "y")


@pytest.mark.parametrize("title", ["who", "Who", "Juror", "Taster", "Reviewer", "Pupil"])
def test_common_titles_for_who_answered_name_the_ranker(title):
    prefs = read(f"{title},1st,2nd,3rd\nStudent number 0 with a long name,a,b,c\n"
                 "Student number 1 with a long name,b,a,c\n")
    assert prefs.ranker_names == ("Student number 0 with a long name",
                                  "Student number 1 with a long name")


def test_titled_columns_that_never_share_a_value_are_not_read_as_rankings():
    facts = "Name,Class,Team\nAmy,3B,Red\nBen,3C,Blue\nCy,3B,Green\n"
    error = fails(facts)
    assert error.row == 1 and "never share a value" in error.reason
    # unanimous rankings under titles that are not places are still rankings
    same = read("voter,Top pick,Runner-up\nv1,Tea,Coffee\nv2,Tea,Coffee\nv3,Tea,Coffee\n")
    assert same.to_lists(names=True)[0] == ["Tea", "Coffee"]
    mixed = read("voter,Top pick,Runner-up\nv1,Tea,Coffee\nv2,Coffee,Tea\nv3,Tea,Juice\n")
    assert len(mixed) == 3


@pytest.mark.parametrize("head", ["Candidate 1,Candidate 2", "Q5_1,Q5_2", "Pick 1st,Pick 2nd"])
def test_a_numbered_series_of_titles_is_places_even_when_its_columns_share_no_value(head):
    # found by hypothesis: every voter's second choice was the same item, so the two place
    # columns held no value in common; one title numbered is one question's places
    prefs = read(f"{head}\nHawaii,Funghi\nDiavola,Funghi\nHawaii,Funghi\nDiavola,Funghi\n")
    assert prefs.to_lists(names=True)[:2] == [["Hawaii", "Funghi"], ["Diavola", "Funghi"]]


def test_columns_that_vary_in_one_place_only_are_still_read_as_rankings():
    prefs = read("voter,Top pick,Runner-up\nv1,Tea,Coffee\nv2,Juice,Coffee\nv3,Tea,Coffee\n")
    assert prefs.to_lists(names=True)[1] == ["Juice", "Coffee"]
