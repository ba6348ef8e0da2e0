"""The comparison runner and the dashboard's experiments (robustness, scale, rater agreement)."""

import csv
import dataclasses
import io

import numpy as np
import pytest

from coarsenrank_core import Preferences, compare, pairwise_accuracy, run_method
from coarsenrank_core.comparison import order_agreement
from coarsenrank_core.experiments import (
    fixed_iterations,
    rater_disagreement,
    robustness_curve,
    scale_test,
)
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


def test_robustness_curve_degrades_plain_pl_more_than_coarsen_pl():
    prefs, truth = simulate_pl(8, 400, length=5, spread=1.0, random_state=4)
    curve = robustness_curve(prefs, ["pl-em", "coarsen-pl"], truth, levels=(0.0, 0.5),
                             seeds=2, random_state=0, overrides={"alpha": 20.0})
    assert curve.accuracy.shape == (2, 2, 2)
    assert np.all(curve.mean[:, 0] > curve.mean[:, 1] - 0.05)
    assert np.all(curve.std >= 0)
    # level 0 is clean data: every seed gives the same accuracy
    assert np.allclose(curve.accuracy[:, 0, 0], curve.accuracy[:, 0, 1])


def test_scale_test_times_each_factor(simulated):
    prefs, _ = simulated
    timing = scale_test(prefs, ["coarsen-pl", "borda"], factors=(1, 3), repeats=2)
    assert timing.seconds.shape == (2, 2) and np.all(timing.seconds > 0)
    assert timing.n_preferences.tolist() == [200, 600]


def test_fixed_iterations_make_methods_run_exactly_n():
    prefs, _ = simulate_pl(6, 60, length=3, random_state=0)
    for method_id in ["pl-em", "coarsen-pl", "coarsen-bt", "crowdbt"]:
        result = run_method(method_id, prefs, **fixed_iterations(method_id, 7))
        assert result.iterations == 7, method_id


def test_rater_disagreement_flags_a_reversed_rater():
    prefs, truth = simulate_pl(8, 400, length=5, n_rankers=20, spread=2.0, random_state=5)
    lists = prefs.to_lists()
    reversed_rater = 3
    flipped = [p[::-1] if prefs.rankers[n] == reversed_rater else p for n, p in enumerate(lists)]
    noisy = Preferences.from_lists(flipped, n_items=8, rankers=prefs.rankers.tolist())
    agreement = rater_disagreement(noisy, truth)
    assert int(np.argmin(agreement.mean_log_likelihood)) == reversed_rater
    assert agreement.outlier[reversed_rater] and agreement.outlier.sum() == 1
    assert agreement.mean_log_likelihood[reversed_rater] < \
        agreement.uniform_log_likelihood[reversed_rater]
    assert agreement.n_preferences.sum() == len(noisy)


def test_rater_disagreement_is_per_stage_so_long_lists_are_not_penalised():
    theta = np.array([4.0, 2.0, 1.0, 0.5])
    short = Preferences.from_lists([[0, 1], [0, 1]], n_items=4, rankers=["a", "b"])
    long_ = Preferences.from_lists([[0, 1], [0, 1, 2, 3]], n_items=4, rankers=["a", "b"])
    assert rater_disagreement(short, theta).mean_log_likelihood[1] == pytest.approx(
        np.log(4 / 6))
    per_stage = (np.log(4 / 7.5) + np.log(2 / 3.5) + np.log(1 / 1.5)) / 3
    assert rater_disagreement(long_, theta).mean_log_likelihood[1] == pytest.approx(per_stage)


