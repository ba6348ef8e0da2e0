"""Results printed event by event (a title row, the column titles, the results) as one table."""

from __future__ import annotations

import re

import numpy as np

from .columns import plural, quote_list
from .tables import Table

#: The column given to each section's title.
SECTION_COLUMN = "Event"


def sectioned_results(table: Table) -> tuple[Table, str | None]:
    """The table as one table with an ``Event`` column when it prints its results section
    by section (Hy-Tek's meet results: ``Event 1  Girls 50 Yard Freestyle``, then the
    column titles, then that event's rows), with a note; else as given, and None.

    Sections are found by a row of column titles, the first row wider than a title, that
    comes again, each time just below a row holding one cell (or two, in a table of four
    columns or more: the section's title); the rows above the first section (the meet's
    name) are left out. A section under other column titles (a relay's ``Team``
    for a swimmer's ``Name``) is left out, and the note names it.
    """
    cells = table.cells
    if len(table) < 5 or table.width < 2:
        return table, None
    filled = cells != ""
    counts = filled.sum(axis=1)
    # a title's row: one cell, or two in a wide table ('Event 1', 'Girls 50 Yard Free')
    one_cell = (counts == 1) | ((counts == 2) & (table.width >= 4))
    titled = np.flatnonzero(one_cell[:-1] & (counts[1:] > np.where(
        table.width >= 4, 2, 1))) + 1
    if len(titled) < 2:
        return table, None
    codes, _ = table.factorized
    rows = {int(i): tuple(codes[i]) for i in titled}
    repeats: dict[tuple[int, ...], list[int]] = {}
    for i in rows:
        repeats.setdefault(rows[i], []).append(i)
    header_rows = max(repeats.values(), key=len)
    again = np.flatnonzero((codes == codes[header_rows[0]]).all(axis=1))
    if len(header_rows) < 2 or len(again) != len(header_rows):
        return table, None  # the titles come again without a section's title above them
    if np.flatnonzero(~one_cell & (counts > 0))[0] != header_rows[0]:
        return table, None  # the first table's own titles come first: rows repeat below
    header = [str(c) for c in cells[header_rows[0]]]
    if SECTION_COLUMN.lower() in (h.strip().lower() for h in header):
        return table, None
    # a section under other column titles: a row of titles without a digit in them, two
    # of them the first section's too (a relay's 'Place', 'Finals Time')
    titles = {str(c) for c in cells[header_rows[0]] if str(c)}
    starts = sorted(i for i in rows if i >= header_rows[0] and (
        rows[i] == rows[header_rows[0]] or not any(
            any(ch.isdigit() for ch in str(c)) for c in cells[i][filled[i]])
        and len(titles & {str(c) for c in cells[i][filled[i]]}) >= 2))
    kept_rows: list[list[str]] = [[*header, SECTION_COLUMN]]
    kept_lines = [int(table.lines[header_rows[0]])]
    left_out: list[str] = []
    title = ""
    for k, start in enumerate(starts):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(table)
        title = _section_title(_title_above(cells, filled, one_cell, start), title)
        if rows[start] != rows[header_rows[0]]:
            if title not in left_out:
                left_out.append(title)
            continue
        for i in range(start + 1, end):
            if counts[i] != 1:  # a one-cell row inside a section heads part of it
                kept_rows.append([*map(str, cells[i]), title])
                kept_lines.append(int(table.lines[i]))
    sections = len({row[-1] for row in kept_rows[1:]})
    if sections < 2:
        return table, None  # one event over several pages: the titles again, not sections
    first = _title_above(cells, filled, one_cell, header_rows[0])
    note = (f"Read {plural(sections, 'section')} printed one below the other, each under its "
            f"own title (such as '{first}'), their titles in the column '{SECTION_COLUMN}'")
    if left_out:
        note += (f"; left out {plural(len(left_out), 'section')} under other column titles "
                 f"({quote_list(left_out, 3)})")
    return Table.from_rows(kept_rows, np.asarray(kept_lines), table.delimiter), note


#: A line between a section's title and its column titles that is no title: a record, or
#: the conditions of the race (``Wind: +0.1 m/s``, which two heats can share).
_RECORD = re.compile(r".*\brecords?\b.*|\s*(?:(?:wind|temperature|temp|weather|conditions|"
                     r"humidity)\s*[:=]|wind\s*[+-]?\s*\d).*", re.IGNORECASE)


def _title_above(cells: np.ndarray, filled: np.ndarray, one_cell: np.ndarray, start: int
                 ) -> str:
    """The title of the section whose column titles are row ``start``: of the title rows
    just above, the nearest that is no record or conditions line (``Pool Record: 26.10``,
    ``Wind: +0.1 m/s``), its cells joined."""
    i = start - 1
    while i > 0 and one_cell[i] and _RECORD.fullmatch(" ".join(map(str, cells[i][filled[i]]))) \
            and one_cell[i - 1]:
        i -= 1
    return " ".join(str(c) for c in cells[i][filled[i]])


#: A section's title that continues the one before: its name with ``(continued)``, or a
#: page's number (``Page 2``, ``Page 2 of 3``).
_CONTINUED = re.compile(r"\s*[(\[]?\s*(?:continued|cont(?:'d|\.)?)\s*[)\]]?\s*$", re.IGNORECASE)
_PAGE = re.compile(r"\s*page\s*\d+(?:\s*(?:of|/)\s*\d+)?\s*", re.IGNORECASE)


def _section_title(text: str, before: str) -> str:
    """The event a section's title names: the section before's, where the title only says
    it goes on (``... (continued)``, ``Page 2``)."""
    if before and _PAGE.fullmatch(text):
        return before
    return _CONTINUED.sub("", text).strip() or before
