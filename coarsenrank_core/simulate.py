"""Synthetic preferences drawn from a Plackett–Luce model, and vectorised random subsets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .preferences import Preferences

__all__ = ["simulate_pl", "random_subsets", "random_orderings", "pl_orderings"]

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


def pl_orderings(items, log_theta, random_state=None) -> np.ndarray:
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
    """
    rng = np.random.default_rng(random_state)
    items = np.asarray(items, dtype=np.intp)
    utility = np.asarray(log_theta, dtype=float)[items] + rng.gumbel(size=items.shape)
    return np.take_along_axis(items, np.argsort(-utility, axis=1), axis=1)


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
    if not (spread >= 0 and np.isfinite(spread)):
        raise ValueError(f"spread must be a non-negative number (got {spread})")
    if not 0 <= ties <= 1:
        raise ValueError(f"ties must be a probability in [0, 1] (got {ties})")
    if n_rankers is not None and not 1 <= int(n_rankers) <= max(n_preferences, 1):
        raise ValueError(f"n_rankers must lie in 1..n_preferences (got {n_rankers})")
    rng = np.random.default_rng(random_state)
    log_theta = spread * rng.standard_normal(n_items)
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
