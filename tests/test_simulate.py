"""Tests of the Plackett–Luce simulator and the random subset/ordering helpers."""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from coarsenrank_core import coarsen_pl
from coarsenrank_core.metrics import kendall_tau_b
from coarsenrank_core.simulate import (
    pl_orderings,
    random_orderings,
    random_subsets,
    simulate_pl,
)

P_MIN = 1e-4  # fixed seeds: a correct sampler passes; a wrong one gives p ≈ 0 at these sizes


def _pl_probability(order, theta) -> float:
    """Exact PL probability of a full ordering (brute force)."""
    w = np.asarray(theta, float)[list(order)]
    return float(np.prod([w[i] / w[i:].sum() for i in range(len(w) - 1)]))


def _rows(prefs):
    k = int(prefs.lengths[0])
    assert np.all(prefs.lengths == k)
    return prefs.items.reshape(-1, k)


def _frequencies(rows, outcomes):
    index = {tuple(o): i for i, o in enumerate(outcomes)}
    codes = np.array([index[tuple(r)] for r in rows.tolist()])
    return np.bincount(codes, minlength=len(outcomes))


# ---------------------------------------------------------------------- simulate_pl
def test_seeded_reproducibility_and_seed_dependence():
    a, theta_a = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=3)
    b, theta_b = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=3)
    c, theta_c = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=4)
    assert a == b and np.array_equal(theta_a, theta_b)
    assert a != c and not np.array_equal(theta_a, theta_c)
    rng = np.random.default_rng(5)
    first, _ = simulate_pl(15, 50, random_state=rng)
    second, _ = simulate_pl(15, 50, random_state=rng)
    assert first != second  # a Generator is advanced, not reseeded


def test_shapes_lengths_and_scores():
    prefs, theta = simulate_pl(30, 500, length=7, random_state=0)
    assert len(prefs) == 500 and prefs.n_items == 30
    assert np.all(prefs.lengths == 7)
    assert theta.shape == (30,) and np.all(theta > 0)
    assert not prefs.has_ties and not prefs.has_rankers
    assert prefs.item_names == tuple(str(i) for i in range(30))
    rows = _rows(prefs)
    assert np.all(np.diff(np.sort(rows, axis=1), axis=1) > 0)  # distinct items per row


@pytest.mark.parametrize(("n_items", "expected"), [(5, 5), (10, 10), (40, 10)])
def test_default_length_is_min_of_m_and_10(n_items, expected):
    prefs, _ = simulate_pl(n_items, 20, random_state=1)
    assert np.all(prefs.lengths == expected)


def test_log_worths_have_the_requested_spread():
    _, theta = simulate_pl(20000, 1, length=2, spread=0.5, random_state=2)
    log_theta = np.log(theta)
    assert abs(log_theta.mean()) < 4 * 0.5 / np.sqrt(20000)
    assert abs(log_theta.std() - 0.5) < 0.02
    _, flat = simulate_pl(6, 10, spread=0.0, random_state=2)
    assert np.all(flat == 1.0)


def test_length_range_is_respected_and_uniform():
    prefs, _ = simulate_pl(12, 6000, length_range=(3, 8), random_state=7)
    assert prefs.lengths.min() == 3 and prefs.lengths.max() == 8
    counts = np.bincount(prefs.lengths, minlength=9)[3:]
    assert chisquare(counts).pvalue > P_MIN


@pytest.mark.parametrize("kwargs", [
    dict(length=1), dict(length=6), dict(length_range=(1, 3)), dict(length_range=(3, 2)),
    dict(length_range=(2, 6)), dict(length=3, length_range=(2, 3)), dict(spread=-1.0),
    dict(ties=1.5), dict(n_rankers=0), dict(n_rankers=11),
])
def test_invalid_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        simulate_pl(5, 10, **kwargs)


def test_full_orderings_of_three_items_follow_pl():
    prefs, theta = simulate_pl(3, 60000, length=3, spread=1.0, random_state=11)
    outcomes = list(itertools.permutations(range(3)))
    observed = _frequencies(_rows(prefs), outcomes)
    expected = np.array([_pl_probability(o, theta) for o in outcomes]) * len(prefs)
    assert np.isclose(expected.sum(), len(prefs))
    assert chisquare(observed, expected).pvalue > P_MIN
    # the test has power: the reversed model is rejected
    reverse = np.array([_pl_probability(o[::-1], theta) for o in outcomes]) * len(prefs)
    assert chisquare(observed, reverse).pvalue < 1e-10


def test_pairs_follow_pl_and_uniform_subsets():
    prefs, theta = simulate_pl(3, 60000, length=2, spread=1.0, random_state=12)
    outcomes = list(itertools.permutations(range(3), 2))
    observed = _frequencies(_rows(prefs), outcomes)
    expected = np.array([theta[i] / (theta[i] + theta[j]) / 3 for i, j in outcomes]) * len(prefs)
    assert chisquare(observed, expected).pvalue > P_MIN


