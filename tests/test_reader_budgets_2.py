"""Hostile files within the upload limit are refused in proportion to their size."""

import gzip
import io
import json

import numpy as np
import pytest

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_file
from coarsenrank_core.io.tables import MAX_GRID_CELLS


def refused(data: bytes) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data)
    return info.value


def test_one_wide_row_does_not_pad_every_row_of_a_csv():
    rows = MAX_GRID_CELLS // 100 + 10
    data = ",".join(f"i{k}" for k in range(200)).encode() + b"\n" + b"a,b\n" * rows
    error = refused(data)
    assert "padded to 200 columns" in error.reason and error.row == 1


def test_a_dense_wide_file_under_the_grid_budget_still_reads():
    rows = ["voter," + ",".join(f"r{k}" for k in range(1, 6))]
    rows += [f"v{i}," + ",".join(f"i{(i + k) % 5}" for k in range(5)) for i in range(200)]
    assert len(read_file(("\n".join(rows) + "\n").encode()).preferences) == 200


def test_implicit_ranking_that_would_fill_a_huge_grid_is_refused():
    names = ";".join(f"c{k}" for k in range(2000))
    data = f"#/Candidates: {names}\n".encode() + b"c0 > c1\n" * 12_000
    error = refused(data)
    assert "Implicit Ranking: false" in error.fix


def test_json_records_each_with_fields_of_their_own_are_refused():
    lines = [json.dumps({f"k{r}_{j}": 1 for j in range(50)}) for r in range(500)]
    error = refused("\n".join(lines).encode())
    assert "different fields between them" in error.reason


def test_a_parquet_file_declaring_more_cells_than_a_table_holds_is_refused_before_reading():
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    n = MAX_GRID_CELLS // 2 + 1
    table = pa.table({"winner": pa.array(np.zeros(n, dtype=np.int8)).dictionary_encode(),
                      "loser": pa.array(np.ones(n, dtype=np.int8)).dictionary_encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    assert len(sink.getvalue()) < 1 << 20
    assert "rows of 2 columns" in refused(sink.getvalue()).reason


def test_many_gzip_members_unpack_in_one_pass():
    member = gzip.compress(b"")
    data = gzip.compress(b"winner,loser\na,b\nb,c\n") + member * 20_000
    read = read_file(data)
    assert len(read.preferences) == 2
    assert "damaged" in refused(data[:-5]).reason


@pytest.mark.parametrize("data", [
    b"#/Candidates: A;B\nA > B\n#/x" + b" " * 30_000 + b"y\n",
    b"#/Candidates: A;B\nA > B\nA" + b" " * 30_000 + b"B\n",
    b"# FILE NAME: x.soc\n# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 2\n"
    b"# ALTERNATIVE NAME 1: A\n# ALTERNATIVE NAME 2: B\n1" + b" " * 30_000 + b"\n",
    b"voter," + b"x" + b" -" * 15_000 + b"!\nv1,1\nv2,1\n"])
def test_long_runs_of_spaces_or_dashes_are_read_or_refused_in_one_pass(data):
    try:
        read_file(data)
    except PreferenceFormatError as error:
        assert "Unexpected" not in error.reason


@pytest.mark.parametrize("text,said", [("[" * 100_000 + "]" * 100_000, "too deeply"),
                                        ('[{"a": ' + "9" * 5000 + "}]", "number too long")])
def test_json_beyond_what_python_parses_is_refused_in_plain_words(text, said):
    error = refused(text.encode())
    assert said in error.reason and "report" not in error.fix


@pytest.mark.parametrize("invisible", ["\U000e0041", "\u3164", "\u115f", "\ufe0f", "\u034f",
                                       "\u180e", "\u2800"])
def test_names_differing_only_in_an_invisible_character_are_one(invisible):
    from ui.poll_store import PollError, clean_items

    with pytest.raises(PollError, match="repeats item 1"):
        clean_items(["Apple", "Apple" + invisible, "Pear"])
    assert clean_items(["Apple", invisible, "Pear"]) == ("Apple", "Pear")


def test_subdivision_flags_keep_their_tag_characters():
    from ui.poll_store import clean_items

    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert clean_items([england, scotland]) == (england, scotland)
