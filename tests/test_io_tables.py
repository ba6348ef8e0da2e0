"""io.tables: text to a table of cells (separator, fast and slow parses, chunks of lines)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io.tables import (
    MAX_COLUMNS,
    Table,
    choose_delimiter,
    line_chunks,
    numeric_rows,
    padded,
    scalar_text,
    split_fast,
    split_table,
)

CELL = st.text(alphabet="abcxyz019 éß", min_size=1, max_size=6).map(str.strip).filter(bool)


@pytest.mark.parametrize("head, delimiter", [("a,b\nc,d\n", ","), ("a;b\nc;d\n", ";"),
                                             ("a\tb\nc\td\n", "\t"), ("a;b,c\nd;e\n", ";"),
                                             ("abc\n", ",")])
def test_choose_delimiter(head, delimiter):
    assert choose_delimiter(head) == delimiter


def test_split_table_skips_blank_lines_and_keeps_line_numbers():
    table = split_table("a, b\n\n c ,d\n,\n e,f\n")
    assert table.cells.tolist() == [["a", "b"], ["c", "d"], ["e", "f"]]
    assert table.lines.tolist() == [1, 3, 5]
    assert table.row(0) == ["a", "b"] and len(table) == 3 and table.width == 2


@given(st.lists(st.lists(CELL, min_size=1, max_size=5), min_size=1, max_size=8),
       st.sampled_from([",", ";", "\t"]))
def test_fast_and_slow_parses_agree(rows, delimiter):
    text = "\n".join(delimiter.join(r) for r in rows) + "\n"
    table = split_table(text)
    expected = Table.from_rows(rows, range(1, len(rows) + 1), table.delimiter)
    assert table.rows == expected.rows
    assert table.lines.tolist() == expected.lines.tolist()


def _filled_cells(rows) -> list[tuple[str, ...]]:
    """The records with a non-empty cell, stripped, without their empty trailing cells."""
    out = []
    for row in rows:
        cells = [c.strip() for c in row]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            out.append(tuple(cells))
    return out


@given(st.lists(st.lists(st.text(alphabet='ab,"\r\n ', max_size=4), min_size=1, max_size=6),
                min_size=1, max_size=6),
       st.sampled_from(["\n", "\r\n", "\r"]))
@example([["a", '"\n"', "", "b"], ["a", ""], ['\ra"', ""]], "\n")
def test_the_fast_parse_never_drops_a_cell_the_csv_module_reads(rows, newline):
    """A quoted line break makes a record wider than its first line: the fast parse then
    hands the text on instead of cutting the record at the first line's width."""
    text = newline.join(",".join(r) for r in rows)
    if "\n" not in text:  # as split_table does before the fast parse
        text = text.replace("\r", "\n")
    if not text.strip():
        return
    try:
        table = split_fast(text, ",")
    except PreferenceFormatError:
        return
    if table is not None:
        oracle = list(csv.reader(io.StringIO(text, newline=""), delimiter=","))
        assert _filled_cells(table.rows) == _filled_cells(oracle)


def test_a_quoted_cell_over_several_lines_is_kept_whole_and_an_unclosed_one_refused():
    table = split_table('a,b\n"c\nd",e\nf,g\n')  # a comment typed over two lines
    assert table.row(1) == ["c\nd", "e"] and list(table.lines) == [1, 2, 4]
    with pytest.raises(PreferenceFormatError, match="never closed") as info:
        split_table('a,b\n"c,d\ne,f\n')
    assert info.value.row == 2


def test_a_row_with_another_separator_is_refused():
    with pytest.raises(PreferenceFormatError, match="semicolons"):
        split_table("a,b\nc,d\ne;f\n")


def test_too_many_columns_are_refused():
    with pytest.raises(PreferenceFormatError, match="columns can be read"):
        split_fast("," * MAX_COLUMNS + "\n", ",")


def test_padded_pads_and_refuses_extra_values():
    table = Table.from_rows([["a", "b", "c"], ["x"], ["y", "z"]], [1, 2, 3], ",")
    assert padded(table, ["a", "b", "c"], 1).tolist() == [["x", "", ""], ["y", "z", ""]]
    with pytest.raises(PreferenceFormatError, match="extra value is 'z'"):
        padded(table, ["a"], 1)


def test_numeric_rows():
    values, lines = numeric_rows("1,2\n\n3,\n", ",")
    assert lines.tolist() == [1, 3]
    assert np.array_equal(values, [[1, 2], [3, np.nan]], equal_nan=True)
    assert numeric_rows("1,x\n", ",") is None
    assert numeric_rows('"1",2\n', ",") is None


