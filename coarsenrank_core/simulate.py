"""Synthetic preferences drawn from a Plackett–Luce model, and vectorised random subsets.

The one simulation pipeline of the package: true worths (:func:`true_worths`), the items
each list is drawn over (:func:`random_subsets`), Plackett–Luce orders (:func:`pl_orderings`)
and random ones (:func:`random_orderings`), composed by :func:`simulate_pl` (random worths,
mixed lengths, round-robin rankers) and :func:`simulate_rankers` (given worths, raters with
several lists, careless raters, top-k lists and ties). The dashboard's scenarios
(``ui/scenario.py``) and the built-in samples (``sample_data/make_samples.py``) call these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .frozen import readonly_array, restore_readonly
from .preferences import Preferences

__all__ = ["simulate_pl", "simulate_rankers", "Simulation", "true_worths", "random_subsets",
           "random_orderings", "exposed_subsets", "pl_orderings", "WORTH_SPACINGS",
           "CARELESS_ORDERS"]

#: How :func:`true_worths` places the log-worths.
WORTH_SPACINGS = ("normal", "even")
#: How a careless rater of :func:`simulate_rankers` orders the items of a list.
CARELESS_ORDERS = ("random", "reversed")

_CHUNK_CELLS = 1 << 22  # bound on the cells of one (rows, M) matrix of random keys


def _subset_block(n_items: int, n_rows: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_rows, k)`` matrix, each row a uniform ordered sample of ``k`` distinct items."""
    if k * k <= 4 * n_items:
        # Floyd's algorithm, one column per step, vectorised over rows: O(k^2) per row.
        block = np.empty((n_rows, k), dtype=np.intp)
        for column, top in enumerate(range(n_items - k, n_items)):
            pick = rng.integers(0, top + 1, size=n_rows)
            taken = (block[:, :column] == pick[:, None]).any(axis=1)
            block[:, column] = np.where(taken, top, pick)
        # Floyd's sets are uniform but their order is not: shuffle every row
        return random_orderings(block, rng)
    # the k smallest of M random keys, in key order: a uniform ordered sample, O(M) per row
    block = np.empty((n_rows, k), dtype=np.intp)
    chunk = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, n_rows, chunk):
        keys = rng.random((min(chunk, n_rows - start), n_items))
        smallest = np.argpartition(keys, k - 1, axis=1)[:, :k] if k < n_items else np.argsort(
            keys, axis=1)
        order = np.argsort(np.take_along_axis(keys, smallest, axis=1), axis=1)
        block[start:start + keys.shape[0]] = np.take_along_axis(smallest, order, axis=1)
    return block


def random_subsets(n_items: int, lengths, random_state=None) -> np.ndarray:
    """Uniformly random distinct items, in uniformly random order, for each requested length.

    Preference ``n`` gets ``lengths[n]`` distinct items drawn uniformly from ``0 .. M-1``
    without replacement, listed in a uniformly random order (so the result is also a
    uniformly random *ordering* of a uniformly random subset). Rows of equal length are drawn
    together, by Floyd's algorithm when ``k² ≤ 4M`` and otherwise from the ``k`` smallest of
    ``M`` random keys (in chunks of rows, to bound memory).

    Parameters
    ----------
    n_items : int
        M, the number of items to draw from.
    lengths : array of int, shape (N,)
        Length of every requested subset, each in ``0 .. M``.
    random_state : None, int or numpy.random.Generator
        Seed; a Generator is used (and advanced) as it is.

    Returns
    -------
    numpy.ndarray of intp, shape (sum(lengths),)
        The subsets concatenated in the order of ``lengths``.
    """
    rng = np.random.default_rng(random_state)
    lengths = np.asarray(lengths, dtype=np.intp)
    if lengths.ndim != 1:
        raise ValueError("lengths must be a one-dimensional array")
    if lengths.size and (lengths.min() < 0 or lengths.max() > n_items):
        raise ValueError(f"every length must lie in 0..{n_items} (the number of items)")
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    out = np.empty(int(offsets[-1]), dtype=np.intp)
    for k in np.unique(lengths):
        k = int(k)
        if k == 0:
            continue
        rows = np.flatnonzero(lengths == k)
        element = offsets[:-1][rows, None] + np.arange(k)
        out[element] = _subset_block(n_items, rows.size, k, rng)
    return out


