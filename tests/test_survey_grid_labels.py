"""A ranking grid's answer columns as survey forms label them: scale anchors and defaults."""

from __future__ import annotations

import numpy as np
import pytest

from coarsenrank_core.io import read_file
from coarsenrank_core.io.survey import rank_values

ORDERS = [(1, 3, 2), (2, 1, 3), (3, 2, 1), (1, 2, 3), (2, 3, 1)]
FIRST = [["Apple", "Cherry", "Banana"], ["Banana", "Apple", "Cherry"],
         ["Cherry", "Banana", "Apple"], ["Apple", "Banana", "Cherry"],
         ["Cherry", "Apple", "Banana"]]


@pytest.mark.parametrize("label", [
    lambda k: f"Column {k}",  # Google Forms' own labels of a grid's columns
    lambda k: {1: "1 (most important)", 3: "3 (least important)"}.get(k, str(k)),
    lambda k: {1: "1 = best", 3: "3 = worst"}.get(k, str(k)),
    lambda k: {1: "1 (highest)", 3: "3 (lowest)"}.get(k, str(k)),
])
def test_a_grid_answered_in_its_column_labels_reads_the_ranks(label):
    rows = "".join(f"5/1/2024 10:0{i}:00,{label(a)},{label(b)},{label(c)}\n"
                   for i, (a, b, c) in enumerate(ORDERS))
    text = ("Timestamp,Rank these fruits [Apple],Rank these fruits [Banana],"
            "Rank these fruits [Cherry]\n" + rows).encode()
    assert read_file(text).preferences.to_lists(names=True) == FIRST


def test_anchor_words_without_a_number_are_no_rank():
    assert np.isnan(rank_values(["Column", "most important", "Column A"])).all()


def test_a_grid_of_places_holding_numbers_reads_the_numbers_as_the_items():
    text = (b"Timestamp,Email Address,Rank the albums by year [1st choice],"
            b"Rank the albums by year [2nd choice],Rank the albums by year [3rd choice]\n"
            b"5/1/2024 10:00:00,a@x.org,1999,2004,2012\n"
            b"5/1/2024 10:05:12,b@x.org,2012,1999,2004\n"
            b"5/2/2024 9:01:44,c@x.org,2004,2012,1999\n")
    result = read_file(text)
    assert result.preferences.to_lists(names=True)[1] == ["2012", "1999", "2004"]
    assert "item names look like numbers" in result.report.warning
