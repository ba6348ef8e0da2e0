"""Pairwise accuracy (the paper's calc_auc) and Kendall's τ-b against brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core import kendall_tau_b, pairwise_accuracy
from coarsenrank_core.metrics import kendall_distance


def brute_accuracy(scores, truth):
    correct = total = 0
    for i, j in itertools.combinations(range(len(truth)), 2):
        if truth[i] != truth[j]:
            total += 1
            correct += np.sign(scores[i] - scores[j]) == np.sign(truth[i] - truth[j])
    return correct / total


def brute_tau_b(x, y):
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tied_x += 1
        elif dy == 0:
            tied_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    n1 = concordant + discordant + tied_x
    n2 = concordant + discordant + tied_y
    return (concordant - discordant) / np.sqrt(n1 * n2)


scores_and_truth = st.integers(2, 25).flatmap(lambda m: st.tuples(
    st.lists(st.integers(0, 6).map(float), min_size=m, max_size=m),
    st.lists(st.integers(0, 4).map(float), min_size=m, max_size=m)))


@settings(max_examples=300, deadline=None)
@given(scores_and_truth)
def test_pairwise_accuracy_matches_brute_force(pair):
    scores, truth = pair
    if len(set(truth)) < 2:
        assert np.isnan(pairwise_accuracy(scores, truth))
        return
    assert pairwise_accuracy(scores, truth) == pytest.approx(brute_accuracy(scores, truth),
                                                             abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(scores_and_truth)
def test_kendall_tau_b_matches_brute_force(pair):
    x, y = pair
    if len(set(x)) < 2 or len(set(y)) < 2:
        return
    assert kendall_tau_b(x, y) == pytest.approx(brute_tau_b(x, y), abs=1e-12)


def test_tie_in_the_estimate_counts_as_an_error():
    # items 1 and 2 tie in the estimate: the pair is wrong, the other two are right
    assert pairwise_accuracy([3.0, 0.0, 0.0], [3.0, 2.0, 1.0]) == pytest.approx(2 / 3)
    assert pairwise_accuracy([1.0, 1.0, 1.0], [3.0, 2.0, 1.0]) == 0.0


def test_strict_orders_relate_accuracy_and_tau():
    rng = np.random.default_rng(0)
    x, y = rng.permutation(40).astype(float), rng.permutation(40).astype(float)
    assert kendall_tau_b(x, y) == pytest.approx(2 * pairwise_accuracy(x, y) - 1)


def test_missing_truth_is_skipped_and_large_inputs_work():
    assert pairwise_accuracy([1.0, 2.0, 3.0], [1.0, np.nan, 3.0]) == 1.0
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 12, 5000).astype(float)
    noisy = truth + rng.normal(0, 3, 5000)
    accuracy = pairwise_accuracy(noisy, truth)
    sample = rng.choice(5000, 300, replace=False)
    assert accuracy == pytest.approx(brute_accuracy(noisy[sample], truth[sample]), abs=0.03)
    assert pairwise_accuracy(truth, truth) == 1.0
    assert pairwise_accuracy(-truth, truth) == 0.0


def test_kendall_distance_counts_discordant_pairs():
    assert kendall_distance([0, 1, 2, 3], [0, 1, 2, 3]) == 0
    assert kendall_distance([0, 1, 2, 3], [3, 2, 1, 0]) == 6
    assert kendall_distance([5, 9, 7], [9, 5, 7]) == 1
    with pytest.raises(ValueError):
        kendall_distance([0, 1], [0, 2])
