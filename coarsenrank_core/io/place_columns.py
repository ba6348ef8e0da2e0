"""A table of places by column (a row a competitor, a column a race) turned into one row a place."""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

from .columns import (
    COMPETITOR_WORDS,
    PREFERENCE_ROLES,
    find_roles,
    normalise,
    plural,
    quote_list,
    role_base,
)
from .content import judge_title
from .distinct import per_distinct
from .long import is_absent_mark, is_out_mark
from .survey import summary_label
from .tables import Table

#: A place as a results table writes it, a tie marked or not: ``3``, ``T3``, ``=3``, ``3=``;
#: in brackets where a series discards it (``(5)``), a race's place all the same.
_PLACE = re.compile(r"\s*\(?\s*(?:T|=)?\s*(\d{1,4}(?:\.5)?)\s*=?\s*\)?\s*", re.IGNORECASE)
#: A mark in brackets: a discarded race's ``(OCS)``.
_BRACKETED = re.compile(r"^\s*\(\s*([^()]*?)\s*\)\s*$")
#: Titles that name competitors in a results table, beside :data:`COMPETITOR_WORDS`.
_NAMES = frozenset({"name", "names", "fullname", "person"})
#: The largest standings table read as places by column.
_MOST_ROWS, _MOST_COLUMNS = 5000, 300
#: A cell of no place: not taking part (blank, a dash).
_NO_PLACE = frozenset({"", "-", "–", "—"})
#: Titles of a column holding the overall standing or a total, never one event's places.
_STANDING = frozenset({"pos", "position", "rank", "ranking", "place", "pl", "plc", "#", "no",
                       "nr", "number", "num", "pts", "points", "point", "total", "sum", "score",
                       "scores", "overall", "final", "finalrank", "bib", "car", "carno",
                       "grid", "seed", "age", "year", "born", "id"})


def place_columns(table: Table) -> tuple[Table, str | None]:
    """The table as one row a place (``Event``, the competitor, ``Place``) when each of two
    columns or more holds one event's places of the competitors named down a column, with a
    note saying so; else the table as given, and None.

    The column titles are the first row. A column of places holds whole numbers from 1 (a
    tie marked ``T3`` or ``=3``) with each tie skipping the places it takes (``1, 2, 2, 4``;
    a ranking test's mid-ranks ``2.5``), none above the number of rows and one, and marks
    of not finishing (``Ret``, ``DNF``: below every finisher) or not starting (``DNS``, or
    blank: not in that event). The columns of places lie right of the names.
    Only where some row cannot rank the columns (a number above their count, or ties no
    ranking writes: ``2, 2, 3``): where every row could, a row may be a judge's ranks of
    the items in the columns, which the other readers read. Columns of the overall
    standing, a total or an id (``Pos``, ``Pts``, ``Total``, ``Bib``) are left out, and the
    note names them.
    """
    if not 4 <= len(table) <= _MOST_ROWS or not 3 <= table.width <= _MOST_COLUMNS:
        return table, None  # a table of standings: a field of competitors, a season of events
    header = [str(c).strip() for c in table.cells[0]]
    body = table.cells[1:]
    n = len(body)
    name = _name_column(body, header)
    if name is None:
        return table, None
    summed = summary_label(np.asarray(header, dtype=object))
    events = [j for j in range(name + 1, table.width) if header[j] and not summed[j]
              and normalise(header[j]) not in _STANDING and not _id_title(header[j])]

    @functools.cache
    def written(j: int) -> np.ndarray:
        """Column ``j``'s cells as written, read once."""
        return _as_written(body[:, j])

    @functools.cache
    def numbers(j: int) -> np.ndarray:
        """Column ``j``'s places, read once."""
        return _place_numbers(written(j))

    places = [j for j in events if _holds_places(written(j), numbers(j), n)]
    stems = {_stem(header[j]) for j in places}
    if len(places) < 2 or any(_stem(header[k]) in stems or _race_like(written(k), numbers(k))
                              for k in events if k not in places):
        return table, None  # 'R4' beside 'R1' to 'R3' holds no places: not read by halves
    numeric = [j for j in range(table.width)
               if j != name and _only_numbers(body[:, j], numbers(j))]
    if _rows_rank_the_columns(np.stack([numbers(j) for j in numeric], axis=1)):
        return table, None  # read by rows alike: the other readers' table
    # under the competitor's own title where it names one, else as the items
    key = normalise(header[name])
    named = key in _NAMES or role_base(key, COMPETITOR_WORDS) is not None
    # a judge's column ranks the rows as that judge: one ranker a column, else one event
    judged = all(judge_title(header[j]) for j in places)
    if not judged and (judge_title(header[name])
                       or find_roles([header[name]], PREFERENCE_ROLES).get("ranker") == 0):
        return table, None  # rows of who ranked ('Voter'), beside no judges' columns
    rows: list[list[str]] = [["Judge" if judged else "Event",
                              header[name] if named else "item", "Place"]]
    lines = [int(table.lines[0])]
    for j in places:
        for i in range(n):
            cell = str(written(j)[i]).strip()
            if cell not in _NO_PLACE:
                rows.append([header[j], str(body[i, name]).strip(), cell])
                lines.append(int(table.lines[i + 1]))
    others = [header[k] or str(k + 1) for k in range(table.width)
              if k != name and k not in places]
    note = (f"Read each of the columns {quote_list([header[j] for j in places], 3)} as one "
            f"ranking of the '{header[name]}' by place ({plural(len(rows) - 1, 'place')} in all), "
            "1 the best; an item left blank is not in that column's ranking"
            + (f"; left out {quote_list(others, 3)}" if others else ""))
    return Table.from_rows(rows, np.asarray(lines), table.delimiter), note


