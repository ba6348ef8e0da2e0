"""Parquet, Arrow and Feather files read as their CSV twins: same layout, items and report."""

import dataclasses
import io
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import FORMATS, read_file
from coarsenrank_core.io.arrow import arrow_table, is_arrow

pa = pytest.importorskip("pyarrow", reason="pyarrow is a declared dependency (requirements.txt)")
import pyarrow.csv as pacsv  # noqa: E402
import pyarrow.feather as feather  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

TABLE_FORMATS = [f.id for f in FORMATS.values() if f.table]


def _as_strings(text: str):
    """The CSV as an Arrow table of string columns (its first row the column names)."""
    options = pacsv.ConvertOptions(strings_can_be_null=False, column_types=None)
    table = pacsv.read_csv(io.BytesIO(text.encode()), convert_options=options)
    return table.cast(pa.schema([(name, pa.string()) for name in table.column_names]))


def _written(table, kind: str) -> bytes:
    sink = io.BytesIO()
    if kind == "parquet":
        pq.write_table(table, sink)
    elif kind == "feather":
        feather.write_feather(table, sink)
    else:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    return sink.getvalue()


def _same(a, b):
    assert a.preferences.to_lists(names=True) == b.preferences.to_lists(names=True)
    assert a.preferences.ranker_names == b.preferences.ranker_names
    np.testing.assert_array_equal(a.preferences.weights, b.preferences.weights)
    assert dataclasses.replace(a.report, file_name=None, notes=()) == dataclasses.replace(
        b.report, file_name=None, notes=())


@pytest.mark.parametrize("kind", ["parquet", "feather", "arrow"])
@pytest.mark.parametrize("layout", TABLE_FORMATS)
def test_every_table_layout_reads_from_parquet_and_arrow_as_from_csv(layout, kind):
    text = FORMATS[layout].example
    try:
        table = _as_strings(text)
    except pa.ArrowInvalid:
        pytest.skip(f"the {layout} example has rows of different widths: no Arrow twin")
    data = _written(table, kind)
    assert is_arrow(data)
    from_csv, from_arrow = read_file(text.encode()), read_file(data)
    assert from_arrow.report.layout == from_csv.report.layout == layout
    _same(from_csv, from_arrow)


def test_typed_columns_read_as_their_text_and_nulls_as_blanks():
    table = pa.table({"winner": ["a", "b", "a"], "loser": ["b", "c", "c"],
                      "count": pa.array([1.0, 2.0, 3.0]), "judge": pa.array([7, 8, 7])})
    result = read_file(_written(table, "parquet"))
    assert result.report.layout == "pairwise" and result.report.count_column == "count"
    assert result.preferences.ranker_names == ("7", "8")
    np.testing.assert_array_equal(result.preferences.weights, [1.0, 2.0, 3.0])
    cells = arrow_table(_written(pa.table({"x": pa.array([1.5, None, 2.0]),
                                           "y": ["p", "q", "r"]}), "parquet")).cells
    assert cells[:, 0].tolist() == ["x", "1.5", "", "2"]


@pytest.mark.parametrize("kind", ["parquet", "feather"])
def test_a_record_of_blank_cells_is_skipped_like_a_blank_line_and_rows_keep_their_numbers(
        kind):
    gaps = pa.table({"winner": ["a", None, " ", "b"], "loser": ["b", None, "", "c"]})
    assert read_file(_written(gaps, kind)).preferences.to_lists(names=True) == \
        read_file(b"winner,loser\na,b\n,\n , \nb,c\n").preferences.to_lists(names=True) == \
        [["a", "b"], ["b", "c"]]
    bad = pa.table({"winner": ["a", None, "b", None], "loser": ["b", None, "c", "a"]})
    with pytest.raises(PreferenceFormatError, match="Row 4, column 'winner'.*blank"):
        read_file(_written(bad, kind))


def test_a_blank_cell_names_its_record_and_column():
    table = pa.table({"winner": ["a", None, "a"], "loser": ["b", "c", "c"]})
    with pytest.raises(PreferenceFormatError, match="Row 2, column 'winner'.*blank"):
        read_file(_written(table, "parquet"))


def test_a_damaged_parquet_file_is_refused_with_a_reason():
    with pytest.raises(PreferenceFormatError, match="could not be read.*CSV"):
        read_file(b"PAR1 not really parquet PAR1")
    with pytest.raises(PreferenceFormatError, match="only its table"):
        read_file(_written(_as_strings(FORMATS["pairwise"].example), "parquet"),
                  format="preflib")


EXPORTS = sorted((Path(__file__).parent / "data" / "exports").glob("*.csv"))


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
def test_survey_and_arena_exports_read_from_parquet_as_from_csv(path):
    text = path.read_text(encoding="utf-8-sig")
    try:
        table = _as_strings(text)
    except pa.ArrowInvalid:
        pytest.skip(f"{path.name} has rows of different widths: no Arrow twin")
    if len(set(table.column_names)) < table.num_columns:
        pytest.skip(f"{path.name} repeats a column title, which Parquet cannot hold")
    try:
        from_csv = read_file(text.encode())
    except PreferenceFormatError as error:
        with pytest.raises(PreferenceFormatError) as arrow_error:
            read_file(_written(table, "parquet"))
        assert arrow_error.value.reason == error.reason
        return
    _same(from_csv, read_file(_written(table, "parquet")))
