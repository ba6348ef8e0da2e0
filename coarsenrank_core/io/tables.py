"""Text to a table of cells: the separator, the fast and slow CSV parses, chunks of lines."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import ID_DTYPE

# ---------------------------------------------------------------------------- text -> table
DELIMITERS = (",", ";", "\t")
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}
MAX_COLUMNS = 20_000
HEAD_BYTES = 65536  # layouts and separators are recognised from the first 64 KB
_HEAD_RECORDS = 3   # records whose exact number of fields is kept (the header rows)


def scalar_text(value: object) -> str | None:
    """A boolean or float cell as the CSV reader would see it (``TRUE``/``FALSE``; integral
    floats without ``.0``); ``None`` for any other type."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 2 ** 53:
            return str(int(value))
        return repr(value)
    return None


@dataclass(frozen=True, eq=False)
class Table:
    """The non-blank records of a table, as a matrix of stripped text cells.

    Attributes
    ----------
    cells : numpy.ndarray of object, shape (n_records, width)
        The cells, ``""`` where a record is shorter than the widest one.
    lines : numpy.ndarray of int
        The 1-based line (or sheet row, or JSON record) each record starts on.
    delimiter : str
        The separator of a text file.
    head_widths : tuple of int
        The number of fields of each of the first records (a header's own width).
    """

    cells: np.ndarray
    lines: np.ndarray
    delimiter: str
    head_widths: tuple[int, ...] = ()

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str]], lines: Sequence[int] | np.ndarray,
                  delimiter: str) -> Table:
        """A table from Python lists of cells (small inputs: JSON, truth files, fallbacks)."""
        return cls.from_flat([cell for row in rows for cell in row], [len(r) for r in rows],
                             lines, delimiter)

    @classmethod
    def from_flat(cls, values: Sequence[str], widths: Sequence[int],
                  lines: Sequence[int] | np.ndarray, delimiter: str) -> Table:
        """A table of the records whose cells are ``values``, one record after another,
        ``widths[i]`` cells for record ``i`` (a long sheet's values kept without a list per
        record); shorter records are padded with ""."""
        counts = np.asarray(widths, dtype=np.int64)
        n, width = len(counts), int(counts.max(initial=0))
        flat = np.empty(len(values), dtype=object)
        flat[:] = values
        if n and int(counts.min()) == width:  # every record as wide (the usual table)
            cells = flat.reshape(n, width)
        else:
            cells = np.full((n, width), "", dtype=object)
            starts = np.cumsum(counts) - counts
            cells[np.repeat(np.arange(n), counts),
                  np.arange(len(flat)) - np.repeat(starts, counts)] = flat
        return cls(cells, np.asarray(lines, dtype=np.int64), delimiter,
                   tuple(int(w) for w in counts[:_HEAD_RECORDS]))

    @property
    def width(self) -> int:
        return int(self.cells.shape[1])

    def __len__(self) -> int:
        return int(self.cells.shape[0])

    @cached_property
    def factorized(self) -> tuple[np.ndarray, np.ndarray]:
        """Every cell's code and the distinct cells: ``cells == uniques[codes]`` (hashed once)."""
        codes, uniques = pd.factorize(self.cells.ravel())
        if len(uniques) < np.iinfo(np.int32).max:  # kept with the table: half the bytes
            codes = codes.astype(np.int32)
        return codes.reshape(self.cells.shape), np.asarray(uniques, dtype=object)

    def row(self, i: int) -> list[str]:
        """Record ``i`` as a list: its own fields for the first records, else to its last cell."""
        cells = self.cells[i]
        if i < len(self.head_widths):
            return list(cells[:self.head_widths[i]])
        filled = np.flatnonzero(cells != "")
        return list(cells[:filled[-1] + 1]) if filled.size else []

    @property
    def rows(self) -> list[list[str]]:
        """Every record as a list (for small tables only)."""
        return [self.row(i) for i in range(len(self))]

    def column(self, j: int, start: int = 0) -> np.ndarray:
        """The cells of column ``j`` from record ``start`` on (``""`` beyond a record's end)."""
        if j >= self.width:
            return np.full(max(len(self) - start, 0), "", dtype=object)
        return self.cells[start:, j]