def exposed_subsets(log_worths, n_rows: int, length: int, exposure: float,
                    random_state=None) -> np.ndarray:
    """Subsets of ``length`` items where better items are shown more (or less) often.

    Every row draws ``length`` distinct items without replacement with probabilities
    ``∝ exp(exposure · log-worth)`` (Gumbel top-k: the ``length`` largest of
    ``exposure · log θ + Gumbel`` keys), listed in a uniformly random order. ``exposure = 0``
    is uniform; ``1`` shows better items more often (as on the paper's datasets); ``-1``
    shows weaker items more often (as when new or weak entries are sampled more).

    Returns
    -------
    numpy.ndarray of intp, shape (n_rows, length)
    """
    rng = np.random.default_rng(random_state)
    log_worths = np.asarray(log_worths, dtype=float)
    if not 1 <= length <= log_worths.size:
        raise ValueError(f"length must lie in 1..{log_worths.size} (got {length})")
    keys = exposure * log_worths[None, :] + rng.gumbel(size=(n_rows, log_worths.size))
    return rng.permuted(np.argsort(-keys, axis=1)[:, :length], axis=1)


def random_orderings(items, random_state=None) -> np.ndarray:
    """Shuffle every row of an ``(n, k)`` matrix independently (uniform random orderings).

    Parameters
    ----------
    items : array, shape (n, k)
        One preference per row.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray, shape (n, k)
        A new matrix; row ``i`` is a uniformly random permutation of ``items[i]``.
    """
    rng = np.random.default_rng(random_state)
    items = np.asarray(items)
    if items.ndim != 2:
        raise ValueError("items must be an (n, k) matrix")
    order = np.argsort(rng.random(items.shape), axis=1)
    return np.take_along_axis(items, order, axis=1)


def pl_orderings(items, log_theta, random_state=None, offsets=None) -> np.ndarray:
    """Order every row of an ``(n, k)`` item matrix by a Plackett–Luce draw, best first.

    Uses the Gumbel-max trick: sorting ``log θ + G`` (``G`` standard Gumbel) in decreasing
    order gives a ranking with probability ``Π_i θ_{ρ^i} / (θ_{ρ^i} + … + θ_{ρ^k})``
    (paper Eq. (19); Yellott 1977).

    Parameters
    ----------
    items : array of int, shape (n, k)
    log_theta : array, shape (M,)
        Log-worths of the items.
    random_state : None, int or numpy.random.Generator
    offsets : array, shape (n, k), optional
        Added to each entry's log-worth (a rater's own deviation from ``log_theta``).
    """
    rng = np.random.default_rng(random_state)
    items = np.asarray(items, dtype=np.intp)
    utility = np.asarray(log_theta, dtype=float)[items] + rng.gumbel(size=items.shape)
    if offsets is not None:
        utility += np.asarray(offsets, dtype=float)
    return np.take_along_axis(items, np.argsort(-utility, axis=1), axis=1)


def _log_worths(n_items: int, spread: float, spacing: str, rng) -> np.ndarray:
    if spacing not in WORTH_SPACINGS:
        raise ValueError(f"spacing must be one of {WORTH_SPACINGS} (got {spacing!r})")
    if not (spread >= 0 and np.isfinite(spread)):
        raise ValueError(f"spread must be a non-negative number (got {spread})")
    if spacing == "even":
        return np.linspace(spread, -spread, n_items)
    return spread * rng.standard_normal(n_items)


