"""CSV export: text that a spreadsheet would run as a formula is neutralised, numbers are kept."""

import csv
import io

import numpy as np
import pytest

from coarsenrank_core.export import neutralise_cell, table_to_csv


@pytest.mark.parametrize("text", ["=SUM(A1)", "+1", "-cmd", "@risk", "\tx", "=HYPERLINK(\"x\")"])
def test_formula_like_text_gets_an_apostrophe(text):
    assert neutralise_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-0.5, 3, np.float64(-2.25), np.int64(-7), True, None])
def test_numbers_are_left_alone(value):
    assert neutralise_cell(value) is value


def test_plain_text_is_unchanged_and_the_table_reads_back():
    text = table_to_csv(["item", "score"], [["=1+1", -0.5], ["tea, hot", 2.0], ["<b>x</b>", 1]])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["item", "score"], ["'=1+1", "-0.5"], ["tea, hot", "2.0"],
                    ["<b>x</b>", "1"]]
