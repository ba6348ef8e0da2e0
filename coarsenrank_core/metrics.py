"""Agreement of estimated scores with a ground truth: pairwise accuracy and Kendall's τ-b."""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

__all__ = ["pairwise_accuracy", "kendall_tau_b", "kendall_distance", "partial_truth_note"]


def _paired(scores, truth) -> tuple[np.ndarray, np.ndarray]:
    scores = np.asarray(scores, dtype=float)
    truth = np.asarray(truth, dtype=float)
    if scores.shape != truth.shape or scores.ndim != 1:
        raise ValueError(f"scores and truth must be 1-D of equal length "
                         f"(got {scores.shape} and {truth.shape})")
    known = ~np.isnan(truth) & ~np.isnan(scores)
    return scores[known], truth[known]


def _tied_pairs(*columns: np.ndarray) -> int:
    """Number of item pairs equal in every given column."""
    _, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    return int(np.sum(counts * (counts - 1) // 2))


def pairwise_accuracy(scores, truth) -> float:
    """Fraction of item pairs that the scores order as the ground truth does (paper Eq. (34)).

    Pairs tied in the truth are skipped. A pair counts as correct only when
    ``sign(θ_i − θ_j) == sign(g_i − g_j)``, so a tie in the estimate is an error. This is the
    authors' ``calc_auc``; the paper calls it "Kendall tau similarity". Items whose truth
    (or score) is ``nan`` are left out. Runs in O(M log M).

    Parameters
    ----------
    scores : array, shape (M,)
        Estimated scores, higher is better.
    truth : array, shape (M,)
        Ground-truth scores, higher is better.

    Returns
    -------
    float
        In [0, 1]; ``nan`` when the truth orders no pair.

    Examples
    --------
    >>> pairwise_accuracy([3.0, 2.0, 2.0], [3, 2, 1])
    0.6666666666666666
    """
    x, y = _paired(scores, truth)
    n_pairs = x.size * (x.size - 1) // 2
    tied_x, tied_y, tied_both = _tied_pairs(x), _tied_pairs(y), _tied_pairs(x, y)
    informative = n_pairs - tied_y
    if informative == 0:
        return float("nan")
    untied = n_pairs - tied_x - tied_y + tied_both  # concordant + discordant
    if tied_x == n_pairs:
        return 0.0
    tau = kendalltau(x, y, variant="b").statistic
    difference = tau * np.sqrt(float(n_pairs - tied_x) * float(n_pairs - tied_y))
    concordant = round((untied + difference) / 2)
    return concordant / informative


def kendall_tau_b(scores, truth) -> float:
    """Kendall's τ-b between two score vectors (ties adjusted); ``nan`` if one is constant.

    For strict orders it equals ``2 · pairwise_accuracy − 1``.
    """
    x, y = _paired(scores, truth)
    if x.size < 2:
        return float("nan")
    return float(kendalltau(x, y, variant="b").statistic)


def kendall_distance(order_a, order_b) -> int:
    """Number of item pairs that two orderings of the same item ids put in opposite order."""
    order_a = np.asarray(order_a, dtype=np.intp)
    order_b = np.asarray(order_b, dtype=np.intp)
    if order_a.shape != order_b.shape or not np.array_equal(np.sort(order_a), np.sort(order_b)):
        raise ValueError("both orderings must hold the same items")
    n = order_a.size
    if n < 2:
        return 0
    position = np.empty(int(order_b.max()) + 1, dtype=float)
    position[order_b] = np.arange(n)
    tau = kendalltau(np.arange(n), position[order_a]).statistic
    return int(round((1 - tau) * n * (n - 1) / 4))


def partial_truth_note(truth, item_names, names_shown: int = 6) -> str | None:
    """A line saying that a ground truth leaves items out, so that every accuracy and τ
    measured against it is over the items it names only; None when it names them all.

    Parameters
    ----------
    truth : array, shape (M,)
        Ground-truth scores, ``nan`` for the items it does not mention.
    item_names : sequence of str
        The items' names, as shown to the user.
    names_shown : int
        The unnamed items listed before a count of the rest.
    """
    missing = np.flatnonzero(np.isnan(np.asarray(truth, dtype=float)))
    if missing.size == 0:
        return None
    listed = ", ".join(str(item_names[i]) for i in missing[:names_shown])
    more = f" and {missing.size - names_shown:,} more" if missing.size > names_shown else ""
    known = len(item_names) - missing.size
    return (f"The true order names {known} of the {len(item_names)} items, so accuracy and "
            f"Kendall's tau are measured over those {known} only; not named: {listed}{more}.")
