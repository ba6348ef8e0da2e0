"""PL by L-BFGS, CoarsenTH and PeerGrader: gradients, optimality, identities, recovery."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_expit

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import kendall_tau_b, pairwise_accuracy
from coarsenrank_core.models.peergrader import (
    ETA_MIN,
    GraderDesign,
    peergrader,
    peergrader_objective,
)
from coarsenrank_core.models.pl_gradient import pl_lbfgs, pl_objective, virtual_node_penalty
from coarsenrank_core.models.thurstone import LOGISTIC_SLOPE, coarsen_th, pairs_of, th_objective


def numeric_gradient(f, x, h=1e-6):
    """Central differences of a scalar function."""
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def simulate(scores, n_prefs, lengths=(2, 3, 4, 5), tie_prob=0.0, n_rankers=None,
             reversed_rankers=(), seed=0):
    """Plackett–Luce lists by Gumbel-max; adjacent items merged into ties with ``tie_prob``.

    Rankers in ``reversed_rankers`` report every list upside down.
    """
    rng = np.random.default_rng(seed)
    n_items = scores.size
    lists, rankers = [], []
    for n in range(n_prefs):
        k = int(rng.choice(lengths))
        subset = rng.choice(n_items, size=k, replace=False)
        order = subset[np.argsort(-(scores[subset] + rng.gumbel(size=k)))].tolist()
        ranker = n % n_rankers if n_rankers else n
        if ranker in reversed_rankers:
            order = order[::-1]
        pref, i = [], 0
        while i < k:
            if tie_prob and i + 1 < k and rng.random() < tie_prob:
                pref.append(frozenset(order[i:i + 2]))
                i += 2
            else:
                pref.append(order[i])
                i += 1
        lists.append(pref)
        rankers.append(ranker)
    return Preferences.from_lists(lists, n_items=n_items,
                                  rankers=rankers if n_rankers else None)


@pytest.fixture(scope="module")
def mixed():
    """Small data with ties, lengths 2..5, tied pairs, weights and 4 rankers."""
    rng = np.random.default_rng(7)
    base = simulate(rng.normal(size=7), 50, tie_prob=0.3, n_rankers=4, seed=7)
    extra = Preferences.from_pairs([0, 3, 5], [1, 4, 6], n_items=7, tied=[True, False, False])
    lists = base.to_lists() + extra.to_lists()
    prefs = Preferences.from_lists(lists, n_items=7, rankers=[*base.rankers, 0, 1, 2],
                                   weights=rng.uniform(0.5, 2.0, len(lists)))
    assert prefs.has_ties and set(prefs.lengths) == {2, 3, 4, 5}
    return prefs


# ---------------------------------------------------------------------------- gradients
def test_pl_objective_gradient_matches_finite_differences(mixed):
    s = np.random.default_rng(1).normal(size=mixed.n_items)
    _, grad = pl_objective(mixed, s, regularization=0.7, l2=0.3)
    numeric = numeric_gradient(lambda x: pl_objective(mixed, x, 0.7, 0.3)[0], s)
    np.testing.assert_allclose(grad, numeric, atol=1e-6)


def test_virtual_node_penalty_gradient_and_value():
    s = np.array([-3.0, -0.5, 0.0, 0.4, 2.5])
    value, grad = virtual_node_penalty(s, slope=1.3)
    z = 1.3 * s
    assert value == pytest.approx(np.sum(log_expit(z) + log_expit(-z)))
    np.testing.assert_allclose(grad, numeric_gradient(lambda x: virtual_node_penalty(x, 1.3)[0],
                                                      s), atol=1e-7)


def test_th_objective_gradient_matches_finite_differences(mixed):
    winners, losers, weights = pairs_of(mixed)
    s = np.random.default_rng(2).normal(size=mixed.n_items)

    def value(x):
        return th_objective(x, winners, losers, weights, mixed.n_items, 0.3, 0.8)[0]

    _, grad = th_objective(s, winners, losers, weights, mixed.n_items, 0.3, 0.8)
    np.testing.assert_allclose(grad, numeric_gradient(value, s), atol=1e-6)


def test_peergrader_gradients_in_both_blocks_match_finite_differences(mixed):
    rng = np.random.default_rng(3)
    s = rng.normal(size=mixed.n_items)
    eta = rng.uniform(0.4, 2.0, mixed.n_rankers)
    prior = (3.0, 2.0)
    _, grad_s, grad_eta = peergrader_objective(mixed, s, eta, 0.6, prior)
    numeric_s = numeric_gradient(lambda x: peergrader_objective(mixed, x, eta, 0.6, prior)[0], s)
    numeric_eta = numeric_gradient(
        lambda x: peergrader_objective(mixed, s, x, 0.6, prior)[0], eta)
    np.testing.assert_allclose(grad_s, numeric_s, atol=1e-6)
    np.testing.assert_allclose(grad_eta, numeric_eta, atol=1e-6)


def test_peergrader_reliability_curvature_matches_finite_differences(mixed):
    rng = np.random.default_rng(4)
    s, eta = rng.normal(size=mixed.n_items), rng.uniform(0.4, 2.0, mixed.n_rankers)
    design = GraderDesign(mixed)
    _, _, _, curvature = design.evaluate(s, eta, grad_s=False, curvature=True)
    numeric = [numeric_gradient(lambda x, g=g: design.evaluate(s, x)[2][g], eta)[g]
               for g in range(eta.size)]
    np.testing.assert_allclose(curvature, numeric, atol=1e-5)
    assert np.all(curvature <= 0)


def test_reliability_one_gives_the_pl_likelihood(mixed):
    s = np.random.default_rng(5).normal(size=mixed.n_items)
    design = GraderDesign(mixed)
    value, grad, _, _ = design.evaluate(s, np.ones(mixed.n_rankers))
    expected, expected_grad = pl_objective(mixed, s, regularization=0.0)
    assert value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(grad, expected_grad, atol=1e-10)


def test_scaled_likelihood_is_stable_for_extreme_scores():
    prefs = Preferences.from_lists([[0, 1, 2], [2, 1, 0], [0, 1], [{0, 2}, 1]])
    value, grad, d_eta, curvature = GraderDesign(prefs).evaluate(
        np.array([400.0, 0.0, -400.0]), np.full(4, 3.0), curvature=True)
    assert np.isfinite(value) and value < -1e3
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(d_eta))
    assert np.all(np.isfinite(curvature))


# ---------------------------------------------------------------------------- PL by L-BFGS
def test_pl_lbfgs_recovers_a_simulated_pl_order():
    truth = np.linspace(-2.0, 2.0, 20)
    prefs = simulate(truth, 2000, lengths=(3, 4, 5), seed=11)
    result = pl_lbfgs(prefs)
    assert result.converged and result.method == "pl"
    assert kendall_tau_b(result.scores, truth) > 0.9


def test_pl_lbfgs_optimum_has_zero_gradient(mixed):
    result = pl_lbfgs(mixed, regularization=0.5, tol=1e-10)
    _, grad = pl_objective(mixed, result.scores, regularization=0.5)
    assert result.converged
    # L-BFGS-B stops when F no longer falls at float precision (ftol 1e-15 relative, F near
    # -180 here): from the EM start that leaves a gradient of 1.6e-6, from zeros 2.6e-8
    assert np.abs(grad).max() < 1e-5
    cold = pl_lbfgs(mixed, regularization=0.5, tol=1e-10, init=None)
    np.testing.assert_allclose(result.scores, cold.scores, atol=1e-6)
    assert result.extra["objective"] == pytest.approx(
        pl_objective(mixed, result.scores, 0.5)[0])


def test_virtual_node_regularisation_equals_explicit_virtual_comparisons(mixed):
    """reg · R(s) is the likelihood of a virtual item (index M) beaten by and beating each item."""
    m = mixed.n_items
    reg = 0.8
    items = np.arange(m)
    virtual = Preferences.from_pairs(np.r_[items, np.full(m, m)], np.r_[np.full(m, m), items],
                                     n_items=m + 1, weights=np.full(2 * m, reg))
    augmented = Preferences.from_lists(mixed.to_lists() + virtual.to_lists(), n_items=m + 1,
                                       weights=np.r_[mixed.weights, virtual.weights])
    plain = pl_lbfgs(augmented, regularization=0.0, tol=1e-11)
    direct = pl_lbfgs(mixed, regularization=reg, tol=1e-11)
    np.testing.assert_allclose(plain.scores[:m] - plain.scores[m], direct.scores, atol=1e-5)


def test_pl_lbfgs_trace_increases_and_params_are_stored():
    prefs = simulate(np.linspace(0, 3, 6), 80, seed=3)
    result = pl_lbfgs(prefs, regularization=2.0, trace=True)
    assert result.params == {"regularization": 2.0, "max_iter": 1000, "tol": 1e-8,
                             "init": "em", "l2": 0.0, "trace": True}
    assert result.trace.size == result.iterations
    assert np.all(np.diff(result.trace) >= -1e-9)
    assert result.tau is None and result.seconds >= 0


# ---------------------------------------------------------------------------- CoarsenTH
def reference_logistic_fit(winners, losers, n_items, reg, weight=1.0):
    """The untempered logistic Thurstone fit, written out and solved by BFGS."""
    lam = 2 / np.sqrt(np.pi)

    def negative(s):
        data = np.sum(log_expit(lam * (s[winners] - s[losers])))
        virtual = np.sum(log_expit(lam * s) + log_expit(-lam * s))
        return -(weight * data + reg * virtual)

    return minimize(negative, np.zeros(n_items), method="BFGS", options={"gtol": 1e-10}).x


def test_coarsen_th_at_alpha_inf_is_the_untempered_logistic_fit():
    prefs = simulate(np.linspace(0, 2, 6), 60, lengths=(2,), seed=5)
    result = coarsen_th(prefs, tol=1e-11)
    reference = reference_logistic_fit(prefs.items[0::2], prefs.items[1::2], 6, 1.0)
    assert result.tau == 1.0 and result.method == "coarsen-th"
    np.testing.assert_allclose(result.scores, reference, atol=1e-5)


def test_coarsen_th_rank_breaks_lists_and_tempers_by_original_preference_count():
    prefs = simulate(np.linspace(0, 2, 6), 40, lengths=(3, 4), seed=6)
    pairs = prefs.rank_break()
    alpha = 30.0
    tau = alpha / (alpha + len(prefs))
    result = coarsen_th(prefs, alpha=alpha, regularization=0.7, tol=1e-11)
    reference = reference_logistic_fit(pairs.items[0::2], pairs.items[1::2], 6, 0.7, tau)
    assert result.tau == pytest.approx(tau)
    assert result.extra["n_pairs"] == len(pairs) > len(prefs)
    np.testing.assert_allclose(result.scores, reference, atol=1e-5)


def test_tau_half_equals_doubled_regularisation():
    """τ D + r R and D + (r/τ) R have the same maximiser: α = N gives τ = 1/2."""
    prefs = simulate(np.linspace(0, 2, 8), 70, tie_prob=0.2, seed=8)
    half = coarsen_th(prefs, alpha=prefs.total_weight, regularization=1.5, tol=1e-11)
    doubled = coarsen_th(prefs, alpha=np.inf, regularization=3.0, tol=1e-11)
    assert half.tau == pytest.approx(0.5)
    np.testing.assert_allclose(half.scores, doubled.scores, atol=1e-6)


def test_coarsen_th_ignores_tied_pairs():
    prefs = simulate(np.linspace(0, 2, 5), 30, lengths=(2, 3), seed=9)
    tied = Preferences.from_lists(prefs.to_lists() + [[{0, 4}], [1, {2, 3}]], n_items=5)
    with_ties = coarsen_th(tied, tol=1e-11)
    without = coarsen_th(prefs, tol=1e-11)
    # same pairs apart from 1 > 2 and 1 > 3; alpha = inf so N does not enter
    extra = Preferences.from_lists(prefs.to_lists() + [[1, 2], [1, 3]], n_items=5)
    np.testing.assert_allclose(with_ties.scores, coarsen_th(extra, tol=1e-11).scores,
                               atol=1e-7)
    assert not np.allclose(with_ties.scores, without.scores)
    assert LOGISTIC_SLOPE == pytest.approx(2 / np.sqrt(np.pi))


# ---------------------------------------------------------------------------- PeerGrader
def test_peergrader_with_unit_reliability_equals_pl_with_the_same_l2(mixed):
    fixed = peergrader(mixed, l2=0.4, fit_reliability=False, inner_tol=1e-12)
    pl = pl_lbfgs(mixed, regularization=0.0, l2=0.4, tol=1e-12)
    np.testing.assert_allclose(fixed.scores, pl.scores, atol=1e-6)
    np.testing.assert_array_equal(fixed.extra["reliability"], 1.0)
    assert fixed.iterations == 1 and fixed.converged


@pytest.mark.parametrize("solver", ["joint", "alternating"])
def test_peergrader_optimum_is_stationary_in_both_blocks(mixed, solver):
    prior = (4.0, 3.0)
    result = peergrader(mixed, l2=0.5, reliability_prior=prior, solver=solver,
                        inner_tol=1e-11, tol=1e-9)
    eta = result.extra["reliability"]
    value, grad_s, grad_eta = peergrader_objective(mixed, result.scores, eta, 0.5, prior)
    assert result.converged
    assert np.abs(grad_s).max() < 1e-5 and np.abs(grad_eta).max() < 1e-5
    assert result.extra["objective"] == pytest.approx(value)


def test_joint_and_alternating_solvers_agree(mixed):
    joint = peergrader(mixed, inner_tol=1e-11)
    alternating = peergrader(mixed, solver="alternating", inner_tol=1e-11, tol=1e-10,
                             trace=True)
    np.testing.assert_allclose(joint.scores, alternating.scores, atol=1e-5)
    np.testing.assert_allclose(joint.extra["reliability"], alternating.extra["reliability"],
                               atol=1e-5)
    assert np.all(np.diff(alternating.trace) >= -1e-8)  # block ascent never decreases J


def test_a_reversed_grader_gets_the_lowest_reliability():
    truth = np.linspace(0, 4, 10)
    prefs = simulate(truth, 600, lengths=(3, 4), n_rankers=6, reversed_rankers=(5,), seed=12)
    result = peergrader(prefs)
    eta = result.extra["reliability"]
    assert eta.shape == (6,)
    assert eta[5] < 0.5 * eta[:5].min()
    assert pairwise_accuracy(result.scores, truth) == 1.0


def test_with_gamma_shape_one_a_reversed_grader_reaches_the_lower_bound():
    """Shape 1: the reversed grader's optimum is η = 0 (the bound); both solvers find it."""
    truth = np.linspace(0, 4, 8)
    prefs = simulate(truth, 300, lengths=(3,), n_rankers=4, reversed_rankers=(3,), seed=14)
    joint = peergrader(prefs, reliability_prior=(1.0, 1.0), inner_tol=1e-10)
    alternating = peergrader(prefs, reliability_prior=(1.0, 1.0), solver="alternating",
                             inner_tol=1e-10, tol=1e-9)
    for result in (joint, alternating):
        eta = result.extra["reliability"]
        assert result.converged
        # the alternating Newton steps creep to the bound: 1.0002e-8 from the EM start
        assert eta[3] == pytest.approx(ETA_MIN, rel=1e-3) and eta[:3].min() > 0.1
    np.testing.assert_allclose(joint.scores, alternating.scores, atol=1e-5)


