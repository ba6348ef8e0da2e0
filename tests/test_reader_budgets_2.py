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
