"""Preferences: many rankers' orderings of subsets of M items, stored as flat arrays."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .frozen import readonly_array, restore_readonly

__all__ = ["Preferences", "PreferenceSummary", "CANONICAL_COLUMNS", "MIN_WEIGHT",
           "MAX_WEIGHT", "MAX_PAIRS", "ID_DTYPE", "MAX_ID"]

CANONICAL_COLUMNS = ("preference", "ranker", "weight", "item", "rank")

MIN_WEIGHT = 1e-12
"""Smallest accepted weight: smaller (e.g. subnormal) weights give infinite or NaN scores."""
MAX_WEIGHT = 1e12
"""Largest accepted weight. With N preferences the total is at most ``N · 1e12`` (below
``1e22`` for any collection that fits in memory), so sums of weights, the tempering
``α / (α + N)`` and weighted log-likelihoods (``|log p| < 746`` in double precision) stay
finite, also after rank-breaking, which copies each preference's weight to its pairs."""
WEIGHT_RANGE = "weights must be finite numbers from 1e-12 to 1e12"
MAX_PAIRS = 5_000_000
"""Most pairs :meth:`Preferences.rank_break` builds out of preferences of three or more items
unless asked for more (about 0.4 GB); pairs given as pairs (tied or not) are not counted."""


def _checked_weights(values, n: int) -> np.ndarray:
    """The weights as floats, or a ValueError that names the first bad one and the range."""
    try:
        weights = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be numbers: {WEIGHT_RANGE}") from None
    if weights.shape != (n,):
        raise ValueError(f"weights must be one number per preference ({n}), "
                         f"got shape {weights.shape}")
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero(~((weights >= MIN_WEIGHT) & (weights <= MAX_WEIGHT)))
    if bad.size:
        raise ValueError(f"preference {int(bad[0]) + 1} (counting from 1) has weight "
                         f"{float(weights[bad[0]])!r}; {WEIGHT_RANGE}.")
    return weights


ID_DTYPE = np.dtype(np.int32)
"""Storage type of item ids, tied-group indices and ranker ids: 4 bytes an entry."""
MAX_ID = int(np.iinfo(ID_DTYPE).max)
"""Most items (and rankers) a collection can hold: ids must fit :data:`ID_DTYPE`."""


def _offset_dtype(size: int) -> np.dtype:
    """``int32`` offsets while the flat arrays are shorter than 2³¹ entries, else ``int64``."""
    return ID_DTYPE if size <= MAX_ID else np.dtype(np.int64)


def _unit_weights(n: int) -> np.ndarray:
    """``n`` weights of 1 that take no memory (a read-only broadcast of one number)."""
    return np.broadcast_to(np.float64(1.0), (n,))


POOL_WORTH = 0.8
"""Largest share of preferences :attr:`Preferences.pooled` may keep and still be a copy."""

_PAIR_BLOCK = 1 << 20
"""Pairs that :meth:`Preferences.rank_break` builds per block of preferences."""


def _frozen(array, dtype) -> np.ndarray:
    """``array`` itself when it is already read-only, owns its data and has ``dtype``;
    otherwise a read-only copy (so that no caller can change a collection afterwards)."""
    if (isinstance(array, np.ndarray) and array.dtype == dtype and not array.flags.writeable
            and array.flags.owndata and array.flags.c_contiguous):
        return array
    return readonly_array(array, dtype)


