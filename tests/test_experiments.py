"""The studies of experiments.py: robustness to noise, time against data size, fixed
iterations, the exposure study and the teaching scenarios."""

import dataclasses

import numpy as np
import pytest

from coarsenrank_core import compare, run_method
from coarsenrank_core.experiments import fixed_iterations, robustness_curve, scale_test
from coarsenrank_core.registry import METHODS
from coarsenrank_core.simulate import simulate_pl


@pytest.fixture(scope="module")
def simulated():
    return simulate_pl(10, 200, length=4, n_rankers=20, spread=1.5, random_state=2)


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
        result = compare(prefs, ["pl-em", "coarsen-pl", "pl-mix-ranker", "crowdbt", "borda"],
                         truth=truth)
        return {row.method: row.accuracy for row in result.rows}

    careless = accuracy("careless")
    assert careless["pl-mix-ranker"] >= careless["pl-em"] + 0.03
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


def test_a_stop_request_is_never_swallowed_by_an_experiment(simulated):
    from coarsenrank_core.errors import Cancelled

    prefs, truth = simulated
    for run in (lambda stop: robustness_curve(prefs, ["pl-em"], truth, seeds=1,
                                              should_stop=stop),
                lambda stop: scale_test(prefs, ["pl-em"], should_stop=stop)):
        calls = []
        with pytest.raises(Cancelled):
            run(lambda calls=calls: calls.append(1) or len(calls) > 1)


def test_experiment_records_are_read_only(simulated):
    prefs, truth = simulated
    curve = robustness_curve(prefs, ["borda"], truth, levels=(0.0,), seeds=1)
    with pytest.raises(ValueError):
        curve.accuracy[0, 0, 0] = 0.0
    timing = scale_test(prefs, ["borda"], factors=(1,))
    with pytest.raises(ValueError):
        timing.seconds[0, 0] = 0.0


def test_fixed_iterations_maps_each_kind_of_method_to_its_own_knobs():
    assert fixed_iterations("crowdbt", 4) == {"passes": 4}
    assert fixed_iterations("peergrader", 4) == {"max_outer": 1, "max_iter": 4, "tol": 0.0}
    assert fixed_iterations("coarsen-pl-gibbs", 4) == {"burn_in": 0, "n_draws": 4}
    assert fixed_iterations("coarsen-pl", 4) == {"max_iter": 4, "tol": 0.0}
    assert fixed_iterations("borda", 4) == {} == fixed_iterations("copeland", 4)
    for method_id in METHODS:  # every knob is a parameter the method takes
        assert set(fixed_iterations(method_id, 2)) <= set(METHODS[method_id].parameters)


def test_teaching_scenarios_are_seeded_differ_only_in_the_bad_raters_and_refuse_others():
    from coarsenrank_core.experiments import teaching_arrays

    truth_order = np.arange(20)
    for kind in ("careless", "campaign"):
        prefs, truth = teaching_arrays(kind, random_state=3, share=0.5)
        assert prefs.n_rankers == 30 and len(prefs) == 240 and set(prefs.lengths) == {6}
        np.testing.assert_array_equal(np.argsort(-truth), truth_order)
        again, _ = teaching_arrays(kind, random_state=3, share=0.5)
        assert again == prefs
    # with no bad raters both scenarios are the same honest data
    careless, _ = teaching_arrays("careless", random_state=4, share=0.0)
    campaign, _ = teaching_arrays("campaign", random_state=4, share=0.0)
    assert careless == campaign
    with pytest.raises(ValueError, match="unknown scenario 'lazy'"):
        teaching_arrays("lazy")


def test_experiments_refuse_an_empty_or_unknown_method_list(simulated):
    prefs, truth = simulated
    with pytest.raises(ValueError, match="one or more methods"):
        robustness_curve(prefs, [], truth)
    with pytest.raises(ValueError, match="'nope'"):
        scale_test(prefs, ["nope"])