def csv_records(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    out, start = [], 1
    try:
        for record in reader:
            out.append((start, record))
            start = reader.line_num + 1
    except csv.Error as exc:
        reason = ("a cell is extremely long, which usually means a quote mark (\") was opened "
                  "and never closed" if "field larger" in str(exc)
                  else f"the cells could not be separated ({exc})")
        raise PreferenceFormatError(f"The file could not be read here: {reason}.", row=start,
                                    fix="Check the quote marks on this row.") from None
    return out


def _nonblank(records: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    return [(line, r) for line, r in records if any(c.strip() for c in r)]


def choose_delimiter(head: str) -> str:
    """The separator that splits most records of the file's head into several cells.

    A vertical bar separates only where no comma, semicolon or tab is present, no '>' list
    is written, and it splits every record of the head into two or more cells; elsewhere a
    bar ties items inside a cell (``A|B``).
    """
    if _bar_separated(head):
        return "|"
    candidates = [d for d in DELIMITERS if d in head] or [","]
    if len(candidates) == 1:
        return candidates[0]
    nonblank = {d: _nonblank(csv_records(head, d)) for d in candidates}

    def score(d: str) -> tuple[int, bool, int]:
        recs = nonblank[d]
        used = sum(len(r) > 1 for _, r in recs)
        return used, bool(recs) and len(recs[0][1]) > 1, -DELIMITERS.index(d)

    return max(candidates, key=score)


def _bar_separated(head: str) -> bool:
    if "|" not in head or ">" in head or any(d in head for d in DELIMITERS):
        return False
    widths = [len(r) for _, r in _nonblank(csv_records(head, "|"))]
    return bool(widths) and min(widths) >= 2


def _mixed_delimiter_error(line: int, found: str, used: str) -> PreferenceFormatError:
    return PreferenceFormatError(
        f"This row separates its values with {DELIMITER_NAMES[found]}, but the rest "
        f"of the file uses {DELIMITER_NAMES[used]}.", row=line,
        fix="Use the same separator on every row (saving the file again from a "
            "spreadsheet program as CSV does this).")


def multiline_item_error(table: Table, name: str) -> PreferenceFormatError:
    """The refusal of an item named over several lines (``name``): a list typed with line
    breaks in one cell, named at the first cell of ``table`` that holds its first line."""
    first = re.split(r"[\r\n]", name, maxsplit=1)[0]
    found = []  # (row, column) of the first such cell of each column
    for j in range(table.cells.shape[1]):
        column = pd.Series(table.cells[:, j], dtype=object).astype(str)
        hits = np.flatnonzero((column.str.contains(r"[\r\n]", regex=True)
                               & column.str.contains(first, regex=False)).to_numpy())
        if hits.size:
            found.append((int(hits[0]), j))
    i, j = min(found, default=(0, 0))
    title = str(table.cells[0, j]) if i and table.cells[0, j] else str(j + 1)
    return multiline_error(int(table.lines[i]), title, True)


def multiline_error(line: int, column: str, quotes_balanced: bool) -> PreferenceFormatError:
    """A cell over several lines: a list typed with line breaks in one cell when every
    quote mark of the file is closed, else a quote mark opened and never closed."""
    if quotes_balanced:
        return PreferenceFormatError(
            "This cell holds several lines (such as a list typed with Alt+Enter); a line "
            "break inside a cell is not read as a separator between items.", row=line,
            column=column,
            fix="Write the ranking on one line with '>' between the items, best first, such "
                "as 'Rome > Paris > London', or give each item its own column.")
    return PreferenceFormatError(
        "A cell runs over several lines, which usually means a quote mark (\") was "
        "opened and never closed.", row=line, column=column,
        fix="Close the quote, or remove the stray quote mark.")


def split_table(text: str) -> Table:
    """Split text into cells, choosing comma, semicolon or tab as the separator.

    The separator is chosen on the first 64 KB; the whole text is then parsed once by
    pandas' C parser. Files whose records span several lines, or that the C parser
    refuses, are read by the csv module instead, which says where the problem is.
    """
    if "\n" not in text and "\r" in text:
        text = text.replace("\r", "\n")
    head = text[:HEAD_BYTES]
    if len(text) > HEAD_BYTES and "\n" in head:
        head = head[:head.rindex("\n") + 1]
    return split_with(text, choose_delimiter(head))


def split_with(text: str, delimiter: str) -> Table:
    """Split text into cells at ``delimiter``: pandas' C parser when every record is one
    line, else the csv module, which says where a record runs over several lines."""
    table = split_fast(text, delimiter)
    if table is None:
        table = _split_slow(text, delimiter)
    _check_single_cells(table, text)
    return table


#: Files this wide and with at most this many cells are read by the csv module.
_WIDE, _FEW_CELLS = 1000, 2_000_000


def refuse_wide_row(width: int, row: int, separated: str = "") -> None:
    """Refuse row ``row``, of ``width`` values (``separated`` says by what), wider than
    :data:`MAX_COLUMNS`."""
    raise PreferenceFormatError(
        f"This row holds {width:,} values{separated}; at most {MAX_COLUMNS:,} columns can be "
        "read.", row=row,
        fix="Put one ranking per row with at most that many items, or use the long layout "
            "(ranker, item, rank), which has no such limit.")


def split_fast(text: str, delimiter: str) -> Table | None:
    """Parse with pandas' C engine when every record is one line; None otherwise."""
    if text.count("\r") != text.count("\r\n"):
        return None  # a lone carriage return ends a record to the C parser, not a line here
    data = text.encode("utf-8", "surrogatepass")
    encoded = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(encoded == 10)
    n_lines = newlines.size + (0 if text.endswith("\n") or not text else 1)
    if n_lines == 0:
        return Table.from_rows([], [], delimiter)
    per_line = _marks_per_line(encoded, newlines, n_lines, delimiter)
    width = int(per_line.max()) + 1
    if width > MAX_COLUMNS:
        refuse_wide_row(width, int(np.argmax(per_line)) + 1,
                        f" separated by {DELIMITER_NAMES[delimiter]}")
    refuse_padded_grid(per_line + 1, width)
    if width >= _WIDE and n_lines * width <= _FEW_CELLS:
        return None  # the C parser pays per column: 1.5 s for 20,000 columns, the csv module 0.08
    padding = _has_padding(text, encoded, delimiter)
    # a line can be blank only if it holds nothing but separators (and a carriage return)
    lengths = np.diff(np.r_[-1, newlines, encoded.size if n_lines > newlines.size else -1])
    maybe_blank = np.flatnonzero(lengths[:n_lines] - 1 <= per_line + 1) if not padding \
        else None
    del encoded, newlines, lengths
    try:
        # a record wider than any line (a quoted line break) is an error to the C parser,
        # or, as the first record, makes its first cells an index. The UTF-8 bytes, not the
        # text: a StringIO holds four bytes a character. (The C parser makes one text object
        # per distinct cell, so the cells of a column that repeats share their objects.)
        frame = pd.read_csv(io.BytesIO(data), sep=delimiter, header=None, names=range(width),
                            dtype=object, na_filter=False, keep_default_na=False,
                            skip_blank_lines=False, engine="c", quotechar='"',
                            doublequote=True, encoding="utf-8")
    except (pd.errors.ParserError, ValueError, MemoryError):
        return None
    del data
    if len(frame) != n_lines or not isinstance(frame.index, pd.RangeIndex):
        return None
    cells = frame.to_numpy(dtype=object)
    del frame
    if '"' in text or padding:
        cells = _strip(cells)
    quoted = '"' in text
    if quoted and any(_contains(cells, c) for c in ("\n", "\r")):
        return None
    keep = np.ones(len(cells), dtype=bool)
    if maybe_blank is None or quoted:  # a record of quoted blanks ('""') is blank as well
        keep = (cells != "").any(axis=1)
    elif maybe_blank.size:
        keep[maybe_blank] = (cells[maybe_blank] != "").any(axis=1)
    lines = np.flatnonzero(keep) + 1
    if not keep.all():
        cells = cells[keep]
    widths = _head_widths(text, delimiter, min(int(keep.sum()), _HEAD_RECORDS))
    return without_blank_end_columns(Table(cells, lines.astype(np.int64), delimiter, widths))


def without_blank_end_columns(table: Table) -> Table:
    """``table`` without its last columns that are blank on every row, except those the
    first records' own widths hold (a header's titles)."""
    cells = table.cells
    last = cells.shape[1]
    while last and not (cells[:, last - 1] != "").any():
        last -= 1
    last = max(last, *table.head_widths, 0)
    if last == cells.shape[1]:
        return table
    return Table(np.ascontiguousarray(cells[:, :last]), table.lines, table.delimiter,
                 table.head_widths)


CHUNK_CHARACTERS = 1 << 22
"""Characters of text parsed at a time by the line-based fast paths (PrefLib, BLT): the
temporaries of one chunk stay in the tens of megabytes whatever the file's size."""


def line_chunks(text: str, start: int = 0, stop: int | None = None,
                size: int = CHUNK_CHARACTERS) -> Iterator[tuple[str, int]]:
    """Split ``text[start:stop]`` at line ends into pieces of about ``size`` characters.

    Yields ``(piece, lines_before)``: each piece ends with a newline (except perhaps the
    last), and ``lines_before`` is the number of lines between ``start`` and the piece.
    Only one piece is copied at a time.
    """
    stop = len(text) if stop is None else stop
    before = 0
    while start < stop:
        end = text.find("\n", min(start + size, stop) - 1, stop)
        end = stop if end < 0 else end + 1
        piece = text[start:end]
        yield piece, before
        before += piece.count("\n")
        start = end


def rows_in_chunks(text: str, start: int, stop: int | None,
                   parse: Callable[[str], tuple[np.ndarray, ...] | None]
                   ) -> tuple[np.ndarray, ...] | None:
    """Parse ``text[start:stop]`` a chunk of lines at a time and join the pieces.

    ``parse(piece)`` gives, for the rows of one chunk, ``(weights, row, group, number,
    lines)``: a weight per row, then per entry its row (from 0 in the chunk), tied group
    and number, and each row's 1-based line in the chunk; or None, which stops the whole
    parse (None is returned). The joined rows are numbered on, and their lines counted from
    ``start``, across chunks; None as well when no chunk holds a row.
    """
    columns: tuple[list[np.ndarray], ...] = ([], [], [], [], [])
    rows = 0
    for piece, before in line_chunks(text, start, stop):
        if not piece.strip():
            continue
        parsed = parse(piece)
        if parsed is None:
            return None
        weights, row, group, number, lines = parsed
        for column, value in zip(columns, (weights, (row + rows).astype(ID_DTYPE),
                                           group.astype(ID_DTYPE, copy=False), number,
                                           lines + before)):
            column.append(value)
        rows += weights.size
    if not rows:
        return None
    return tuple(joined(column) for column in columns)


def joined(pieces: list[np.ndarray]) -> np.ndarray:
    """The pieces as one array; the list is emptied, so each piece is freed once copied."""
    out = np.concatenate(pieces)
    pieces.clear()
    return out


def _marks_per_line(encoded: np.ndarray, newlines: np.ndarray, n_lines: int,
                    delimiter: str) -> np.ndarray:
    """How many ``delimiter`` bytes each of the ``n_lines`` lines holds (one pass)."""
    if not n_lines:
        return np.zeros(0, dtype=np.int64)
    starts = np.r_[0, newlines + 1][:n_lines]  # strictly increasing: a line holds its "\n"
    if encoded.size <= _PADDING_BYTES:
        return np.add.reduceat(encoded == ord(delimiter), starts, dtype=np.int64)
    # a few megabytes of lines at a time: reduceat's int64 copy of a whole file's mask
    # would take eight bytes per byte of the file
    out = np.empty(n_lines, dtype=np.int64)
    cuts = np.searchsorted(starts, np.arange(0, encoded.size, _PADDING_BYTES))
    cuts = np.unique(np.r_[cuts, n_lines])
    for first, stop in zip(cuts[:-1], cuts[1:]):
        begin = starts[first]
        end = starts[stop] if stop < n_lines else encoded.size
        out[first:stop] = np.add.reduceat(encoded[begin:end] == ord(delimiter),
                                          starts[first:stop] - begin, dtype=np.int64)
    return out


#: Most cells a table's grid may hold once every row is padded to the widest (a workbook's
#: sheet too).
MAX_GRID_CELLS = 20_000_000
#: Beyond that, the padding may be at most this many times the cells the rows hold.
GRID_WASTE = 4


def refuse_padded_grid(widths: np.ndarray, width: int) -> None:
    """Refuse rows of ``widths`` values that, padded to the widest (``width``), would make a
    grid of more than :data:`MAX_GRID_CELLS` cells mostly of padding: one row far wider than
    the rest, which would take memory out of all proportion to the file."""
    widths = np.asarray(widths, dtype=np.int64)
    grid = int(widths.size) * int(width)
    if grid <= MAX_GRID_CELLS or grid <= GRID_WASTE * int(widths.sum()):
        return
    line = int(np.argmax(widths)) + 1
    raise PreferenceFormatError(
        f"This row holds {width:,} values, while the rows hold "
        f"{int(np.median(widths)):,} in the middle: read as one table, every row would be "
        f"padded to {width:,} columns, {grid:,} cells, more than the {MAX_GRID_CELLS:,} that "
        "can be read.", row=line,
        fix="Split that row into rows of the usual length, or use the long layout "
            "(ranker, item, rank), which has no such limit.")


def numeric_rows(text: str, delimiter: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows of numbers as a float matrix (NaN where a cell is blank) and each row's line.

    No text object is made per cell. None when a cell is not a number, a quote appears, or
    a row is wider than :data:`MAX_COLUMNS`.
    """
    if '"' in text:
        return None
    encoded = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    newlines = np.flatnonzero(encoded == 10)
    n_lines = newlines.size + (0 if text.endswith("\n") else 1)
    per_line = _marks_per_line(encoded, newlines, n_lines, delimiter)
    width = int(per_line.max(initial=0)) + 1
    del encoded
    if not n_lines or width > MAX_COLUMNS:
        return None
    refuse_padded_grid(per_line + 1, width)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, names=range(width),
                            dtype=float, skip_blank_lines=False, skipinitialspace=True,
                            engine="c", index_col=False)
    except (pd.errors.ParserError, ValueError, TypeError, MemoryError):
        return None
    if len(frame) != n_lines:
        return None
    values = frame.to_numpy(dtype=float)
    keep = ~np.isnan(values).all(axis=1)
    return values[keep], (np.flatnonzero(keep) + 1).astype(np.int64)


def _head_widths(text: str, delimiter: str, count: int) -> tuple[int, ...]:
    """The exact number of fields of the first ``count`` non-blank records."""
    head = "\n".join(text[:HEAD_BYTES].split("\n", 50)[:50])
    records = _nonblank(csv_records(head, delimiter))[:count]
    return tuple(len(r) for _, r in records)


_PADDING_BYTES = 1 << 22


def _has_padding(text: str, encoded: np.ndarray, delimiter: str) -> bool:
    """Whether some cell may start or end with white space (ASCII text: a few megabytes
    of the bytes at a time, so the masks stay small whatever the file's size)."""
    if text.isascii():
        blanks = [32] + [ord(c) for c in "\t\x0b\x0c" if c != delimiter]
        stops = [ord(delimiter), 10, 13]
        for start in range(0, max(encoded.size, 1), _PADDING_BYTES):
            piece = encoded[max(start - 1, 0):start + _PADDING_BYTES]
            spaces, edges = np.isin(piece, blanks), np.isin(piece, stops)
            if (start == 0 and spaces[:1].any()) or (spaces[1:] & edges[:-1]).any() or (
                    spaces[:-1] & edges[1:]).any():
                return True
        return bool(encoded.size) and int(encoded[-1]) in blanks
    space = r"[^\S\n\t]" if delimiter == "\t" else r"[^\S\n]"
    sep = re.escape(delimiter)
    return re.search(rf"{space}(?:{sep}|\n|\Z)|(?:\A|{sep}|\n){space}", text) is not None


def _strip(cells: np.ndarray) -> np.ndarray:
    """The cells without surrounding white space; equal cells still share one object (each
    distinct cell of a column is stripped once)."""
    out = np.empty_like(cells)
    for j in range(cells.shape[1]):
        codes, uniques = pd.factorize(cells[:, j])
        stripped = pd.Series(uniques, dtype=object).str.strip().to_numpy(dtype=object)
        out[:, j] = stripped[codes] if stripped.size else cells[:, j]
    return out


def _contains(cells: np.ndarray, character: str) -> bool:
    return any(pd.Series(cells[:, j], dtype=object).str.contains(character, regex=False).any()
               for j in range(cells.shape[1]))


def _split_slow(text: str, delimiter: str) -> Table:
    """The csv module's reading, record by record, with the line each record starts on."""
    rows: list[list[str]] = []
    lines = []
    balanced = text.count('"') % 2 == 0
    for line, record in _nonblank(csv_records(text, delimiter)):
        cells = [c.strip() for c in record]
        for j, cell in enumerate(cells):
            # a quoted cell over several lines (a comment, a question's text) is kept: the
            # read refuses it only where it would name an item (multiline_item_error)
            if not balanced and ("\n" in cell or "\r" in cell):
                title = rows[0][j] if rows and j < len(rows[0]) and rows[0][j] else str(j + 1)
                raise multiline_error(line, title, False)
        rows.append(cells)
        lines.append(line)
    return Table.from_rows(rows, lines, delimiter)


def _check_single_cells(table: Table, text: str) -> None:
    """Refuse a row that uses another separator than the rest of the file."""
    others = [d for d in DELIMITERS if d != table.delimiter and d in text]
    if not others or not len(table):
        return
    single = (table.cells[:, 1:] == "").all(axis=1) if table.width > 1 else np.ones(
        len(table), dtype=bool)
    if table.head_widths:
        single[:len(table.head_widths)] &= np.asarray(table.head_widths) <= 1
    if not single.any():
        return
    first = pd.Series(table.cells[single, 0], dtype=object)
    for d in others:
        hits = np.flatnonzero(first.str.contains(d, regex=False).to_numpy())
        if hits.size:
            raise _mixed_delimiter_error(int(table.lines[single][hits[0]]), d,
                                         table.delimiter)


def padded(table: Table, header: list[str], start: int) -> np.ndarray:
    """Data rows as an object array of the header's width; longer rows are an error."""
    width = len(header)
    cells = table.cells[start:]
    if cells.shape[1] > width:
        extra = np.argwhere(cells[:, width:] != "")
        if extra.size:
            i, k = extra[0]
            filled = np.flatnonzero(cells[i] != "")
            raise PreferenceFormatError(
                f"This row has {int(filled[-1]) + 1} values but the header names only "
                f"{width} columns (the extra value is '{cells[i, width + k]}').",
                row=int(table.lines[start + i]), column=str(width + k + 1),
                fix="Remove the extra values, or put quote marks around names that contain "
                    f"{DELIMITER_NAMES.get(table.delimiter, 'separators')}.")
        return cells[:, :width]
    if cells.shape[1] == width:
        return cells
    out = np.full((cells.shape[0], width), "", dtype=object)
    out[:, :cells.shape[1]] = cells
    return out