def test_peergrader_without_rankers_gives_one_reliability_per_preference():
    prefs = simulate(np.linspace(0, 3, 6), 40, seed=13)
    result = peergrader(prefs, reliability_prior=(5.0, 5.0))
    assert result.extra["reliability"].shape == (40,)
    assert np.all(result.extra["reliability"] > 0)


def test_peergrader_rejects_bad_arguments(mixed):
    with pytest.raises(ValueError, match="shape >= 1"):
        peergrader(mixed, reliability_prior=(0.5, 1.0))
    with pytest.raises(ValueError, match="solver"):
        peergrader(mixed, solver="newton")
    with pytest.raises(ValueError):
        pl_lbfgs(mixed, regularization=-1.0)
    with pytest.raises(ValueError):
        coarsen_th(mixed, alpha=0.0)


# ---------------------------------------------------------------------------- recovery
METHODS = {
    "pl": lambda prefs: pl_lbfgs(prefs),
    "coarsen-th": lambda prefs: coarsen_th(prefs, alpha=50.0),
    "peergrader": lambda prefs: peergrader(prefs),
}
DATA = {
    "pairs": dict(lengths=(2,), tie_prob=0.0),
    "lists": dict(lengths=(3, 4, 5), tie_prob=0.0),
    "ties": dict(lengths=(2, 3, 4), tie_prob=0.3),
}


