"""Rows are rankings: one row per ranking, items in order in the cells (best first)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from .assembly import (
    assemble,
    dense_places,
    factorize,
    first_repeat,
    header_only_error,
    parse_weights,
)
from .columns import (
    ANSWER_STEMS,
    PREFERENCE_ROLES,
    find_roles,
    normalise,
    plural,
    quote_list,
    rows_text,
    shown_cell,
)
from .condorcet import refuse_counts_in_names
from .content import is_ballot_mark, position_ranks
from .notation import written_ranks
from .options import ReadOptions
from .survey import Prepared, has_rank_header, is_wide_header, looks_like_rank
from .tables import multiline_error, padded

__all__ = ["read_wide", "has_rank_header", "is_wide_header"]

TIE = "|"


def headerless(prepared: Prepared) -> Prepared:
    """The same table read without a header row."""
    return Prepared(prepared.table, None, 0, platform=prepared.platform)


def item_columns(prepared: Prepared, options: ReadOptions) -> list[int]:
    """The columns holding items: the user's choice, else every free column."""
    if options.item_columns is None:
        return prepared.free
    chosen = [j for j in range(prepared.width) if prepared.label(j) in options.item_columns]
    missing = set(options.item_columns) - {prepared.label(j) for j in chosen}
    if missing:
        raise PreferenceFormatError(
            f"There is no column called '{sorted(missing)[0]}'.",
            fix="Choose the item columns among the file's columns.")
    return chosen


def _refuse_lists_in_columns(prepared: Prepared, cells: np.ndarray,
                             columns: list[int]) -> None:
    """Refuse two or more item columns whose cells mostly hold whole lists joined by ';' or
    '>' (two ranking questions of a form, each answer in one cell): read as places, each
    whole list would be one item."""
    block = cells[:, columns]
    flat = pd.Series(block.ravel(), dtype=object)
    if not flat.str.contains(r"[;>]").any():
        return
    filled = (flat.str.strip() != "").to_numpy().reshape(block.shape)
    joined = (flat.str.strip(" ;>").str.count(r"[;>]") >= 1).to_numpy().reshape(block.shape)
    share = (joined & filled).sum(axis=0) / np.maximum(filled.sum(axis=0), 1)
    listed = [j for j, many in zip(columns, share > 0.5) if many]
    if len(listed) < 2:
        return
    names = [prepared.label(j) for j in listed]
    raise PreferenceFormatError(
        f"The columns {quote_list(names, 3)} each hold whole rankings in their cells (such "
        f"as {shown_cell(cells[0, listed[0]])}): read as places, each whole list would be "
        "one item.", row=int(prepared.lines[0]) if len(prepared.lines) else None,
        column=names[0],
        fix=f"Choose the one column to read and the layout 'one ranking per cell' (in the "
            f"command line: --format cell --items {shlex.quote(names[0])}).")


def _refuse_column_of_its_own(prepared: Prepared, cells: np.ndarray,
                              columns: list[int]) -> None:
    """Refuse untitled rows of ten or more whole numbers where one column holds a different
    value on every row, none of them found in any other column (``881250949``): ids or
    times of records (a ratings file: user, item, rating, time), not numbered items, which
    would each stand at one place of one ranking only."""
    if (len(cells) < 10 or len(columns) < 2
            or (cells[:, columns] != "").all(axis=1).mean() <= 0.5
            or not pd.Series(cells[:, columns].ravel(), dtype=object).str.fullmatch(
                r"\s*\d*\s*").all()):
        return  # only where every cell is a whole number: numbered items, or records
    for j in columns:
        values = pd.Series(cells[:, j], dtype=object)
        values = values[values.str.strip() != ""]
        others = np.concatenate([cells[:, k] for k in columns if k != j])
        if (len(values) >= 10 and values.is_unique
                and not np.isin(values.to_numpy(dtype=object), others).any()):
            raise PreferenceFormatError(
                f"Column {prepared.label(j)} holds a different value on every row, none found "
                f"in any other column (such as {shown_cell(values.iloc[0])}): who answered, "
                "or ids or times of records (a ratings file's user, item, rating, time), not "
                "numbered items placed in rankings.", row=int(prepared.lines[0]),
                column=prepared.label(j),
                fix="If it names who answered, add a header row such as 'voter,1st,2nd,3rd'. "
                    "If each row is one rating, add a header such as 'user,item,rating,time' "
                    "and choose the layout 'long rankings' with the item columns 'item' then "
                    "'rating' and 'Rank numbers mean: 1 is the worst' (--format long --items "
                    "item rating --one-is-worst).")


_LETTER_GRADE = re.compile(r"\s*[A-F][+-]?\s*")


