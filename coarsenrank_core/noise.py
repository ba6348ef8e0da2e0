"""Seeded noise injectors that corrupt a collection of preferences and record what they changed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from .frozen import FrozenDict, readonly_array, restore_readonly
from .preferences import Preferences
from .results import Outputs, SpammerOutputs
from .simulate import random_orderings, random_subsets

__all__ = ["NoiseResult", "NoiseType", "NOISE_TYPES", "replace_random", "reverse_preferences",
           "mallows_swaps", "spammers", "subsample", "magnify", "altered_distance",
           "mallows_insertions"]

_PAIR_CELLS = 1 << 22  # bound on the (rows × item pairs) cells that altered_distance holds
_LONG = 1024  # altered_distance counts pairs of longer preferences in O(k log k) instead
_LONG_MALLOWS = 2048  # mallows_insertions places units of longer lists by a Fenwick tree


def _pair_total(labels: np.ndarray) -> int:
    """Number of pairs with equal labels: ``Σ C(count, 2)`` over the distinct labels."""
    counts = np.unique(labels, return_counts=True)[1].astype(np.int64)
    return int(np.sum(counts * (counts - 1) // 2))


def _same_relation_share(source: np.ndarray, output: np.ndarray, found: np.ndarray) -> float:
    """Share of a preference's item pairs whose relation (ahead, behind, tied) is unchanged.

    ``source``/``output`` are the tied-group indices of its ``k`` items before and after;
    pairs with a missing item (``found`` false) count as changed. Counted in
    ``O(k log k)`` from the ties and Kendall's τ_b (which scipy computes by merge sort):
    with ``P`` present pairs, ``T_s``, ``T_o``, ``T_so`` pairs tied in the source, the
    output, both, ``C + D = P − T_s − T_o + T_so`` and
    ``C − D = τ_b √((P − T_s)(P − T_o))``; unchanged pairs are ``T_so + C``.
    """
    from scipy.stats import kendalltau  # lazy: scipy.stats is heavy to import

    k = source.size
    s, o = source[found].astype(np.int64), output[found].astype(np.int64)
    m = s.size
    present = m * (m - 1) // 2
    tied_s, tied_o = _pair_total(s), _pair_total(o)
    tied_both = _pair_total(s * (int(o.max(initial=0)) + 1) + o)
    strict_s, strict_o = present - tied_s, present - tied_o
    difference = 0.0
    if strict_s > 0 and strict_o > 0:
        difference = float(kendalltau(s, o).statistic) * np.sqrt(float(strict_s) * strict_o)
    concordant = ((present - tied_s - tied_o + tied_both) + difference) / 2
    return (tied_both + concordant) / (k * (k - 1) / 2)


@dataclass(frozen=True)
class NoiseResult:
    """A corrupted copy of a collection, with the provenance of every output preference.

    Attributes
    ----------
    preferences : Preferences
        The new collection. ``n_items``, ``item_names``, ``ranker_names`` and ``notes`` are
        those of the input; each output preference keeps the weight and ranker id of its
        source.
    source : numpy.ndarray of intp, shape (N_out,)
        Index, in the input, of the preference each output preference comes from.
    altered : numpy.ndarray of bool, shape (N_out,)
        Whether the output preference differs (items, order or ties) from its source. It is
        computed by comparing contents, so a corruption that happens to reproduce the source
        counts as unaltered.
    params : Mapping
        The injector's parameters as given.
    kind : str
        Id of the injector (a key of :data:`NOISE_TYPES`, or ``"magnify"``).
    extra : Outputs
        Injector-specific facts, a frozen record of :mod:`coarsenrank_core.results`:
        :class:`~coarsenrank_core.results.SpammerOutputs` (``spammers``, the ranker ids
        made spammers) for ``"spammers"``, an empty
        :class:`~coarsenrank_core.results.Outputs` for the other injectors.
    """

    preferences: Preferences
    source: np.ndarray
    altered: np.ndarray
    params: Mapping = field(default_factory=dict)
    kind: str = ""
    extra: Outputs = field(default_factory=Outputs)

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        object.__setattr__(self, "source", readonly_array(self.source, np.intp))
        object.__setattr__(self, "altered", readonly_array(self.altered, bool))
        object.__setattr__(self, "params", FrozenDict(dict(self.params)))
        if not isinstance(self.extra, Outputs):
            raise TypeError("extra must be a record of coarsenrank_core.results (an Outputs), "
                            f"not {type(self.extra).__name__}")
        if self.source.shape != (len(self.preferences),) or self.altered.shape != self.source.shape:
            raise ValueError("source and altered need one entry per output preference")

    @property
    def fraction_altered(self) -> float:
        """Share of the output preferences that differ from their source (0 when empty)."""
        return float(self.altered.mean()) if self.altered.size else 0.0

    @property
    def n_altered(self) -> int:
        """Number of output preferences that differ from their source."""
        return int(self.altered.sum())


# ---------------------------------------------------------------------- helpers
def _count(fraction: float, n: int) -> int:
    """``round(fraction · n)`` with halves rounded up (0.5 → 1, 2.5 → 3)."""
    return int(np.floor(fraction * n + 0.5))


def _check_fraction(fraction: float, name: str = "fraction", low_open: bool = False) -> float:
    fraction = float(fraction)
    ok = (0 < fraction <= 1) if low_open else (0 <= fraction <= 1)
    if not ok:
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must lie in {interval} (got {fraction})")
    return fraction


def _entry_mask(prefs: Preferences, rows: np.ndarray) -> np.ndarray:
    chosen = np.zeros(len(prefs), dtype=bool)
    chosen[rows] = True
    return chosen[prefs.owner]


def _differs(original: Preferences, new: Preferences, source: np.ndarray) -> np.ndarray:
    """Whether each preference of ``new`` differs in content from ``original[source]``."""
    source = np.asarray(source, dtype=np.intp)
    same_length = new.lengths == original.lengths[source]
    element = (np.repeat(original.offsets[:-1][source], new.lengths) + new.positions)
    element = np.where(same_length[new.owner], element, 0)
    if original.items.size == 0:
        return ~same_length
    mismatch = ((original.items[element] != new.items)
                | (original.groups[element] != new.groups))
    return ~same_length | (np.bincount(new.owner, weights=mismatch, minlength=len(new)) > 0)


def _result(original: Preferences, items, groups, kind: str, params: dict,
            extra: Outputs | None = None) -> NoiseResult:
    """Wrap new flat contents of the same lengths as ``original`` (one output per input)."""
    new = original._replace(items=items, groups=groups)
    source = np.arange(len(original))
    return NoiseResult(new, source, _differs(original, new, source), params, kind,
                       Outputs() if extra is None else extra)


def _choose(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(n, size=count, replace=False)) if count else np.zeros(0, np.intp)


def _shuffle_rows(prefs: Preferences, rows: np.ndarray, rng: np.random.Generator):
    """Flat items/groups where ``rows`` are uniformly random strict orders of their own items."""
    items = prefs.items.copy()
    groups = prefs.groups.copy()
    lengths = prefs.lengths[rows]
    for k in np.unique(lengths):
        block = rows[lengths == k]
        element = prefs.offsets[:-1][block, None] + np.arange(int(k))
        items[element] = random_orderings(prefs.items[element], rng)
        groups[element] = np.arange(int(k))
    return items, groups


# ---------------------------------------------------------------------- injectors
def replace_random(prefs: Preferences, fraction: float, random_state=None) -> NoiseResult:
    """Replace a fraction of the preferences by random answers (the paper's SUSHI protocol).

    ``round(fraction · N)`` preferences, chosen uniformly without replacement, are each
    replaced by a uniformly random strict ordering of a uniformly random subset of the same
    length, drawn from all M items. The paper's SUSHI experiment replaces 2000 of 5000 lists
    this way (fraction 0.4). The replaced preferences keep their weight and ranker.

    Parameters
    ----------
    prefs : Preferences
    fraction : float
        Share of preferences to replace, in [0, 1]; the count is rounded half up.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    NoiseResult
        One output per input (``source = arange(N)``).
    """
    params = dict(fraction=fraction, random_state=random_state)
    fraction = _check_fraction(fraction)
    rng = np.random.default_rng(random_state)
    rows = _choose(len(prefs), _count(fraction, len(prefs)), rng)
    mask = _entry_mask(prefs, rows)
    items = prefs.items.copy()
    groups = prefs.groups.copy()
    items[mask] = random_subsets(prefs.n_items, prefs.lengths[rows], rng)
    groups[mask] = prefs.positions[mask]
    return _result(prefs, items, groups, "replace_random", params)


def reverse_preferences(prefs: Preferences, fraction: float, random_state=None) -> NoiseResult:
    """Reverse the order of the tied groups in a fraction of the preferences.

    ``round(fraction · N)`` preferences, chosen uniformly without replacement, are turned
    upside down: ``a > {b, c} > d`` becomes ``d > {b, c} > a``. Applying the injector twice
    with the same seed to a collection of the same size restores it. A preference that is
    one tied group is its own reverse and so is reported as unaltered.

    Parameters
    ----------
    prefs : Preferences
    fraction : float
        Share of preferences to reverse, in [0, 1]; the count is rounded half up.
    random_state : None, int or numpy.random.Generator
    """
    params = dict(fraction=fraction, random_state=random_state)
    fraction = _check_fraction(fraction)
    rng = np.random.default_rng(random_state)
    rows = _choose(len(prefs), _count(fraction, len(prefs)), rng)
    entries = np.flatnonzero(_entry_mask(prefs, rows))
    owner = prefs.owner[entries]
    mirror = prefs.offsets[owner] + prefs.offsets[owner + 1] - 1 - entries
    items = prefs.items.copy()
    groups = prefs.groups.copy()
    items[entries] = prefs.items[mirror]
    groups[entries] = prefs.n_groups[owner] - 1 - prefs.groups[mirror]
    return _result(prefs, items, groups, "reverse_preferences", params)


def _truncated_geometric(dispersion: float, top: int, size: int,
                         rng: np.random.Generator) -> np.ndarray:
    """Draws of ``V`` on ``0 .. top`` with ``P(V = v) ∝ φ^v`` (by inverting the CDF)."""
    if dispersion == 0:
        return np.zeros(size, dtype=np.intp)
    u = rng.random(size)
    if dispersion == 1:
        return np.minimum((u * (top + 1)).astype(np.intp), top)
    log_phi = np.log(dispersion)
    mass = -np.expm1((top + 1) * log_phi)  # 1 − φ^(top+1)
    value = np.floor(np.log1p(-u * mass) / log_phi)
    return np.clip(value, 0, top).astype(np.intp)


def mallows_insertions(n_rows: int, length: int, dispersion: float,
                       random_state=None) -> np.ndarray:
    """Draw ``n_rows`` Mallows permutations of ``0 .. k-1`` centred on the identity.

    Repeated insertion model (Doignon, Pekeč & Regenwetter 2004): unit ``i = 1 .. k-1`` is
    inserted ``V_i`` places ahead of the end of the list built so far, with
    ``P(V_i = v) ∝ φ^v`` on ``0 .. i``. Each insertion adds exactly ``V_i`` inversions, so a
    permutation ``π`` is drawn with probability ``φ^{d_K(π, id)} / Z`` (Kendall distance
    ``d_K``). ``φ = 0`` gives the identity and ``φ = 1`` a uniform permutation. Vectorised over
    rows; the loop runs over the ``k`` positions.

    Returns
    -------
    numpy.ndarray of intp, shape (n_rows, k)
        Row ``r`` lists the units best first.
    """
    rng = np.random.default_rng(random_state)
    if int(length) > _LONG_MALLOWS:
        return _mallows_by_free_slots(n_rows, int(length), dispersion, rng)
    current = np.zeros((n_rows, 1), dtype=np.intp)
    for unit in range(1, int(length)):
        place = unit - _truncated_geometric(dispersion, unit, n_rows, rng)
        column = np.arange(unit + 1)[None, :]
        shifted = np.concatenate([current[:, :1], current], axis=1)
        current = np.where(column < place[:, None], np.pad(current, ((0, 0), (0, 1))),
                           np.where(column == place[:, None], unit, shifted))
    return current


def _mallows_by_free_slots(n_rows: int, length: int, dispersion: float,
                           rng: np.random.Generator) -> np.ndarray:
    """:func:`mallows_insertions` for long lists, in ``O(k log k)`` per row.

    The same uniforms give the same insertion depths ``V_i`` (so the same permutations).
    Unit ``i`` went in at place ``i − V_i`` of the list of units ``0 .. i``; the later units
    only push it back, so it ends in the ``(i − V_i)``-th slot (from the front) among the
    slots that the units after it leave free. Walking ``i`` from last to first and finding
    that slot with a Fenwick tree of free slots places every unit with ``O(log k)`` steps.
    """
    out = np.empty((n_rows, length), dtype=np.intp)
    if dispersion == 0:
        out[:] = np.arange(length)
        return out
    top = np.arange(1, length)[:, None]
    u = rng.random((length - 1, n_rows))  # the order in which the loop draws them
    if dispersion == 1:
        depth = np.minimum((u * (top + 1)).astype(np.intp), top)
    else:
        log_phi = np.log(dispersion)
        mass = -np.expm1((top + 1) * log_phi)
        depth = np.clip(np.floor(np.log1p(-u * mass) / log_phi), 0, top).astype(np.intp)
    places = np.vstack([np.zeros((1, n_rows), np.intp), top - depth])  # unit 0: place 0
    high = 1 << (length.bit_length() - 1)
    for r in range(n_rows):
        tree = [0] * (length + 1)  # Fenwick tree of free slots, 1-based, all free
        for j in range(1, length + 1):
            tree[j] = j & -j
        row = [0] * length
        for unit, place in zip(range(length - 1, -1, -1), places[::-1, r].tolist()):
            target, pos, step = place + 1, 0, high
            while step:
                nxt = pos + step
                if nxt <= length and tree[nxt] < target:
                    pos = nxt
                    target -= tree[nxt]
                step >>= 1
            row[pos] = unit
            j = pos + 1
            while j <= length:
                tree[j] -= 1
                j += j & -j
        out[r] = row
    return out


def mallows_swaps(prefs: Preferences, dispersion: float, random_state=None) -> NoiseResult:
    """Replace every preference by a Mallows draw centred on it (sloppy but honest raters).

    Each preference is redrawn from the Mallows model ``P(π) ∝ φ^{d_K(π, ρ)}`` around
    itself, with ``d_K`` the Kendall distance (number of swapped pairs), sampled exactly by the
    repeated insertion model (:func:`mallows_insertions`). ``φ = 0`` changes nothing;
    ``φ = 1`` gives uniformly random orderings of the same items; in between, small
    displacements are the likeliest.

    Ties: tied groups move as units. The model permutes the order of the ``r`` tied groups of
    a preference and keeps every group intact (a strict order is the case of ``r = k``
    single-item groups), so a preference that is one tied group never changes.

    Parameters
    ----------
    prefs : Preferences
    dispersion : float
        φ in [0, 1].
    random_state : None, int or numpy.random.Generator
    """
    params = dict(dispersion=dispersion, random_state=random_state)
    phi = _check_fraction(dispersion, "dispersion")
    rng = np.random.default_rng(random_state)
    new_group = prefs.groups.copy()
    n_groups = prefs.n_groups
    for r in np.unique(n_groups):
        r = int(r)
        if r < 2:
            continue
        rows = np.flatnonzero(n_groups == r)
        order = mallows_insertions(rows.size, r, phi, rng)
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(r)[None, :], axis=1)
        row_of = np.full(len(prefs), -1, dtype=np.intp)
        row_of[rows] = np.arange(rows.size)
        entries = np.flatnonzero(n_groups[prefs.owner] == r)
        new_group[entries] = rank[row_of[prefs.owner[entries]], prefs.groups[entries]]
    order = np.lexsort((prefs.items, new_group, prefs.owner))
    return _result(prefs, prefs.items[order], new_group[order], "mallows_swaps", params)


def spammers(prefs: Preferences, fraction: float, random_state=None) -> NoiseResult:
    """Turn a fraction of the rankers into spammers who answer at random.

    ``round(fraction · K)`` of the K rankers that give at least one preference, chosen
    uniformly without replacement, become spammers: each of their preferences is replaced by
    a uniformly random strict ordering of the same items. Without ranker ids each preference
    is its own ranker (then this is :func:`replace_random` restricted to the same items).

    Parameters
    ----------
    prefs : Preferences
    fraction : float
        Share of rankers made spammers, in [0, 1]; the count is rounded half up.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    NoiseResult
        ``extra`` is a :class:`~coarsenrank_core.results.SpammerOutputs`: ``spammers``
        holds the sorted ranker ids chosen.
    """
    params = dict(fraction=fraction, random_state=random_state)
    fraction = _check_fraction(fraction)
    rng = np.random.default_rng(random_state)
    present = np.unique(prefs.ranker_index)
    chosen = present[_choose(present.size, _count(fraction, present.size), rng)]
    rows = np.flatnonzero(np.isin(prefs.ranker_index, chosen))
    items, groups = _shuffle_rows(prefs, rows, rng)
    return _result(prefs, items, groups, "spammers", params, SpammerOutputs(spammers=chosen))


def subsample(prefs: Preferences, fraction: float, random_state=None) -> NoiseResult:
    """Keep a random share of every ranker's preferences (the paper's annotation ablation).

    Every ranker with ``n_r`` preferences keeps ``max(1, round(fraction · n_r))`` of them,
    chosen uniformly without replacement (the paper's BabyFace ablation keeps 1%–100%).
    Without ranker ids the collection is treated as a single ranker, so
    ``max(1, round(fraction · N))`` preferences are kept. Kept preferences are unchanged and
    stay in their original order.

    Parameters
    ----------
    prefs : Preferences
    fraction : float
        Share to keep, in (0, 1]; counts are rounded half up.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    NoiseResult
        ``source`` gives the kept input indices; ``altered`` is all False.
    """
    params = dict(fraction=fraction, random_state=random_state)
    fraction = _check_fraction(fraction, low_open=True)
    rng = np.random.default_rng(random_state)
    n = len(prefs)
    ranker = prefs.rankers if prefs.rankers is not None else np.zeros(n, dtype=np.intp)
    order = np.lexsort((rng.random(n), ranker))
    counts = np.bincount(ranker, minlength=1)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank_within = np.arange(n) - first[ranker[order]]
    quota = np.maximum(1, np.floor(fraction * counts + 0.5)).astype(np.intp)
    kept = np.sort(order[rank_within < quota[ranker[order]]])
    return NoiseResult(prefs.subset(kept), kept, np.zeros(kept.size, dtype=bool), params,
                       "subsample")


def magnify(prefs: Preferences, factor: int) -> NoiseResult:
    """Duplicate the whole collection ``factor`` times (the paper's scale ablation).

    The paper times every method on Readlevel magnified ×1, ×10, ×50 and ×100. Copies keep
    their weights and ranker ids. The result is equivalent, for every PL fit, to multiplying
    the weights by ``factor``: the total weight, and with it ``τ = α / (α + N)``, grows too.

    Parameters
    ----------
    prefs : Preferences
    factor : int
        Number of copies, at least 1.

    Returns
    -------
    NoiseResult
        ``source = tile(arange(N), factor)``; ``altered`` is all False.
    """
    params = dict(factor=factor)
    if int(factor) != factor or factor < 1:
        raise ValueError(f"factor must be a whole number >= 1 (got {factor})")
    factor = int(factor)
    n, size = len(prefs), prefs.items.size
    offsets = np.concatenate([(prefs.offsets[:-1][None, :]
                               + size * np.arange(factor)[:, None]).ravel(), [size * factor]])
    new = prefs._replace(
        items=np.tile(prefs.items, factor), offsets=offsets, groups=np.tile(prefs.groups, factor),
        weights=np.tile(prefs.weights, factor),
        rankers=None if prefs.rankers is None else np.tile(prefs.rankers, factor))
    return NoiseResult(new, np.tile(np.arange(n), factor), np.zeros(n * factor, dtype=bool),
                       params, "magnify")


# ---------------------------------------------------------------------- measuring
def altered_distance(original: Preferences, noisy_result: NoiseResult) -> np.ndarray:
    """Normalised Kendall distance of every altered output preference to its source.

    For a source preference of ``k`` items, each of its ``k(k−1)/2`` item pairs is in one
    relation: first ahead, behind, or tied. The distance is the share of those pairs whose
    relation differs in the output preference, a pair counting as different when either item
    is missing from the output. For two strict orders of the same items this is the
    normalised Kendall distance ``d_K / (k(k−1)/2)``: 0 for the same order, 1 for its
    reverse, 0.5 on average for a random order. Vectorised per source length; sources of
    more than 1,024 items are counted one at a time in ``O(k log k)`` (ties and Kendall's
    τ_b) instead of comparing their ``k(k−1)/2`` pairs, so memory stays linear.

    Parameters
    ----------
    original : Preferences
        The collection the injector was applied to.
    noisy_result : NoiseResult

    Returns
    -------
    numpy.ndarray, shape (n_altered,)
        Values in [0, 1], in the order of ``flatnonzero(noisy_result.altered)``.
    """
    noisy = noisy_result.preferences
    if noisy.n_items != original.n_items:
        raise ValueError("the noisy collection has another number of items than the original")
    out_rows = np.flatnonzero(noisy_result.altered)
    src_rows = noisy_result.source[out_rows]
    if src_rows.size and (src_rows.min() < 0 or src_rows.max() >= len(original)):
        raise ValueError("noisy_result.source points outside the original collection")
    n_items = max(original.n_items, 1)
    keys = noisy.owner.astype(np.int64) * n_items + noisy.items
    by_key = np.argsort(keys, kind="stable")
    sorted_keys = keys[by_key]
    distance = np.empty(out_rows.size)
    if out_rows.size == 0:
        return distance
    lengths = original.lengths[src_rows]
    for k in np.unique(lengths):
        k = int(k)
        block = np.flatnonzero(lengths == k)
        if k > _LONG:
            for row in block:
                element = original.offsets[src_rows[row]] + np.arange(k)
                query = np.int64(out_rows[row]) * n_items + original.items[element]
                hit = np.minimum(np.searchsorted(sorted_keys, query), sorted_keys.size - 1)
                found = sorted_keys[hit] == query
                distance[row] = 1.0 - _same_relation_share(
                    original.groups[element], noisy.groups[by_key[hit]], found)
            continue
        upper, lower = np.triu_indices(k, 1)
        chunk = max(1, _PAIR_CELLS // (k * k))
        for start in range(0, block.size, chunk):
            part = block[start:start + chunk]
            element = original.offsets[:-1][src_rows[part], None] + np.arange(k)
            query = out_rows[part, None].astype(np.int64) * n_items + original.items[element]
            hit = np.minimum(np.searchsorted(sorted_keys, query), sorted_keys.size - 1)
            found = sorted_keys[hit] == query
            out_group = np.where(found, noisy.groups[by_key[hit]], -1)
            src_group = original.groups[element]
            before = np.sign(src_group[:, upper] - src_group[:, lower])
            after = np.sign(out_group[:, upper] - out_group[:, lower])
            differ = (before != after) | ~found[:, upper] | ~found[:, lower]
            distance[part] = differ.mean(axis=1)
    return distance


# ---------------------------------------------------------------------- menu
@dataclass(frozen=True)
class NoiseType:
    """One entry of the dashboard's noise menu.

    Attributes
    ----------
    function : callable
        ``function(prefs, level, random_state=None) -> NoiseResult``.
    label : str
        Short plain-language name.
    description : str
        One or two sentences to read aloud.
    parameter : str
        Name of the level argument of ``function``.
    range : (float, float, float)
        Smallest, largest and default level.
    """

    function: Callable[..., NoiseResult]
    label: str
    description: str
    parameter: str
    range: tuple[float, float, float]


NOISE_TYPES: dict[str, NoiseType] = {
    "replace_random": NoiseType(
        replace_random, "Careless answers: random lists",
        "Some answers (lists, whoever gave them) are thrown away and replaced by random ones: "
        "random items in a random order. This is how the paper corrupted the SUSHI data (40% "
        "of the lists). To make whole raters careless, choose 'Spammers'.",
        "fraction", (0.0, 1.0, 0.4)),
    "reverse_preferences": NoiseType(
        reverse_preferences, "Confused raters: answers upside down",
        "Some answers are turned upside down, as if the rater mixed up best and worst. "
        "Ties stay tied.",
        "fraction", (0.0, 1.0, 0.2)),
    "mallows_swaps": NoiseType(
        mallows_swaps, "Sloppy raters: items swapped",
        "Every answer gets some items swapped, mostly neighbours. At 0 nothing changes; at 1 "
        "every answer is a random order of its items.",
        "dispersion", (0.0, 1.0, 0.3)),
    "spammers": NoiseType(
        spammers, "Spammers: some raters click at random",
        "Some raters answer every question at random: their items stay the same but the "
        "order is random. The other raters are untouched.",
        "fraction", (0.0, 1.0, 0.2)),
    "subsample": NoiseType(
        subsample, "Fewer answers per rater",
        "Each rater keeps only a share of their answers, at least one. The paper used this "
        "on BabyFace to show what happens when raters answer only a few questions.",
        "fraction", (0.01, 1.0, 0.1)),
}
