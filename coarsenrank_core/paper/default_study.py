"""Which fit should be the default answer: accuracy and interval coverage over simulated cells."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..learning_rate import LearningRate, calibrate_tau, safe_bayes_tau, tempered_posterior
from ..metrics import pairwise_accuracy
from ..noise import mallows_swaps
from ..preferences import MIN_WEIGHT, Preferences
from ..registry import METHODS
from ..results import PosteriorResult, rank_draws
from ..simulate import exposed_subsets, pl_orderings, simulate_pl
from ..uncertainty import (
    BOOTSTRAP_DRAWS,
    INTERVAL_LEVEL,
    BootstrapResult,
    hold_ranks,
    likely_rank_runs,
    rank_uncertainty,
    shortest_rank_runs,
    shrink_refits,
)

__all__ = ["StudyCell", "CONTAMINATIONS", "CARELESS_RANKERS", "EXPOSURES", "STUDY_METHODS",
           "DEFAULT_INTERVAL",
           "study_data", "study_lists", "study_cells", "bar_study", "BAR_SEEDS",
           "INFORMED", "accuracy_study", "interval_study",
           "true_rank_covered", "INTERVAL_METHODS", "bootstrap_interval",
           "sparse_pairs", "sparse_study", "split_half_scale", "unpulled_bootstrap_interval",
           "UNPULLED_INTERVAL", "SHORTEST_INTERVAL", "shortest_bootstrap_interval",
           "posterior_interval", "summarise", "default_conditions", "widened_interval",
           "CALIBRATED_INTERVAL", "SAFE_BAYES_INTERVAL", "chosen_learning_rate",
           "learning_rate_interval", "SMALL_SAMPLES", "small_sample_study",
           "CONSENSUS_INTERVAL", "consensus_bootstrap_interval", "SHIPPED_INTERVAL",
           "shipped_interval", "heterogeneous_rankers", "held_out_rankers",
           "HELD_OUT_MIN_LISTS", "ranker_spread_study", "default_bootstrap"]

#: Items offered with probability ∝ exp(e · log-worth): e = 0 is uniform exposure, +1 shows
#: the better items more often (as on the paper's datasets), −1 the weaker ones.
EXPOSURES: Mapping[str, float] = {"weaker shown more": -1.0, "uniform": 0.0,
                                  "stronger shown more": 1.0}

#: Contamination id → (kind, share). Kinds: ``random`` and ``reversed`` rankers answer every
#: list at random or upside down; ``campaign`` rankers all draw from one wrong order;
#: ``random-lists`` replaces lists chosen independently of the rankers; ``swaps`` redraws
#: every list by a Mallows model around itself (φ = share: mostly adjacent swaps).
CONTAMINATIONS: Mapping[str, tuple[str, float]] = {
    "clean": ("clean", 0.0),
    "20% random rankers": ("random", 0.2),
    "40% random rankers": ("random", 0.4),
    "20% reversed rankers": ("reversed", 0.2),
    "30% campaign": ("campaign", 0.3),
    "25% random lists": ("random-lists", 0.25),
    "adjacent swaps": ("swaps", 0.3),
}

#: The cells where whole rankers are careless (the default must gain there).
CARELESS_RANKERS = ("20% random rankers", "40% random rankers", "20% reversed rankers")

STUDY_METHODS = ("consensus", "coarsen-pl", "pl-em", "pl-mix", "pl-mix-ranker")


@dataclass(frozen=True)
class StudyCell:
    """One simulated setting: exposure, contamination, lists per ranker and lists in all."""

    exposure: str
    contamination: str
    lists_per_ranker: int
    n_lists: int


def study_data(cell: StudyCell, random_state=0, n_items: int = 30, length: int = 6
               ) -> tuple[Preferences, np.ndarray]:
    """One dataset of ``cell`` and its true worths.

    Rankers order ``length`` items drawn by Gumbel top-k with keys
    ``e · log-worth + Gumbel`` (exposure ``e``) by Plackett–Luce with log-worths falling
    evenly from 1.5 to −1.5 (item 0 best); then the contamination of ``cell`` is applied.
    """
    prefs, truth, _ = study_lists(cell, random_state, n_items, length)
    return prefs, truth


def study_lists(cell: StudyCell, random_state=0, n_items: int = 30, length: int = 6
                ) -> tuple[Preferences, np.ndarray, np.ndarray]:
    """:func:`study_data` with, per list, whether the contamination wrote it (a list of a
    random, reversed or campaign ranker, or a random list); swaps touch every list and mark
    none."""
    rng = np.random.default_rng(random_state)
    kind, share = CONTAMINATIONS[cell.contamination]
    per = int(cell.lists_per_ranker)
    n_rankers = max(1, int(cell.n_lists) // per)
    n = n_rankers * per
    log_worth = np.linspace(1.5, -1.5, n_items)
    shown = exposed_subsets(log_worth, n, length, EXPOSURES[cell.exposure], rng)
    orders = pl_orderings(shown, log_worth, random_state=rng)
    rankers = np.repeat(np.arange(n_rankers), per)
    bad_ranker = rng.permutation(n_rankers) < round(share * n_rankers)
    bad = bad_ranker[rankers]
    if kind == "random":
        orders = np.where(bad[:, None], rng.permuted(orders, axis=1), orders)
    elif kind == "reversed":
        orders = np.where(bad[:, None], orders[:, ::-1], orders)
    elif kind == "campaign":
        wrong = pl_orderings(shown, np.roll(log_worth, n_items // 2), random_state=rng)
        orders = np.where(bad[:, None], wrong, orders)
    elif kind == "random-lists":
        bad = rng.random(n) < share
        orders = np.where(bad[:, None], rng.permuted(orders, axis=1), orders)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n, length), n_items=n_items,
                                    rankers=rankers)
    if kind == "swaps":
        prefs = mallows_swaps(prefs, share, random_state=rng).preferences
    written = bad if kind in ("random", "reversed", "campaign", "random-lists") \
        else np.zeros(n, dtype=bool)
    return prefs, np.exp(log_worth), written


def study_cells(exposures: Iterable[str] = tuple(EXPOSURES),
                contaminations: Iterable[str] = tuple(CONTAMINATIONS),
                lists_per_ranker: Iterable[int] = (1, 5),
                n_lists: Iterable[int] = (300, 1500)) -> list[StudyCell]:
    """Every combination of the four factors, in a fixed order."""
    return [StudyCell(e, c, int(k), int(n)) for e in exposures for c in contaminations
            for k in lists_per_ranker for n in n_lists]


def accuracy_study(cells: Sequence[StudyCell], seeds: int = 5,
                   methods: Sequence[str] = STUDY_METHODS,
                   progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """Pairwise accuracy of every method (registry defaults) in every cell and seed.

    Returns one row per cell, method and seed: the cell's factors, ``method``, ``seed``
    and ``accuracy``.
    """
    rows = []
    for done, cell in enumerate(cells, 1):
        for seed in range(seeds):
            prefs, truth = study_data(cell, seed)
            for method in methods:
                fit = METHODS[method].run(prefs)
                rows.append(dict(exposure=cell.exposure, contamination=cell.contamination,
                                 lists_per_ranker=cell.lists_per_ranker, n_lists=cell.n_lists,
                                 method=method, seed=seed,
                                 accuracy=pairwise_accuracy(fit.scores, truth)))
        if progress is not None:
            progress(done, len(cells))
    return rows


#: Seeds of the study's two bars (:func:`bar_study`): every table shows 5, but the mean gain
#: over the careless cells then varies by about 0.0015 from one set of seeds to another,
#: as much as the margin it is judged by.
BAR_SEEDS = 40

#: PL-EM told which lists the contamination wrote (those weighted ``MIN_WEIGHT``): what
#: down-weighting careless answers could gain at best, as a ceiling for the default's.
INFORMED = "pl-em, careless lists known"


def bar_study(cells: Sequence[StudyCell], seeds: int = BAR_SEEDS,
              progress: Callable[[int, int], None] | None = None,
              done: Sequence[dict] = ()) -> list[dict]:
    """The default and PL-EM in every cell and seed, and :data:`INFORMED` where the
    contamination wrote whole lists: the rows of :func:`accuracy_study` for part 1's bars,
    over more seeds than the tables show. Rows of :func:`accuracy_study` in ``done`` are
    kept rather than fitted again (the same data, seed for seed)."""
    known = {(r["exposure"], r["contamination"], r["lists_per_ranker"], r["n_lists"],
              r["method"], r["seed"]): r["accuracy"] for r in done}
    rows: list[dict] = []
    for finished, cell in enumerate(cells, 1):
        factors = (cell.exposure, cell.contamination, cell.lists_per_ranker, cell.n_lists)
        for seed in range(seeds):
            prefs, truth, written = study_lists(cell, seed)
            accuracy = {m: known.get((*factors, m, seed)) for m in ("consensus", "pl-em")}
            for method in (m for m, value in accuracy.items() if value is None):
                accuracy[method] = pairwise_accuracy(METHODS[method].run(prefs).scores, truth)
            if written.any():
                weights = np.where(written, MIN_WEIGHT, np.asarray(prefs.weights, float))
                accuracy[INFORMED] = pairwise_accuracy(
                    METHODS["pl-em"].run(prefs._replace(weights=weights)).scores, truth)
            rows.extend(dict(exposure=cell.exposure, contamination=cell.contamination,
                             lists_per_ranker=cell.lists_per_ranker, n_lists=cell.n_lists,
                             method=method, seed=seed, accuracy=value)
                        for method, value in accuracy.items())
        if progress is not None:
            progress(finished, len(cells))
    return rows


def true_rank_covered(low, high, truth) -> np.ndarray:
    """Whether each item's interval ``[low, high]`` meets its true rank (1-based).

    Items of equal true worth form a tied block of ranks; an interval that meets the block
    counts as covering the truth.
    """
    truth = np.asarray(truth, dtype=float)
    better = (truth[None, :] > truth[:, None]).sum(axis=1)
    equal = (truth[None, :] == truth[:, None]).sum(axis=1)
    block_low, block_high = better + 1, better + equal
    return (np.asarray(low) <= block_high) & (np.asarray(high) >= block_low)


def interval_study(cells: Sequence[StudyCell], seeds: int = 5,
                   interval_methods: Mapping[str, Callable] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """Coverage and width of 90 % rank intervals in every cell and seed.

    ``interval_methods`` maps a name to ``f(prefs, seed) -> (low, high)``; the default is
    :func:`~coarsenrank_core.uncertainty.rank_uncertainty` of the default fit. Returns one row
    per cell, method and seed with ``coverage`` (share of items whose interval meets the
    true rank) and ``width`` (mean number of ranks in an interval).
    """
    if interval_methods is None:
        interval_methods = {DEFAULT_INTERVAL: bootstrap_interval}
    rows = []
    for done, cell in enumerate(cells, 1):
        for seed in range(seeds):
            prefs, truth = study_data(cell, seed)
            for name, function in interval_methods.items():
                low, high = function(prefs, seed)
                covered = true_rank_covered(low, high, truth)
                rows.append(dict(exposure=cell.exposure, contamination=cell.contamination,
                                 lists_per_ranker=cell.lists_per_ranker, n_lists=cell.n_lists,
                                 method=name, seed=seed, coverage=float(covered.mean()),
                                 width=float(np.mean(np.asarray(high) - low + 1))))
        if progress is not None:
            progress(done, len(cells))
    return rows


def summarise(rows: Sequence[dict], value: str) -> list[dict]:
    """Mean and standard deviation of ``value`` over seeds, one row per cell and method."""
    groups: dict[tuple, list[float]] = {}
    for row in rows:
        key = (row["exposure"], row["contamination"], row["lists_per_ranker"], row["n_lists"],
               row["method"])
        groups.setdefault(key, []).append(float(row[value]))
    return [dict(exposure=k[0], contamination=k[1], lists_per_ranker=k[2], n_lists=k[3],
                 method=k[4], mean=round(float(np.mean(v)), 4), sd=round(float(np.std(v)), 4),
                 seeds=len(v)) for k, v in groups.items()]


def default_conditions(summary: Sequence[dict], default: str = "consensus",
                       baseline: str = "pl-em") -> dict:
    """Part 1's two conditions on an accuracy study summarised by :func:`summarise`.

    Returns ``worst_gap`` (the smallest mean difference default − baseline over the cells,
    and the cell where it falls) and ``careless_gain`` (the mean difference over the cells of
    :data:`CARELESS_RANKERS`) with ``careless_by_lists``, that mean per number of lists a
    rater gives, and ``informed_gain``, the same for :data:`INFORMED` where the summary holds
    it (else NaN).
    """
    means = {(r["exposure"], r["contamination"], r["lists_per_ranker"], r["n_lists"],
              r["method"]): r["mean"] for r in summary}
    cells = sorted({k[:4] for k in means})
    gaps = {cell: means[cell + (default,)] - means[cell + (baseline,)] for cell in cells}
    worst = min(gaps, key=lambda cell: gaps[cell])
    careless = [cell for cell in cells if cell[1] in CARELESS_RANKERS]
    informed = [means[cell + (INFORMED,)] - means[cell + (baseline,)] for cell in careless
                if cell + (INFORMED,) in means]
    return dict(worst_gap=round(gaps[worst], 4), worst_cell=worst,
                careless_gain=_rounded_mean([gaps[cell] for cell in careless]),
                careless_cells=len(careless),
                careless_by_lists={per: _rounded_mean([gaps[c] for c in careless if c[2] == per])
                                   for per in sorted({c[2] for c in careless})},
                informed_gain=_rounded_mean(informed) if len(informed) == len(careless)
                else float("nan"))


def _rounded_mean(values: Sequence[float]) -> float:
    return round(float(np.mean(values)), 4) if len(values) else float("nan")


def sparse_pairs(spread: float, random_state=0, n_items: int = 490, n_pairs: int = 12728,
                 n_rankers: int = 624) -> tuple[Preferences, np.ndarray]:
    """Pairs drawn on Readlevel's design (490 items, 12,728 comparisons by 624 raters).

    Log-worths are N(0, ``spread``²); every comparison joins two distinct items chosen at
    random and is won by Bradley–Terry; raters are assigned at random. The model is right,
    so the only difficulty is that each item is compared about 52 times.
    """
    rng = np.random.default_rng(random_state)
    log_worth = rng.normal(0.0, spread, n_items)
    first = rng.integers(0, n_items, n_pairs)
    second = (first + rng.integers(1, n_items, n_pairs)) % n_items
    wins = rng.random(n_pairs) < 1 / (1 + np.exp(log_worth[second] - log_worth[first]))
    pairs = np.where(wins[:, None], np.column_stack([first, second]),
                     np.column_stack([second, first]))
    prefs = Preferences.from_arrays(pairs.ravel(), np.full(n_pairs, 2), n_items=n_items,
                                    rankers=rng.integers(0, n_rankers, n_pairs))
    return prefs, np.exp(log_worth)


def sparse_study(spreads: Sequence[float] = (0.5, 1.0), seeds: int = 2,
                 interval_methods: Mapping[str, Callable] | None = None) -> list[dict]:
    """Coverage and width of each interval on :func:`sparse_pairs`, one row per spread,
    method and seed (``n_lists`` holds the spread)."""
    methods = interval_methods or {DEFAULT_INTERVAL: bootstrap_interval}
    rows = []
    for spread in spreads:
        for seed in range(seeds):
            prefs, truth = sparse_pairs(spread, seed)
            for name, function in methods.items():
                low, high = function(prefs, seed)
                rows.append(dict(exposure="uniform", contamination="sparse pairs",
                                 lists_per_ranker=0, n_lists=spread, method=name, seed=seed,
                                 coverage=float(true_rank_covered(low, high, truth).mean()),
                                 width=float(np.mean(np.asarray(high) - low + 1)),
                                 accuracy=pairwise_accuracy(
                                     METHODS["consensus"].run(prefs).scores, truth)))
    return rows


#: Small Plackett–Luce samples (items, list length, lists), from a few raters comparing each
#: pair once or twice to enough raters for the bootstrap.
SMALL_SAMPLES: tuple[tuple[int, int, int], ...] = (
    (5, 5, 2), (5, 5, 3), (5, 5, 5), (10, 4, 3), (10, 4, 5), (10, 4, 10), (10, 4, 20),
    (10, 4, 30), (20, 5, 20), (20, 5, 40), (20, 5, 60), (20, 5, 100))


def small_sample_study(samples: Sequence[tuple[int, int, int]] = SMALL_SAMPLES,
                       seeds: int = 40) -> list[dict]:
    """Coverage of the true rank on small samples (log-worths of sd 1, lists without rater
    ids), one row per sample, interval and seed: the default's likely ranks (the bootstrap,
    or the plain posterior where raters overlap too little, see
    :func:`~coarsenrank_core.uncertainty.pair_overlap`), the bootstrap alone and the plain
    posterior. Items no list holds are left out of coverage and width."""
    rows = []
    for n_items, length, n_lists in samples:
        for seed in range(seeds):
            prefs, worths = simulate_pl(n_items, n_lists, length=length, random_state=seed)
            seen = np.bincount(prefs.items, minlength=n_items) > 0
            default = rank_uncertainty(prefs, random_state=seed)
            resampled = (default if default.source == "bootstrap" else
                         rank_uncertainty(prefs, random_state=seed, fallback=False))
            intervals = {"likely ranks (default)": default.rank_interval(),
                         DEFAULT_INTERVAL.replace(" (default)", ""): resampled.rank_interval(),
                         "plain posterior (α = ∞)": posterior_interval(
                             prefs, seed, alpha=float("inf"))}
            for name, (low, high) in intervals.items():
                rows.append(dict(
                    n_items=n_items, length=length, n_lists=n_lists, seed=seed, method=name,
                    rankers_per_pair=default.overlap,
                    posterior=default.source == "posterior",
                    coverage=float(true_rank_covered(low, high, worths)[seen].mean()),
                    width=float(np.mean((np.asarray(high) - low + 1)[seen]))))
    return rows


def heterogeneous_rankers(variance: float, n_rankers: int, seed: int, n_items: int = 30,
                         lists_per_ranker: int = 5, length: int = 6):
    """Lists from raters who each order the items by their own log-worths.

    The mean log-worths fall evenly from 1.5 to −1.5; rater ``r`` adds N(0, ``variance``)
    to each (a random-effects Plackett–Luce model) and gives ``lists_per_ranker``
    Plackett–Luce lists of ``length`` items drawn at random.

    Returns
    -------
    prefs : Preferences
    mean_worths, new_rater_worths : numpy.ndarray
        The mean order's worths, and those of one further rater drawn like the others.
    """
    rng = np.random.default_rng(seed)
    log_worth = np.linspace(1.5, -1.5, n_items)
    own = log_worth + rng.normal(0.0, np.sqrt(variance), size=(n_rankers, n_items))
    n_lists = n_rankers * lists_per_ranker
    rater = np.repeat(np.arange(n_rankers), lists_per_ranker)
    sets = np.argsort(rng.random((n_lists, n_items)), axis=1)[:, :length]
    keys = own[rater[:, None], sets] + rng.gumbel(size=sets.shape)
    orders = np.take_along_axis(sets, np.argsort(-keys, axis=1), axis=1)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n_lists, length), n_items=n_items,
                                    rankers=rater)
    new_rater = log_worth + rng.normal(0.0, np.sqrt(variance), size=n_items)
    return prefs, np.exp(log_worth), np.exp(new_rater)


def ranker_spread_study(variances: Sequence[float] = (0.0, 0.1, 0.3),
                       n_rankers: Sequence[int] = (60, 300), seeds: int = 10) -> list[dict]:
    """Coverage of the default interval and of the consensus-only one, against the mean
    order and against a further rater's own order, on :func:`heterogeneous_rankers`; one
    row per setting, interval, truth and seed, with the spread the default measured."""
    rows = []
    methods = {DEFAULT_INTERVAL: bootstrap_interval,
               CONSENSUS_INTERVAL: consensus_bootstrap_interval}
    for variance in variances:
        for raters in n_rankers:
            for seed in range(seeds):
                prefs, mean, new_rater = heterogeneous_rankers(variance, raters, seed)
                spread = default_bootstrap(prefs, seed, BOOTSTRAP_DRAWS).heterogeneity
                assert spread is not None
                for name, function in methods.items():
                    low, high = function(prefs, seed)
                    for truth_name, truth in (("mean order", mean),
                                              ("a further rater", new_rater)):
                        rows.append(dict(
                            variance=variance, n_rankers=raters, seed=seed, method=name,
                            truth=truth_name, estimate=spread.estimate,
                            used=spread.variance,
                            coverage=float(true_rank_covered(low, high, truth).mean()),
                            width=float(np.mean(np.asarray(high) - low + 1))))
    return rows


#: ``median(z²)`` of a standard normal: the scale factor of :func:`split_half_scale` reads
#: ``√(median(z²) / 0.4549)``, robust to the few items whose halves disagree wildly.
_MEDIAN_CHI2_1 = 0.45494


def split_half_scale(prefs: Preferences, splits: int = 3, n_draws: int = 40,
                     random_state=0) -> dict:
    """How far apart two halves of the raters put each item, in units of the bootstrap.

    The raters (each list, without rater ids) are split at random into halves A and B; each
    half gets the default fit and an unpulled bootstrap of ``n_draws`` refits. For every item
    ``z = (e_A − e_B) / √(v_A + v_B)``, with ``e`` the centred log-score and ``v`` its
    bootstrap variance. If the likely ranks are right about the raters' own consensus, ``z``
    is standard normal and the scale factor ``k = √(median z² / 0.4549)`` is about 1; a
    ``k`` well above 1 says the bootstrap understates how much the consensus would move with
    other raters. An item is left out unless it both won and lost a comparison in each half
    and no fit scores it 0: otherwise a half's fit places it by its prior alone, or (PL-EM,
    prior shape 1) at 0 or next to it, and its log-score measures nothing. Returns ``k`` and
    the root mean square of ``z`` over ``splits`` splits.
    """
    rng = np.random.default_rng(random_state)
    n_units = prefs.n_rankers
    squares = []
    for _ in range(splits):
        in_first = rng.permutation(n_units) < n_units // 2
        halves = []
        for keep in (in_first, ~in_first):
            weights = np.where(keep[prefs.ranker_index], prefs.weights, MIN_WEIGHT)
            half = prefs._replace(weights=np.asarray(weights, dtype=float))
            result = rank_uncertainty(half, n_draws=n_draws, random_state=rng, shrink=False,
                                      fallback=False, heterogeneity=False)
            halves.append(np.vstack([result.scores[None, :], np.asarray(result.refits)]))
        usable = (np.all(halves[0] > 0, axis=0) & np.all(halves[1] > 0, axis=0)
                  & _won_and_lost(prefs, in_first) & _won_and_lost(prefs, ~in_first))
        (first, v_first), (second, v_second) = (_centred_logs(h[:, usable]) for h in halves)
        squares.append((first - second) ** 2 / (v_first + v_second))
    z2 = np.concatenate(squares)
    return dict(scale=float(np.sqrt(np.median(z2) / _MEDIAN_CHI2_1)),
                rms=float(np.sqrt(np.mean(z2))), splits=splits)


#: A ranker's own order is measured only from this many lists of theirs or more.
HELD_OUT_MIN_LISTS = 50


def held_out_rankers(prefs: Preferences, truth, n_draws: int = BOOTSTRAP_DRAWS,
                     random_state=0, min_lists: int = HELD_OUT_MIN_LISTS,
                     max_rankers: int | None = None) -> dict:
    """How often the default's likely ranks hold a left-out ranker's own order.

    The default's likely ranks promise where a further ranker like these would place each
    item. Where rankers give enough lists to measure their own order (``min_lists`` or more,
    holding every item), each in turn is left out, the likely ranks are computed from the
    others (:func:`rank_uncertainty`) and read against the left-out ranker's order (their
    lists alone, fitted by PL-EM) and against ``truth``.
    The ranker's own order carries the noise of their finite lists, so the first share
    slightly understates the coverage of their exact order. ``max_rankers`` leaves out only
    the first that many of them (a quick run).

    Returns
    -------
    dict
        ``rankers`` left out; the mean, lowest and highest share of a left-out order's items
        covered (``covered``, ``covered_low``, ``covered_high``); the truth's mean share
        (``truth_covered``); the mean width; and the pairwise agreement with the others'
        consensus of the left-out orders (``agreement``, ``agreement_low``,
        ``agreement_high``) and of the truth (``truth_agreement``). Empty when fewer than
        two rankers give enough lists.
    """
    truth = np.asarray(truth, dtype=float)
    rng = np.random.default_rng(random_state)
    if not prefs.has_rankers:
        return {}
    ranker = np.asarray(prefs.ranker_index)
    counts = np.bincount(ranker, minlength=prefs.n_rankers)
    listed = np.zeros((prefs.n_rankers, prefs.n_items), dtype=bool)
    listed[ranker[prefs.owner], prefs.items] = True
    measured = np.flatnonzero((counts >= min_lists) & listed.all(axis=1))
    if len(measured) < 2:
        return {}
    rows = []
    for r in measured[:max_rankers]:
        others = prefs.subset(np.flatnonzero(ranker != r))
        own = METHODS["pl-em"].run(prefs.subset(np.flatnonzero(ranker == r))).scores
        result = rank_uncertainty(others, n_draws=n_draws, random_state=rng, fallback=False)
        low, high = result.rank_low, result.rank_high
        rows.append((true_rank_covered(low, high, own).mean(),
                     true_rank_covered(low, high, truth).mean(),
                     np.mean(high - low + 1),
                     pairwise_accuracy(result.scores, own),
                     pairwise_accuracy(result.scores, truth)))
    covered, truth_covered, width, agreement, truth_agreement = np.array(rows).T
    return dict(rankers=len(rows), covered=float(covered.mean()),
                covered_low=float(covered.min()), covered_high=float(covered.max()),
                truth_covered=float(truth_covered.mean()), width=float(width.mean()),
                agreement=float(agreement.mean()), agreement_low=float(agreement.min()),
                agreement_high=float(agreement.max()),
                truth_agreement=float(truth_agreement.mean()))


def _won_and_lost(prefs: Preferences, kept_rankers: np.ndarray) -> np.ndarray:
    """Per item: whether the lists of ``kept_rankers`` put it above another item somewhere
    and below another somewhere (not in the last tied group, and not in the first, of some
    list of two or more groups)."""
    owner = prefs.owner
    keep = kept_rankers[prefs.ranker_index][owner]
    group = prefs.groups
    last = group == prefs.n_groups[owner] - 1
    won = np.bincount(prefs.items[keep & ~last], minlength=prefs.n_items) > 0
    lost = np.bincount(prefs.items[keep & (group > 0)], minlength=prefs.n_items) > 0
    return won & lost


def _centred_logs(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fit's log-scores (row 0 of ``scores``) and the variance of the refits' (the
    rest), each row centred on its mean."""
    logs = np.log(scores)
    logs -= logs.mean(axis=1, keepdims=True)
    return logs[0], logs[1:].var(axis=0)