def true_worths(n_items: int, spread: float = 1.0, spacing: str = "normal",
                random_state=None) -> np.ndarray:
    """Positive worths θ of ``n_items`` items, for a simulation's ground truth.

    Parameters
    ----------
    n_items : int
        M, at least 2.
    spread : float
        Scale of ``log θ``, non-negative (``0`` makes every item equally good).
    spacing : {"normal", "even"}
        ``"normal"``: ``log θ_m = spread · Z_m`` with ``Z_m`` standard normal (as in
        :func:`simulate_pl`). ``"even"``: ``log θ`` falls evenly from ``+spread`` to
        ``−spread``, so item 0 is the best and the true order is ``0, 1, …, M−1``; no random
        number is drawn.
    random_state : None, int or numpy.random.Generator
        Seed; a Generator is used (and advanced) as it is. Unused by ``"even"``.

    Returns
    -------
    numpy.ndarray of float, shape (M,)
        The worths θ (higher is better).

    Examples
    --------
    >>> np.round(np.log(true_worths(5, 1.5, "even")), 2)
    array([ 1.5 ,  0.75,  0.  , -0.75, -1.5 ])
    """
    n_items = int(n_items)
    if n_items < 2:
        raise ValueError(f"n_items must be at least 2 (got {n_items})")
    return np.exp(_log_worths(n_items, spread, spacing, np.random.default_rng(random_state)))


def _draw_lengths(n_items, n_preferences, length, length_range, rng) -> np.ndarray:
    if length is not None and length_range is not None:
        raise ValueError("give either length or length_range, not both")
    if length_range is not None:
        lo, hi = (int(v) for v in length_range)
        if not 2 <= lo <= hi <= n_items:
            raise ValueError(f"length_range must satisfy 2 <= lo <= hi <= n_items={n_items} "
                             f"(got {tuple(length_range)})")
        return rng.integers(lo, hi + 1, size=n_preferences)
    length = min(n_items, 10) if length is None else int(length)
    if not 2 <= length <= n_items:
        raise ValueError(f"length must lie in 2..n_items={n_items} (got {length})")
    return np.full(n_preferences, length, dtype=np.intp)


