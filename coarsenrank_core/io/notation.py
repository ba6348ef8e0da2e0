"""Ranks written into cells beside item names (``**Hawaii** 3rd``): read, or refused by name."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from .assembly import dense_places

__all__ = ["written_ranks", "strip_markup", "name_without_rank"]

#: An item name followed by its rank as an ordinal: ``Hawaii 3rd``, ``**Hawaii** (3rd)``
_RANK_BESIDE = re.compile(
    r"(?P<name>.*?\S)[\s:,-]*[(\[]?(?P<rank>\d{1,4})(?:st|nd|rd|th)[)\]]?", re.IGNORECASE)
#: Markdown or HTML emphasis around a whole name: ``**x**``, ``__x__``, ``*x*``, ``<b>x</b>``
_MARKUP = re.compile(
    r"(?P<open>\*\*|__|\*|_|~~|`)(?P<inner>.+?)(?P=open)|<(?P<tag>b|strong|em|i)>(?P<html>.+?)"
    r"</(?P=tag)>", re.IGNORECASE)


def name_without_rank(cell: str) -> str | None:
    """The item name of a cell written with its rank beside it (``**x** 2nd`` gives ``x``);
    None when the cell carries no such rank."""
    found = _RANK_BESIDE.fullmatch(cell.strip())
    return None if found is None else strip_markup(found["name"])[0].strip()


def strip_markup(name: str) -> tuple[str, bool]:
    """The name without Markdown or HTML emphasis around it, and whether there was some."""
    found = _MARKUP.fullmatch(name.strip())
    if found is None:
        return name.strip(), False
    inner = (found["inner"] or found["html"] or "").strip()
    return (inner, True) if inner else (name.strip(), False)


def written_ranks(pref: np.ndarray, group: np.ndarray, item: np.ndarray,
                  item_names: tuple[str, ...], lines: np.ndarray, column: str | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...], list[str]]:
    """Items whose cells also say their rank (``**x** 3rd``), read as item ``x`` at rank 3.

    ``pref``, ``group`` and ``item`` describe the entries (sorted by preference, then
    group), ``lines`` each preference's line. When every item name ends with an ordinal,
    and either the names carry emphasis markup or every ranking's written ranks are exactly
    1, 2, ... (each once), the entries are re-read by those ranks (equal ranks tie) and a
    note says so. When only some names do and they carry markup, the file is refused,
    naming the notation. Otherwise (``Henry 8th``, ``Henry 7th`` among other names) nothing
    changes. Returns the entries, the names and the notes.
    """
    unchanged: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...], list[str]] = (
        pref, group, item, item_names, [])
    if not item_names:
        return unchanged
    found = [_RANK_BESIDE.fullmatch(n.strip()) for n in item_names]
    matched = np.array([m is not None for m in found])
    if not matched.any():
        return unchanged
    # items only in one-item rows (skipped later, e.g. a title read as a ranking) do not count
    kept = np.bincount(pref, minlength=int(pref.max(initial=-1)) + 1)[pref] >= 2
    used = np.zeros(len(item_names), dtype=bool)
    used[item[kept]] = True
    stems, marked = zip(*(strip_markup(m["name"]) if m else strip_markup(n)
                          for m, n in zip(found, item_names)))
    marked_any = any(k and ok for k, ok in zip(marked, matched))
    ranks = np.array([int(m["rank"]) if m else 0 for m in found], dtype=np.int64)
    if not matched[used].all():
        if not marked_any:
            return unchanged
        j = int(np.flatnonzero(matched)[0])
        rank = found[j]["rank"]  # type: ignore[index]
        rows = np.flatnonzero(matched[item])
        raise PreferenceFormatError(
            f"The item '{item_names[j]}' is written with its rank beside it ('{stems[j]}' "
            f"at rank {int(rank)}, in the notation 'name {rank}"
            f"{_suffix(found[j])}'{' with emphasis markup' if marked[j] else ''}), while "
            "other items in the file are not; the file cannot be read both ways.",
            row=int(lines[pref[rows[0]]]) if rows.size else None, column=column,
            fix="Write either every item with its rank ('Hawaii 1st') or none: put the items "
                "in order, best first, one per cell.")
    if not (marked_any or _one_to_k(pref[kept], ranks[item[kept]])):
        return unchanged
    codes, names = pd.factorize(np.asarray(stems, dtype=object))
    new_item = codes[item].astype(item.dtype, copy=False)
    rank = ranks[item]  # 0 for an item only in one-item rows
    order = np.lexsort((rank, pref))
    pref, rank, new_item = pref[order], rank[order], new_item[order]
    new_group = dense_places(pref, rank)
    example = int(np.flatnonzero(matched & used)[0]) if (matched & used).any() else \
        int(np.flatnonzero(matched)[0])  # an item read by its written rank, in a ranking
    note = (f"Read the rank written beside each item ('{item_names[example]}' as "
            f"'{stems[example]}' at rank {ranks[example]}); items with equal ranks are tied")
    return (pref, new_group.astype(group.dtype, copy=False), new_item,
            tuple(str(n) for n in names), [note])


def _suffix(found: re.Match[str] | None) -> str:
    if found is None:
        return ""
    text = found.group(0)
    return text[found.end("rank"):found.end("rank") + 2]


def _one_to_k(pref: np.ndarray, rank: np.ndarray) -> bool:
    """Whether each preference's ranks are 1, 2, ..., its length, each once."""
    if not pref.size:
        return False
    order = np.lexsort((rank, pref))
    pref, rank = pref[order], rank[order]
    first = np.r_[True, pref[1:] != pref[:-1]]
    position = np.arange(pref.size) - np.repeat(np.flatnonzero(first),
                                                np.diff(np.r_[np.flatnonzero(first), pref.size]))
    return bool((rank == position + 1).all())