#: The latest bootstraps, by (id of the data, seed, refits); each entry holds its data so
#: that the id cannot be reused by another data set while the entry lives.
_BOOTSTRAPS: dict[tuple[int, int, int], tuple[Preferences, BootstrapResult]] = {}
_BOOTSTRAPS_KEPT = 16


def default_bootstrap(prefs: Preferences, seed: int, n_draws: int) -> BootstrapResult:
    """The default bootstrap of ``prefs``, run once for every interval and table read off
    it (the real-data table and the widening table read the same bootstraps)."""
    key = (id(prefs), seed, n_draws)
    if key not in _BOOTSTRAPS:
        if len(_BOOTSTRAPS) >= _BOOTSTRAPS_KEPT:
            del _BOOTSTRAPS[next(iter(_BOOTSTRAPS))]  # the oldest
        _BOOTSTRAPS[key] = (prefs, rank_uncertainty(prefs, n_draws=n_draws,
                                                    random_state=seed, fallback=False))
    return _BOOTSTRAPS[key][1]


def bootstrap_interval(prefs: Preferences, seed: int, n_draws: int = BOOTSTRAP_DRAWS):
    """The default: the Bayesian bootstrap over rankers of the default fit, pulled by
    empirical Bayes (:func:`~coarsenrank_core.uncertainty.shrink_refits`)."""
    summary = default_bootstrap(prefs, seed, n_draws)
    return summary.rank_low, summary.rank_high