def test_exposure_study_data_show_items_as_asked_and_the_study_tabulates_every_cell():
    from scipy.stats import spearmanr

    from coarsenrank_core.experiments import exposure_data, exposure_study, teaching_arrays

    shown = {}
    for exposure in (-1.0, 0.0, 1.0):
        prefs, truth = exposure_data(exposure, "spammers", 0.0, random_state=0)
        shown[exposure] = spearmanr(np.asarray(prefs.appearances()), truth).statistic
    assert shown[1.0] > 0.8 and shown[-1.0] < -0.8 and abs(shown[0.0]) < 0.5
    clean, _ = exposure_data(0.0, "campaign", 0.0, random_state=1)
    pushed, _ = exposure_data(0.0, "campaign", 0.4, random_state=1)
    assert len(clean) == len(pushed) == 300 and clean != pushed
    rows = exposure_study(levels=(0.2,), seeds=1, exposures={"uniform": 0.0},
                          contaminations=("spammers",), methods=("pl-em", "borda"))
    assert [(r["method"], r["seeds"]) for r in rows] == [("pl-em", 1), ("borda", 1)]
    assert all(0.5 < r["mean"] <= 1 and r["sd"] == 0 for r in rows)
    careless, truth = teaching_arrays("careless", random_state=0)
    assert careless.n_rankers == 30 and len(careless) == 240 and truth.argmax() == 0


def test_the_built_in_teaching_scenarios_tell_the_story_their_sentences_tell():
    from coarsenrank_core.experiments import teaching_arrays

    def accuracy(kind):
        prefs, truth = teaching_arrays(kind, random_state=0)
        result = compare(prefs, ["pl-em", "coarsen-pl", "pl-mix-rater", "crowdbt", "borda"],
                         truth=truth)
        return {row.method: row.accuracy for row in result.rows}

    careless = accuracy("careless")
    assert careless["pl-mix-rater"] >= careless["pl-em"] + 0.03
    assert careless["crowdbt"] >= careless["pl-em"] + 0.03
    assert careless["coarsen-pl"] <= careless["pl-em"] + 0.01
    campaign = accuracy("campaign")
    assert max(campaign.values()) < 0.75


# ------------------------------------------------------------------ one failure policy
@pytest.fixture
def failing_borda(monkeypatch):
    """Borda replaced by a method that always raises RuntimeError('boom')."""
    def broken(prefs):
        raise RuntimeError("boom")

    monkeypatch.setitem(METHODS, "borda", dataclasses.replace(METHODS["borda"],
                                                              function=broken))
    return "RuntimeError: boom"


def test_a_failing_method_is_reported_the_same_way_everywhere(simulated, failing_borda):
    prefs, truth = simulated
    methods = ["borda", "copeland"]
    result = compare(prefs, methods, truth=truth)
    assert result.row("borda").error == failing_borda and result.row("copeland").ok
    curve = robustness_curve(prefs, methods, truth, levels=(0.0, 0.2), seeds=1)
    assert curve.errors == {"borda": failing_borda}
    assert np.all(np.isnan(curve.accuracy[0])) and np.all(np.isfinite(curve.accuracy[1]))
    timing = scale_test(prefs, methods, factors=(1, 2))
    assert timing.errors == {"borda": failing_borda}
    assert np.all(np.isnan(timing.seconds[0])) and np.all(np.isfinite(timing.seconds[1]))


def test_a_stop_request_is_never_swallowed(simulated):
    from coarsenrank_core.errors import Cancelled

    prefs, truth = simulated
    for run in (lambda stop: compare(prefs, ["borda", "pl-em"], should_stop=stop),
                lambda stop: robustness_curve(prefs, ["pl-em"], truth, seeds=1,
                                              should_stop=stop),
                lambda stop: scale_test(prefs, ["pl-em"], should_stop=stop)):
        calls = []
        with pytest.raises(Cancelled):
            run(lambda calls=calls: calls.append(1) or len(calls) > 1)
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
    curve = robustness_curve(prefs, ["borda"], truth, levels=(0.0,), seeds=1)
    with pytest.raises(ValueError):
        curve.accuracy[0, 0, 0] = 0.0
    timing = scale_test(prefs, ["borda"], factors=(1,))
    with pytest.raises(ValueError):
        timing.seconds[0, 0] = 0.0
    agreement = rater_disagreement(prefs, run_method("pl-em", prefs).scores)
    with pytest.raises(ValueError):
        agreement.outlier[0] = True


def test_compare_refuses_a_parameter_no_method_takes(simulated):
    prefs, _ = simulated
    with pytest.raises(ValueError, match="alhpa"):
        compare(prefs, ["pl-em"], overrides={"alhpa": 3.0})
    # a parameter one method takes goes to that method only
    result = compare(prefs, ["crowdbt", "borda"], overrides={"passes": 2})
    assert result.results["crowdbt"].iterations == 2
