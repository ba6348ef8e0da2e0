"""JSON arrays of arrays (a spreadsheet API's values, pandas' orient="values") read as CSV rows."""

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from coarsenrank_core.errors import PreferenceFormatError
from coarsenrank_core.io import read_preferences
from coarsenrank_core.io.tables import MAX_COLUMNS


def outcome(source: bytes, name: str):
    """What the reader makes of a file: its rankings and rankers, or its refusal's text."""
    try:
        prefs = read_preferences(NamedUpload(source, name))
    except PreferenceFormatError as error:
        return "refused", str(error)
    rankers = None if prefs.rankers is None else np.asarray(prefs.rankers).tolist()
    return prefs.to_lists(names=True), rankers


class NamedUpload(io.BytesIO):
    """An upload: its bytes and its file name."""

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data)
        self.name = name


def as_csv(rows: list[list]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(
        [["" if v is None else str(v) for v in row] for row in rows])
    return out.getvalue().encode()


ROWS = [["Name", "1st choice", "2nd choice", "3rd choice"],
        ["ann", "tea", "coffee", "juice"],
        ["bob", "coffee", None, "tea"],
        ["cy", "juice", "tea"]]


@pytest.mark.parametrize("rows", [ROWS, ROWS[1:], [r[1:] for r in ROWS[1:]]],
                         ids=["header and rankers", "rankers", "orders only"])
@pytest.mark.parametrize("wrap", ["array", "sheets API", "JSON lines"])
def test_rows_of_values_read_as_the_same_rows_of_a_csv_file(rows, wrap):
    if wrap == "array":
        data, name = json.dumps(rows), "votes.json"
    elif wrap == "sheets API":
        data, name = json.dumps({"range": "Sheet1!A1:D4", "majorDimension": "ROWS",
                                 "values": rows}), "votes.json"
    else:
        data, name = "\n".join(json.dumps(r) for r in rows) + "\n", "votes.jsonl"
    read = outcome(data.encode(), name)
    assert read[0] != "refused", read
    assert read == outcome(as_csv(rows), "votes.csv")
    # null is a blank cell: bob ranked coffee then tea
    assert any(order[-2:] == ["coffee", "tea"] for order in read[0]), read


CELL = st.one_of(st.sampled_from(["tea", "coffee", "juice", "milk", "Tea", "1st", "x y"]),
                 st.integers(1, 4), st.none())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(CELL, min_size=1, max_size=5), min_size=1, max_size=6))
@example(rows=[["tea", "coffee", None, None], ["coffee"], [None], [None]])  # CI found it
def test_property_any_rows_of_values_read_or_are_refused_as_their_csv_is(rows):
    read, as_text = outcome(json.dumps(rows).encode(), "x.json"), outcome(as_csv(rows), "x.csv")
    if "refused" in (read[0], as_text[0]):  # a refusal's words may name the file's kind
        assert read[0] == as_text[0], (read, as_text)
    else:
        assert read == as_text


def test_a_row_wider_than_the_column_limit_is_refused_by_its_record():
    rows = [["a", "b"], [f"i{k}" for k in range(MAX_COLUMNS + 1)]]
    with pytest.raises(PreferenceFormatError, match="columns can be read") as found:
        read_preferences(NamedUpload(json.dumps(rows).encode(), "x.json"))
    assert found.value.row == 2


def test_one_wide_row_among_many_short_ones_is_refused_before_padding():
    rows = [["a", "b"]] * 60_000 + [[f"i{k}" for k in range(10_000)]]
    with pytest.raises(PreferenceFormatError, match="padded to 10,000 columns"):
        read_preferences(NamedUpload(json.dumps(rows).encode(), "x.json"))


def test_arrays_beside_objects_or_holding_arrays_are_still_refused_by_record():
    for rows, bad in (([["a", "b"], {"winner": "a", "loser": "b"}], 1),
                      ([["a", "b"], ["a", ["b", "c"]]], 1)):
        with pytest.raises(PreferenceFormatError, match="not an object") as found:
            read_preferences(NamedUpload(json.dumps(rows).encode(), "x.json"))
        assert found.value.row == bad and "best first" in found.value.fix