def unpulled_bootstrap_interval(prefs: Preferences, seed: int,
                                n_draws: int = BOOTSTRAP_DRAWS):
    """The same refits as :func:`bootstrap_interval`, read as they are (no pull, no spread
    between rankers added)."""
    result = default_bootstrap(prefs, seed, n_draws)
    assert result.refits is not None
    return _default_runs(result.refits, result)


def _consensus_draws(result: BootstrapResult) -> np.ndarray:
    """The pulled refits of ``result`` without the rankers' item-by-item spread that the
    default adds (:attr:`~coarsenrank_core.uncertainty.BootstrapResult.heterogeneity`)."""
    assert result.refits is not None
    return shrink_refits(result.scores, result.refits)[0]


def consensus_bootstrap_interval(prefs: Preferences, seed: int,
                                 n_draws: int = BOOTSTRAP_DRAWS):
    """The default's pulled refits read as the default reads them, without the rankers'
    item-by-item spread: how sure the rankers' own consensus is (the default until this
    study measured the spread)."""
    result = default_bootstrap(prefs, seed, n_draws)
    return _default_runs(_consensus_draws(result), result)


def shortest_bootstrap_interval(prefs: Preferences, seed: int,
                                n_draws: int = BOOTSTRAP_DRAWS):
    """The default's pulled refits, without the rankers' spread, read as the shortest run
    holding at least 90 % of them
    (:func:`~coarsenrank_core.uncertainty.shortest_rank_runs`, the default until this study
    measured it) instead of the run nearest the share
    :func:`~coarsenrank_core.uncertainty.bootstrap_level` sets."""
    result = default_bootstrap(prefs, seed, n_draws)
    return hold_ranks(*shortest_rank_runs(rank_draws(_consensus_draws(result)),
                                          INTERVAL_LEVEL), result.ranks)