@given(st.lists(st.text(alphabet="ab ", max_size=5), max_size=30), st.integers(1, 12))
def test_line_chunks_cover_the_text_at_line_ends(lines, size):
    text = "\n".join(lines)
    pieces = list(line_chunks(text, size=size))
    assert "".join(p for p, _ in pieces) == text
    before = 0
    for piece, lines_before in pieces:
        assert lines_before == before
        before += piece.count("\n")
    assert all(p.endswith("\n") for p, _ in pieces[:-1])


@pytest.mark.parametrize("value, text", [(True, "TRUE"), (False, "FALSE"), (3.0, "3"),
                                         (2.5, "2.5"), (float("inf"), "inf"), ("x", None),
                                         (7, None)])
def test_scalar_text(value, text):
    assert scalar_text(value) == text


@pytest.mark.parametrize("rows", [
    [["a", "b"], ["c", "d"], ["e", "f"]],
    [["a"], ["b", "c", "d"], ["e", "f"], ["g"]],
    [["only"]],
    [],
])
def test_a_table_of_values_one_record_after_another_is_the_table_of_its_records(rows):
    flat = [cell for row in rows for cell in row]
    lines = [2 * k + 1 for k in range(len(rows))]
    made, expected = (Table.from_flat(flat, [len(row) for row in rows], lines, ","),
                      Table.from_rows(rows, lines, ","))
    assert made.cells.shape == expected.cells.shape and made.cells.dtype == object
    assert made.cells.tolist() == expected.cells.tolist()
    assert made.lines.tolist() == expected.lines.tolist() and made.lines.dtype == np.int64
    assert made.head_widths == expected.head_widths


def test_split_table_memory_stays_near_the_text(monkeypatch):
    """A long pairwise file with ranker ids is split without copies of eight or four bytes
    per character (an int64 mask of the file, a StringIO of it): the traced peak stays
    within four times the text (it was about eleven times)."""
    import tracemalloc

    from coarsenrank_core.io import tables

    monkeypatch.setattr(tables, "_PADDING_BYTES", 1 << 16)  # chunks smaller than the text
    rng = np.random.default_rng(0)
    n = 60_000
    r, a, b = rng.integers(0, 2000, n), rng.integers(0, 300, n), rng.integers(0, 300, n)
    text = "rater,winner,loser\n" + "".join(
        f"rater {x},item {y},item {z}\n" for x, y, z in zip(r, a, b))
    tracemalloc.start()
    try:
        table = split_table(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert table.cells.shape == (n + 1, 3) and table.cells[1, 0] == f"rater {r[0]}"
    assert peak < 4 * len(text), peak / len(text)


@pytest.mark.parametrize("text", ["a,b\n c,d \n", "a,b\nc,d", "a, b\nc,d\n \n", "x,y\n\"q\",r\n",
                                  "a,b\nc,d \n"])
def test_split_fast_padding_found_in_chunks(monkeypatch, text):
    """The chunked white-space check finds padding across chunk edges as the whole-text
    check does."""
    from coarsenrank_core.io import tables

    whole = split_table(text)
    monkeypatch.setattr(tables, "_PADDING_BYTES", 2)
    chunked = split_table(text)
    assert (whole.cells == chunked.cells).all() and (whole.lines == chunked.lines).all()


def test_factorized_cells_keep_four_byte_codes():
    """Every table's distinct cells are hashed once and kept with it: int32 codes, half
    the memory of pandas' int64, still ``cells == uniques[codes]``."""
    table = split_table("a,b\nc,a\nb,c\n")
    codes, uniques = table.factorized
    assert codes.dtype == np.int32
    assert (uniques[codes] == table.cells).all()


@pytest.mark.parametrize("text", ['a,b\n""\nc,d\n', 'a,b\n"",""\n" "\nc,d\n',
                                  'tea,coffee,,\ncoffee\n""\n""\n'])
def test_a_record_of_quoted_blanks_is_a_blank_line_to_both_parses(text):
    from coarsenrank_core.io.tables import _split_slow

    fast, slow = split_fast(text, ","), _split_slow(text, ",")
    assert fast is not None
    assert fast.cells.tolist() == slow.cells.tolist() and fast.lines.tolist() == slow.lines.tolist()
    assert all(any(row) for row in fast.cells.tolist())


def test_quoted_blank_rows_under_a_short_first_row_read_instead_of_failing():
    from coarsenrank_core.io import read_preferences

    # hypothesis found this: the blank rows were kept, and the pairwise-matrix check indexed
    # a row of no cells
    read = read_preferences(b'tea,coffee,,\ncoffee\n""\n""\n')
    assert read.to_lists(names=True) == [["tea", "coffee"]]
