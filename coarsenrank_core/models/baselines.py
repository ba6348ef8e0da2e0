"""Classic baselines for teaching: the Borda count and Copeland's pairwise-majority score."""

from __future__ import annotations

import time
from typing import cast

import numpy as np
from scipy.sparse import coo_matrix

from ..preferences import Preferences
from ..results import RankingResult

__all__ = ["borda", "copeland"]


def _mid_positions(prefs: Preferences) -> np.ndarray:
    """0-based position of every entry, tied entries sharing their group's mean position."""
    groups = prefs.groups
    position = prefs.positions
    new_group = (position == 0) | np.concatenate([[True], groups[1:] != groups[:-1]])
    group_id = np.cumsum(new_group) - 1
    first = position[new_group][group_id]
    size = np.bincount(group_id)[group_id]
    return cast(np.ndarray, first + (size - 1) / 2.0)


def borda(prefs: Preferences) -> RankingResult:
    """Normalised Borda count: an item's mean share of the list it beats.

    In a list of ``k`` items, the item at 0-based position ``r`` scores ``(k − 1 − r) / (k − 1)``:
    1 for first, 0 for last, whatever ``k`` is, so short and long lists count alike. Tied
    items share the mean of their positions. An item's score is the weighted mean over the
    lists it appears in; items that never appear score 0.5 (no evidence either way).
    """
    start = time.perf_counter()
    k = prefs.lengths[prefs.owner]
    points = (k - 1 - _mid_positions(prefs)) / (k - 1)
    weight = prefs.weights[prefs.owner]
    total = np.bincount(prefs.items, weights=weight * points, minlength=prefs.n_items)
    seen = np.bincount(prefs.items, weights=weight, minlength=prefs.n_items)
    scores = np.divide(total, seen, out=np.full(prefs.n_items, 0.5), where=seen > 0)
    return RankingResult(method="borda", scores=scores, iterations=1, converged=None,
                         seconds=time.perf_counter() - start)


def copeland(prefs: Preferences) -> RankingResult:
    """Copeland score: pairwise majority contests won minus contests lost.

    Lists are fully rank-broken into weighted pairs; for every two items that meet, the one
    preferred by more (weighted) comparisons wins that contest. Ties inside lists and equal
    tallies count for neither. The score of an item is its wins minus its losses.
    """
    start = time.perf_counter()
    pairs = prefs.rank_break()
    n = prefs.n_items
    tally = coo_matrix((pairs.weights, (pairs.items[0::2], pairs.items[1::2])),
                       shape=(n, n)).tocsr()
    net = (tally - tally.T).tocoo()
    outcome = np.sign(net.data)
    scores = np.bincount(net.row, weights=outcome, minlength=n)
    return RankingResult(method="copeland", scores=scores, iterations=1, converged=None,
                         seconds=time.perf_counter() - start)