def shipped_interval(prefs: Preferences, seed: int, n_draws: int = BOOTSTRAP_DRAWS):
    """The likely ranks exactly as the Consensus page and ``rank --posterior`` give them:
    the default, or the plain posterior with the rankers' spread where resampling the
    rankers cannot measure anything."""
    result = rank_uncertainty(prefs, n_draws=n_draws, random_state=seed)
    return result.rank_low, result.rank_high


def widened_interval(prefs: Preferences, seed: int, factor: float,
                     n_draws: int = BOOTSTRAP_DRAWS):
    """The rankers' consensus interval with every pulled refit ``factor`` times as far from
    the mean.

    The pulled refits of :func:`consensus_bootstrap_interval` (log-scores, centred in every
    refit) are moved away from each item's mean over the refits by ``factor`` (1: that
    interval itself) and read as the default reads them. It measures how much wider the
    consensus's likely ranks would have to be to reach a given coverage; it is not an
    interval the package offers.
    """
    result = default_bootstrap(prefs, seed, n_draws)
    draws = _consensus_draws(result)
    usable = np.all(draws > 0, axis=0)
    logs = np.log(draws[:, usable])
    logs -= logs.mean(axis=1, keepdims=True)
    mean = logs.mean(axis=0)
    widened = np.full(draws.shape, -np.inf)  # items with a zero score stay at the bottom
    widened[:, usable] = mean + factor * (logs - mean)
    return _default_runs(widened, result)


