"""The comparison runner (comparison.py): rows that follow the engine, failures, agreement."""

import csv
import dataclasses
import io
import itertools

import numpy as np
import pytest

from coarsenrank_core import compare, pairwise_accuracy, run_method
from coarsenrank_core.comparison import order_agreement
from coarsenrank_core.metrics import kendall_tau_b
from coarsenrank_core.registry import METHODS
from coarsenrank_core.simulate import simulate_pl


@pytest.fixture(scope="module")
def simulated():
    return simulate_pl(10, 200, length=4, n_rankers=20, spread=1.5, random_state=2)


def test_rows_follow_the_engine(simulated):
    prefs, truth = simulated
    methods = ["pl-em", "coarsen-pl", "borda"]
    seen = []
    result = compare(prefs, methods, truth=truth, repeats=2, overrides={"alpha": 40.0},
                     progress=lambda d, t: seen.append((d, t)))
    assert seen == [(i, 6) for i in range(1, 7)]
    assert result.methods == tuple(methods) and result.has_truth
    for row in result.rows:
        fit = run_method(row.method, prefs, alpha=40.0)
        assert row.accuracy == pytest.approx(pairwise_accuracy(fit.scores, truth))
        assert row.kendall_tau == pytest.approx(kendall_tau_b(fit.scores, truth))
        assert row.seconds_mean > 0 and row.seconds_std >= 0 and row.ok
        assert row.iterations == fit.iterations and row.converged == fit.converged
    assert np.allclose(np.diag(result.agreement), 1.0)
    assert np.allclose(result.agreement, result.agreement.T)


def test_a_failing_method_is_reported_and_the_rest_completes(simulated, monkeypatch):
    prefs, truth = simulated

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setitem(METHODS, "borda", dataclasses.replace(METHODS["borda"],
                                                              function=broken))
    result = compare(prefs, ["borda", "coarsen-pl"], truth=truth)
    failed, ok = result.rows
    assert not failed.ok and "boom" in failed.error and np.isnan(failed.accuracy)
    assert ok.ok and ok.accuracy > 0.5
    assert np.isnan(result.agreement[0]).all() and result.agreement[1, 1] == 1.0


def test_agreement_is_filled_without_truth_and_csv_round_trips(simulated):
    prefs, _ = simulated
    result = compare(prefs, ["coarsen-pl", "copeland"])
    assert not result.has_truth and np.isnan(result.rows[0].accuracy)
    expected = order_agreement(result.results["coarsen-pl"].scores,
                               result.results["copeland"].scores)
    assert result.agreement[0, 1] == pytest.approx(expected)
    table = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert [r["method"] for r in table] == ["coarsen-pl", "copeland"]


def test_order_agreement_counts_pairs():
    assert order_agreement([3, 2, 1], [3, 2, 1]) == 1.0
    assert order_agreement([3, 2, 1], [1, 2, 3]) == 0.0
    assert order_agreement([3, 2, 1, 0], [3, 1, 2, 0]) == pytest.approx(5 / 6)


def test_order_agreement_equals_counting_every_pair_with_ties_broken_by_id():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.integers(0, 4, size=(2, 7)).astype(float)  # many equal scores

        def before(scores, i, j):  # i is placed above j: higher score, or equal and i < j
            return scores[i] > scores[j] or (scores[i] == scores[j] and i < j)

        pairs = list(itertools.combinations(range(7), 2))
        same = sum(before(a, i, j) == before(b, i, j) for i, j in pairs)
        assert order_agreement(a, b) == pytest.approx(same / len(pairs))
    assert order_agreement([1.0], [5.0]) == 1.0 and order_agreement([], []) == 1.0


def test_a_stop_request_is_never_swallowed(simulated):
    from coarsenrank_core.errors import Cancelled

    prefs, _ = simulated
    calls = []
    with pytest.raises(Cancelled):
        compare(prefs, ["borda", "pl-em"],
                should_stop=lambda: calls.append(1) or len(calls) > 1)
    # a stop inside a fit (after its first check) also ends the comparison
    counter = []
    with pytest.raises(Cancelled):
        compare(prefs, ["pl"], overrides={"alpha": 10.0},
                should_stop=lambda: counter.append(1) or len(counter) > 2)


def test_comparison_records_are_read_only(simulated):
    prefs, truth = simulated
    result = compare(prefs, ["borda", "copeland"], truth=truth)
    with pytest.raises(ValueError):
        result.agreement[0, 0] = 0.0
    with pytest.raises(TypeError):
        result.results["x"] = None


def test_compare_refuses_a_parameter_no_method_takes(simulated):
    prefs, _ = simulated
    with pytest.raises(ValueError, match="alhpa"):
        compare(prefs, ["pl-em"], overrides={"alhpa": 3.0})
    # a parameter one method takes goes to that method only
    result = compare(prefs, ["crowdbt", "borda"], overrides={"passes": 2})
    assert result.results["crowdbt"].iterations == 2


def test_each_row_keeps_every_run_s_seconds(simulated):
    prefs, _ = simulated
    result = compare(prefs, ["pl-em", "borda"], repeats=3, overrides={"alpha": 40.0})
    for row in result.rows:
        assert len(row.seconds) == 3 and all(s > 0 for s in row.seconds)
        assert row.seconds_mean == pytest.approx(np.mean(row.seconds))
