"""PL by L-BFGS (models/pl_gradient.py): gradient, optimality, the virtual node, recovery."""

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import kendall_tau_b, pairwise_accuracy
from coarsenrank_core.models.pl_gradient import pl_lbfgs, pl_objective
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
def test_pl_objective_gradient_matches_finite_differences(mixed):
    s = np.random.default_rng(1).normal(size=mixed.n_items)
    _, grad = pl_objective(mixed, s, regularization=0.7, l2=0.3)
    numeric = numeric_gradient(lambda x: pl_objective(mixed, x, 0.7, 0.3)[0], s)
    np.testing.assert_allclose(grad, numeric, atol=1e-6)


# ---------------------------------------------------------------------------- fits
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


def test_pl_lbfgs_rejects_bad_arguments(mixed):
    with pytest.raises(ValueError, match="non-negative"):
        pl_lbfgs(mixed, regularization=-1.0)
    with pytest.raises(ValueError, match="non-negative"):
        pl_lbfgs(mixed, l2=np.inf)
    with pytest.raises(ValueError, match="max_iter"):
        pl_lbfgs(mixed, max_iter=0)
    with pytest.raises(ValueError, match="init"):
        pl_lbfgs(mixed, init=np.zeros(mixed.n_items + 1))


# ---------------------------------------------------------------------------- recovery
@pytest.mark.parametrize("kind", SEPARATED_KINDS)
def test_pl_lbfgs_recovers_a_strongly_separated_truth(kind):
    truth, prefs = separated_truth(kind)
    result = pl_lbfgs(prefs)
    assert result.method == "pl" and result.converged
    assert pairwise_accuracy(result.scores, truth) >= 0.95


def test_relabelling_items_permutes_the_pl_scores(mixed):
    perm = np.random.default_rng(0).permutation(mixed.n_items)
    base = pl_lbfgs(mixed).scores
    moved = pl_lbfgs(mixed.relabel(perm)).scores
    np.testing.assert_allclose(moved[perm], base, atol=1e-5)