def _default_runs(values: np.ndarray, result: BootstrapResult):
    """The default's reading (:func:`~coarsenrank_core.uncertainty.likely_rank_runs`) of
    refits given as values (one row a refit, higher better), in ``result``'s order, ranked
    as the page ranks its draws (:func:`~coarsenrank_core.results.rank_draws`)."""
    assert result.units_per_item is not None
    return likely_rank_runs(rank_draws(values), result.ranks, INTERVAL_LEVEL,
                            result.units_per_item)


def posterior_interval(prefs: Preferences, seed: int, alpha="auto", n_draws: int = 400):
    """The tempered posterior of CoarsenPL (Gibbs) at ``alpha``: the knee by default."""
    post = METHODS["coarsen-pl-gibbs"].run(prefs, alpha=alpha, burn_in=200, n_draws=n_draws,
                                           random_state=seed)
    assert isinstance(post, PosteriorResult)
    return post.rank_interval(INTERVAL_LEVEL)


_RATES: dict = {}
_RULES: Mapping[str, Callable[..., LearningRate]] = {"calibrated": calibrate_tau,
                                                     "safe-bayes": safe_bayes_tau}


def chosen_learning_rate(prefs: Preferences, seed: int, rule: str, **params) -> LearningRate:
    """:func:`~coarsenrank_core.learning_rate.calibrate_tau` (``rule="calibrated"``) or
    :func:`~coarsenrank_core.learning_rate.safe_bayes_tau` (``"safe-bayes"``) of ``prefs``,
    run once for the interval and the report's table of chosen τ."""
    if rule not in _RULES:
        raise ValueError(f"rule must be one of {sorted(_RULES)} (got {rule!r})")
    key = (prefs.fingerprint, seed, rule, tuple(sorted(params.items())))
    if key not in _RATES:
        if len(_RATES) >= 256:
            _RATES.clear()
        _RATES[key] = _RULES[rule](prefs, random_state=seed, **params)
    return _RATES[key]