def _refuse_letter_grades(prepared: Prepared, cells: np.ndarray, columns: list[int]) -> None:
    """Refuse item columns whose filled cells are all letter grades, three or more of them
    and some with a sign (``A+``, ``B-``, ``F``): each row grades things, it names no items
    in order."""
    block = pd.Series(cells[:, columns].ravel(), dtype=object)
    filled = block[block.str.strip() != ""]
    if (filled.nunique() < 3 or not filled.str.fullmatch(_LETTER_GRADE.pattern).all()
            or not filled.str.contains(r"[+-]").any()):  # items named 'A', 'B', 'C' are common
        return
    k = int(np.flatnonzero((cells[:, columns] != "").any(axis=0))[0])
    raise PreferenceFormatError(
        f"The columns {quote_list([prepared.label(j) for j in columns], 3)} hold letter "
        f"grades such as {quote_list(pd.unique(filled.to_numpy())[:3])}, not items in order.",
        row=int(prepared.lines[0]), column=prepared.label(columns[k]),
        fix="Write each grade as a number (A+ = 4.3, A = 4, A- = 3.7 ... F = 0) with one "
            "column per graded piece of work, and choose 'Rank numbers mean: 1 is the worst' "
            "(--one-is-worst) so that a higher grade is better.")


def read_wide(prepared: Prepared, options: ReadOptions) -> Preferences:
    """Read rows of items in order, best first; ``a|b`` in one cell are tied."""
    if options.item_columns is None:  # item columns chosen by hand are read as chosen
        _refuse_other_layout(prepared)
    if not prepared.wide_header and options.item_columns is None:
        prepared = headerless(prepared)
    n_rows = prepared.n_rows
    if prepared.header is not None and not n_rows:
        raise header_only_error(prepared.table.lines[0])
    header = prepared.header or []
    width = max(prepared.width, 1)
    cells = padded(prepared.table, (header + [""] * width)[:width], prepared.start)
    line = np.asarray(prepared.lines, dtype=np.intp)
    columns = item_columns(prepared, options)
    reordered: list[str] = []
    if options.item_columns is None and prepared.header is not None:
        columns, reordered = _in_named_order(prepared, columns)
    if options.item_columns is None:
        _refuse_two_sides(prepared, columns)
        _refuse_lists_in_columns(prepared, cells, columns)
        _refuse_letter_grades(prepared, cells, columns)
        if prepared.header is None:
            _refuse_column_of_its_own(prepared, cells, columns)
    if columns == list(range(cells.shape[1])):
        block = cells  # every column holds items: no copy
    else:
        block = cells[:, columns] if columns else np.empty((n_rows, 0), dtype=object)
    codes, uniques = prepared.table.factorized
    if max(columns, default=0) < codes.shape[1]:  # the same cells, hashed once already
        cell_index, item, item_names = split_ties(
            block.ravel(), (codes[prepared.start:, columns].ravel(), uniques))
    else:
        cell_index, item, item_names = split_ties(block.ravel())
    n_cols = max(len(columns), 1)
    pref = cell_index // n_cols
    broken = [k for k, name in enumerate(item_names) if "\n" in name or "\r" in name]
    if broken:  # a list typed with line breaks (Alt+Enter) in one cell
        first = int(cell_index[np.flatnonzero(item == broken[0])[0]])
        raise multiline_error(int(line[first // n_cols]),
                              prepared.label(columns[first % n_cols]), True)
    refuse_counts_in_names(item_names, prepared.lines)
    filled = np.zeros(block.size, dtype=bool)
    filled[cell_index] = True
    group = (np.cumsum(filled.reshape(block.shape), axis=1, dtype=np.int32) - 1).ravel()[
        cell_index]
    del filled
    pref, group, item, item_names, notes = written_ranks(pref, group, item, item_names, line)
    notes = reordered + notes
    rankers = cells[:, prepared.ranker] if prepared.ranker is not None else None
    weights = None
    if prepared.count is not None:
        weights = parse_weights(cells[:, prepared.count], line, prepared.label(prepared.count))
    if max(columns, default=0) < codes.shape[1]:
        marks = _mark_note(codes[prepared.start:, columns], uniques)
        if marks or _ballot_titled(prepared):  # a cast vote record: ranked again lower, skipped
            pref, group, item, repeats = _highest_rankings(pref, group, item)
            notes += _repeats_note(line[repeats]) if repeats.size else []
        notes += marks
    try:
        return assemble(pref.astype(np.intp), group.astype(np.intp), item, n_rows,
                        item_names, line, rankers=rankers,
                        ranker_column=prepared.label(prepared.ranker or 0), weights=weights,
                        notes=notes)
    except ValueError:
        # Preferences refuses an item twice in a ranking; say where, in the file's terms
        column = np.asarray(columns, dtype=np.intp)[cell_index % n_cols]
        _duplicates(pref, item, column, item_names, line, prepared)
        raise


def _in_named_order(prepared: Prepared, columns: list[int]) -> tuple[list[int], list[str]]:
    """The item columns in the order of the places their titles name (``3rd choice``,
    ``2nd choice``, ``1st choice``; ``Least preferred`` ... ``Most preferred``: read best
    first), with the note saying so; as they stand when they already are, or when their
    titles do not name each place once (:func:`~coarsenrank_core.io.content.position_ranks`)."""
    labels = [prepared.label(j) for j in columns]
    ranks = position_ranks(labels) if len(columns) >= 2 else None
    if ranks is None or ranks == sorted(ranks):
        return columns, []
    order = np.argsort(ranks, kind="stable")
    shown = quote_list([labels[i] for i in order], 3)
    return [columns[i] for i in order], [
        f"Read the columns in the order of the places their titles name ({shown}), "
        "not in the order they stand in the file"]


def split_ties(cells: np.ndarray, factorized: tuple[np.ndarray, np.ndarray] | None = None
               ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The items in a flat array of cells: the cell each comes from, its code and the names.

    A cell ``a|b`` gives two items (tied); blank cells and blank members give none. Items
    are numbered in order of first appearance. ``factorized`` gives the cells as codes into
    a table's distinct cells (:attr:`Table.factorized`), so no text is hashed again.
    """
    cells = np.asarray(cells, dtype=object)
    if factorized is None:
        codes, uniques = pd.factorize(cells)
    else:
        codes, first = pd.factorize(factorized[0])
        uniques = factorized[1][first]
    codes = codes.astype(np.int32)
    uniques = np.asarray(uniques, dtype=object)
    marks = is_ballot_mark(uniques)
    if marks.any():  # undervote, overvote, write-in ... are blanks, never items
        uniques = np.where(marks, "", uniques)
    tied_unique = pd.Series(uniques, dtype=object).str.contains(TIE, regex=False).to_numpy(
        dtype=bool)
    if not tied_unique.any():
        named = uniques != ""
        plain = np.flatnonzero(named[codes])
        renumber = (np.cumsum(named) - 1).astype(np.int32)
        return plain, renumber[codes[plain]], tuple(str(u) for u in uniques[named])
    filled = (uniques != "")[codes]
    tied = tied_unique[codes]
    plain = np.flatnonzero(filled & ~tied)
    parts = pd.Series(cells[tied], index=np.flatnonzero(tied), dtype=object)
    parts = parts.str.split(TIE, regex=False).explode().str.strip()
    parts = parts[(parts != "") & ~is_ballot_mark(parts.to_numpy(dtype=object))]
    index = np.concatenate([plain, parts.index.to_numpy(dtype=np.intp)])
    values = np.concatenate([cells[plain], parts.to_numpy(dtype=object)])
    order = np.argsort(index, kind="stable")
    item, names = factorize(values[order])
    return index[order], item, names


def _ballot_titled(prepared: Prepared) -> bool:
    """Whether a column's title says the rows are ballots (``Cast Vote Record``, ``Ballot ID``)."""
    titles = [re.sub(r"[^a-z]", "", str(c).lower()) for c in (prepared.header or [])]
    return any(t.startswith(("castvoterecord", "ballot")) for t in titles)


def _highest_rankings(pref: np.ndarray, group: np.ndarray, item: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The entries with each item kept at its highest ranking on a ballot (the rule of
    ranked-choice counts: a candidate ranked again lower is skipped there), the places
    renumbered without gaps, and the ballots (indices into ``pref``'s rows) that had some."""
    key = pref.astype(np.int64) * (int(item.max(initial=0)) + 1) + item
    first = np.zeros(key.size, dtype=bool)
    first[np.unique(key, return_index=True)[1]] = True
    if first.all():
        return pref, group, item, np.zeros(0, dtype=np.intp)
    repeats = np.unique(pref[~first])
    pref, group, item = pref[first], group[first], item[first]
    return pref, dense_places(pref, group).astype(group.dtype), item, repeats


def _repeats_note(lines: np.ndarray) -> list[str]:
    n = len(lines)
    return [f"On {plural(n, 'ballot')} a candidate is ranked again lower; its highest "
            f"ranking is kept, as ranked-choice counts do: {plural(n, 'row', False)} "
            f"{rows_text(lines)}"]


def _mark_note(codes: np.ndarray, uniques: np.ndarray) -> list[str]:
    """A note counting the ballot marks (undervote, overvote ...) read as blank cells."""
    present = pd.unique(codes.ravel())  # only the cells of the item columns
    marks = present[is_ballot_mark(uniques[present])]
    if not marks.size:
        return []
    hit = np.isin(codes, marks)
    n = int(hit.sum())
    if not n:
        return []
    names = sorted({str(u).lower() for u in uniques[np.unique(codes[hit])]})
    return [f"Read {n} ballot mark{'s' if n != 1 else ''} ({', '.join(names)}) as blank "
            "cells, not items"]


def _refuse_other_layout(prepared: Prepared) -> None:
    from .pairwise import pairwise_columns

    first = prepared.table.row(0)
    other = ("long" if {"item", "rank"} <= set(find_roles(first, PREFERENCE_ROLES)) else
             "pairwise" if pairwise_columns(list(first)) is not None else None)
    if other:
        raise PreferenceFormatError(
            f"The first row names the columns of a {other} file "
            f"({quote_list(c for c in first if c)}), not a wide rankings table.",
            row=prepared.table.lines[0],
            fix=f"Choose the '{other}' format, or let it be detected.")


#: A title naming one side of a judgement by a number or letter after a word of
#: :data:`~.columns.ANSWER_STEMS`: ``response_1``/``response_2`` are two sides, not two places.
_SIDE = re.compile(r"(?P<stem>[a-z]+?)(?P<mark>[12ab])")


def _refuse_two_sides(prepared: Prepared, columns: list[int]) -> None:
    """Refuse two item columns that are the two numbered sides of a comparison
    (``response_1``, ``response_2``): nothing in the row says which side won."""
    if len(columns) != 2 or prepared.header is None:
        return
    labels = [prepared.label(j) for j in columns]
    first, second = (_SIDE.fullmatch(normalise(label)) for label in labels)
    if first is None or second is None or first["stem"] != second["stem"] or (
            first["stem"] not in ANSWER_STEMS or first["mark"] == second["mark"]):
        return
    raise PreferenceFormatError(
        f"The columns {quote_list(labels)} look like the two sides of a comparison (one name "
        "numbered twice), not the first and second places of a ranking, and no column says "
        "which side was preferred, so reading the first as the better would be a guess.",
        row=prepared.table.lines[0],
        fix=f"Add a 'winner' column naming the preferred side ('{labels[0]}' or "
            f"'{labels[1]}') and choose the layout 'pairwise comparisons'. If the first of "
            f"the two always holds the better one, choose the layout 'wide rankings' with "
            f"the item columns '{labels[0]}' and '{labels[1]}' (in the command line: "
            f"--format wide --items {' '.join(shlex.quote(x) for x in labels)}).")


def _duplicates(pref: np.ndarray, item: np.ndarray, column: np.ndarray,
                item_names: Sequence[str], lines: np.ndarray, prepared: Prepared) -> None:
    repeat = first_repeat(pref.astype(np.int64) * max(len(item_names), 1) + item)
    if repeat is None:
        return
    first, second = repeat
    name = item_names[item[second]]
    a, b = prepared.label(int(column[first])), prepared.label(int(column[second]))
    row = int(lines[pref[second]])
    if looks_like_rank(name) and _names_items(prepared):
        raise PreferenceFormatError(
            f"The value '{name}' appears twice in this row. It looks like a rank number, not "
            "an item: the column titles look like item names, so this file probably holds "
            "one column per item with that item's rank.", row=row, column=b,
            fix="Choose the layout 'Item columns holding ranks' (or let it be detected after "
                "making every cell a whole rank such as 1, 2, 3 or blank).")
    where = ("twice in the same cell" if a == b and column[first] == column[second]
             else f"twice in this ranking: in column '{a}' and in column '{b}'")
    if name.strip() in ("0", "0.0"):
        raise PreferenceFormatError(
            f"The item '{name}' appears {where}. Zeros at the end of a row are most likely "
            "padding (as MATLAB and NumPy write rankings of different lengths) rather than an "
            "item.", row=row,
            column=b,
            fix="Leave the cells after a shorter ranking blank instead of 0. If 0 is an item "
                "(items numbered from 0), it may appear only once in each ranking.")
    raise PreferenceFormatError(
        f"The item '{name}' appears {where}.", row=row, column=b,
        fix="Each item may appear only once per ranking; to say that items are tied, put them "
            f"in one cell separated by '{TIE}'.")


def _names_items(prepared: Prepared) -> bool:
    """Whether the first row's free cells read as names rather than ranks."""
    first: Sequence[str] = prepared.table.row(0) if len(prepared.table) else []
    cells = [first[j] for j in prepared.free if j < len(first) and first[j]]
    return bool(cells) and not any(looks_like_rank(c) for c in cells)
