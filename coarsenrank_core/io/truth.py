"""Ground truths: item and score, item and rank, or the items best first."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from ._text import SourceLike, source_text
from .assembly import empty_error, first_repeat, guard, header_only_error, parse_numbers
from .columns import TRUTH_ROLES, column_label, find_roles, quote_list, shown_cell
from .tables import Table, split_table

__all__ = ["read_truth"]


def read_truth(source: SourceLike, prefs: Preferences, *, encoding: str | None = None
               ) -> np.ndarray:
    """Read a ground truth for the items of ``prefs``.

    Three layouts are accepted, with or without a header row: item and score (column
    titled score, value, level, grade, truth, worth, quality or rating; higher is better),
    item and rank (column titled rank, position or place; 1 = best, score = -rank), or a
    single column of item names, best first (score = n - position). Without a header a
    second column is read as scores. Space-separated ``item score`` lines are accepted
    when the file uses no comma, semicolon or tab.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file-like
        As for :func:`read_preferences`.
    prefs : Preferences
        The preferences whose ``item_names`` the truth refers to.
    encoding : str, optional
        As for :func:`read_preferences`.

    Returns
    -------
    numpy.ndarray, shape (prefs.n_items,)
        Float scores, higher = better; NaN for items the truth does not mention.

    Raises
    ------
    PreferenceFormatError
        For unknown or repeated items, non-numeric scores, empty files and the like.
    """
    return guard(lambda: _read_truth(source_text(source, encoding)[0], prefs))


def _read_truth(text: str, prefs: Preferences) -> np.ndarray:
    if not text.strip():
        raise empty_error()
    index = {name: i for i, name in enumerate(prefs.item_names or ())}
    table = _maybe_space_separated(split_table(text), index)
    if not table.rows:
        raise empty_error()
    header, item_col, value_col, value_role = _truth_columns(table, index)
    start = 1 if header else 0
    if start == len(table.rows):
        raise header_only_error(table.lines[0])
    items = _column_cells(table.rows[start:], item_col)
    line = np.asarray(table.lines[start:], dtype=np.intp)
    column = column_label(header, item_col)
    blank = np.flatnonzero(items == "")
    if blank.size:
        raise PreferenceFormatError("The item is blank on this row.", row=int(line[blank[0]]),
                                    column=column, fix="Fill in the item or delete the row.")
    _truth_items(items, line, column, index)
    if value_role == "order":
        scores = len(items) - np.arange(len(items), dtype=float)
    else:
        values = _column_cells(table.rows[start:], value_col)
        scores = parse_numbers(values)
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.size:
            i = int(bad[0])
            found = shown_cell(values[i])
            raise PreferenceFormatError(
                f"The {value_role} of '{items[i]}' should be a number, but it is {found}.",
                row=int(line[i]), column=column_label(header, value_col),
                fix=f"Write a number for every item's {value_role}.")
        if value_role == "rank":
            scores = -scores
    out = np.full(prefs.n_items, np.nan)
    out[[index[name] for name in items]] = scores
    return out


def _column_cells(rows: Sequence[Sequence[str]], j: int) -> np.ndarray:
    return np.asarray([r[j] if j < len(r) else "" for r in rows], dtype=object)


def _truth_columns(table: Table, index: dict[str, int]
                   ) -> tuple[list[str] | None, int, int, str]:
    """Header (or None), item column, value column and its role: score, rank or order."""
    first = table.rows[0]
    roles = find_roles(first, TRUTH_ROLES)
    two = table.width >= 2
    if not _truth_header(first, roles, index, table.rows[1:]):
        item_col = _item_column(table.rows, index) if two else 0
        return None, item_col, 1 - item_col, "score" if two else "order"
    # places say which way up they go; a score beside them may count errors (RMSE)
    role: str | None = next((r for r in ("rank", "score") if r in roles), None)
    value_col = roles[role] if role else None
    item_col = roles.get("item", roles.get("order", 1 if value_col == 0 else 0))
    if value_col is None:
        value_col, role = (1 - min(item_col, 1), "score") if two else (0, "order")
    return list(first), item_col, value_col, role or "score"  # role is set with value_col


def _maybe_space_separated(table: Table, index: dict[str, int]) -> Table:
    """Split 'item score' lines on spaces when nothing else separates the values and every
    line's second part is a number."""
    if table.width != 1 or sum(bool(r) and r[0] in index for r in table.rows) * 2 > len(
            table.rows):
        return table
    split = [r[0].split() if r else [] for r in table.rows]  # a row of '""' holds no cell
    if not all(len(parts) == 2 for parts in split):
        return table
    scores = parse_numbers(np.asarray([parts[1] for parts in split], dtype=object))
    if not np.isfinite(scores).all():
        return table  # 'Film C': a name with a space, not an item and its score
    return Table.from_rows(split, table.lines, " ")


def _truth_header(first: Sequence[str], roles: dict[str, int], index: dict[str, int],
                  rest: Sequence[Sequence[str]]) -> bool:
    """Whether the first row of a ground truth holds column titles."""
    if any(first[j] not in index for j in roles.values()):
        return True
    if len(first) >= 2 and first[0] not in index and first[1] not in index:
        # unrecognised titles above a column of numbers
        later = np.asarray([r[1] for r in rest if len(r) > 1], dtype=object)
        return bool(np.isnan(parse_numbers(np.asarray(first[1:2], dtype=object))[0])
                    and np.isfinite(parse_numbers(later)).any())
    return False


def _item_column(rows: Sequence[Sequence[str]], index: dict[str, int]) -> int:
    """Without a header: the column (of the first two) whose values name more items."""
    hits = [sum(len(r) > j and r[j] in index for r in rows) for j in (0, 1)]
    return 1 if hits[1] > hits[0] else 0


def _truth_items(items: np.ndarray, line: np.ndarray, column: str,
                 index: dict[str, int]) -> None:
    repeat = first_repeat(items)
    if repeat is not None:
        first, second = repeat
        raise PreferenceFormatError(
            f"The item '{items[second]}' is listed twice in the ground truth: on rows "
            f"{line[first]} and {line[second]}.", row=int(line[second]), column=column,
            fix="Keep one row per item.")
    unknown = np.flatnonzero([name not in index for name in items])
    if unknown.size:
        names = list(dict.fromkeys(items[unknown]))
        many = len(names) > 1
        raise PreferenceFormatError(
            f"{len(names)} item{'s' if many else ''} in the ground truth "
            f"{'are' if many else 'is'} not in the preferences: {quote_list(names)}.",
            row=int(line[unknown[0]]), column=column,
            fix="Check the spelling (names must match exactly, including capital letters), or "
                "remove these rows from the ground truth.")