def learning_rate_interval(prefs: Preferences, seed: int, rule: str,
                           posterior_draws: int = 400, **params):
    """The posterior at the τ that ``rule`` chooses (:func:`chosen_learning_rate`), read as
    the shortest run of ranks holding at least 90 % of its draws.
    ``params`` go to the rule."""
    tau = chosen_learning_rate(prefs, seed, rule, **params).tau
    post = tempered_posterior(prefs, tau, n_draws=posterior_draws, burn_in=200,
                              random_state=seed)
    return shortest_rank_runs(post.draw_ranks, INTERVAL_LEVEL)


#: The name of the package's default interval in the study's tables.
DEFAULT_INTERVAL = "ranker bootstrap (default)"
#: The same pulled refits without the rankers' item-by-item spread.
CONSENSUS_INTERVAL = "ranker bootstrap, consensus only"
#: The likely ranks exactly as shipped (the posterior where resampling measures nothing).
SHIPPED_INTERVAL = "likely ranks as shipped (default)"
#: The same refits without the empirical-Bayes pull.
UNPULLED_INTERVAL = "ranker bootstrap, not pulled"
#: The same pulled refits read as the shortest run holding at least 90 % (the former default).
SHORTEST_INTERVAL = "ranker bootstrap, shortest run ≥ 90 %"
#: The posterior at τ calibrated by Syring & Martin's bootstrap (GPC).
CALIBRATED_INTERVAL = "posterior, τ calibrated (Syring & Martin)"
#: The posterior at τ chosen by SafeBayes (Grünwald & van Ommen).
SAFE_BAYES_INTERVAL = "posterior, τ by SafeBayes"
#: The interval methods the report compares; the first is the package's default.
INTERVAL_METHODS: Mapping[str, Callable] = {
    DEFAULT_INTERVAL: bootstrap_interval,
    CONSENSUS_INTERVAL: consensus_bootstrap_interval,
    UNPULLED_INTERVAL: unpulled_bootstrap_interval,
    SHORTEST_INTERVAL: shortest_bootstrap_interval,
    "posterior at the knee α": posterior_interval,
    "plain posterior (α = ∞)": lambda prefs, seed: posterior_interval(prefs, seed,
                                                                       alpha=float("inf")),
    CALIBRATED_INTERVAL: lambda prefs, seed: learning_rate_interval(prefs, seed, "calibrated"),
    SAFE_BAYES_INTERVAL: lambda prefs, seed: learning_rate_interval(prefs, seed, "safe-bayes"),
}
