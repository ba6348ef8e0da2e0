"""The rows the pages' tables show (ui/tables.py), built from engine results."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core import compare, dic_sweep, read_preferences, read_truth
from ui.compute import timings
from ui.tables import ACCURACY_COLUMNS, before_after_rows, comparison_table, dic_rows

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
PIZZA = read_preferences(SAMPLE / "pizza_rankings.csv")
TRUTH = read_truth(SAMPLE / "pizza_truth.csv", PIZZA)


@pytest.fixture(scope="module")
def compared():
    return compare(PIZZA, ["borda", "pl-em"], truth=TRUTH, repeats=3)


def test_the_comparison_table_has_plain_columns_and_the_measured_times(compared):
    header, rows = comparison_table(compared, timings(compared))
    assert header[3] == "seconds per fit (median of 3 runs)"
    assert [r[0] for r in rows] == ["Borda", "PL-EM"]
    for row, result in zip(rows, compared.rows):
        assert row[1] == round(result.accuracy, 4)
        assert row[3] == float(f"{np.median(result.seconds):.3g}")
    dashed = replace(compared, rows=(replace(compared.rows[0], converged=None),
                                     compared.rows[1]))
    assert comparison_table(dashed, timings(dashed))[1][0][5] == "—"


def test_before_and_after_rows_hold_each_method_that_ran_on_both(compared):
    after = replace(compared, rows=(replace(compared.rows[0], accuracy=0.5),
                                    replace(compared.rows[1], error="failed")))
    rows = before_after_rows(compared, after)
    assert [r["method"] for r in rows] == ["Borda"]
    assert rows[0]["change"] == pytest.approx(0.5 - compared.rows[0].accuracy)
    assert set(rows[0]) <= {"method"} | set(ACCURACY_COLUMNS)


def test_the_dic_rows_are_the_curve():
    result = dic_sweep(PIZZA, alphas=(10.0, 100.0), burn_in=10, n_draws=10)
    rows = dic_rows(result)
    assert [r["α"] for r in rows] == [10.0, 100.0]
    assert [r["DIC = g − f"] for r in rows] == list(result.dic)
