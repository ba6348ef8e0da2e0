"""CoarsenTH (models/thurstone.py): gradient, the untempered logistic fit, τ, ties, recovery."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_expit

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.models.thurstone import LOGISTIC_SLOPE, coarsen_th, pairs_of, th_objective
from tests.helpers import (
    SEPARATED_KINDS,
    mixed_preferences,
    numeric_gradient,
    separated_truth,
    simulate,
)


@pytest.fixture(scope="module")
def mixed():
    """Small data with ties, lengths 2..5, tied pairs, weights and 4 rankers."""
    return mixed_preferences()


# ---------------------------------------------------------------------------- gradient
def test_th_objective_gradient_matches_finite_differences(mixed):
    winners, losers, weights = pairs_of(mixed)
    s = np.random.default_rng(2).normal(size=mixed.n_items)

    def value(x):
        return th_objective(x, winners, losers, weights, mixed.n_items, 0.3, 0.8)[0]

    _, grad = th_objective(s, winners, losers, weights, mixed.n_items, 0.3, 0.8)
    np.testing.assert_allclose(grad, numeric_gradient(value, s), atol=1e-6)


# ---------------------------------------------------------------------------- fits
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


def test_coarsen_th_rejects_bad_arguments(mixed):
    with pytest.raises(ValueError, match="alpha must be positive"):
        coarsen_th(mixed, alpha=0.0)
    with pytest.raises(ValueError, match="non-negative"):
        coarsen_th(mixed, regularization=-1.0)


# ---------------------------------------------------------------------------- recovery
@pytest.mark.parametrize("kind", SEPARATED_KINDS)
def test_coarsen_th_recovers_a_strongly_separated_truth(kind):
    truth, prefs = separated_truth(kind)
    result = coarsen_th(prefs, alpha=50.0)
    assert result.method == "coarsen-th" and result.converged
    assert pairwise_accuracy(result.scores, truth) >= 0.95


def test_relabelling_items_permutes_the_coarsen_th_scores(mixed):
    perm = np.random.default_rng(0).permutation(mixed.n_items)
    base = coarsen_th(mixed, alpha=50.0).scores
    moved = coarsen_th(mixed.relabel(perm), alpha=50.0).scores
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
