"""How sure the consensus is: rank intervals and first-place chances by a ranker bootstrap."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from .errors import check_stop
from .frozen import readonly_array
from .heterogeneity import (
    RankerHeterogeneity,
    ranker_heterogeneity,
    spread_added,
    with_heterogeneity,
)
from .models.consensus import careful_weights
from .preferences import MAX_WEIGHT, MIN_WEIGHT, Preferences
from .registry import DEFAULT_METHOD, get_method
from .results import PosteriorResult, RankingResult

__all__ = ["BootstrapResult", "rank_uncertainty", "shrink_refits", "shortest_rank_runs",
           "bootstrap_level", "units_per_item", "unit_counts", "likely_rank_runs",
           "hold_ranks", "nearest_rank_runs", "first_place_out_of_order", "order_note",
           "equal_score_note", "unit_noun", "heterogeneity_note", "unmeasured_spread_text",
           "pair_overlap", "PairOverlap", "BOOTSTRAP_DRAWS", "MIN_UNITS", "MIN_PAIR_OVERLAP",
           "POSTERIOR_DRAWS", "INTERVAL_LEVEL", "MIN_PULLED_ITEMS"]

#: Refits of the bootstrap: 90 % intervals from the 5th and 95th refits, chances to 0.01.
BOOTSTRAP_DRAWS = 100
#: The fewest raters (or lists, without rater ids) whose resampling can measure anything:
#: one rater's refits differ only in how much the prior weighs against the same answers,
#: so their ranks would claim a certainty the data cannot give.
MIN_UNITS = 2
#: The level of every "likely ranks" interval the package shows.
INTERVAL_LEVEL = 0.9
#: Stopping rule of the refits (when the method has one and the caller sets none): a
#: relative change of 1e-6, or 50 iterations from the full-data fit. The order settles in a
#: few steps from there; what is left (a mixture's share of noise creeping towards 0, the
#: worths of items that almost never win) moves no interval and at most a near-tie in one
#: refit (``tests/test_uncertainty.py``), and would make the refits up to 10× slower.
REFIT_TOL = 1e-6
REFIT_MAX_ITER = 50
#: The fewest raters (lists, without rater ids) that must have compared a pair of items, on
#: average over the pairs compared at all, for resampling them to measure how sure the order
#: is: a pair that one rater alone compared keeps that rater's order in every refit. On
#: small Plackett–Luce samples (reports/default_answer.md, 90 % claimed) the bootstrap held
#: the true rank in 75–87 % of cases at 1.2–1.8 raters a pair, 89–93 % at 2.0–2.8 and
#: 89–93 % from 3; the default consensus below this uses the model's posterior (92–97 %).
MIN_PAIR_OVERLAP = 3.0
#: Draws of that posterior (exact Gibbs, plain Plackett–Luce), after 200 warm-up sweeps.
POSTERIOR_DRAWS = 400
POSTERIOR_BURN_IN = 200
#: The most pairs :func:`pair_overlap` builds (about 80 MB at its peak); data that break
#: into more are resampled without the count.
OVERLAP_MAX_PAIRS = 1_000_000


@dataclass(frozen=True)
class BootstrapResult(PosteriorResult):
    """A fit with its Bayesian bootstrap over rankers.

    ``scores`` are the fit on the data as given (its order is the consensus); ``refits``
    hold one refit per bootstrap replicate, and ``draws`` the same refits with their
    log-scores pulled towards the mean by empirical Bayes (:func:`shrink_refits`; ``pull``
    is each item's factor, 1 for no pull), so :meth:`rank_interval` and
    :meth:`rank_probabilities` measure how much the answer moves when the rankers are
    resampled. ``unit`` is ``"ranker"`` (whole rankers resampled) or ``"list"`` (no ranker
    ids: each list on its own); ``n_units`` counts them.

    ``source`` is ``"bootstrap"``, or ``"posterior"`` when resampling the rankers could not
    measure anything (:attr:`PairOverlap.resamplable`; ``overlap`` is the mean number of
    them per compared pair): then ``draws`` and ``refits`` are draws of the plain
    Plackett–Luce posterior, rescaled to the fit's total, and the intervals are central.
    ``units_per_item`` counts, per item, the rankers (lists) whose answers hold it, from
    which :func:`bootstrap_level` sets the share of refits its likely ranks hold.

    ``heterogeneity`` is how much the rankers disagree item by item beyond chance
    (:func:`~coarsenrank_core.heterogeneity.ranker_heterogeneity`; ``None`` when not
    measured). When its variance is above 0, ``draws`` hold
    :data:`~coarsenrank_core.heterogeneity.HETEROGENEITY_COPIES` copies of every pulled
    refit (or posterior draw), each item's log-score moved by that much fresh noise: the
    likely ranks are then where a further ranker like these would place the item, not only
    where the consensus of these rankers lies.
    """

    unit: str = "ranker"
    n_units: int = 0
    refits: np.ndarray | None = None
    pull: np.ndarray | None = None
    source: str = "bootstrap"
    overlap: float = float("nan")
    units_per_item: np.ndarray | None = None
    heterogeneity: RankerHeterogeneity | None = None

    def __post_init__(self):
        super().__post_init__()
        for name in ("refits", "pull", "units_per_item"):
            object.__setattr__(self, name, readonly_array(getattr(self, name)))

    def rank_interval(self, level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per item, the run of ranks (1-based) that should hold its true rank with chance
        ``level``, read off the refits.

        Two corrections turn the refits into an interval that covers about ``level``:

        - The Bayesian bootstrap of an estimate made from ``n`` units spreads less than the
          estimate varies (for a mean, a variance (n − 1)/(n + 1) times as large), so an
          item's run holds :func:`bootstrap_level` of its refits, ``n`` the rankers whose
          answers hold it: 98 % with 3 of them, 91 % with 30, 90.1 % with 300.
        - Ranks are whole numbers, so a run rarely holds exactly that share. The run nearest
          it is kept, above or below (:func:`nearest_rank_runs`). The shortest run holding at
          least the share would add a whole rank wherever an item sits on two or three
          ranks: in the study of the reproduction report it covered the true rank in up to
          97.6 % of the cases at 1,500 lists (6 of 28 settings above 97 %, claiming 90 %).

        Every run is then widened to hold the item's rank in the fit's order (:attr:`ranks`,
        the rank shown beside it; :func:`hold_ranks`): where the data hardly tell the items
        apart the runs of equally likely ranks can leave out any rank, the fit's among them,
        and a row reading "rank 1, likely ranks 4–9" would contradict itself.
        """
        level = self.interval_level if level is None else level
        if not self.measurable:  # every rank is possible as far as the data can tell
            n_items = self.scores.size
            return np.ones(n_items, dtype=int), np.full(n_items, n_items, dtype=int)
        if self.source == "posterior":
            return hold_ranks(*super().rank_interval(level), self.ranks)
        return likely_rank_runs(self.draw_ranks, self.ranks, level, self.units_per_item)

    @property
    def n_draws(self) -> int:
        """The refits (or posterior draws) read, before any copies the rankers' spread
        adds to :attr:`draws`."""
        return len(self.draws if self.refits is None else self.refits)

    @property
    def spread_added(self) -> bool:
        """Whether :attr:`draws` hold the rankers' item-by-item spread
        (:func:`~coarsenrank_core.heterogeneity.spread_added`)."""
        return spread_added(self.heterogeneity)

    @property
    def measurable(self) -> bool:
        """Whether there are at least :data:`MIN_UNITS` rankers (lists) to resample.

        With fewer, :meth:`rank_interval` spans every rank and :meth:`rank_probabilities`
        is ``nan``: the refits of one ranker cannot say how sure any place is.
        """
        return self.n_units >= MIN_UNITS

    def rank_probabilities(self, top: int | None = 30, block: int = 256) -> np.ndarray:
        """The share of refits putting each item at each rank (see
        :meth:`PosteriorResult.rank_probabilities`); ``nan`` when not :attr:`measurable`."""
        table = super().rank_probabilities(top=top, block=block)
        if not self.measurable:
            table = np.full(table.shape, np.nan)
        return table

    @property
    def rank_low(self) -> np.ndarray:
        """Lower end (best rank, 1-based) of each item's interval at :attr:`interval_level`."""
        return self.rank_interval()[0]

    @property
    def rank_high(self) -> np.ndarray:
        """Upper end (worst rank, 1-based) of each item's interval."""
        return self.rank_interval()[1]

    @property
    def p_first(self) -> np.ndarray:
        """Share of the replicates in which each item comes first."""
        return self.rank_probabilities(top=1)[:, 0]


#: Fewest items (scored above 0 in every refit) that :func:`shrink_refits` pulls together.
MIN_PULLED_ITEMS = 4


def shrink_refits(scores: np.ndarray, refits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap refits with their log-scores pulled towards the mean by empirical Bayes.

    The normal–normal model of league tables (Goldstein & Spiegelhalter 1996): an item's
    estimated log-score (centred) is its true one plus noise of the variance ``v_m`` its
    refits show; the true ones spread with variance ``s² = var(estimates) − mean(v)``
    (method of moments, at least 0). Given the estimate ``e_m`` the true log-score is normal
    with mean ``B_m e_m`` and variance ``B_m v_m``, ``B_m = s² / (s² + v_m)``. Each refit
    ``r`` becomes ``B_m e_m + √B_m (r_m − e_m)``: the refits keep their correlations, and the
    pull matters only where items are compared so rarely that their noise rivals their
    spread. There a bootstrap of ranks alone puts an item's interval around an estimated rank
    more extreme than its true one (Hall & Miller 2009). Items with a zero score in any refit
    are left as they are, and so is everything with fewer than :data:`MIN_PULLED_ITEMS`
    usable items: with three, pulling towards their own mean is no better than not pulling
    (Stein's estimator needs four), and the spread estimated from them was often 0, which
    pulled every refit onto one value and left every place a tie.

    Returns
    -------
    draws : numpy.ndarray
        The pulled refits, on the scale of ``scores`` (the same geometric mean).
    pull : numpy.ndarray
        ``B_m`` of every item (1: not pulled).
    """
    scores = np.asarray(scores, dtype=float)
    refits = np.asarray(refits, dtype=float)
    usable = np.all(refits > 0, axis=0) & (scores > 0)
    pull = np.ones(scores.size)
    if np.count_nonzero(usable) < MIN_PULLED_ITEMS:
        return refits.copy(), pull
    log_refits = np.log(refits[:, usable])
    log_refits -= log_refits.mean(axis=1, keepdims=True)
    level = np.log(scores[usable]).mean()
    estimate = np.log(scores[usable]) - level
    noise = log_refits.var(axis=0)
    spread = max(float(estimate.var() - noise.mean()), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        pull[usable] = np.where(spread + noise > 0, spread / (spread + noise), 1.0)
    factor = pull[usable]
    draws = refits.copy()
    draws[:, usable] = np.exp(level + factor * estimate
                              + np.sqrt(factor) * (log_refits - estimate))
    return draws, pull


def unit_counts(prefs: Preferences) -> np.ndarray:
    """How many people each resampling unit stands for: 1 per ranker, and without ranker
    ids the weight of each list when it is a whole number of 1 or more (a list given by
    that many people: a count column, a BLT ballot's weight, identical answers counted
    once), else 1. Counting answers once therefore resamples the same people."""
    if prefs.has_rankers:
        return np.ones(prefs.n_rankers, dtype=np.int64)
    weights = np.asarray(prefs.weights, dtype=float)
    whole = (weights >= 1) & (weights == np.round(weights)) & (weights < 2 ** 53)
    return np.where(whole, weights, 1).astype(np.int64)


def units_per_item(prefs: Preferences) -> np.ndarray:
    """How many rankers (lists, without ranker ids) have an answer holding each item; answers
    of weight :data:`~coarsenrank_core.preferences.MIN_WEIGHT` or less do not count, and a
    list given by several people counts each (:func:`unit_counts`)."""
    counted = np.asarray(prefs.weights, dtype=float)[prefs.owner] > MIN_WEIGHT
    stride = max(prefs.n_rankers, 1)
    key = np.unique(prefs.items[counted].astype(np.int64) * stride
                    + prefs.ranker_index[prefs.owner[counted]])
    return np.bincount(key // stride, weights=unit_counts(prefs)[key % stride],
                       minlength=prefs.n_items).astype(np.int64)


def bootstrap_level(level: float, units) -> np.ndarray:
    """The share of an item's bootstrap refits its likely ranks hold to cover ``level``.

    Under the Bayesian bootstrap (Rubin 1981) a mean of ``n`` units varies with the plug-in
    variance over ``n + 1``, which is on average (n − 1)/(n + 1) times the variance of the
    mean itself. A normal interval covering ``level`` of the estimate's spread then holds
    ``2Φ(z √((n + 1)/(n − 1))) − 1`` of the refits, ``z = Φ⁻¹((1 + level)/2)``. With ``n`` the
    rankers whose answers hold the item: 0.98 for 3, 0.91 for 30, 0.901 for 300; 1 (every
    refit) below 2, where a refit cannot move the item against the others' answers.

    Parameters
    ----------
    level : float
        The coverage the interval claims, in (0, 1).
    units : array_like of int
        Per item, the rankers (lists) whose answers hold it (:func:`units_per_item`).

    Returns
    -------
    numpy.ndarray of float
    """
    units = np.asarray(units, dtype=float)
    scale = np.sqrt((units + 1) / np.maximum(units - 1, 1.0))
    return np.where(units >= 2, 2 * ndtr(ndtri((1 + level) / 2) * scale) - 1, 1.0)


def likely_rank_runs(draw_ranks: np.ndarray, ranks, level: float,
                     units=None) -> tuple[np.ndarray, np.ndarray]:
    """The likely ranks read off the refits' ranks (0-based ``draw_ranks``, one row a refit):
    per item the run nearest :func:`bootstrap_level` of its refits (``level`` itself when
    ``units``, the rankers holding each item, are not given), widened to hold its rank in
    ``ranks`` (1-based, the order shown beside it)."""
    shares = level if units is None else bootstrap_level(level, units)
    return hold_ranks(*nearest_rank_runs(draw_ranks, shares), ranks)


def hold_ranks(low, high, ranks) -> tuple[np.ndarray, np.ndarray]:
    """Rank intervals ``[low, high]`` widened to hold ``ranks`` (all 1-based): the likely
    ranks shown beside an order always include the item's place in that order."""
    ranks = np.asarray(ranks)
    return np.minimum(low, ranks).astype(int), np.maximum(high, ranks).astype(int)


def shortest_rank_runs(ranks: np.ndarray, level: float,
                       block_entries: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``ranks`` (0-based, one row a draw), the shortest run of ranks holding
    at least ``level`` of the draws, as 1-based ``(low, high)``; ties go to the best ranks.
    """
    n_draws, n_items = ranks.shape
    need = max(1, int(np.ceil(level * n_draws - 1e-9)))
    low = np.empty(n_items, dtype=int)
    high = np.empty(n_items, dtype=int)
    step = max(1, block_entries // max(n_draws, 1))
    for lo in range(0, n_items, step):
        ordered = np.sort(ranks[:, lo:lo + step], axis=0)
        spans = ordered[need - 1:] - ordered[:n_draws - need + 1]
        start = np.argmin(spans, axis=0)
        columns = np.arange(ordered.shape[1])
        low[lo:lo + step] = ordered[start, columns] + 1
        high[lo:lo + step] = ordered[start + need - 1, columns] + 1
    return low, high


def _fullest_runs(ordered: np.ndarray, new: np.ndarray, span: np.ndarray):
    """Per column of sorted ranks, the run of at most ``span`` ranks holding the most draws.

    Returns the first and last draw of the run in ``ordered`` and how many draws it holds;
    of equally full runs the shortest, then the one of best ranks.
    """
    n_draws, columns = ordered.shape
    # one sorted sequence for the whole block: column c's ranks lifted by c · (max + span)
    lift = (np.arange(columns) * (int(ordered[-1].max()) + int(span.max()) + 1))[None, :]
    flat = (ordered + lift).T.ravel()
    ends = np.searchsorted(flat, (ordered + lift + span[None, :] - 1).T.ravel(), side="right")
    last = ends.reshape(columns, n_draws).T - 1 - n_draws * np.arange(columns)[None, :]
    held = np.where(new[:-1], last - np.arange(n_draws)[:, None] + 1, 0)
    width = np.take_along_axis(ordered, last, axis=0) - ordered
    # most draws, then fewest ranks, then the first (best) start
    key = held * (int(width.max()) + 1) - width
    start = np.argmax(key, axis=0)
    index = np.arange(columns)
    return start, last[start, index], held[start, index]


def nearest_rank_runs(ranks: np.ndarray, level,
                      block_entries: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``ranks`` (0-based, one row a draw), the run of ranks nearest to holding
    ``level`` of the draws, as 1-based ``(low, high)``.

    Ranks are whole numbers, so a run rarely holds exactly ``level`` of the draws. A run is
    a candidate when no other run is as short and holds more, or is shorter and holds as
    much (the shortest runs, as a highest-density interval). Two candidates are nearest the
    level: the shortest run holding at least ``level`` (widened, at its length, to the run
    of that length holding most) and the fullest run one rank shorter. The one whose share is
    nearer ``level`` is kept, the shorter when they are equally near; among equally full
    runs of one length, the one of best ranks. Keeping always the first adds a whole rank
    whenever an item sits on two or three ranks, and claims 90 % where it holds 95–100 %.

    Parameters
    ----------
    ranks : numpy.ndarray of int, shape (D, M)
        0-based rank of every item (column) in every draw (row).
    level : float or numpy.ndarray of shape (M,)
        The share each run should hold, in (0, 1]; one for every column, or one per column.
    block_entries : int
        Columns are handled in blocks of about ``block_entries / D`` at a time.

    Returns
    -------
    low, high : numpy.ndarray of int, shape (M,)
    """
    n_draws, n_items = ranks.shape
    low = np.empty(n_items, dtype=int)
    high = np.empty(n_items, dtype=int)
    if n_draws == 0:
        low[:], high[:] = 1, n_items
        return low, high
    targets = np.broadcast_to(np.asarray(level, dtype=float) * n_draws, (n_items,))
    needs = np.clip(np.ceil(targets - 1e-9).astype(int), 1, n_draws)
    step = max(1, block_entries // n_draws)
    for lo in range(0, n_items, step):
        ordered = np.sort(ranks[:, lo:lo + step], axis=0).astype(np.int64, copy=False)
        columns = ordered.shape[1]
        index = np.arange(columns)
        target, need = targets[lo:lo + step], needs[lo:lo + step]
        new = np.ones((n_draws + 1, columns), dtype=bool)
        new[1:-1] = ordered[1:] != ordered[:-1]
        span = _fewest_places(ordered, need)
        above = _fullest_runs(ordered, new, span)
        below = _fullest_runs(ordered, new, np.maximum(span - 1, 1))
        take_below = (span > 1) & (np.abs(below[2] - target) <= np.abs(above[2] - target)
                                   + 1e-9)
        first = np.where(take_below, below[0], above[0])
        last = np.where(take_below, below[1], above[1])
        low[lo:lo + step] = ordered[first, index] + 1
        high[lo:lo + step] = ordered[last, index] + 1
    return low, high


def _fewest_places(ordered: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Per column of sorted ranks, the fewest places a run holding ``need`` draws spans."""
    n_draws = ordered.shape[0]
    start = np.arange(n_draws)[:, None]
    end = start + need[None, :] - 1
    valid = end < n_draws
    reach = np.take_along_axis(ordered, np.minimum(end, n_draws - 1), axis=0) - ordered
    return np.where(valid, reach, np.iinfo(np.int64).max).min(axis=0) + 1


class PairOverlap(NamedTuple):
    """How the rankers' answers overlap, pair by pair (:func:`pair_overlap`).

    Attributes
    ----------
    rankers_per_pair : float
        The mean number of distinct rankers (lists, without ranker ids) that compared a
        pair of items, over the pairs compared at all (tied pairs count as compared).
    disputed : float
        The share of those pairs not always put in the same order (ties count as another
        order).
    """

    rankers_per_pair: float
    disputed: float

    @property
    def resamplable(self) -> bool:
        """Whether resampling the rankers can measure how sure the order is: at least
        :data:`MIN_PAIR_OVERLAP` rankers a pair, and some pair disputed."""
        return self.rankers_per_pair >= MIN_PAIR_OVERLAP and self.disputed > 0


def pair_overlap(prefs: Preferences, max_pairs: int = OVERLAP_MAX_PAIRS) -> PairOverlap | None:
    """How many rankers compared each pair of items, and how many pairs they disputed.

    Counted on the rank-broken pairs (:meth:`Preferences.rank_break` with ties kept).

    Returns
    -------
    PairOverlap or None
        ``nan`` figures without pairs; ``None`` when the lists would break into more than
        ``max_pairs`` pairs (counted first, pairs of two-item lists included), which are
        then not built.
    """
    if prefs.count_pairs(keep_ties=True) > max_pairs:
        return None
    pairs, source = prefs.rank_break(return_source=True, keep_ties=True, max_pairs=0)
    if len(pairs) == 0:
        return PairOverlap(float("nan"), float("nan"))
    first, second = pairs.items[0::2].astype(np.int64), pairs.items[1::2].astype(np.int64)
    tied = pairs.groups[1::2] == 0
    key = np.minimum(first, second) * prefs.n_items + np.maximum(first, second)
    direction = np.where(tied, 0, np.where(first < second, 1, 2))
    unit = prefs.ranker_index[source]
    order = np.lexsort((unit, key))
    key, unit, direction = key[order], unit[order], direction[order]
    new_key = np.r_[True, key[1:] != key[:-1]]
    new_pair_unit = new_key | np.r_[True, unit[1:] != unit[:-1]]
    pair = np.cumsum(new_key) - 1
    n_pairs = int(pair[-1]) + 1
    lowest = np.full(n_pairs, 3)
    highest = np.zeros(n_pairs, dtype=int)
    np.minimum.at(lowest, pair, direction)
    np.maximum.at(highest, pair, direction)
    people = unit_counts(prefs)[unit[new_pair_unit]].sum()
    return PairOverlap(float(people / n_pairs), float(np.mean(lowest != highest)))


def _posterior_spread(prefs: Preferences, fit: RankingResult, n_draws: int, level: float,
                      random_state, progress, should_stop) -> tuple[np.ndarray, ...]:
    """Draws of the plain Plackett–Luce posterior rescaled to the fit's total, and the
    central ``level`` range of each item's score, widened to hold the fitted score."""
    posterior = get_method("coarsen-pl-gibbs").run(
        prefs, alpha=np.inf, burn_in=POSTERIOR_BURN_IN, n_draws=n_draws,
        random_state=random_state, progress=progress, should_stop=should_stop)
    assert isinstance(posterior, PosteriorResult)
    draws = posterior.draws / posterior.draws.sum(axis=1, keepdims=True) * fit.scores.sum()
    tail = (1 - level) / 2
    lower, upper = np.quantile(draws, [tail, 1 - tail], axis=0)
    # a fit at the prior's mode can lie outside the draws' range (0 for an item that never
    # wins): each range is widened to hold the score shown beside it
    return draws, np.minimum(lower, fit.scores), np.maximum(upper, fit.scores)


#: Upside-down answers at least this share of the careful ones make a near split: the
#: bootstrap's refits then start afresh (a 20 % reversed minority, about 0.25, does not).
NEAR_SPLIT = 0.6


def _near_split(fit: RankingResult) -> bool:
    """Whether ``fit`` counts answers upside down nearly as often as the right way up."""
    extra: Mapping[str, Any] = fit.extra or {}
    if not extra.get("reversed_kept"):
        return False
    careful = 1.0 - float(extra.get("pi", 0.0))
    return float(extra.get("pi_reversed", 0.0)) >= NEAR_SPLIT * careful


def _any_turned_over(scores: np.ndarray, refits: np.ndarray) -> bool:
    """Whether some refit orders the items against the fit (a negative rank correlation)."""
    from scipy.stats import spearmanr

    for refit in refits:
        rho = spearmanr(scores, refit).statistic
        if np.isfinite(rho) and rho < 0:
            return True
    return False


def rank_uncertainty(prefs: Preferences, method: str = DEFAULT_METHOD, *,
                     n_draws: int = BOOTSTRAP_DRAWS, level: float = INTERVAL_LEVEL,
                     fit: RankingResult | None = None, random_state=0,
                     progress: Callable[[int, int], None] | None = None,
                     should_stop: Callable[[], bool] | None = None, shrink: bool = True,
                     fallback: bool = True, heterogeneity: bool = True,
                     **params) -> BootstrapResult:
    """Refit ``method`` on Bayesian-bootstrap reweightings of the rankers.

    Each replicate gives every ranker (every list, without ranker ids) a weight drawn from
    Exp(1), the Bayesian bootstrap (Rubin 1981), multiplies the weights of that ranker's
    preferences by it and refits from the full-data fit (to a relative change of
    :data:`REFIT_TOL` or :data:`REFIT_MAX_ITER` iterations). Resampling whole rankers keeps
    their lists together, so the intervals widen with disagreement between rankers that the
    model does not describe and narrow as rankers are added: unlike a posterior of a
    misspecified model, whose width depends only on the amount of data. The refits are then
    pulled towards the mean by empirical Bayes (:func:`shrink_refits`), which matters only
    for items compared too rarely to place apart from their neighbours. The ranks are read
    off the pulled refits; ``lower`` and ``upper`` bound the central ``level`` range of the
    refits as they are, so that they describe the fitted ``scores`` beside them (a pull to
    one value, where the data cannot tell the items apart, would put every item's range on
    the mean and outside its own score).

    For the default consensus, when resampling the rankers cannot say anything
    (:attr:`PairOverlap.resamplable`: fewer than :data:`MIN_PAIR_OVERLAP` of them compared
    a pair on average, or they never disagree about one), the draws are the plain
    Plackett–Luce posterior's instead (:data:`POSTERIOR_DRAWS` exact Gibbs draws) and the
    intervals central; the result's ``source`` says which.

    Parameters
    ----------
    prefs : Preferences
    method : str
        Registry id of the fit; default the package's default consensus.
    n_draws : int
        Bootstrap replicates.
    level : float
        Level of the central rank intervals.
    fit : RankingResult, optional
        The fit of ``method`` on ``prefs`` when already computed.
    random_state : None, int or numpy.random.Generator
    progress : callable, optional
        ``progress(done, total)`` after every replicate.
    should_stop : callable, optional
        Checked before every replicate; raises :class:`~coarsenrank_core.errors.Cancelled`.
    shrink : bool
        Pull the refits' log-scores towards the mean by empirical Bayes
        (:func:`shrink_refits`) before reading ranks off them; ``False`` reads the refits as
        they are.
    fallback : bool
        For the default consensus, use the posterior where resampling cannot measure
        anything (see above); ``False`` always resamples.
    heterogeneity : bool
        For the default consensus with ranker ids, measure how much the rankers disagree
        item by item beyond chance (:func:`~coarsenrank_core.heterogeneity.ranker_heterogeneity`,
        on the lists weighted by the chance that they are careful) and, where it is clearly
        above 0, add it to the draws, the pulled refits or the posterior's
        (:attr:`BootstrapResult.heterogeneity`).
        ``False`` describes the consensus of these rankers only.
    **params
        Passed to the method (e.g. ``alpha`` of a tempered one).

    Returns
    -------
    BootstrapResult
    """
    if n_draws < 2:
        raise ValueError(f"n_draws must be at least 2 (got {n_draws})")
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1 (got {level})")
    start = time.perf_counter()
    spec = get_method(method)
    spread: RankerHeterogeneity | None = None
    if fit is None:
        fit = spec.run(prefs, should_stop=should_stop, **params)
    warm: dict = {}
    near_split = _near_split(fit)
    if "init" in spec.parameters and np.all(fit.scores > 0) and not near_split:
        # start every refit from the full-data fit, unless nearly as many answers read
        # upside down as the right way up: which way up the consensus is then comes from
        # each refit's own answers (started from the full fit, 12 raters against 10
        # reversed ones stayed one way up in every refit, and the order read as certain)
        warm["init"] = fit.scores
    if "tol" in spec.parameters and "tol" not in params:
        warm["tol"] = REFIT_TOL
    if "max_iter" in spec.parameters and "max_iter" not in params:
        warm["max_iter"] = REFIT_MAX_ITER
    if "per" in spec.parameters and "per" not in params and "per" in fit.extra:
        warm["per"] = fit.extra["per"]  # the refits keep the structure the data chose
    if ("upside_down" in spec.parameters and "upside_down" not in params
            and "reversed_kept" in fit.extra):
        warm["upside_down"] = bool(fit.extra["reversed_kept"])
    rng = np.random.default_rng(random_state)
    units = prefs.ranker_index
    people = unit_counts(prefs)
    n_units = int(people.sum())
    overlap = pair_overlap(prefs) if fallback and method == DEFAULT_METHOD else None
    unit = "ranker" if prefs.has_rankers else "list"
    if overlap is not None and not overlap.resamplable and n_units >= MIN_UNITS:
        source = "posterior"
        draws, lower, upper = _posterior_spread(prefs, fit, POSTERIOR_DRAWS, level, rng,
                                                progress, should_stop)
        refits, pull = draws, None
    else:
        source = "bootstrap"
        base = np.asarray(prefs.weights, dtype=float)
        several = people > 1
        refits = np.empty((n_draws, prefs.n_items))
        for b in range(n_draws):
            check_stop(should_stop,
                       f"The bootstrap was stopped after {b} of {n_draws} refits.")
            share = rng.exponential(size=people.size)
            if several.any():  # a list given by c people: the sum of their c Exp(1) weights
                share[several] = rng.gamma(people[several]) / people[several]
            # a count near the largest weight drawn a little above 1 stays a valid weight
            weights = np.clip(base * np.maximum(share, MIN_WEIGHT)[units], MIN_WEIGHT,
                              MAX_WEIGHT)
            refits[b] = spec.run(prefs._replace(weights=weights), **params, **warm).scores
            if progress is not None:
                progress(b + 1, n_draws)
        # refits that turned the consensus over (a near split between answers and the same
        # answers upside down) cannot be pulled towards one mean: the two ways up are read
        # as they are, so the chances and intervals hold both
        turned = near_split and _any_turned_over(fit.scores, refits)
        draws, pull = (shrink_refits(fit.scores, refits) if shrink and not turned
                       else (refits, None))
        tail = (1 - level) / 2
        lower, upper = np.quantile(refits, [tail, 1 - tail], axis=0)
        # each range holds the item's own score, as each run of likely ranks holds its rank
        lower, upper = np.minimum(lower, fit.scores), np.maximum(upper, fit.scores)
        if n_units < MIN_UNITS:  # see BootstrapResult.measurable
            lower, upper = np.full_like(lower, np.nan), np.full_like(upper, np.nan)
    if heterogeneity and method == DEFAULT_METHOD and n_units >= MIN_UNITS:
        spread = ranker_heterogeneity(
            prefs, fit.scores, lambda simulated: spec.run(simulated, **params, **warm).scores,
            list_weights=careful_weights(prefs, fit), random_state=rng,
            should_stop=should_stop)
        if spread.variance > 0:
            draws = with_heterogeneity(draws, spread.variance, rng)
    return BootstrapResult(
        method=fit.method, scores=fit.scores, iterations=fit.iterations,
        converged=fit.converged, seconds=time.perf_counter() - start, change=fit.change,
        tau=fit.tau, params=dict(fit.params), extra=fit.extra, draws=draws,
        lower=lower, upper=upper,
        interval_level=level, unit=unit, n_units=n_units, refits=refits, pull=pull,
        source=source, overlap=float("nan") if overlap is None else overlap.rankers_per_pair,
        units_per_item=units_per_item(prefs), heterogeneity=spread)


def heterogeneity_note(result: BootstrapResult) -> str:
    """One sentence on whether ``result``'s likely ranks hold how much the rankers differ
    item by item (:attr:`BootstrapResult.heterogeneity`)."""
    who = unit_noun(result.unit)
    spread = result.heterogeneity
    if spread is None or not spread.measurable:
        return unmeasured_spread_text(result.unit, spread, "rank_low..rank_high show")
    if spread.variance > 0:
        return (f"the {who}s differ item by item more than chance explains (sd {spread.sd:.2f} "
                f"of a {who}'s log-score around the consensus), and rank_low..rank_high and "
                f"p_first hold that too: where a further {who} like these would place the "
                "item; score_low..score_high do not (they show how sure the consensus's own "
                "score is), so two items whose score ranges do not overlap can still share "
                "likely ranks")
    return (f"the {who}s show no clear sign of differing item by item beyond chance (with "
            f"few lists per {who} a real difference can go unseen), so rank_low..rank_high "
            "show how sure their consensus is")


def unmeasured_spread_text(unit: str, spread: RankerHeterogeneity | None, shows: str) -> str:
    """Why the rankers' item-by-item spread could not be measured, and that the likely
    ranks (``shows``: "rank_low..rank_high show", "the range shows") show how sure the
    consensus is instead; for the command line's note and the Consensus page's caption."""
    who = unit_noun(unit)
    whose = f"the {who}s'"
    if unit == "list":
        why, whose = "these data name no raters", "the answers'"
    elif spread is not None and spread.split_rankers:
        why = (f"each {who}'s comparisons are one ranking split into pairs, pieces of one "
               "answer rather than separate answers")
    elif spread is not None and spread.repeats_only:
        why = (f"each {who}'s lists that share an item hold the very same items, and an "
               "answer sent twice cannot be told from a second look")
    else:
        why = f"that needs {who}s who gave several lists that share an item"
    return (f"how much people differ item by item could not be measured ({why}), so {shows} "
            f"how sure {whose} consensus is, not where another person would place the item")


def unit_noun(unit: str) -> str:
    """The word users read for a bootstrap unit (:attr:`BootstrapResult.unit`): "rater"
    for ``"ranker"``, "list" for ``"list"``."""
    return "rater" if unit == "ranker" else "list"


def first_place_out_of_order(order, first) -> bool:
    """Whether some row's chance of being first exceeds that of any row above it."""
    chances = np.asarray(first, dtype=float)[np.asarray(order)]
    return bool(np.any(chances[1:] > np.minimum.accumulate(chances)[:-1] + 1e-12))


def equal_score_note(scores, order, names, limit: int = 3,
                     names_shown: int = 10) -> str | None:
    """The line shown beside an order in which neighbours have the same score (to 9
    digits): their order comes from the input, not the answers. None when there are none.

    ``names`` labels the items (the file's names, or their numbers); the first ``limit``
    groups are listed, each with at most ``names_shown`` names and a count of the rest."""
    order = np.asarray(order)
    scores = np.asarray(scores, dtype=float)[order]
    same = np.isclose(scores[1:], scores[:-1], rtol=1e-9, atol=0.0)
    if not same.any():
        return None
    start = np.flatnonzero(same & ~np.r_[False, same[:-1]])
    stop = np.flatnonzero(same & ~np.r_[same[1:], False]) + 1  # each group's last position
    groups = []
    for k, end in zip(start[:limit], stop[:limit]):
        size = end - k + 1
        members = [str(names[i]) for i in order[k:k + min(size, names_shown)]]
        if size > names_shown:
            listed = f"{', '.join(members)} and {size - names_shown:,} more"
        else:
            listed = " and ".join([", ".join(members[:-1]), members[-1]])
        groups.append(f"{listed} (ranks {k + 1}–{end + 1})")
    more = f", and {start.size - limit} more" if start.size > limit else ""
    return (f"Equal scores: {'; '.join(groups)}{more}. The answers do not order these; "
            "their order here is the order they first appear in the data.")


def order_note(result: PosteriorResult) -> str:
    """The line shown beside a ranking whose first-place chances do not fall row by row
    (:func:`first_place_out_of_order`): on the Consensus page and from ``rank --posterior``.

    The order is the single best fit; the chances come from ``result``, the bootstrap's
    refits (:class:`BootstrapResult`) or a posterior's draws, and the line says which, and
    whether they also hold the raters' item-by-item spread.
    """
    if isinstance(result, BootstrapResult) and result.source == "bootstrap":
        source = f"when the {unit_noun(result.unit)}s were resampled"
    else:
        source = "in the posterior's draws"
    if isinstance(result, BootstrapResult) and result.spread_added:
        source += (f", each moved by how much one {unit_noun(result.unit)} strays from the "
                   "consensus item by item")
    return ("An item can have a higher chance of being first than one ranked above it: the "
            "order is the single best fit to all the answers, while the chance counts how "
            f"often the item came first {source}.")
