"""Borda and Copeland (models/baselines.py) against counts written out by hand."""

import itertools

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.models.baselines import borda, copeland


def random_collection(seed, n_items=6, n_prefs=30, weighted=True):
    """Lists of 2..n_items items with some tied groups, random weights, one absent item."""
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(n_prefs):
        k = int(rng.integers(2, n_items))
        order = rng.permutation(n_items - 1)[:k].tolist()  # the last item never appears
        pref, i = [], 0
        while i < k:
            size = int(rng.integers(1, 4)) if rng.random() < 0.3 else 1
            group = order[i:i + size]
            pref.append(group[0] if len(group) == 1 else frozenset(group))
            i += size
        lists.append(pref)
    weights = rng.choice([0.5, 1.0, 3.0], n_prefs) if weighted else None
    return Preferences.from_lists(lists, n_items=n_items, weights=weights)


def groups_of(pref):
    return [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]


def brute_borda(prefs):
    total, seen = np.zeros(prefs.n_items), np.zeros(prefs.n_items)
    for pref, weight in zip(prefs.to_lists(), prefs.weights):
        groups = groups_of(pref)
        k = sum(len(g) for g in groups)
        start = 0
        for group in groups:
            middle = start + (len(group) - 1) / 2  # tied items share their mean position
            for m in group:
                total[m] += weight * (k - 1 - middle) / (k - 1)
                seen[m] += weight
            start += len(group)
    return np.where(seen > 0, total / np.where(seen > 0, seen, 1), 0.5)


def brute_copeland(prefs):
    beats = np.zeros((prefs.n_items, prefs.n_items))
    for pref, weight in zip(prefs.to_lists(), prefs.weights):
        groups = groups_of(pref)
        for j, upper in enumerate(groups):
            for lower in groups[j + 1:]:
                for a, b in itertools.product(upper, lower):
                    beats[a, b] += weight
    scores = np.zeros(prefs.n_items)
    for a, b in itertools.combinations(range(prefs.n_items), 2):
        if beats[a, b] > beats[b, a]:
            scores[a] += 1
            scores[b] -= 1
        elif beats[b, a] > beats[a, b]:
            scores[b] += 1
            scores[a] -= 1
    return scores


@pytest.mark.parametrize("seed", range(6))
def test_borda_matches_the_count_written_out(seed):
    prefs = random_collection(seed, weighted=seed % 2 == 0)
    result = borda(prefs)
    np.testing.assert_allclose(result.scores, brute_borda(prefs), rtol=1e-12)
    assert result.scores[-1] == 0.5  # never seen: no evidence either way


@pytest.mark.parametrize("seed", range(6))
def test_copeland_matches_the_contests_written_out(seed):
    prefs = random_collection(seed, weighted=seed % 2 == 0)
    np.testing.assert_array_equal(copeland(prefs).scores, brute_copeland(prefs))


def test_borda_scores_first_one_and_last_zero_whatever_the_length():
    prefs = Preferences.from_lists([[0, 1, 2, 3, 4], [2, 4]], n_items=5)
    np.testing.assert_allclose(borda(prefs).scores, [1.0, 0.75, (0.5 + 1) / 2, 0.25, 0.0])
    tied = Preferences.from_lists([[{0, 1, 2}]], n_items=3)
    np.testing.assert_allclose(borda(tied).scores, 0.5)


def test_copeland_counts_weighted_majorities_and_equal_tallies_for_neither():
    # 0 > 1 twice but 1 > 0 with weight 3: 1 wins that contest; 2 and 3 meet once each way
    prefs = Preferences.from_lists([[0, 1], [0, 1], [1, 0], [2, 3], [3, 2], [0, 2]],
                                   weights=[1, 1, 3, 1, 1, 1], n_items=4)
    np.testing.assert_array_equal(copeland(prefs).scores, [0.0, 1.0, -1.0, 0.0])
    condorcet = Preferences.from_lists([[3, 0, 1, 2], [3, 2, 1], [1, 3]], n_items=4)
    assert copeland(condorcet).scores[3] == 3  # beats every other item


@pytest.mark.parametrize("method", [borda, copeland])
def test_baselines_are_one_pass_records_and_permute_with_the_items(method):
    prefs = random_collection(9)
    result = method(prefs)
    assert result.method == method.__name__ and result.iterations == 1
    assert result.converged is None and result.seconds >= 0
    perm = np.random.default_rng(0).permutation(prefs.n_items)
    np.testing.assert_allclose(method(prefs.relabel(perm)).scores[perm], result.scores)
    # a weight of two is the same as listing the preference twice
    lists = prefs.to_lists()
    doubled = Preferences.from_lists(lists + lists[:1], n_items=prefs.n_items,
                                     weights=[*prefs.weights, prefs.weights[0]])
    heavier = Preferences.from_lists(lists, n_items=prefs.n_items,
                                     weights=[2 * prefs.weights[0], *prefs.weights[1:]])
    np.testing.assert_allclose(method(doubled).scores, method(heavier).scores)
