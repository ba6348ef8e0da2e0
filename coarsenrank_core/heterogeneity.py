"""How much rankers disagree item by item beyond chance, measured from their answers."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import check_stop
from .preferences import Preferences
from .simulate import pl_orderings

__all__ = ["RankerHeterogeneity", "ranker_heterogeneity", "within_ranker_covariance",
           "entry_scores", "item_set_index", "simulate_orders", "split_rankings",
           "with_heterogeneity", "spread_added", "HETEROGENEITY_NULL_FITS",
           "HETEROGENEITY_Z", "HETEROGENEITY_COPIES", "HETEROGENEITY_MAX_ENTRIES"]

#: Data sets simulated from the fit, with no heterogeneity, to centre the estimate and
#: measure its noise.
HETEROGENEITY_NULL_FITS = 10
#: The estimate is used only when it lies this many of its null standard deviations above 0.
HETEROGENEITY_Z = 2.0
#: Copies of every refit, each with fresh item deviations, when the spread is added ...
HETEROGENEITY_COPIES = 4
#: ... as long as all the draws hold at most this many entries (64 MB of float64).
HETEROGENEITY_MAX_ENTRIES = 1 << 23


@dataclass(frozen=True)
class RankerHeterogeneity:
    """The variance of a ranker's item-by-item deviation from the consensus.

    Each ranker ``r`` is taken to order the items by log-worths ``x + d_r`` where ``d_r`` has
    independent N(0, σ²) entries (a random-effects Plackett–Luce model, as in a meta-analysis
    of studies that differ beyond chance). Two lists of one ranker that share an item then
    carry correlated scores for it; lists of different rankers do not.

    Attributes
    ----------
    variance : float
        σ² used (0 when not measurable or not clearly above 0).
    estimate : float
        The moment estimate, centred by the simulated null (may be negative).
    null_sd : float
        Standard deviation of the estimate over :data:`HETEROGENEITY_NULL_FITS` data sets
        simulated from the fit with σ² = 0.
    measurable : bool
        Whether some ranker gave two lists that share an item and do not hold the very same
        items (weighted information > 0), leaving out the rankers of :attr:`split_rankers`.
    seconds : float
    split_rankers : int
        Rankers whose lists are one ranking split into pairs (:func:`split_rankings`): their
        lists are pieces of one answer, not separate answers, so they are left out.
    repeats_only : bool
        Whether the only lists of one ranker that share an item hold the very same items:
        such pairs are left out (:func:`within_ranker_covariance`), so nothing is measurable.
    """

    variance: float
    estimate: float
    null_sd: float
    measurable: bool
    seconds: float = 0.0
    split_rankers: int = 0
    repeats_only: bool = False

    @property
    def sd(self) -> float:
        """σ, the standard deviation of a ranker's deviation in log-worth."""
        return float(np.sqrt(self.variance))


def _blocks(prefs: Preferences):
    """``(rows, items, counts, chosen)`` per stage block: ``counts`` the number of stages
    opened at each position, ``chosen`` the entries that win one."""
    for block in prefs.stages.blocks:
        items = np.asarray(block.items)
        if block.multiplicity is None:
            counts = np.ones(items.shape)
            counts[:, -1] = 0.0
            chosen = counts > 0
        else:
            counts = np.asarray(block.multiplicity, dtype=float)
            chosen = np.asarray(block.chosen, dtype=bool)
        yield block.rows, items, counts, chosen