def simulate_pl(n_items: int, n_preferences: int, length: int | None = None,
                length_range: tuple[int, int] | None = None, spread: float = 1.0,
                n_rankers: int | None = None, ties: float = 0.0,
                item_names: Sequence[str] | None = None,
                random_state=None) -> tuple[Preferences, np.ndarray]:
    """Draw preferences from a Plackett–Luce model with random worths.

    The worths are ``θ_m = exp(spread · Z_m)`` with ``Z_m`` standard normal. Every
    preference is a uniformly random subset of distinct items (see :func:`random_subsets`)
    ordered by a PL draw (paper Eq. (19)) via the Gumbel-max trick
    (:func:`pl_orderings`). Everything is vectorised over preferences.

    Parameters
    ----------
    n_items : int
        M, at least 2.
    n_preferences : int
        N, at least 0.
    length : int, optional
        Number of items in every preference, in ``2 .. M``. Default ``min(M, 10)`` when
        ``length_range`` is not given either.
    length_range : (int, int), optional
        Draw each preference's length uniformly from ``lo .. hi`` (inclusive) instead;
        ``2 <= lo <= hi <= M``.
    spread : float
        Standard deviation of ``log θ`` (``0`` makes every item equally good).
    n_rankers : int, optional
        Attach ranker ids: preference ``n`` goes to ranker ``n mod K`` (round-robin, which,
        the preferences being independent, is as good as a random assignment and gives every
        ranker ``⌊N/K⌋`` or ``⌈N/K⌉`` preferences). Rankers are named ``"r1" .. "rK"``;
        ``1 <= K <= N``. Default: no ranker ids.
    ties : float
        Probability, independently for every pair of adjacent positions, that the two
        neighbours are merged into one tied group (groups chain, so ``a = b = c`` can arise;
        a whole preference may become one tied group). ``0`` (default) gives strict orders.
    item_names : sequence of str, optional
        Names of the M items; default ``"0" .. "M-1"``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    preferences : Preferences
    true_scores : numpy.ndarray, shape (M,)
        The worths θ (positive, higher is better).

    Examples
    --------
    >>> prefs, theta = simulate_pl(20, 100, length=4, random_state=0)
    >>> len(prefs), int(prefs.lengths.max()), theta.shape
    (100, 4, (20,))
    """
    n_items, n_preferences = int(n_items), int(n_preferences)
    if n_items < 2:
        raise ValueError(f"n_items must be at least 2 (got {n_items})")
    if n_preferences < 0:
        raise ValueError(f"n_preferences must be non-negative (got {n_preferences})")
    if not 0 <= ties <= 1:
        raise ValueError(f"ties must be a probability in [0, 1] (got {ties})")
    if n_rankers is not None and not 1 <= int(n_rankers) <= max(n_preferences, 1):
        raise ValueError(f"n_rankers must lie in 1..n_preferences (got {n_rankers})")
    rng = np.random.default_rng(random_state)
    log_theta = _log_worths(n_items, spread, "normal", rng)
    lengths = _draw_lengths(n_items, n_preferences, length, length_range, rng)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    items = random_subsets(n_items, lengths, rng)
    for k in np.unique(lengths):
        element = offsets[:-1][lengths == k, None] + np.arange(int(k))
        items[element] = pl_orderings(items[element], log_theta, rng)
    owner = np.repeat(np.arange(n_preferences), lengths)
    starts = np.zeros(items.size, dtype=bool)
    starts[offsets[:-1][lengths > 0]] = True
    step = ~starts
    if ties > 0:
        step &= rng.random(items.size) >= ties
    # group index = number of steps taken since the start of the preference
    running = np.cumsum(step)
    groups = running - running[offsets[:-1]][owner]
    rankers = ranker_names = None
    if n_rankers is not None:
        rankers = np.arange(n_preferences) % int(n_rankers)
        ranker_names = tuple(f"r{j + 1}" for j in range(int(n_rankers)))
    prefs = Preferences(items=items, offsets=offsets, groups=groups, n_items=n_items,
                        rankers=rankers, item_names=item_names,  # type: ignore[arg-type]
                        ranker_names=ranker_names)
    return prefs, np.exp(log_theta)


@dataclass(frozen=True)
class Simulation:
    """Preferences drawn by :func:`simulate_rankers`, with everything the draw knows.

    Attributes
    ----------
    preferences : Preferences
        ``n_rankers · lists_per_ranker`` lists, best first, rater by rater (rater ``r`` gave
        lists ``r·L .. r·L + L − 1``), with ranker ids and the names supplied.
    worths : numpy.ndarray, shape (M,)
        The true worths θ the honest raters followed.
    shown : numpy.ndarray of int, shape (N, length)
        The items each list was drawn over, in the order they were shown (e.g. the left and
        right photo of a pair); all M items in id order for full rankings.
    orders : numpy.ndarray of int, shape (N, k)
        Every list as drawn, best first (``k`` is ``top`` or ``length``). Tied neighbours
        keep their drawn order here, while ``preferences`` lists a tied group by item id.
    careless : numpy.ndarray of int
        Sorted ids of the careless raters.
    """

    preferences: Preferences
    worths: np.ndarray
    shown: np.ndarray
    orders: np.ndarray
    careless: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "worths", readonly_array(self.worths))
        object.__setattr__(self, "shown", readonly_array(self.shown, np.intp))
        object.__setattr__(self, "orders", readonly_array(self.orders, np.intp))
        object.__setattr__(self, "careless", readonly_array(self.careless, np.intp))

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling


