"""CoarsenPL by EM: brute-force likelihoods, agreement with a direct optimiser, monotonicity."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from coarsenrank_core import (
    Preferences,
    pl_log_likelihood,
    simulate_pl,
    tempered_log_posterior,
    tempering,
)
from coarsenrank_core.models import coarsen_pl


def brute_log_probability(theta, pref) -> float:
    """PL log-probability of one preference with Breslow ties, written out literally."""
    groups = [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]
    total = 0.0
    for j, group in enumerate(groups):
        if j == len(groups) - 1 and len(group) == 1:
            break
        remaining = sum(theta[m] for g in groups[j:] for m in g)
        for m in group:
            total += math.log(theta[m]) - math.log(remaining)
    return total


def random_lists(rng, n_items, n_prefs, max_len=5, ties=True):
    lists = []
    for _ in range(n_prefs):
        k = int(rng.integers(2, min(max_len, n_items) + 1))
        order = rng.permutation(n_items)[:k].tolist()
        pref, i = [], 0
        while i < k:
            size = 2 if ties and i + 1 < k and rng.random() < 0.25 else 1
            pref.append(order[i] if size == 1 else frozenset(order[i:i + 2]))
            i += size
        lists.append(pref)
    return lists


@pytest.mark.parametrize("n_items", [3, 4, 5])
def test_full_ranking_probabilities_sum_to_one(n_items):
    theta = np.random.default_rng(n_items).gamma(2.0, 1.0, n_items)
    orders = [list(p) for p in itertools.permutations(range(n_items))]
    prefs = Preferences.from_lists(orders, n_items=n_items)
    log_p = pl_log_likelihood(prefs, theta, per_preference=True)
    assert np.exp(log_p).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("subset", [[1, 4], [1, 3, 4], [0, 2, 3, 4]])
def test_orderings_of_one_subset_have_probabilities_summing_to_one(subset):
    theta = np.array([0.3, 2.0, 1.1, 0.7, 5.0])
    prefs = Preferences.from_lists([list(p) for p in itertools.permutations(subset)], n_items=5)
    log_p = pl_log_likelihood(prefs, theta, per_preference=True)
    assert np.exp(log_p).sum() == pytest.approx(1.0, abs=1e-12)


def test_log_likelihood_matches_brute_force_with_ties_and_weights():
    rng = np.random.default_rng(1)
    lists = random_lists(rng, 7, 40, max_len=6)
    weights = rng.choice([0.5, 1.0, 3.0], size=len(lists))
    prefs = Preferences.from_lists(lists, n_items=7, weights=weights)
    theta = rng.gamma(1.5, 1.0, 7)
    expected = [brute_log_probability(theta, p) for p in prefs.to_lists()]
    np.testing.assert_allclose(pl_log_likelihood(prefs, theta, per_preference=True), expected,
                               rtol=1e-12)
    assert pl_log_likelihood(prefs, theta) == pytest.approx(np.dot(weights, expected), rel=1e-12)


def _direct_map(prefs, alpha, prior):
    a, b = prior
    tau = tempering(alpha, prefs.total_weight)
    design = prefs.stages

    def negative(s):
        theta = np.exp(s)
        value = (a - 1) * s.sum() - b * theta.sum() + tau * design.log_likelihood(theta)
        gradient = (a - 1) - b * theta + tau * (design.wins - theta * design.exposure(theta))
        return -value, -gradient

    fit = minimize(negative, np.zeros(prefs.n_items), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=10_000, ftol=1e-15, gtol=1e-11))
    return np.exp(fit.x)


@pytest.mark.parametrize("alpha", [3.0, 40.0, np.inf])
@pytest.mark.parametrize("prior", [(2.0, 1.0), (5.0, 5.0)])
def test_em_matches_a_direct_optimiser_of_the_tempered_posterior(alpha, prior):
    rng = np.random.default_rng(7)
    prefs = Preferences.from_lists(random_lists(rng, 6, 30), n_items=6,
                                   weights=rng.choice([1.0, 2.0], 30))
    fit = coarsen_pl(prefs, alpha=alpha, prior=prior, max_iter=20_000, tol=1e-13)
    assert fit.converged
    np.testing.assert_allclose(fit.scores, _direct_map(prefs, alpha, prior), rtol=1e-5)
    assert fit.tau == pytest.approx(tempering(alpha, prefs.total_weight))


@pytest.mark.parametrize("prior", [(1.0, 2.0), (1.0, 0.1), (3.0, 1.0)])
def test_each_em_step_never_decreases_the_tempered_log_posterior(prior):
    rng = np.random.default_rng(3)
    # item 5 never wins: with a = 1 its score reaches exactly 0
    lists = random_lists(rng, 5, 25, ties=True) + [[0, 5], [3, 5], [1, 2, 5]]
    prefs = Preferences.from_lists(lists, n_items=6)
    # with a = 1 the uncalibrated MAP exists only untempered (alpha = inf)
    alpha = np.inf if prior[0] == 1.0 else 10.0
    fit = coarsen_pl(prefs, alpha=alpha, prior=prior, calibration=None, max_iter=200, tol=0.0,
                     trace=True)
    assert fit.iterations == 200
    assert np.all(np.diff(fit.trace) >= -1e-10 * np.abs(fit.trace[1:]))
    assert fit.trace[-1] == pytest.approx(
        tempered_log_posterior(prefs, fit.scores, alpha=alpha, prior=prior), rel=1e-12)
    if prior[0] == 1.0:
        assert fit.scores[5] == 0.0
    assert np.all(np.isfinite(fit.scores))


def test_calibration_rescales_and_paper_means_half_m():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 3], [2, 3]], n_items=4)
    fit = coarsen_pl(prefs, alpha=5.0, calibration=7.0, max_iter=5, tol=0.0)
    assert fit.scores.sum() == pytest.approx(7.0)
    paper = coarsen_pl(prefs, alpha=5.0, calibration="paper", max_iter=5, tol=0.0)
    assert paper.scores.sum() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="calibration"):
        coarsen_pl(prefs, calibration="half")


def test_alpha_inf_is_plain_pl_em():
    rng = np.random.default_rng(11)
    winners = rng.integers(0, 8, 300)
    losers = (winners + rng.integers(1, 8, 300)) % 8
    prefs = Preferences.from_pairs(winners, losers, n_items=8)
    a, b = 2.0, 1.0
    theta = np.full(8, a / b)
    wins = np.bincount(winners, minlength=8)
    for _ in range(25):  # Hunter's MM for Bradley–Terry with a Gamma prior (Caron & Doucet 2012)
        inverse = 1.0 / (theta[winners] + theta[losers])
        exposure = np.bincount(winners, inverse, 8) + np.bincount(losers, inverse, 8)
        theta = (wins + a - 1) / (exposure + b)
    fit = coarsen_pl(prefs, alpha=np.inf, prior=(a, b), max_iter=25, tol=0.0)
    assert fit.tau == 1.0 and fit.method == "coarsen-pl"  # the id of the function called (issue 10)
    np.testing.assert_allclose(fit.scores, theta, rtol=1e-12)


def test_tolerance_zero_runs_exactly_max_iter_and_tolerance_stops_early():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 2, 0], [0, 2]])
    assert coarsen_pl(prefs, max_iter=37, tol=0.0).iterations == 37
    early = coarsen_pl(prefs, max_iter=10_000, tol=1e-6, prior=(2.0, 1.0))
    assert early.converged and early.iterations < 10_000 and early.change < 1e-6


def test_em_rejects_a_below_one_and_bad_arguments():
    prefs = Preferences.from_lists([[0, 1]])
    with pytest.raises(ValueError, match="a >= 1"):
        coarsen_pl(prefs, prior=(0.5, 1.0))
    with pytest.raises(ValueError, match="b > 0"):
        coarsen_pl(prefs, prior=(1.0, 0.0))
    with pytest.raises(ValueError, match="alpha"):
        coarsen_pl(prefs, alpha=0.0)
    with pytest.raises(ValueError, match="init"):
        coarsen_pl(prefs, init=[1.0, -1.0])


def test_disconnected_graph_and_absent_items_give_finite_scores():
    prefs = Preferences.from_lists([[0, 1], [1, 0], [2, 3], [3, 2], [3, 2]], n_items=6)
    assert len(prefs.components()) == 2
    for prior in [(1.0, 2.0), (2.0, 1.0)]:
        fit = coarsen_pl(prefs, alpha=2.0, prior=prior, max_iter=500, tol=1e-12)
        assert np.all(np.isfinite(fit.scores)) and np.all(fit.scores >= 0)
        assert fit.scores[4] == fit.scores[5] == pytest.approx((prior[0] - 1) / prior[1])
        assert fit.scores[3] > fit.scores[2]


small_lists = st.lists(st.permutations(range(5)).flatmap(
    lambda p: st.integers(2, 5).map(lambda k: list(p[:k]))), min_size=2, max_size=12)


@settings(max_examples=40, deadline=None)
@given(small_lists, st.permutations(range(5)))
def test_relabelling_items_permutes_the_scores(lists, perm):
    prefs = Preferences.from_lists(lists, n_items=5)
    fit = coarsen_pl(prefs, alpha=4.0, prior=(2.0, 1.0), max_iter=50, tol=0.0)
    moved = coarsen_pl(prefs.relabel(perm), alpha=4.0, prior=(2.0, 1.0), max_iter=50, tol=0.0)
    np.testing.assert_allclose(moved.scores[np.asarray(perm)], fit.scores, rtol=1e-10)


@settings(max_examples=40, deadline=None)
@given(small_lists, st.data())
def test_weight_two_equals_listing_twice(lists, data):
    doubled = data.draw(st.integers(0, len(lists) - 1))
    weights = np.ones(len(lists))
    weights[doubled] = 2.0
    weighted = Preferences.from_lists(lists, n_items=5, weights=weights)
    repeated = Preferences.from_lists(lists + [lists[doubled]], n_items=5)
    assert weighted.total_weight == len(repeated)
    for kwargs in [dict(alpha=3.0, prior=(2.0, 1.0)), dict(alpha=np.inf, prior=(1.0, 2.0),
                                                          calibration=2.5)]:
        a = coarsen_pl(weighted, max_iter=40, tol=0.0, **kwargs)
        b = coarsen_pl(repeated, max_iter=40, tol=0.0, **kwargs)
        assert a.tau == b.tau
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12)


def test_alpha_is_never_silently_ignored_with_a_equal_to_one():
    rng = np.random.default_rng(5)
    prefs = Preferences.from_lists(random_lists(rng, 6, 40), n_items=6)
    with pytest.raises(ValueError, match="no effect"):
        coarsen_pl(prefs, alpha=10.0, prior=(1.0, 2.0), calibration=None)
    # the default calibrates exactly as the paper's §6.1 does (C = M / 2)
    auto = coarsen_pl(prefs, alpha=10.0, max_iter=50, tol=0.0)
    paper = coarsen_pl(prefs, alpha=10.0, calibration="paper", max_iter=50, tol=0.0)
    np.testing.assert_array_equal(auto.scores, paper.scores)
    assert auto.scores.sum() == pytest.approx(3.0)
    # alpha = inf (no tempering) and a > 1 keep the exact, uncalibrated MAP
    assert coarsen_pl(prefs, alpha=np.inf).scores.sum() != pytest.approx(3.0)
    assert coarsen_pl(prefs, alpha=10.0, prior=(2.0, 1.0)).scores.sum() != pytest.approx(3.0)


# ------------------------------------------------------------------ issue 12: speed
def _with_copies():
    """Lists of several lengths, with ties and rankers, most of them repeated."""
    rng = np.random.default_rng(5)
    base = [[0, 1, 2, 3], [2, 0, 1], [1, 3], [3, 2, 1, 0, 4], [4, 0], [0, 2, 4, 1]]
    lists = [base[i] for i in rng.integers(0, len(base), 300)]
    tied = Preferences.from_lists([[0, frozenset({1, 2}), 3]] * 7 + [[frozenset({3, 4}), 0]] * 5,
                                  n_items=5)
    plain = Preferences.from_lists(lists, n_items=5, rankers=rng.integers(0, 9, 300).tolist(),
                                   weights=rng.choice([1.0, 2.0, 0.5], 300).tolist())
    items = np.concatenate([plain.items, tied.items])
    lengths = np.concatenate([plain.lengths, tied.lengths])
    groups = np.concatenate([plain.groups, tied.groups])
    weights = np.concatenate([plain.weights, tied.weights])
    return Preferences.from_arrays(items, lengths, groups=groups, n_items=5, weights=weights)


def _reference_em(prefs, alpha, prior, const, iterations):
    """Plain EM on the unmerged stage layout (one stage per preference and position)."""
    a, b = prior
    design = prefs.stages
    tau = tempering(alpha, prefs.total_weight)
    theta = np.full(prefs.n_items, a / b)
    for _ in range(iterations):
        theta = (tau * design.wins + a - 1) / (design.exposure(theta, tau) + b)
        if const is not None:
            theta = theta * const / theta.sum()
    return theta


@pytest.mark.parametrize("alpha, prior, calibration", [(np.inf, (2.0, 1.0), None),
                                                      (20.0, (1.0, 2.0), "paper"),
                                                      (5.0, (3.0, 1.0), None)])
def test_merged_and_unmerged_em_agree(alpha, prior, calibration):
    """EM on identical preferences merged into weights equals EM on the copies (1e-10)."""
    prefs = _with_copies()
    assert len(prefs.pooled) < len(prefs) / 10
    assert prefs.pooled.total_weight == pytest.approx(prefs.total_weight, rel=1e-15)
    fit = coarsen_pl(prefs, alpha=alpha, prior=prior, calibration=calibration, max_iter=60,
                     tol=0.0)
    const = None if calibration is None else prefs.n_items / 2
    reference = _reference_em(prefs, alpha, prior, const, 60)
    np.testing.assert_allclose(fit.scores, reference, rtol=1e-10)
    assert pl_log_likelihood(prefs, fit.scores) == pytest.approx(
        prefs.stages.log_likelihood(fit.scores), rel=1e-12)


@pytest.mark.parametrize("alpha, prior, calibration", [(np.inf, (2.0, 1.0), None),
                                                      (30.0, (1.0, 2.0), "paper"),
                                                      (30.0, (1.5, 1.0), None)])
def test_accelerated_em_reaches_the_plain_em_fixed_point(alpha, prior, calibration):
    prefs, _ = simulate_pl(30, 400, length=5, random_state=3)
    plain = coarsen_pl(prefs, alpha=alpha, prior=prior, calibration=calibration,
                       max_iter=100_000, tol=1e-13, accelerate=False)
    fast = coarsen_pl(prefs, alpha=alpha, prior=prior, calibration=calibration,
                      max_iter=100_000, tol=1e-13, accelerate=True)
    assert plain.converged and fast.converged
    np.testing.assert_allclose(fast.scores, plain.scores, rtol=1e-8)
    assert fast.iterations < plain.iterations
    if calibration is None:  # the MAP: no ascent direction is left
        objective = tempered_log_posterior(prefs, fast.scores, alpha, prior)
        assert objective >= tempered_log_posterior(prefs, plain.scores, alpha, prior) - 1e-8


def test_tolerance_zero_runs_plain_em_and_has_no_stopping_rule():
    prefs, _ = simulate_pl(8, 60, length=4, random_state=1)
    fixed = coarsen_pl(prefs, max_iter=9, tol=0.0)
    plain = coarsen_pl(prefs, max_iter=9, tol=0.0, accelerate=False)
    np.testing.assert_array_equal(fixed.scores, plain.scores)
    assert fixed.converged is None and fixed.iterations == 9
    assert coarsen_pl(prefs, prior=(2.0, 1.0)).converged is True


@pytest.mark.slow
def test_pl_em_converges_on_readlevel_x100_within_its_iteration_limit(data_dir):
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel
    from coarsenrank_core.registry import run_method

    big = magnify(load_readlevel(data_dir).preferences, 100).preferences
    fit = run_method("pl-em", big)
    assert fit.converged and fit.iterations < fit.params["max_iter"]
    assert fit.method == "pl-em"


def test_em_stops_when_asked():
    from coarsenrank_core.errors import Cancelled
    from coarsenrank_core.models.plackett_luce import STOP_EVERY

    prefs, _ = simulate_pl(10, 100, length=4, random_state=2)
    calls = []

    def stop():
        calls.append(1)
        return True

    with pytest.raises(Cancelled, match="EM was stopped after"):
        coarsen_pl(prefs, max_iter=10_000, tol=0.0, should_stop=stop)
    assert len(calls) == 1
    # a callback that never stops changes nothing
    np.testing.assert_array_equal(
        coarsen_pl(prefs, max_iter=30, tol=0.0, should_stop=lambda: False).scores,
        coarsen_pl(prefs, max_iter=30, tol=0.0).scores)
    assert STOP_EVERY <= 10