def _factorize(values: Sequence[Hashable]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Map hashable labels to consecutive integers in order of first appearance."""
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.intp,
                        count=len(values))
    return codes, tuple(str(v) for v in index)


def _canonical(items: np.ndarray, offsets: np.ndarray, groups, n_items: int):
    """Check the tied-group structure and duplicates; sort tied groups by item id.

    Returns the (possibly reordered) items and the group indices. The temporaries are one
    4-byte owner per entry and one 8-byte key per entry (sorted in place).
    """
    n = offsets.size - 1
    lengths = np.diff(offsets)
    if n and lengths.max() == 2:  # all pairs: no per-entry temporaries needed
        groups = (np.tile(np.array([0, 1], ID_DTYPE), n) if groups is None
                  else np.asarray(groups))
        if groups.shape != items.shape:
            raise ValueError("groups must have the same length as items")
        second = groups[1::2]
        if np.any(groups[0::2] != 0) or np.any((second != 0) & (second != 1)):
            raise ValueError("tied-group indices must start at 0 in every preference and "
                             "increase by 0 or 1")
        swap = (second == 0) & (items[0::2] > items[1::2])
        if swap.any():
            items = items.copy()
            first = items[0::2][swap]
            items[0::2][swap] = items[1::2][swap]
            items[1::2][swap] = first
        repeated = np.flatnonzero(items[0::2] == items[1::2])
        bad = int(repeated[0]) if repeated.size else None
    else:
        owner = np.repeat(np.arange(n, dtype=_offset_dtype(n)), lengths)
        starts = np.zeros(items.size, dtype=bool)
        starts[offsets[:-1]] = True
        if groups is None:
            groups = np.arange(items.size, dtype=_offset_dtype(items.size))
            groups -= offsets[:-1][owner].astype(groups.dtype)
        groups = np.asarray(groups)
        if groups.shape != items.shape:
            raise ValueError("groups must have the same length as items")
        steps = np.diff(groups)
        inner_steps = steps[~starts[1:]]
        del steps
        if np.any(groups[starts] != 0) or np.any((inner_steps != 0) & (inner_steps != 1)):
            raise ValueError("tied-group indices must start at 0 in every preference and "
                             "increase by 0 or 1")
        if np.any(inner_steps == 0):
            order = np.lexsort((items, groups, owner))
            items, groups = items[order], groups[order]
        del inner_steps, starts
        bad = _first_repeat(items, offsets, lengths, owner, n_items)
    if bad is not None:
        raise ValueError(f"preference {bad} lists an item more than once")
    return items, groups


_ROW_SORT_LENGTHS = 64
"""Up to this many distinct lengths, repeats are found by sorting each row of a length."""


def _first_repeat(items, offsets, lengths, owner, n_items: int) -> int | None:
    """The first preference that lists an item twice, or None.

    With few distinct lengths each block of equal-length rows is sorted along its rows
    (short sorts, cheap); otherwise one key ``owner · M + item`` per entry is sorted.
    """
    distinct = np.unique(lengths)
    if distinct.size <= _ROW_SORT_LENGTHS:
        first = None
        for k in distinct.tolist():
            rows = np.flatnonzero(lengths == k)
            if rows.size == lengths.size:
                block = np.sort(items.reshape(rows.size, k), axis=1)
            else:
                block = np.sort(items[offsets[:-1][rows, None] + np.arange(k)], axis=1)
            repeated = np.flatnonzero((block[:, 1:] == block[:, :-1]).any(axis=1))
            if repeated.size and (first is None or rows[repeated[0]] < first):
                first = int(rows[repeated[0]])
        return first
    key = owner.astype(np.int64)
    key *= max(n_items, 1)
    key += items
    key.sort()
    repeated = np.flatnonzero(key[1:] == key[:-1])
    return int(key[repeated[0]] // max(n_items, 1)) if repeated.size else None


def _unpadded(table: np.ndarray, pad: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The items and row lengths of a 2-D id table whose rows may end in ``pad``."""
    n, k = table.shape
    if pad is None:
        return table.ravel(), np.full(n, k, dtype=np.intp)
    present = table != pad
    lengths = present.sum(axis=1)
    if not np.array_equal(present, np.arange(k) < lengths[:, None]):
        row = int(np.flatnonzero((present != (np.arange(k) < lengths[:, None])).any(axis=1))[0])
        raise ValueError(f"preference {row + 1} (counting from 1) has an item after the "
                         f"padding {pad}; padding must come after a row's items")
    return table[present], lengths.astype(np.intp)


def _flat_lists(lists, pad: int | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Items and lengths of lists of plain ids without a Python loop per element, or
    ``None`` when an entry is not a plain id (a tied set): then :func:`_flat_lists_with_ties`.
    """
    from itertools import chain

    if isinstance(lists, np.ndarray):
        if lists.ndim == 2 and (lists.size == 0 or np.issubdtype(lists.dtype, np.integer)):
            return _unpadded(lists, pad)
        return None
    if not isinstance(lists, (list, tuple)) or not lists:
        return None
    first = lists[0]
    if isinstance(first, (list, tuple, np.ndarray)) and all(
            isinstance(x, (int, np.integer)) for x in first[:4]):
        try:
            table = np.asarray(lists)
        except (ValueError, TypeError):  # ragged: flattened below
            table = None
        if table is not None and table.ndim == 2 and np.issubdtype(table.dtype, np.integer):
            return _unpadded(table, pad)
    try:
        lengths = np.fromiter(map(len, lists), dtype=np.intp, count=len(lists))
        items = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=int(lengths.sum()))
    except (TypeError, ValueError, OverflowError):
        return None  # a set (a tie) or another non-integer entry
    if pad is not None:
        return None if np.any(items == pad) else (items, lengths)
    return items, lengths


def _flat_lists_with_ties(lists, pad: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items, lengths and tied-group indices of lists whose entries may be tied sets."""
    flat: list[int] = []
    groups: list[int] = []
    lengths: list[int] = []
    for pref in lists:
        start = len(flat)
        for g, entry in enumerate(pref):
            if pad is not None and not isinstance(entry, (set, frozenset)) and entry == pad:
                break
            members = sorted(entry) if isinstance(entry, (set, frozenset)) else [entry]
            flat.extend(int(m) for m in members)
            groups.extend([g] * len(members))
        lengths.append(len(flat) - start)
    return (np.asarray(flat, dtype=np.int64), np.asarray(lengths, dtype=np.intp),
            np.asarray(groups, dtype=ID_DTYPE))


_COUNT_RANGE = 4
"""Pairs are pooled by ``bincount`` when their key range is at most this many times N
(plus 2²⁰); otherwise by sorting the keys."""


def _group_pairs(first, second, tie, n_items: int, tag=None, n_tags: int = 1
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Groups of identical pairs: the first copy of each group and every pair's group.

    Groups are numbered in order of their key ``((first · M + second) · 2 + tie) · T + tag``.
    Counted in O(N + key range) by marking the keys that occur when the range is small
    (:data:`_COUNT_RANGE`), else by sorting; ``None``-free either way.
    """
    n = first.size
    key_range = float(n_items) * n_items * 2 * n_tags
    if key_range >= 2.0**62:
        raise ValueError("too many items and tags to key pairs by one 64-bit integer")
    key = first.astype(np.int64)
    key *= n_items
    key += second
    key *= 2
    key += tie
    if tag is not None:
        key *= n_tags
        key += tag
    if key_range <= _COUNT_RANGE * n + (1 << 20):
        occupied = np.zeros(int(key_range), dtype=bool)
        occupied[key] = True
        rank = np.cumsum(occupied, dtype=np.int64 if n > MAX_ID else ID_DTYPE)
        group = rank[key].astype(np.intp)
        group -= 1
        n_groups = int(rank[-1])
        del rank, occupied
        keep = np.full(n_groups, n, dtype=np.intp)
        np.minimum.at(keep, group, np.arange(n, dtype=np.intp))
        return keep, group
    _, keep, inverse = np.unique(key, return_index=True, return_inverse=True)
    return keep, inverse.ravel()


_PICKLED = ("items", "offsets", "groups", "n_items", "weights", "rankers", "item_names",
            "ranker_names", "notes", "fingerprint")
"""What a pickled collection carries: its fields and its fingerprint (a short string)."""


@dataclass(frozen=True)
class PreferenceSummary:
    """Counts that describe a collection of preferences.

    Attributes
    ----------
    n_items, n_preferences, n_rankers : int
        M, N and the number of distinct rankers (N when rankers are not recorded).
    total_weight : float
        Sum of the preferences' weights (equals N when every weight is 1).
    length_counts : dict
        Preference length -> number of preferences of that length.
    preferences_per_ranker : numpy.ndarray
        Number of preferences given by each ranker, indexed by ranker id.
    appearances : numpy.ndarray
        Number of preferences in which each item appears, indexed by item id.
    wins : numpy.ndarray
        Number of choice stages each item wins (an item that never wins has 0).
    n_tied_preferences : int
        Preferences that contain at least one tied group.
    n_components : int
        Connected components of the comparison graph among the items that appear.
    """

    n_items: int
    n_preferences: int
    n_rankers: int
    total_weight: float
    length_counts: dict
    preferences_per_ranker: np.ndarray
    appearances: np.ndarray
    wins: np.ndarray
    n_tied_preferences: int
    n_components: int

    def __post_init__(self):
        for name in ("preferences_per_ranker", "appearances", "wins"):
            object.__setattr__(self, name, readonly_array(getattr(self, name),
                                                          getattr(self, name).dtype))
        object.__setattr__(self, "length_counts", dict(self.length_counts))

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling


@dataclass(frozen=True, eq=False)
class Preferences:
    """An immutable collection of N preferences over M items, stored flat.

    Preference ``n`` occupies ``items[offsets[n]:offsets[n + 1]]``, best first. ``groups``
    gives, for every entry, the index of its tied group inside its preference: ``0, 1, 2``
    is a strict order, ``0, 1, 1`` means the last two items are tied. Items are integers
    ``0 .. M-1``; their names live in ``item_names`` and are used only at the boundary.

    Use the constructors :meth:`from_lists`, :meth:`from_pairs` and :meth:`from_arrays`
    rather than the raw fields.

    Parameters
    ----------
    items : array of int, shape (L,)
        Item ids of all preferences, concatenated, best first inside each preference
        (stored as :data:`ID_DTYPE`, ``int32``: at most :data:`MAX_ID` + 1 items).
    offsets : array of int, shape (N + 1,)
        Start of each preference in ``items``; ``offsets[-1] == L`` (stored as ``int32``
        while ``L < 2³¹``, else ``int64``).
    groups : array of int, shape (L,)
        Tied-group index of every entry inside its preference (starts at 0, steps by 0 or
        1; stored as ``int32``).
    n_items : int
        M, the number of items (items that never appear are allowed).
    weights : array of float, shape (N,), optional
        Weight (count) of each preference, from ``MIN_WEIGHT = 1e-12`` to
        ``MAX_WEIGHT = 1e12`` (a ValueError says so otherwise); all 1 when omitted. Unit
        weights are stored as a read-only broadcast of one number, which takes no memory.
    rankers : array of int, shape (N,), optional
        Ranker id of each preference (stored as ``int32``); when omitted each preference is
        treated as coming from its own anonymous ranker.
    item_names : tuple of str, optional
        Display name of each item; ``"0" .. "M-1"`` when omitted.
    ranker_names : tuple of str, optional
        Display name of each ranker id.
    notes : tuple of str, optional
        Remarks made while building the collection (e.g. rows a reader skipped).
    """

    items: np.ndarray
    offsets: np.ndarray
    groups: np.ndarray
    n_items: int
    # weights and item_names are filled in by __post_init__ (all 1, "0" .. "M-1")
    weights: np.ndarray = None  # type: ignore[assignment]
    rankers: np.ndarray | None = None
    item_names: tuple[str, ...] = None  # type: ignore[assignment]
    ranker_names: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()

    # ------------------------------------------------------------------ construction
    def __post_init__(self):
        items = np.asarray(self.items)
        offsets = np.asarray(self.offsets)
        if items.ndim != 1 or offsets.ndim != 1 or offsets.size < 1:
            raise ValueError("items and offsets must be one-dimensional arrays")
        if items.size and not np.issubdtype(items.dtype, np.integer):
            raise ValueError("item ids must be integers")
        n_items = int(self.n_items)
        if n_items < 0:
            raise ValueError("n_items must be non-negative")
        if n_items > MAX_ID + 1:
            raise ValueError(f"a collection holds at most {MAX_ID + 1:,} items (got {n_items:,})")
        # bounds first: a difference of offsets far outside them can wrap round and pass
        if offsets.size and (offsets.min() < 0 or offsets.max() > items.size):
            raise ValueError("offsets must lie in 0..len(items)")
        if offsets[0] != 0 or offsets[-1] != items.size or np.any(np.diff(offsets) < 2):
            raise ValueError("every preference must hold at least 2 items and offsets must "
                             "start at 0 and end at len(items)")
        if items.size and (items.min() < 0 or items.max() >= n_items):
            raise ValueError(f"item ids must lie in 0..{n_items - 1}")
        n = offsets.size - 1
        items, groups = _canonical(items, offsets, self.groups, n_items)
        weights = _unit_weights(n) if self.weights is None else _checked_weights(self.weights, n)
        if weights.strides != (0,) and bool(np.all(weights == 1.0)):
            weights = _unit_weights(n)
        rankers = self.rankers
        if rankers is not None:
            rankers = np.asarray(rankers)
            if rankers.shape != (n,) or (n and (rankers.min() < 0 or rankers.max() > MAX_ID)):
                raise ValueError(f"rankers must be N integer ids from 0 to {MAX_ID:,}")
        names = self.item_names
        names = tuple(str(i) for i in range(n_items)) if names is None else tuple(map(str, names))
        if len(names) != n_items:
            raise ValueError(f"item_names has {len(names)} names for {n_items} items")
        ranker_names = self.ranker_names
        if ranker_names is not None:
            ranker_names = tuple(map(str, ranker_names))
            if rankers is not None and n and rankers.max() >= len(ranker_names):
                raise ValueError("a ranker id has no name in ranker_names")
        set_ = object.__setattr__
        set_(self, "items", _frozen(items, ID_DTYPE))
        set_(self, "offsets", _frozen(offsets, _offset_dtype(items.size)))
        set_(self, "groups", _frozen(groups, ID_DTYPE))
        set_(self, "n_items", n_items)
        set_(self, "weights", weights if weights.strides == (0,) else _frozen(weights, np.float64))
        set_(self, "rankers", None if rankers is None else _frozen(rankers, ID_DTYPE))
        set_(self, "item_names", names)
        set_(self, "ranker_names", ranker_names)
        set_(self, "notes", tuple(self.notes))

    @classmethod
    def from_lists(cls, lists: Iterable[Sequence], n_items: int | None = None,
                   item_names: Sequence[str] | None = None,
                   rankers: Sequence[Hashable] | None = None,
                   weights: Sequence[float] | None = None, *,
                   pad: int | None = None) -> Preferences:
        """Build preferences from Python lists of item ids, best first.

        A 2-D integer array (or a list of equal-length lists of ids) and lists of plain ids
        take vectorised paths (100,000 lists of 10: a few hundredths of a second); lists
        holding tied sets are read element by element.

        Parameters
        ----------
        lists : iterable of sequences, or 2-D array of int
            Each entry (row) is one preference. An element is an item id, or a
            set/frozenset of item ids that are tied at that position.
        pad : int, optional
            Padding value: entries equal to it end a row early, so a 2-D array (or
            equal-length lists) can hold lists of different lengths; padding must come
            after a row's items.
        n_items : int, optional
            M. Defaults to ``len(item_names)`` or the largest id plus one.
        item_names : sequence of str, optional
            Name of each item id.
        rankers : sequence of hashable, optional
            Ranker label of each preference (any hashable; names become ``str``).
        weights : sequence of float, optional
            Weight (count) of each preference.

        Examples
        --------
        >>> prefs = Preferences.from_lists([[0, 1, 2], [2, {0, 1}]])
        >>> prefs.n_items, len(prefs)
        (3, 2)
        >>> Preferences.from_lists(np.array([[0, 1, 2], [2, 0, -1]]), pad=-1).lengths.tolist()
        [3, 2]
        """
        fast = _flat_lists(lists, pad)
        if fast is not None:
            items, lengths = fast
            groups: np.ndarray | None = None
        else:
            items, lengths, groups = _flat_lists_with_ties(lists, pad)
        if n_items is None:
            n_items = len(item_names) if item_names is not None else (
                int(items.max()) + 1 if items.size else 0)
        ranker_ids, ranker_names = (None, None) if rankers is None else _factorize(list(rankers))
        if ranker_ids is not None and ranker_ids.size != len(lengths):
            raise ValueError(f"{ranker_ids.size} rankers given for {len(lengths)} preferences")
        return cls(items=items,
                   offsets=np.concatenate([[0], np.cumsum(lengths, dtype=np.intp)]),
                   groups=groups, n_items=n_items,  # type: ignore[arg-type]
                   weights=None if weights is None else np.asarray(weights, float),  # type: ignore[arg-type]  # noqa: E501
                   rankers=ranker_ids, item_names=item_names,  # type: ignore[arg-type]
                   ranker_names=ranker_names)

    @classmethod
    def from_pairs(cls, winners, losers, n_items: int | None = None, *, tied=None,
                   weights=None, rankers=None, item_names=None, ranker_names=None,
                   notes=()) -> Preferences:
        """Build pairwise preferences "winner beats loser" from two id arrays.

        Parameters
        ----------
        winners, losers : array of int, shape (N,)
            Item ids; pair ``n`` says ``winners[n]`` is preferred to ``losers[n]``.
        n_items : int, optional
            M; defaults to the largest id plus one (or ``len(item_names)``).
        tied : array of bool, shape (N,), optional
            Pairs that are a draw (the two items tied).
        weights, rankers, item_names, ranker_names, notes
            As for the class.
        """
        winners, losers = np.asarray(winners), np.asarray(losers)
        if winners.shape != losers.shape or winners.ndim != 1:
            raise ValueError("winners and losers must be 1-D arrays of equal length")
        if winners.size and not (np.issubdtype(winners.dtype, np.integer)
                                 and np.issubdtype(losers.dtype, np.integer)):
            raise ValueError("item ids must be integers")
        if n_items is None:
            n_items = len(item_names) if item_names is not None else (
                int(max(winners.max(initial=-1), losers.max(initial=-1))) + 1)
        low = min(winners.min(initial=0), losers.min(initial=0))
        high = max(winners.max(initial=0), losers.max(initial=0))
        if low < 0 or high >= max(int(n_items), 1):
            raise ValueError(f"item ids must lie in 0..{int(n_items) - 1}")
        items = np.empty(2 * winners.size, dtype=ID_DTYPE)  # built once, in the stored type
        items[0::2], items[1::2] = winners, losers
        groups = np.tile(np.array([0, 1], dtype=ID_DTYPE), winners.size)
        if tied is not None:
            groups[1::2] = np.where(np.asarray(tied, bool), 0, 1)
        return cls(items=items, offsets=np.arange(0, items.size + 1, 2,
                                                  dtype=_offset_dtype(items.size)), groups=groups,
                   n_items=n_items, weights=weights, rankers=rankers, item_names=item_names,
                   ranker_names=ranker_names, notes=notes)

    @classmethod
    def from_arrays(cls, items, lengths, groups=None, n_items: int | None = None,
                    **kwargs) -> Preferences:
        """Build preferences from a flat item array and the length of each preference."""
        items = np.asarray(items)
        if items.size and not np.issubdtype(items.dtype, np.integer):
            raise ValueError("item ids must be integers")
        lengths = np.asarray(lengths, dtype=np.intp)
        if n_items is None:
            names = kwargs.get("item_names")
            n_items = len(names) if names is not None else int(items.max(initial=-1)) + 1
        return cls(items=items, offsets=np.concatenate([[0], np.cumsum(lengths)]),
                   groups=groups, n_items=n_items, **kwargs)

    def _replace(self, **changes) -> Preferences:
        fields: dict[str, Any] = dict(items=self.items, offsets=self.offsets, groups=self.groups,
                      n_items=self.n_items, weights=self.weights, rankers=self.rankers,
                      item_names=self.item_names, ranker_names=self.ranker_names,
                      notes=self.notes)
        fields.update(changes)
        return Preferences(**fields)

    def __getstate__(self) -> dict:
        """The fields (unit weights as None) and the fingerprint; derived layouts are rebuilt."""
        state = {name: self.__dict__[name] for name in _PICKLED if name in self.__dict__}
        if self.weights.strides == (0,):
            state["weights"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        if state.get("weights") is None:
            state["weights"] = _unit_weights(len(state["offsets"]) - 1)
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    # ------------------------------------------------------------------ basic views
    def __len__(self) -> int:
        return self.offsets.size - 1

    @property
    def n_preferences(self) -> int:
        """N, the number of preferences."""
        return len(self)

    @property
    def lengths(self) -> np.ndarray:
        """Number of items in each preference (computed on each call: one pass, not kept)."""
        return np.diff(self.offsets)

    @cached_property
    def owner(self) -> np.ndarray:
        """For every flat entry, the index of the preference it belongs to (kept once made)."""
        owner = np.repeat(np.arange(len(self), dtype=self.offsets.dtype), self.lengths)
        owner.flags.writeable = False
        return owner

    @property
    def positions(self) -> np.ndarray:
        """For every flat entry, its 0-based position inside its preference."""
        return np.arange(self.items.size, dtype=self.offsets.dtype) - self.offsets[:-1][self.owner]

    @property
    def n_groups(self) -> np.ndarray:
        """Number of tied groups (distinct positions) in each preference (not kept)."""
        return self.groups[self.offsets[1:] - 1] + 1

    @property
    def has_ties(self) -> bool:
        """True when any preference holds a tied group."""
        return bool(np.any(self.n_groups < self.lengths))

    @property
    def is_pairwise(self) -> bool:
        """True when every preference is a strict comparison of two items."""
        return bool(np.all(self.lengths == 2)) and not self.has_ties

    @property
    def total_weight(self) -> float:
        """Sum of the weights; the N that enters tau = alpha / (alpha + N)."""
        return float(self.weights.sum())

    @property
    def has_rankers(self) -> bool:
        """True when the preferences carry ranker ids."""
        return self.rankers is not None

    @property
    def ranker_index(self) -> np.ndarray:
        """Ranker id of each preference (each preference its own ranker when unknown)."""
        return self.rankers if self.rankers is not None else np.arange(len(self))

    @property
    def n_rankers(self) -> int:
        """Number of distinct ranker ids."""
        return int(self.ranker_index.max()) + 1 if len(self) else 0

    @cached_property
    def fingerprint(self) -> str:
        """A SHA-1 digest of the content, stable across processes (useful as a cache key)."""
        digest = hashlib.sha1()
        for array in (self.items, self.offsets, self.groups, self.weights, self.ranker_index):
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(repr((self.n_items, self.item_names, self.ranker_names)).encode())
        return digest.hexdigest()

    def __eq__(self, other) -> bool:
        if not isinstance(other, Preferences):
            return NotImplemented
        return self.fingerprint == other.fingerprint and self.has_rankers == other.has_rankers

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return (f"Preferences(n_items={self.n_items}, n_preferences={len(self)}, "
                f"lengths={self.lengths.min() if len(self) else 0}.."
                f"{self.lengths.max() if len(self) else 0}, "
                f"ties={self.has_ties}, rankers={self.n_rankers if self.has_rankers else None})")

    def to_lists(self, names: bool = False, stop: int | None = None) -> list[list]:
        """Return the preferences as lists, best first, tied groups as frozensets.

        Parameters
        ----------
        names : bool
            Give item names instead of ids.
        stop : int, optional
            Convert only the first ``stop`` preferences (to show a few of a large
            collection without building millions of Python lists).
        """
        n = len(self) if stop is None else min(max(int(stop), 0), len(self))
        bounds = self.offsets[:n + 1]
        strict = (self.groups[bounds[1:] - 1] + 1 == np.diff(bounds)).tolist()
        offsets = bounds.tolist()
        end = offsets[-1]
        items = self.items[:end].tolist()
        if names:
            table = self.item_names
            items = [table[i] for i in items]
        groups = self.groups[:end].tolist()
        out: list[list] = []
        for k in range(n):
            lo, hi = offsets[k], offsets[k + 1]
            if strict[k]:
                out.append(items[lo:hi])
                continue
            pref: list = []
            members = [items[lo]]
            for e in range(lo + 1, hi):
                if groups[e] == groups[e - 1]:
                    members.append(items[e])
                else:
                    pref.append(members[0] if len(members) == 1 else frozenset(members))
                    members = [items[e]]
            pref.append(members[0] if len(members) == 1 else frozenset(members))
            out.append(pref)
        return out

    # ------------------------------------------------------------------ engine support
    @cached_property
    def stages(self):
        """The choice-stage design used by EM, Gibbs and the likelihood (built once)."""
        # lazy: coarsenrank_core.models (whose __init__ imports every fitter) needs this module
        from .models.stages import StageDesign

        return StageDesign.build(self)

    # ------------------------------------------------------------------ summaries
    def appearances(self) -> np.ndarray:
        """Number of preferences in which each item appears."""
        return np.bincount(self.items, minlength=self.n_items)

    def summary(self) -> PreferenceSummary:
        """Counts that describe the collection: M, N, lengths, rankers, coverage."""
        lengths, counts = np.unique(self.lengths, return_counts=True)
        return PreferenceSummary(
            n_items=self.n_items, n_preferences=len(self), n_rankers=self.n_rankers,
            total_weight=self.total_weight,
            length_counts={int(k): int(c) for k, c in zip(lengths, counts)},
            preferences_per_ranker=np.bincount(self.ranker_index, minlength=self.n_rankers),
            appearances=self.appearances(), wins=self.stages.wins_count.copy(),
            n_tied_preferences=int(np.sum(self.n_groups < self.lengths)),
            n_components=len(self.components()))

    def components(self, strong: bool = False) -> list[np.ndarray]:
        """Connected components of the comparison graph, largest first.

        Only items that appear in some preference are included. With ``strong=True`` the
        graph is directed (an edge from each item to every item it is ranked above, ties
        both ways), and its strongly connected components are returned: the plain
        maximum-likelihood PL estimate exists only when there is exactly one.

        Returns
        -------
        list of numpy.ndarray
            Item ids of each component, sorted; components ordered by decreasing size.
        """
        present = np.flatnonzero(self.appearances() > 0)
        if present.size == 0:
            return []
        src, dst = self.ranked_above_edges(directed=strong)
        graph = coo_matrix((np.ones(src.size), (src, dst)), shape=(self.n_items,) * 2)
        _, labels = connected_components(graph, directed=strong,
                                         connection="strong" if strong else "weak")
        labels = labels[present]
        # one sort instead of one scan of all items per component (millions of components
        # in a file of disjoint pairs)
        by_label = np.argsort(labels, kind="stable")
        members = present[by_label]  # ascending inside each component
        starts = np.flatnonzero(np.r_[True, np.diff(labels[by_label]) != 0])
        sizes = np.diff(np.append(starts, members.size))
        comps = np.split(members, starts[1:])
        return [comps[c] for c in np.lexsort((members[starts], -sizes))]

    def ranked_above_edges(self, directed: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Edges of the comparison graph between neighbours of each preference.

        With ``directed=True`` an edge runs from each entry to the one ranked just above it
        (tied neighbours link both ways), so a path joins every item to each item ranked
        above it; otherwise each pair of neighbours gives one edge.

        Returns
        -------
        src, dst : numpy.ndarray
            Item ids of the edges' ends.
        """
        same_pref = self.owner[1:] == self.owner[:-1]
        a, b = self.items[:-1][same_pref], self.items[1:][same_pref]
        if not directed:
            return a, b
        tied = (self.groups[1:] == self.groups[:-1])[same_pref]
        return np.concatenate([b, a[tied]]), np.concatenate([a, b[tied]])

    # ------------------------------------------------------------------ transformations
    def subset(self, selection) -> Preferences:
        """Keep the preferences selected by a boolean mask or an array of indices.

        Items keep their ids and names (M is unchanged); rankers keep their ids.
        """
        selection = np.asarray(selection)
        index = np.flatnonzero(selection) if selection.dtype == bool else selection.astype(
            np.intp)
        if selection.dtype == bool and selection.shape != (len(self),):
            raise ValueError("a boolean selection needs one entry per preference")
        lengths = self.lengths[index]
        element = np.repeat(self.offsets[:-1][index], lengths) + (
            np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths))
        return self._replace(items=self.items[element],
                             offsets=np.concatenate([[0], np.cumsum(lengths)]),
                             groups=self.groups[element], weights=self.weights[index],
                             rankers=None if self.rankers is None else self.rankers[index])

    def subset_rankers(self, rankers) -> Preferences:
        """Keep the preferences of the given ranker ids."""
        return self.subset(np.isin(self.ranker_index, np.asarray(rankers)))

    def count_pairs(self, keep_ties: bool = False) -> int:
        """Number of pairs :meth:`rank_break` gives, counted without building them.

        A preference of ``L`` items in tied groups of sizes ``s_g`` gives
        ``(L² − Σ s_g²) / 2`` strict pairs, or ``L (L − 1) / 2`` with ``keep_ties``.
        """
        return int(self._pairs_per_preference(keep_ties).sum())

    def _pairs_per_preference(self, keep_ties: bool) -> np.ndarray:
        """Number of rank-broken pairs of every preference (int64)."""
        lengths = self.lengths.astype(np.int64)
        every = lengths * (lengths - 1) // 2
        if keep_ties or not self.has_ties:
            return every
        starts = np.flatnonzero(np.r_[True, (self.groups[1:] != self.groups[:-1])
                                      | (self.positions[1:] == 0)])
        sizes = np.diff(np.append(starts, self.items.size)).astype(np.int64)
        tied = np.bincount(self.owner[starts], weights=sizes * (sizes - 1) // 2,
                           minlength=len(self))
        return every - np.rint(tied).astype(np.int64)

    def rank_break(self, return_source: bool = False, keep_ties: bool = False,
                   max_pairs: int | None = None):
        """Full rank-breaking: every pair of items in different groups becomes one pair.

        A preference ``a > b > c`` of weight ``w`` gives the pairs ``a > b``, ``a > c`` and
        ``b > c``, each of weight ``w`` and the preference's ranker. Items tied with each
        other give no pair, unless ``keep_ties``: then each two tied items give one tied
        pair (a draw).

        Parameters
        ----------
        return_source : bool
            Also return, for every pair, the index of the preference it came from.
        keep_ties : bool
            Emit a tied pair for every two items of the same tied group.
        max_pairs : int, optional
            Refuse to build more than this many pairs out of preferences of three or more
            items (preferences of two items are pairs already and are not counted);
            ``None`` means :data:`MAX_PAIRS` (5 million: with rankers and sources, building
            them peaks near 80 bytes a pair, 0.4 GB, and they hold 64). Pass ``0`` for no
            limit.

        Returns
        -------
        Preferences or (Preferences, numpy.ndarray)
            Strict pairs come back as the same collection, with its cached stage layout.

        Raises
        ------
        ValueError
            When the pairs from preferences of three or more items would be more than
            ``max_pairs``: a list of ``k`` items gives up
            to ``k (k − 1) / 2`` pairs, so long lists grow the pairs with the square of
            their length, far faster than the file.
        """
        if self.is_pairwise:
            return (self, np.arange(len(self))) if return_source else self
        limit = MAX_PAIRS if max_pairs is None else int(max_pairs)
        if limit > 0:
            # only what rank-breaking adds counts: preferences of two items (tied pairs
            # too) are pairs already, however many there are
            per = self._pairs_per_preference(keep_ties)
            count = int(per[self.lengths > 2].sum())
            if count > limit:
                raise ValueError(
                    f"breaking these rankings into pairs gives {count:,} pairs (a ranking of "
                    f"k items gives up to k(k-1)/2), more than the {limit:,} that methods "
                    "working on pairs accept; use a method that takes whole rankings "
                    "(CoarsenPL, PL, Borda), or fewer or shorter rankings.")
        per = self._pairs_per_preference(keep_ties)
        start = np.concatenate([[0], np.cumsum(per)])
        count = int(start[-1])
        # written in place, preference by preference in order, pairs in upper-triangle
        # order inside each preference; the temporaries hold at most _PAIR_BLOCK pairs
        items = np.empty(2 * count, dtype=ID_DTYPE)
        groups = np.zeros(2 * count, dtype=ID_DTYPE)
        source = np.empty(count, dtype=np.intp)
        for k in np.unique(self.lengths):
            k = int(k)
            upper, lower = np.triu_indices(k, 1)
            all_rows = np.flatnonzero(self.lengths == k)
            step = max(1, _PAIR_BLOCK // upper.size)
            for lo in range(0, all_rows.size, step):
                rows = all_rows[lo:lo + step]
                element = self.offsets[:-1][rows, None] + np.arange(k)
                group, item = self.groups[element], self.items[element]
                tied = group[:, upper] == group[:, lower]
                keep = np.ones_like(tied) if keep_ties else ~tied
                at = (start[rows, None] + np.cumsum(keep, axis=1) - 1)[keep]
                items[2 * at] = item[:, upper][keep]
                items[2 * at + 1] = item[:, lower][keep]
                groups[2 * at + 1] = ~tied[keep]
                source[at] = np.broadcast_to(rows[:, None], keep.shape)[keep]
        for array in (items, groups, source):
            array.flags.writeable = False
        weights = None if self.weights.strides == (0,) else self.weights[source]
        pair_rankers: np.ndarray | None = (None if self.rankers is None
                                           else self.rankers[source])
        for extra in (weights, pair_rankers):
            if extra is not None:
                extra.flags.writeable = False
        offsets = np.arange(0, 2 * count + 1, 2, dtype=_offset_dtype(2 * count))
        offsets.flags.writeable = False
        pairs = Preferences(items=items, offsets=offsets, groups=groups, n_items=self.n_items,
                            weights=weights, rankers=pair_rankers,  # type: ignore[arg-type]
                            item_names=self.item_names, ranker_names=self.ranker_names,
                            notes=self.notes)
        return (pairs, source) if return_source else pairs

    def merge_duplicates(self) -> Preferences:
        """Merge identical preferences of the same ranker into one with summed weight.

        The merged preference keeps the place of its first copy. Preferences are compared
        within each length, so the work and memory grow with the data (one table row of
        ``2L + 1`` numbers per preference of length ``L``). A summed weight above
        :data:`MAX_WEIGHT` raises ValueError.
        """
        if len(self) == 0:
            return self
        keep_parts, weight_parts = [], []
        for k in np.unique(self.lengths):
            rows = np.flatnonzero(self.lengths == k)
            element = self.offsets[:-1][rows, None] + np.arange(k)
            table = np.ascontiguousarray(np.concatenate(
                [self.items[element], self.groups[element], self.ranker_index[rows, None]],
                axis=1), dtype=np.int64)
            # each row as one opaque byte string: fast whatever the width
            keys = table.view(np.dtype((np.void, table.itemsize * table.shape[1]))).ravel()
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            keep_parts.append(rows[first])
            weight_parts.append(np.bincount(inverse.ravel(), weights=self.weights[rows],
                                            minlength=first.size))
        keep = np.concatenate(keep_parts)
        order = np.argsort(keep)
        return self.subset(keep[order])._replace(weights=np.concatenate(weight_parts)[order])

    @cached_property
    def pooled(self) -> Preferences:
        """Identical preferences merged into one of summed weight, whoever ranked them.

        This is what every Plackett–Luce-family fit needs: their likelihood depends on the
        rankers only through the weights, and ``w`` identical preferences contribute the
        same stages as one of weight ``w`` (EM's sums are weighted; in the Gibbs sampler
        ``w`` identical stages of shape ``τ`` give one of shape ``wτ``, since a sum of
        independent Gamma(τ, η) variables is Gamma(wτ, η)). The total weight, and so
        ``τ = α / (α + N)``, is unchanged. Rankers are dropped. Returns the collection
        itself when merging would keep more than :data:`POOL_WORTH` of the preferences (a
        second copy would cost more memory than it saves time) or when a summed weight
        would exceed :data:`MAX_WEIGHT`.

        Pairs are keyed by one 64-bit integer each (``(winner · M + loser) · 2 + tie``);
        longer preferences as in :meth:`merge_duplicates`.
        """
        return self.pooling[0]

    @cached_property
    def pooling(self) -> tuple[Preferences, np.ndarray | None]:
        """:attr:`pooled` and, for every preference, the index of its row there.

        The index is ``None`` when :attr:`pooled` is the collection itself (row ``n`` is
        row ``n``), so that nothing of the collection's size is kept for it.
        """
        return self.pool_identical()

    def pool_identical(self, tag=None, worth: float = POOL_WORTH
                       ) -> tuple[Preferences, np.ndarray | None]:
        """Identical preferences (with equal ``tag``) merged into one of summed weight.

        The engine of :attr:`pooling`. Merged rows keep the order of their first copies;
        rankers are dropped.

        Parameters
        ----------
        tag : array of int, shape (N,), optional
            Preferences merge only when their tags are equal too (e.g. a code of each
            weight, to merge only copies of equal weight).
        worth : float
            Return the collection itself when merging would keep more than this share
            of the preferences (or when a summed weight would exceed :data:`MAX_WEIGHT`).

        Returns
        -------
        (Preferences, numpy.ndarray or None)
            The merged collection and, for every preference, the index of its row there
            (``None`` when the collection itself is returned).

        Notes
        -----
        Pairs are keyed by one integer each, ``((winner · M + loser) · 2 + tie) · T + tag``,
        and counted by ``bincount`` in O(N + key range) when the range is at most a few
        times N (:data:`_COUNT_RANGE`); larger ranges are sorted. Longer preferences are
        compared as rows of bytes within each length.
        """
        n = len(self)
        if n == 0:
            return self, None
        if tag is not None:
            tag = np.asarray(tag)
            if tag.shape != (n,) or (n and tag.min() < 0):
                raise ValueError("tag must hold one non-negative integer per preference")
        if self.lengths.max() == 2:
            n_tags = int(tag.max()) + 1 if tag is not None else 1
            keep, group = _group_pairs(self.items[0::2], self.items[1::2], self.groups[1::2],
                                       max(self.n_items, 1), tag, n_tags)
            weights = np.bincount(group, weights=self.weights, minlength=keep.size)
        else:
            group = np.empty(n, dtype=np.intp)  # each preference's group, numbered per block
            keep_parts, weight_parts, shift = [], [], 0
            for k in np.unique(self.lengths):
                rows = np.flatnonzero(self.lengths == k)
                element = self.offsets[:-1][rows, None] + np.arange(k)
                columns = [self.items[element], self.groups[element]]
                if tag is not None:
                    columns.append(tag[rows, None])
                table = np.ascontiguousarray(np.concatenate(columns, axis=1), dtype=np.int64)
                keys = table.view(np.dtype((np.void, table.itemsize * table.shape[1]))).ravel()
                _, first_copy, inverse = np.unique(keys, return_index=True, return_inverse=True)
                keep_parts.append(rows[first_copy])
                weight_parts.append(np.bincount(inverse.ravel(), weights=self.weights[rows],
                                                minlength=first_copy.size))
                group[rows] = inverse.ravel() + shift
                shift += first_copy.size
            keep = np.concatenate(keep_parts)
            weights = np.concatenate(weight_parts)
        if keep.size > worth * n or weights.max() > MAX_WEIGHT:
            # too few repeats to pay for a second copy, or a summed weight would leave the
            # checked range: the collection itself (its stage sums are the same)
            return self, None
        order = np.argsort(keep)
        position = np.empty(keep.size, dtype=np.intp)
        position[order] = np.arange(keep.size)
        merged = self.subset(keep[order])._replace(weights=weights[order], rankers=None,
                                                   ranker_names=None)
        index = position[group]
        index.flags.writeable = False
        return merged, index

    def relabel(self, permutation) -> Preferences:
        """Rename item ``i`` to ``permutation[i]`` (names move with their items)."""
        permutation = np.asarray(permutation, dtype=np.intp)
        if np.sort(permutation).tolist() != list(range(self.n_items)):
            raise ValueError("permutation must be a permutation of 0..M-1")
        names = np.empty(self.n_items, dtype=object)
        names[permutation] = self.item_names
        return self._replace(items=permutation[self.items], item_names=tuple(names))

    def with_rankers(self, rankers, ranker_names=None) -> Preferences:
        """Return a copy with other ranker ids."""
        return self._replace(rankers=rankers, ranker_names=ranker_names)

    # ------------------------------------------------------------------ canonical CSV
    def to_csv(self, neutralise: bool = True) -> str:
        """Write the canonical long CSV: ``preference,ranker,weight,item,rank``.

        One row per item of each preference; ``rank`` is the 1-based position of the item's
        tied group (tied items share a rank). :func:`coarsenrank_core.read_preferences`
        reads it back to an equal collection.

        Parameters
        ----------
        neutralise : bool
            Write item and ranker names that a spreadsheet would run as a formula (starting
            with ``= + - @``, a tab or a carriage return) with a leading apostrophe, as
            :func:`coarsenrank_core.export.neutralise_cell` does for every download
            (OWASP "CSV injection"). The readers remove exactly that apostrophe, so the
            file still reads back equal; only a name that itself starts with an apostrophe
            followed by one of those characters loses its apostrophe. ``False`` writes the
            names exactly as they are.
        """
        from .export import neutralise_cell  # lazy: only writing a file needs it

        def cells(labels):
            return np.asarray([neutralise_cell(v) for v in labels] if neutralise else labels,
                              dtype=object)

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CANONICAL_COLUMNS)
        rankers = (cells(self.ranker_names)[self.rankers]
                   if self.rankers is not None and self.ranker_names is not None
                   else self.rankers if self.rankers is not None
                   else np.full(len(self), "", dtype=object))
        names = cells(self.item_names)
        weights = [repr(float(w)) if w != int(w) else str(int(w)) for w in self.weights]
        owner = self.owner
        writer.writerows(zip((owner + 1).tolist(), np.asarray(rankers)[owner].tolist(),
                             np.asarray(weights, dtype=object)[owner].tolist(),
                             names[self.items].tolist(), (self.groups + 1).tolist()))
        return buffer.getvalue()