def _careless_count(n_rankers: int, careless: float, n_careless: int | None) -> int:
    if n_careless is not None:
        if careless:
            raise ValueError("give either careless (a share) or n_careless, not both")
        if not 0 <= int(n_careless) <= n_rankers:
            raise ValueError(f"n_careless must lie in 0..n_rankers={n_rankers} (got {n_careless})")
        return int(n_careless)
    if not 0 <= careless <= 1:
        raise ValueError(f"careless must be a share in [0, 1] (got {careless})")
    return int(np.floor(careless * n_rankers + 0.5))  # halves up, as noise.spammers counts


def simulate_rankers(worths, n_rankers: int, length: int | None = None, *,
                    lists_per_ranker: int = 1, top: int | None = None, careless: float = 0.0,
                    n_careless: int | None = None, careless_order: str = "random",
                    ties: float = 0.0, exposure: float = 0.0, ranker_spread: float = 0.0,
                    item_names: Sequence[str] | None = None,
                    ranker_names: Sequence[str] | None = None,
                    random_state=None) -> Simulation:
    """Raters who order random items by Plackett–Luce from known worths; some are careless.

    The draw, in this order (one vectorised step each, all from one generator):

    1. every list's items: a uniformly random ordered subset of ``length`` distinct items
       (:func:`random_subsets`), or with ``exposure`` ≠ 0 a subset drawn with probabilities
       ``∝ θ^exposure`` (:func:`exposed_subsets`); a full ranking (``length == M``) draws
       nothing and lists the items in id order;
    2. every list ordered by a Plackett–Luce draw from ``worths`` (:func:`pl_orderings`,
       paper Eq. (19)); with ``ranker_spread`` > 0, from the rater's own log-worths, the
       true ones plus N(0, ``ranker_spread``²) per item and rater (drawn first, once per
       item a rater is shown, in the order the items are first shown);
    3. the careless raters, chosen uniformly without replacement; every list of theirs is
       replaced by a uniformly random order of its items (``careless_order="random"``,
       :func:`random_orderings`; the i-th rater chosen gets the i-th order drawn) or by its
       Plackett–Luce order reversed (``"reversed"``: worst first, no draw);
    4. with ``top``, every list keeps only its first ``top`` places (a top-k list);
    5. with ``ties``, every pair of adjacent places is tied, independently, with
       probability ``ties`` (one uniform number per pair, list by list).

    Parameters
    ----------
    worths : array of float, shape (M,)
        True worths θ, positive (see :func:`true_worths`); M ≥ 2.
    n_rankers : int
        K, at least 1.
    length : int, optional
        Items in every list, in ``2 .. M``; default M (full rankings).
    lists_per_ranker : int
        L, lists each rater gives, at least 1.
    top : int, optional
        Keep the first ``top`` places of every list, ``2 <= top <= length``.
    careless : float
        Share of the raters who are careless, in [0, 1]; the count is rounded half up.
    n_careless : int, optional
        The number of careless raters instead of a share.
    careless_order : {"random", "reversed"}
        How a careless rater orders the items of a list.
    ties : float
        Probability that two adjacent places are tied; ``0`` (default) gives strict orders.
    exposure : float
        How strongly an item's worth decides how often it is shown: ``0`` (default) is
        uniform, ``1`` shows better items more often, ``-1`` weaker ones.
    ranker_spread : float
        Standard deviation of each rater's own deviation from the true log-worths, item by
        item (a random-effects Plackett–Luce model; ``0``, the default, gives raters who
        all share one order). Careless raters are drawn as before.
    item_names, ranker_names : sequence of str, optional
        Names of the M items and of the K raters; default ``"0" .. "M-1"`` and
        ``"r1" .. "rK"``.
    random_state : None, int or numpy.random.Generator
        Seed; a Generator is used (and advanced) as it is.

    Returns
    -------
    Simulation
        The preferences, the worths, the items each list was shown, the orders drawn and
        the careless raters.

    Examples
    --------
    >>> sim = simulate_rankers(true_worths(6, 1.5, "even"), 10, 3, lists_per_ranker=2,
    ...                       careless=0.2, random_state=0)
    >>> len(sim.preferences), sim.shown.shape, sim.careless.size
    (20, (20, 3), 2)
    """
    worths = np.asarray(worths, dtype=float)
    if worths.ndim != 1 or worths.size < 2 or not np.all((worths > 0) & np.isfinite(worths)):
        raise ValueError("worths must be a vector of at least 2 positive finite numbers")
    n_items, n_rankers, per_ranker = worths.size, int(n_rankers), int(lists_per_ranker)
    length = n_items if length is None else int(length)
    if n_rankers < 1 or per_ranker < 1:
        raise ValueError(f"n_rankers and lists_per_ranker must be at least 1 "
                         f"(got {n_rankers}, {per_ranker})")
    if not 2 <= length <= n_items:
        raise ValueError(f"length must lie in 2..{n_items} (the number of items; got {length})")
    kept = length if top is None else int(top)
    if not 2 <= kept <= length:
        raise ValueError(f"top must lie in 2..length={length} (got {top})")
    if careless_order not in CARELESS_ORDERS:
        raise ValueError(f"careless_order must be one of {CARELESS_ORDERS} "
                         f"(got {careless_order!r})")
    if not 0 <= ties <= 1:
        raise ValueError(f"ties must be a probability in [0, 1] (got {ties})")
    count = _careless_count(n_rankers, careless, n_careless)
    rng = np.random.default_rng(random_state)
    n = n_rankers * per_ranker
    if not np.isfinite(exposure) or abs(exposure) > 10:
        raise ValueError(f"exposure must lie in -10..10 (got {exposure})")
    if length == n_items:
        shown = np.tile(np.arange(n_items, dtype=np.intp), (n, 1))
    elif exposure:
        shown = exposed_subsets(np.log(worths), n, length, exposure, rng)
    else:
        shown = random_subsets(n_items, np.full(n, length), rng).reshape(n, length)
    if not (ranker_spread >= 0 and np.isfinite(ranker_spread)):
        raise ValueError(f"ranker_spread must be a non-negative number (got {ranker_spread})")
    offsets = None
    if ranker_spread > 0:
        rater_of_row = np.repeat(np.arange(n_rankers, dtype=np.int64), per_ranker)
        cell = rater_of_row[:, None] * n_items + shown
        _, first, where = np.unique(cell.ravel(), return_index=True, return_inverse=True)
        own = np.empty(first.size)
        own[np.argsort(first, kind="stable")] = rng.normal(0.0, ranker_spread, first.size)
        offsets = own[where.ravel()].reshape(shown.shape)
    orders = pl_orderings(shown, np.log(worths), rng, offsets=offsets)
    chosen = (rng.choice(n_rankers, size=count, replace=False) if count
              else np.zeros(0, dtype=np.intp))
    rows = (chosen[:, None] * per_ranker + np.arange(per_ranker)).ravel()
    if careless_order == "random":
        orders[rows] = random_orderings(shown[rows], rng)
    else:
        orders[rows] = orders[rows, ::-1]
    orders = orders[:, :kept]
    step = np.ones((n, kept), dtype=np.intp)
    step[:, 0] = 0
    if ties > 0:
        step[:, 1:] = rng.random((n, kept - 1)) >= ties
    names = (tuple(f"r{j + 1}" for j in range(n_rankers)) if ranker_names is None
             else tuple(ranker_names))
    prefs = Preferences(items=orders.ravel(), offsets=np.arange(0, n * kept + 1, kept),
                        groups=np.cumsum(step, axis=1).ravel(), n_items=n_items,
                        rankers=np.repeat(np.arange(n_rankers), per_ranker),
                        item_names=item_names,  # type: ignore[arg-type]
                        ranker_names=names)
    return Simulation(prefs, worths, shown, orders, np.sort(chosen))