@pytest.mark.parametrize("kind", DATA)
@pytest.mark.parametrize("method", METHODS)
def test_each_method_recovers_a_strongly_separated_truth(method, kind):
    truth = np.linspace(0.0, 8.0, 12)
    prefs = simulate(truth, 500, n_rankers=20, seed=21, **DATA[kind])
    result = METHODS[method](prefs)
    assert result.method == method and result.converged
    assert pairwise_accuracy(result.scores, truth) >= 0.95


@pytest.mark.parametrize("method", METHODS)
def test_relabelling_items_permutes_the_scores(method, mixed):
    perm = np.random.default_rng(0).permutation(mixed.n_items)
    base = METHODS[method](mixed).scores
    moved = METHODS[method](mixed.relabel(perm)).scores
    np.testing.assert_allclose(moved[perm], base, atol=1e-5)


@pytest.mark.parametrize("prefs", [
    Preferences.from_lists([[{0, 1, 2}], [{0, 1}], [{1, 2}]]),
    Preferences.from_pairs([0, 2], [1, 1], n_items=3, tied=[True, True], weights=[2.0, 1.0])])
def test_coarsen_th_on_fully_tied_data_gives_equal_scores_and_says_why(prefs):
    from coarsenrank_core.registry import run_method

    for alpha in (5.0, np.inf):
        result = run_method("coarsen-th", prefs, alpha=alpha)
        np.testing.assert_array_equal(result.scores, 0.0)
        assert result.converged and result.extra["n_pairs"] == 0
        assert "entirely tied" in result.extra["note"]
    value, grad = th_objective(np.zeros(3), np.zeros(0, np.intp), np.zeros(0, np.intp))
    assert grad.dtype == float and value == pytest.approx(3 * 2 * np.log(0.5))
    assert "note" not in coarsen_th(Preferences.from_lists([[0, {1, 2}]])).extra


def test_coarsen_th_asks_should_stop_before_every_evaluation_and_cancels():
    from coarsenrank_core.errors import Cancelled

    rng = np.random.default_rng(9)
    lists = [rng.permutation(8)[:4].tolist() for _ in range(60)]
    prefs = Preferences.from_lists(lists, n_items=8)
    asked = []
    free = coarsen_th(prefs, alpha=5.0, should_stop=lambda: asked.append(1) and False)
    np.testing.assert_array_equal(free.scores, coarsen_th(prefs, alpha=5.0).scores)
    assert len(asked) >= free.iterations > 1 and "should_stop" not in free.params
    calls = []
    with pytest.raises(Cancelled, match="after 3 evaluations"):
        coarsen_th(prefs, alpha=5.0, should_stop=lambda: calls.append(1) or len(calls) > 3)