def entry_scores(prefs: Preferences, log_worths: np.ndarray):
    """Per entry of every list: the score ``∂ log P / ∂ x_i`` and its information.

    For a list the Plackett–Luce log-likelihood is ``Σ_chosen x_i − Σ_s d_s log η_s``
    (paper Eq. (19), ``d_s`` stages opened at set ``s``, ``η_s`` its sum of worths), so
    ``u_i = [i wins a stage] − e^{x_i} Σ_{s ∋ i} d_s / η_s`` and the information is
    ``e^{x_i} Σ d_s / η_s − e^{2 x_i} Σ d_s / η_s²``.

    Returns
    -------
    rows, items, scores, information : numpy.ndarray
        Flat, one entry per item of every list (``rows`` the list it belongs to).
    """
    log_worths = np.asarray(log_worths, dtype=float)
    out = []
    for rows, items, counts, chosen in _blocks(prefs):
        x = log_worths[items]
        x = x - x.max(axis=1, keepdims=True)
        worth = np.exp(x)
        sums = np.cumsum(worth[:, ::-1], axis=1)[:, ::-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            first = np.cumsum(np.where(counts > 0, counts / sums, 0.0), axis=1)
            second = np.cumsum(np.where(counts > 0, counts / sums ** 2, 0.0), axis=1)
        score = chosen - worth * first
        information = worth * first - worth ** 2 * second
        out.append((np.repeat(rows, items.shape[1]), items.ravel(), score.ravel(),
                    information.ravel()))
    return tuple(np.concatenate(parts) for parts in zip(*out))


def item_set_index(prefs: Preferences) -> np.ndarray:
    """Per list, an index shared by exactly the lists that hold the same set of items.

    Order and ties do not count; lists are compared within each length (one sort and one
    ``np.unique`` per length).

    Parameters
    ----------
    prefs : Preferences

    Returns
    -------
    numpy.ndarray of int64, shape (N,)
    """
    index = np.empty(len(prefs), dtype=np.int64)
    used = 0
    for k in np.unique(prefs.lengths):
        rows = np.flatnonzero(prefs.lengths == k)
        table = np.ascontiguousarray(np.sort(
            np.asarray(prefs.items)[prefs.offsets[:-1][rows, None] + np.arange(k)], axis=1),
            dtype=np.int64)
        keys = table.view(np.dtype((np.void, table.itemsize * int(k)))).ravel()
        _, inverse = np.unique(keys, return_inverse=True)
        index[rows] = used + inverse.ravel()
        used += int(inverse.max()) + 1
    return index


def within_ranker_covariance(prefs: Preferences, log_worths: np.ndarray,
                             list_weights: np.ndarray | None = None,
                             units: np.ndarray | None = None,
                             item_sets: np.ndarray | None = None) -> tuple[float, float]:
    """The summed products of one ranker's scores for an item across their different lists,
    and the products of the matching information.

    Their ratio estimates σ² of :class:`RankerHeterogeneity`:
    ``E[u_{l,i} u_{l',i}] ≈ I_{l,i} I_{l',i} σ²`` for lists ``l ≠ l'`` of one ranker. Products
    within one list are left out (a list's own scores are correlated whatever σ²), and so are
    products between lists of one ranker that hold the very same items (``item_sets``,
    default :func:`item_set_index`): a second answer to the same question may be a copy of
    the first (a form sent twice), whose scores agree whatever σ², and a copy cannot be told
    from a repeat. ``units`` gives each list's answerer (default ``prefs.ranker_index``).
    """
    rows, items, score, information = entry_scores(prefs, log_worths)
    weights = np.asarray(prefs.weights if list_weights is None else list_weights, dtype=float)
    score = score * weights[rows]
    information = information * weights[rows]
    unit = np.asarray(prefs.ranker_index if units is None else units)[rows]
    sets = np.asarray(item_set_index(prefs) if item_sets is None else item_sets)[rows]
    _, cell = np.unique(unit.astype(np.int64) * prefs.n_items + items, return_inverse=True)
    cell = cell.ravel()
    # within a cell, the lists holding one set of items: their products are left out
    _, same_set = np.unique(cell.astype(np.int64) * (int(sets.max(initial=0)) + 1) + sets,
                            return_inverse=True)
    same_set = same_set.ravel()
    score_sums = np.bincount(cell, score)
    information_sums = np.bincount(cell, information)
    set_scores = np.bincount(same_set, score)
    set_information = np.bincount(same_set, information)
    products = float(score_sums @ score_sums - set_scores @ set_scores)
    information_products = float(information_sums @ information_sums
                                 - set_information @ set_information)
    return products, information_products


def split_rankings(prefs: Preferences) -> np.ndarray:
    """Per ranker, whether their lists are one ranking split into pairs.

    That is: every list of theirs is a strict pair, no pair of items comes twice, and the
    pairs hold every pair of their (at least 3) items in one consistent order (a transitive
    round robin: the items' win counts are 0, 1, …, k − 1). Such pairs are pieces of one
    answer, correlated item by item whatever the rankers' spread, as when a file of
    rankings is written as "winner, loser" rows.
    """
    n_rankers = prefs.n_rankers
    none = np.zeros(n_rankers, dtype=bool)
    if not prefs.has_rankers or len(prefs) == 0:
        return none
    rater = np.asarray(prefs.ranker_index, dtype=np.int64)
    starts = prefs.offsets[:-1]
    groups = np.asarray(prefs.groups)
    pair = prefs.lengths == 2
    strict = np.zeros(len(prefs), dtype=bool)
    strict[pair] = groups[starts[pair]] != groups[starts[pair] + 1]
    only_pairs = np.bincount(rater, weights=~strict, minlength=n_rankers) == 0
    rows = np.flatnonzero(strict)
    if rows.size == 0:
        return none
    who = rater[rows]
    winner = np.asarray(prefs.items)[starts[rows]].astype(np.int64)
    loser = np.asarray(prefs.items)[starts[rows] + 1].astype(np.int64)
    n_items = np.int64(prefs.n_items)
    n_pairs = np.bincount(who, minlength=n_rankers)
    low, high = np.minimum(winner, loser), np.maximum(winner, loser)
    distinct = np.unique(np.stack([who, low, high], axis=1), axis=0)
    n_distinct = np.bincount(distinct[:, 0], minlength=n_rankers)
    cells, cell = np.unique(np.concatenate([who * n_items + winner, who * n_items + loser]),
                            return_inverse=True)
    cell = cell.ravel()
    cell_rater = cells // n_items
    k = np.bincount(cell_rater, minlength=n_rankers)
    wins = np.bincount(cell[:rows.size], minlength=cells.size).astype(np.int64)
    squares = np.bincount(cell_rater, weights=wins ** 2, minlength=n_rankers)
    return (only_pairs & (k >= 3) & (n_distinct == n_pairs) & (n_pairs == k * (k - 1) // 2)
            & (squares == (k - 1) * k * (2 * k - 1) // 6))


def simulate_orders(prefs: Preferences, log_worths: np.ndarray,
                    rng: np.random.Generator) -> Preferences:
    """A copy of ``prefs`` whose lists are reordered by Plackett–Luce draws at
    ``log_worths`` (Gumbel-max), keeping each list's items, ties pattern, weight and ranker."""
    new_items = np.array(prefs.items, copy=True)
    starts = prefs.offsets[:-1]
    for rows, items, _, _ in _blocks(prefs):
        new_items[starts[rows][:, None] + np.arange(items.shape[1])] = pl_orderings(
            items, log_worths, rng)
    return prefs._replace(items=new_items)


def ranker_heterogeneity(prefs: Preferences, scores, refit: Callable[[Preferences], np.ndarray],
                         list_weights: np.ndarray | None = None,
                         n_null: int = HETEROGENEITY_NULL_FITS, random_state=0,
                         should_stop: Callable[[], bool] | None = None
                         ) -> RankerHeterogeneity:
    """Estimate how much each ranker's order departs from the consensus item by item.

    The moment estimate of :func:`within_ranker_covariance` is biased by the fit itself (its
    scores are tuned to these answers); it is centred by the mean estimate over ``n_null``
    data sets simulated from the fit with no heterogeneity and refitted with ``refit``, and
    used only when it lies :data:`HETEROGENEITY_Z` of their standard deviations above 0.

    Parameters
    ----------
    prefs : Preferences
    scores : array, shape (M,)
        The fit's worths (items with a zero worth are left out).
    refit : callable
        ``refit(prefs) -> worths``, the same fit on simulated data.
    list_weights : array, optional
        Weight of every list (default ``prefs.weights``), for example the chance that it is
        careful.
    n_null : int
    random_state : None, int or numpy.random.Generator
    should_stop : callable, optional
        Checked before every simulated data set; raises
        :class:`~coarsenrank_core.errors.Cancelled`.

    Returns
    -------
    RankerHeterogeneity
    """
    start = time.perf_counter()
    scores = np.asarray(scores, dtype=float)
    rng = np.random.default_rng(random_state)
    if not prefs.has_rankers or not np.any(scores > 0):
        return RankerHeterogeneity(0.0, float("nan"), float("nan"), False)
    log_worths = _log_worths(scores)
    # a ranking split into pairs is one answer: each of its pairs counts as its own answerer
    split = split_rankings(prefs)
    units = np.asarray(prefs.ranker_index, dtype=np.int64).copy()
    pieces = split[units]
    units[pieces] = prefs.n_rankers + np.arange(int(pieces.sum()))
    n_split = int(split.sum())
    item_sets = item_set_index(prefs)
    products, information = within_ranker_covariance(prefs, log_worths, list_weights, units,
                                                     item_sets)
    if information <= 0:
        repeats = within_ranker_covariance(prefs, log_worths, list_weights, units,
                                           np.arange(len(prefs)))[1] > 0
        return RankerHeterogeneity(0.0, float("nan"), float("nan"), False,
                                   time.perf_counter() - start, n_split, bool(repeats))
    null = np.empty(n_null)
    for k in range(n_null):
        check_stop(should_stop, "Measuring how much the rankers differ was stopped.")
        simulated = simulate_orders(prefs, log_worths, rng)
        fitted = _log_worths(np.asarray(refit(simulated), dtype=float))
        sim_products, sim_information = within_ranker_covariance(simulated, fitted,
                                                                 list_weights, units,
                                                                 item_sets)
        # a simulated data set whose refit leaves no shared item informative says nothing
        null[k] = sim_products / sim_information if sim_information > 0 else np.nan
    null = null[np.isfinite(null)]
    if null.size < 2:
        return RankerHeterogeneity(0.0, float("nan"), float("nan"), False,
                                   time.perf_counter() - start, n_split)
    estimate = products / information - float(null.mean())
    null_sd = float(null.std(ddof=1))
    variance = estimate if estimate > HETEROGENEITY_Z * null_sd and estimate > 0 else 0.0
    return RankerHeterogeneity(float(variance), float(estimate), null_sd, True,
                              time.perf_counter() - start, n_split)


def _log_worths(scores: np.ndarray) -> np.ndarray:
    """Log-worths with items of worth 0 placed far below the rest (they lose every stage)."""
    positive = scores > 0
    out = np.full(scores.size, -50.0)
    out[positive] = np.log(scores[positive])
    if positive.any():
        out[positive] -= out[positive].mean()
    return out


def spread_added(spread: RankerHeterogeneity | None) -> bool:
    """Whether likely ranks read with ``spread`` hold the rankers' item-by-item spread (it
    was measured and found above 0): they then stay wide however many rankers answer."""
    return spread is not None and spread.variance > 0


def with_heterogeneity(draws: np.ndarray, variance: float, rng: np.random.Generator,
                       copies: int | None = None) -> np.ndarray:
    """``copies`` copies of every draw, each item's log-worth moved by fresh N(0, variance)
    noise: draws of where a further ranker like these would put the items. Items with a
    worth of 0 in a draw stay at 0. By default :data:`HETEROGENEITY_COPIES`, fewer (at
    least one) where they would hold more than :data:`HETEROGENEITY_MAX_ENTRIES` entries."""
    draws = np.asarray(draws, dtype=float)
    if copies is None:
        copies = int(np.clip(HETEROGENEITY_MAX_ENTRIES // max(draws.size, 1), 1,
                             HETEROGENEITY_COPIES))
    draws = np.repeat(draws, copies, axis=0)
    if variance <= 0:
        return draws
    positive = draws > 0
    noise = rng.normal(0.0, np.sqrt(variance), size=draws.shape)
    with np.errstate(divide="ignore"):
        moved = np.exp(np.log(np.where(positive, draws, 1.0)) + noise)
    return np.where(positive, moved, 0.0)