def test_fitted_pl_recovers_the_true_order():
    prefs, theta = simulate_pl(30, 3000, length=5, spread=1.0, random_state=21)
    fit = coarsen_pl(prefs, alpha=np.inf, prior=(1.5, 0.01), max_iter=300)
    assert kendall_tau_b(fit.scores, theta) > 0.9


def test_ties_merge_adjacent_positions_with_the_given_probability():
    strict, _ = simulate_pl(10, 300, length=5, random_state=3)
    assert not strict.has_ties
    tied, _ = simulate_pl(10, 300, length=5, ties=1.0, random_state=3)
    assert np.all(tied.n_groups == 1)
    prefs, _ = simulate_pl(10, 4000, length=5, ties=0.3, random_state=3)
    merged = 1 - (prefs.n_groups - 1).sum() / (4 * len(prefs))
    assert abs(merged - 0.3) < 4 * np.sqrt(0.3 * 0.7 / (4 * len(prefs)))
    # tied groups keep PL's item sets: the same seed gives the same items per preference
    assert np.array_equal(np.sort(_rows(tied), axis=1), np.sort(_rows(strict), axis=1))


def test_rankers_are_assigned_round_robin():
    prefs, _ = simulate_pl(8, 23, length=3, n_rankers=5, random_state=0)
    assert np.array_equal(prefs.rankers, np.arange(23) % 5)
    assert prefs.ranker_names == ("r1", "r2", "r3", "r4", "r5")
    assert np.array_equal(prefs.summary().preferences_per_ranker, [5, 5, 5, 4, 4])


def test_item_names_are_passed_through():
    names = [f"item {i + 1}" for i in range(4)]
    prefs, _ = simulate_pl(4, 5, length=2, item_names=names, random_state=0)
    assert prefs.item_names == tuple(names)
    with pytest.raises(ValueError):
        simulate_pl(4, 5, length=2, item_names=names[:3], random_state=0)


def test_large_item_set_smoke():
    prefs, theta = simulate_pl(5000, 20000, length=2, random_state=9)
    assert len(prefs) == 20000 and prefs.is_pairwise
    assert np.all(prefs.items[0::2] != prefs.items[1::2])
    assert np.unique(prefs.items).size > 4500  # 40000 draws cover most of 5000 items
    empty, _ = simulate_pl(5, 0, random_state=0)
    assert len(empty) == 0


# ---------------------------------------------------------------------- helpers
@pytest.mark.parametrize(("n_items", "k"), [(5, 2), (5, 4), (5, 5)])  # Floyd, Floyd, keys
def test_random_subsets_are_uniform_ordered_samples(n_items, k):
    rows = random_subsets(n_items, np.full(30000, k), random_state=k).reshape(-1, k)
    outcomes = list(itertools.permutations(range(n_items), k))
    assert chisquare(_frequencies(rows, outcomes)).pvalue > P_MIN


def test_random_subsets_mixed_lengths_and_chunked_path():
    lengths = np.array([2, 5, 3, 2, 5, 4])
    flat = random_subsets(9, lengths, random_state=0)
    assert flat.size == lengths.sum()
    for piece in np.split(flat, np.cumsum(lengths)[:-1]):
        assert np.unique(piece).size == piece.size and piece.max() < 9
    # k^2 > 4M takes the random-key path, chunked over rows when M is large
    rows = random_subsets(5000, np.full(2000, 200), random_state=1).reshape(-1, 200)
    assert np.all(np.diff(np.sort(rows, axis=1), axis=1) > 0)
    counts = np.bincount(rows.ravel(), minlength=5000)
    assert chisquare(counts).pvalue > P_MIN
    first = np.bincount(rows[:, 0] * 10 // 5000, minlength=10)  # first slot is uniform too
    assert chisquare(first).pvalue > P_MIN
    with pytest.raises(ValueError):
        random_subsets(4, [5])


def test_random_orderings_are_uniform_permutations_of_each_row():
    base = np.tile([[7, 3, 9]], (30000, 1))
    shuffled = random_orderings(base, random_state=2)
    assert np.array_equal(np.sort(shuffled, axis=1), np.sort(base, axis=1))
    outcomes = list(itertools.permutations([7, 3, 9]))
    assert chisquare(_frequencies(shuffled, outcomes)).pvalue > P_MIN


def test_pl_orderings_put_the_better_item_first_with_pl_odds():
    log_theta = np.log([3.0, 1.0])
    rows = pl_orderings(np.tile([[1, 0]], (40000, 1)), log_theta, random_state=4)
    share = np.mean(rows[:, 0] == 0)
    assert abs(share - 0.75) < 4 * math.sqrt(0.75 * 0.25 / 40000)
