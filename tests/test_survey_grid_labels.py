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
