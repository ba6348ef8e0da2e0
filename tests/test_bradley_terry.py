"""CoarsenBT (models/bradley_terry.py): the tempered Bradley–Terry posterior on rank-broken
pairs, against a direct optimiser, with τ from the original preferences and Breslow ties."""

import numpy as np
import pytest
from scipy.optimize import minimize

from coarsenrank_core import Preferences, pairwise_accuracy
from coarsenrank_core.models import coarsen_pl
from coarsenrank_core.models.bradley_terry import coarsen_bt
from tests.helpers import simulate


def brute_pairs(prefs):
    """(winner, loser, weight, tied) of every pair inside every list, written out."""
    out = []
    for pref, weight in zip(prefs.to_lists(), prefs.weights):
        groups = [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]
        for j, group in enumerate(groups):
            for a in group:  # a tied pair: each chosen over the other from the two
                out += [(a, b, weight, True) for b in group if b != a]
            for lower in groups[j + 1:]:
                out += [(a, b, weight, False) for a in group for b in lower]
    return out


def direct_map(prefs, alpha, prior):
    """The tempered BT posterior mode, written out over the pairs and solved by L-BFGS-B."""
    a, b = prior
    tau = 1.0 if np.isinf(alpha) else alpha / (alpha + prefs.total_weight)
    pairs = brute_pairs(prefs)
    win = np.array([p[0] for p in pairs])
    lose = np.array([p[1] for p in pairs])
    weight = np.array([p[2] for p in pairs], dtype=float)

    def negative(s):
        theta = np.exp(s)
        p = theta[win] / (theta[win] + theta[lose])
        value = (a - 1) * s.sum() - b * theta.sum() + tau * np.sum(weight * np.log(p))
        grad = (a - 1) - b * theta
        grad += tau * np.bincount(win, weight * (1 - p), minlength=s.size)
        grad -= tau * np.bincount(lose, weight * (1 - p), minlength=s.size)
        return -value, -grad

    fit = minimize(negative, np.zeros(prefs.n_items), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=10_000, ftol=1e-15, gtol=1e-12))
    return np.exp(fit.x)


@pytest.fixture(scope="module")
def lists():
    prefs = simulate(np.linspace(-1, 1, 6), 40, lengths=(2, 3, 4), tie_prob=0.25, seed=3)
    weights = np.random.default_rng(3).choice([0.5, 1.0, 2.0], len(prefs))
    return Preferences.from_lists(prefs.to_lists(), n_items=6, weights=weights)


@pytest.mark.parametrize("alpha", [4.0, 25.0, np.inf])
def test_coarsen_bt_is_the_tempered_bt_posterior_mode_over_all_pairs(lists, alpha):
    prior = (2.0, 1.0)
    result = coarsen_bt(lists, alpha=alpha, prior=prior, max_iter=20_000, tol=1e-13)
    np.testing.assert_allclose(result.scores, direct_map(lists, alpha, prior), rtol=1e-6)
    expected_tau = 1.0 if np.isinf(alpha) else alpha / (alpha + lists.total_weight)
    assert result.tau == pytest.approx(expected_tau)  # N: the lists' weight, not the pairs'
    assert result.extra["n_pairs"] == len(lists.rank_break(keep_ties=True))
    assert result.method == "coarsen-bt" and result.converged


def test_rank_breaking_gives_every_pair_and_a_tied_pair_both_ways(lists):
    pairs = lists.rank_break(keep_ties=True)
    assert len(pairs) == sum(1 for p in brute_pairs(lists) if not p[3]) + \
        sum(1 for p in brute_pairs(lists) if p[3]) // 2
    # a tied pair of a list counts as each item chosen over the other (Breslow)
    tied = Preferences.from_lists([[{0, 1}], [0, 2], [2, 1]], n_items=3)
    both_ways = Preferences.from_lists([[0, 1], [1, 0], [0, 2], [2, 1]], n_items=3)
    np.testing.assert_allclose(coarsen_bt(tied, prior=(2.0, 1.0), tol=1e-12).scores,
                               coarsen_bt(both_ways, prior=(2.0, 1.0), tol=1e-12).scores,
                               rtol=1e-8)


def test_on_pairs_coarsen_bt_is_coarsen_pl():
    pairs = simulate(np.linspace(0, 2, 5), 60, lengths=(2,), seed=4)
    for alpha in (10.0, np.inf):
        bt = coarsen_bt(pairs, alpha=alpha, prior=(1.0, 2.0), calibration="paper")
        pl = coarsen_pl(pairs, alpha=alpha, prior=(1.0, 2.0), calibration="paper")
        np.testing.assert_allclose(bt.scores, pl.scores, rtol=1e-12)
        assert bt.tau == pl.tau and bt.iterations == pl.iterations


def test_a_list_is_tempered_once_not_once_per_pair():
    long_list = Preferences.from_lists([[0, 1, 2, 3, 4]] * 3, n_items=5)
    result = coarsen_bt(long_list, alpha=6.0, prior=(2.0, 1.0))
    assert result.tau == pytest.approx(6.0 / 9.0) and result.extra["n_pairs"] == 30


def test_coarsen_bt_recovers_the_order_and_keeps_its_parameters():
    truth = np.linspace(0, 4, 8)
    prefs = simulate(truth, 400, lengths=(3, 4), seed=5)
    result = coarsen_bt(prefs, alpha=50.0, calibration="paper", max_iter=300, tol=1e-9)
    assert pairwise_accuracy(result.scores, truth) >= 0.95
    assert result.params == {"alpha": 50.0, "prior": (1.0, 2.0), "calibration": "paper",
                             "max_iter": 300, "tol": 1e-9, "init": None}


def test_coarsen_bt_refuses_what_coarsen_pl_refuses(lists):
    with pytest.raises(ValueError, match="alpha must be positive"):
        coarsen_bt(lists, alpha=0.0)
    with pytest.raises(ValueError, match="no effect"):  # a = 1, finite α, no calibration
        coarsen_bt(lists, alpha=10.0, prior=(1.0, 2.0), calibration=None)