def _stem(title: str) -> str:
    """A title without its digits: the events ``R1`` and ``R2`` share the stem ``r``."""
    return normalise(re.sub(r"\d+", "", title))


def _name_column(body: np.ndarray, header: list[str]) -> int | None:
    """The first column naming a different competitor on every row: text, never a number."""
    for j in range(min(body.shape[1], 6)):
        cells = pd.Series(body[:, j], dtype=object).astype(str).str.strip()
        key = normalise(header[j])
        if header[j] and key not in _STANDING and not _id_title(header[j]) and (
                cells != "").all() and cells.is_unique and not cells.str.fullmatch(
                r"[\d\s.,:+-]*").any():
            return j
    return None


#: Last words of a title of numbers or codes (``Sail No``, ``SailNo``, ``Driver ID``).
_ID_WORDS = frozenset({"no", "nr", "number", "num", "id", "code", "bib"})


def _id_title(title: str) -> bool:
    """Whether a title names numbers or codes by its last word, also in camel case."""
    words = re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", title.strip())
    words = [w.lower() for w in words if w]
    return bool(words) and words[-1] in _ID_WORDS


#: A series' points beside the code that gave them: ``6.0 DNF`` (the code is the result).
_POINTS_AND_CODE = re.compile(r"^\s*\d+(?:\.\d+)?\s+([A-Za-z]{2,4})\s*$")


def _as_written(cells: np.ndarray) -> np.ndarray:
    """Each cell's result: out of its brackets (a discard), a code without the points given
    for it (``6.0 DNF``: ``DNF``), a place without a decimal zero (``1.0``: ``1``)."""
    return per_distinct(cells, lambda text: _DECIMAL_ZERO.sub(r"\1", _POINTS_AND_CODE.sub(
        r"\1", _BRACKETED.sub(r"\1", text))))


#: A whole number written with a decimal zero: ``1.0``.
_DECIMAL_ZERO = re.compile(r"^\s*(\d+)\.0+\s*$")


def _place_numbers(cells: np.ndarray) -> np.ndarray:
    """Each cell's place as a number; NaN for a mark or a blank."""
    def place(text: str) -> float:
        found = _PLACE.fullmatch(text)
        return float(found[1]) if found else np.nan

    return per_distinct(cells, place, float)


def _only_numbers(cells: np.ndarray, numbers: np.ndarray) -> bool:
    """Whether a column holds places or blanks only, one place at least; ``numbers`` are its
    places read (:func:`_place_numbers`)."""
    blank = per_distinct(cells, lambda text: not text.strip(), bool)
    return bool(np.isfinite(numbers).any() and (np.isfinite(numbers) | blank).all())


def _rows_rank_the_columns(numbers: np.ndarray) -> bool:
    """Whether every row's numbers could rank the columns: none above their count, and
    ties written as places (``1, 1, 3``), as mid-ranks (``1.5, 1.5``) or dense (``1, 1, 2``)."""
    k = numbers.shape[1]
    for row in numbers:
        given = pd.Series(np.sort(row[np.isfinite(row)]))
        if given.empty:
            continue
        distinct = given.unique()
        if given.max() > k or not (
                (given == given.rank(method="min")).all()
                or (given == given.rank(method="average")).all()
                or (distinct == np.arange(1, len(distinct) + 1)).all()):
            return False
    return True


def _race_like(cells: np.ndarray, numbers: np.ndarray) -> bool:
    """Whether a column holds places and marks only, with a 1 or a mark among them: an
    event's results, though not all its places are in the table (a total never holds a
    ``DNF``, nor a 1 beside its larger sums). ``cells`` are as written (:func:`_as_written`),
    ``numbers`` their places."""
    marked = is_out_mark(cells) | is_absent_mark(cells)
    blank = _no_place(cells)
    given = numbers[np.isfinite(numbers)]
    return bool((np.isfinite(numbers) | marked | blank).all()
                and (marked.any() or given.size and given.min() == 1))


def _no_place(cells: np.ndarray) -> np.ndarray:
    """Which cells say the competitor took no part (:data:`_NO_PLACE`)."""
    return per_distinct(cells, lambda text: text.strip() in _NO_PLACE, bool)


def _holds_places(cells: np.ndarray, numbers: np.ndarray, n: int) -> bool:
    """Whether a column holds one event's places: places, marks and blanks only, from 1
    with every tie skipping the places it takes (``1, 2, 2, 4``, or ``2.5, 2.5``), none
    above ``n`` + 1 (a series scores a boat that did not come as the fleet and one).
    ``cells`` are as written (:func:`_as_written`), ``numbers`` their places."""
    marked = is_out_mark(cells) | is_absent_mark(cells) | _no_place(cells)
    given = numbers[np.isfinite(numbers)]
    if not (np.isfinite(numbers) | marked).all() or given.size < 2:
        return False
    if not (given.min() == 1 and given.max() <= n + 1) or len(np.unique(given)) < 2:
        return False  # one number down the whole column places nobody
    # tied places as results write them: '1, 2, 2, 4' (or a ranking test's '2.5, 2.5'),
    # never a score's '1, 2, 4, 4, 5'
    ordered = pd.Series(np.sort(given))
    return bool((ordered == ordered.rank(method="min")).all()
                or (ordered == ordered.rank(method="average")).all())
