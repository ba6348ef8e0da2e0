"""Containers of tables: Excel workbooks and JSON (lines) become the same tables of text cells."""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime, time
from functools import partial
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError, check_stop
from .columns import is_float_text
from .sheet_scan import NotCanonical, Readable, pad_row, scan_sheet, take_back_row
from .tables import (
    GRID_WASTE,
    MAX_COLUMNS,
    MAX_GRID_CELLS,
    Table,
    refuse_padded_grid,
    refuse_wide_row,
    scalar_text,
    without_blank_end_columns,
)

__all__ = ["is_workbook", "sheet_names", "workbook_table", "check_archive", "interruptible",
           "clear_workbook_cache", "looks_json", "json_table", "WORKBOOK_EXTENSIONS",
           "JSON_EXTENSIONS"]

WORKBOOK_EXTENSIONS = (".xlsx", ".xlsm")
JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")
_MAX_SHEET_CELLS = MAX_GRID_CELLS  # a sheet, padding counted, as a text table

#: The dashboard's upload limit (``server.maxUploadSize`` in ``.streamlit/config.toml``); the
#: budgets of a workbook's parts are tied to it.
UPLOAD_LIMIT_BYTES = 50 * 2 ** 20
#: Largest uncompressed size of one part of a workbook, and of all parts together: 4× the
#: upload limit (a 1 M-row sheet of three columns is about 130 MB of XML).
MAX_PART_BYTES = 4 * UPLOAD_LIMIT_BYTES
MAX_ARCHIVE_BYTES = 4 * UPLOAD_LIMIT_BYTES
#: Largest uncompressed size of the shared strings, which are all read to open a workbook.
MAX_SHARED_STRINGS_BYTES = UPLOAD_LIMIT_BYTES
#: Largest ratio of a part's uncompressed to its compressed size (sheets Excel writes compress
#: 5-30×); parts under :data:`RATIO_FREE_BYTES` are not held to it.
MAX_COMPRESSION_RATIO = 100
RATIO_FREE_BYTES = 2 ** 20
MAX_PARTS = 10_000
#: Blank cells and rows a sheet may hold: at most ``BLANK_CELLS_FACTOR`` × its cells with
#: values plus ``BLANK_CELLS_SLACK`` (the "declared versus present" rule for cells).
BLANK_CELLS_FACTOR, BLANK_CELLS_SLACK = 10, 1_000_000
#: Excel's own grid: 1,048,576 rows and 16,384 columns (XFD).
MAX_SHEET_ROW, MAX_SHEET_COLUMN = 1_048_576, 16_384


def is_workbook(data: bytes) -> bool:
    """Whether ``data`` is a zipped Office Open XML workbook."""
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name.startswith("xl/") for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


# ------------------------------------------------------------------ stopping a long reading
#: The reading's (should_stop, progress) hooks, set by :func:`interruptible`
_Hooks = tuple[Callable[[], bool] | None, Callable[[float, int], None] | None]
_HOOKS: ContextVar[_Hooks] = ContextVar("reading_hooks", default=(None, None))


@contextmanager
def interruptible(should_stop: Callable[[], bool] | None,
                  progress: Callable[[float, int], None] | None = None) -> Iterator[None]:
    """Let readings started inside the block report progress and end early.

    A workbook's sheet is read a megabyte of XML at a time; between two, the reading calls
    ``progress(done, total)`` (megabytes unpacked so far and in all) and ``should_stop()``,
    and raises :class:`~coarsenrank_core.errors.Cancelled` once the latter answers True.

    Parameters
    ----------
    should_stop : callable or None
        Answers True when the reading should end (the user pressed Stop, the tab closed).
    progress : callable, optional
        Told how far the reading got, as the engine's long fits tell it.
    """
    token = _HOOKS.set((should_stop, progress))
    try:
        yield
    finally:
        _HOOKS.reset(token)


# ------------------------------------------------------------------ the zip's budget
def _mb(size: int) -> str:
    return f"{size / 2 ** 20:,.1f} MB"


def check_archive(data: bytes) -> None:
    """Refuse a workbook whose parts would unpack beyond the budgets, before any is parsed.

    Each part's uncompressed size, the total, the shared strings' size and each part's
    compression ratio are read from the zip's directory. Python's ``zipfile`` never unpacks
    more than a part declares (and checks its CRC), so the declared sizes bound the work.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise PreferenceFormatError(
            f"The Excel workbook could not be opened ({type(exc).__name__}).",
            fix="Open it in Excel and save it again, or save the sheet as CSV.") from None
    fix = "Save the sheet as CSV (File > Save As > CSV), which has no such limit."
    if len(parts) > MAX_PARTS:
        raise PreferenceFormatError(
            f"The workbook holds {len(parts):,} parts; at most {MAX_PARTS:,} are read.", fix=fix)
    total = 0
    for part in parts:
        size, packed = part.file_size, part.compress_size
        total += size
        if size > MAX_PART_BYTES:
            raise PreferenceFormatError(
                f"The workbook's part '{part.filename}' unpacks to {_mb(size)}; at most "
                f"{_mb(MAX_PART_BYTES)} are read.", fix=fix)
        if part.filename.lower().endswith("sharedstrings.xml") and (
                size > MAX_SHARED_STRINGS_BYTES):
            raise PreferenceFormatError(
                f"The workbook's texts (its shared strings) unpack to {_mb(size)}; at most "
                f"{_mb(MAX_SHARED_STRINGS_BYTES)} are read.", fix=fix)
        if size > RATIO_FREE_BYTES and size > MAX_COMPRESSION_RATIO * max(packed, 1):
            raise PreferenceFormatError(
                f"The workbook's part '{part.filename}' unpacks {size / max(packed, 1):,.0f} "
                f"times larger than it is stored ({_mb(packed)} to {_mb(size)}); workbooks "
                f"that unpack more than {MAX_COMPRESSION_RATIO}× are refused as "
                "compression bombs.", fix=fix)
    if total > MAX_ARCHIVE_BYTES:
        raise PreferenceFormatError(
            f"The workbook unpacks to {_mb(total)}; at most {_mb(MAX_ARCHIVE_BYTES)} are read.",
            fix=fix)


# ------------------------------------------------------------------ opening, once per upload
_CACHE_LOCK = threading.Lock()
K = TypeVar("K")
V = TypeVar("V")
# digest -> open read-only workbook (or the refusal of opening it)
_BOOKS: OrderedDict[str, _OpenBook | PreferenceFormatError] = OrderedDict()
# (digest, sheet title) -> (Table, None) or (None, error)
_TABLES: OrderedDict[tuple[str, str], tuple[Table | None, PreferenceFormatError | None]] = \
    OrderedDict()
_BOOK_ENTRIES, _TABLE_ENTRIES = 2, 2


def _remember(cache: OrderedDict[K, V], key: K, value: V, entries: int) -> None:
    """Keep ``value``; the oldest entries beyond ``entries`` are forgotten (a forgotten
    workbook is not closed: another reading may still use it, and it holds no file)."""
    with _CACHE_LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > entries:
            cache.popitem(last=False)


def _recall(cache: OrderedDict[K, V], key: K) -> V | None:
    with _CACHE_LOCK:
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
        return value


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _again(error: PreferenceFormatError) -> PreferenceFormatError:
    """A fresh copy of a remembered refusal (raising the same object again would keep
    every earlier traceback alive)."""
    return PreferenceFormatError(error.reason, row=error.row, column=error.column,
                                 fix=error.fix)


def _workbook(data: bytes, digest: str | None = None) -> _OpenBook:
    """The read-only workbook of ``data``, opened once (the zip's budget checked first)."""
    digest = digest or _digest(data)
    book = _recall(_BOOKS, digest)
    if book is not None:
        if isinstance(book, PreferenceFormatError):
            raise _again(book)
        return book
    try:
        import openpyxl  # noqa: F401
    except ImportError:  # pragma: no cover - openpyxl is in requirements.txt
        raise PreferenceFormatError(
            "Reading Excel workbooks needs the openpyxl package, which is not installed.",
            fix="Install it (pip install openpyxl), or save the sheet as CSV.") from None
    try:
        check_archive(data)
        try:
            book = _OpenBook(data)
        except Exception as exc:  # noqa: BLE001 - any damage to the archive
            raise PreferenceFormatError(
                f"The Excel workbook could not be opened ({type(exc).__name__}).",
                fix="Open it in Excel and save it again, or save the sheet as CSV.") from None
    except PreferenceFormatError as error:
        _remember(_BOOKS, digest, error, _BOOK_ENTRIES)
        raise
    _remember(_BOOKS, digest, book, _BOOK_ENTRIES)
    return book


class _OpenBook:
    """A workbook opened for reading its sheets: the names, texts, date styles and parts.

    openpyxl's own ``load_workbook`` also reads every sheet in full to find its size when
    the sheet does not declare one; this reads only the workbook's directory, its shared
    strings and its styles, and leaves each sheet to :func:`_sheet_table`.
    """

    def __init__(self, data: bytes):
        from openpyxl.reader.excel import ExcelReader
        from openpyxl.styles.stylesheet import apply_stylesheet

        reader = ExcelReader(io.BytesIO(data), read_only=True, data_only=True)
        try:
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            apply_stylesheet(reader.archive, reader.wb)
            sheets = list(reader.parser.find_sheets())
            self.parts = {str(sheet.name): rel.target for sheet, rel in sheets
                          if rel.target in reader.valid_files and "chartsheet" not in rel.Type}
            hidden = {str(sheet.name) for sheet, _ in sheets
                      if sheet.state in ("hidden", "veryHidden")}
        except BaseException:
            reader.archive.close()
            raise
        # the sheets Excel shows come first: a hidden sheet (the options of a drop-down
        # list) is never the one read by default
        self.sheetnames = sorted(self.parts, key=lambda name: name in hidden)
        self.archive = reader.archive
        self.shared_strings = reader.shared_strings
        # each shared string's cell text, worked out the first time a cell uses it
        self.shared_texts: list[str | None] = [None] * len(self.shared_strings)
        self.epoch = reader.wb.epoch
        self.date_formats = reader.wb._date_formats
        self.timedelta_formats = reader.wb._timedelta_formats

    def close(self) -> None:
        self.archive.close()


def clear_workbook_cache() -> None:
    """Forget the workbooks opened and the sheets parsed so far."""
    with _CACHE_LOCK:
        for book in _BOOKS.values():
            if not isinstance(book, PreferenceFormatError):
                book.close()
        _BOOKS.clear()
        _TABLES.clear()


def sheet_names(data: bytes) -> tuple[str, ...]:
    """The names of a workbook's sheets, in order, the hidden ones last (no sheet is
    parsed)."""
    return tuple(_workbook(data).sheetnames)


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    scalar = scalar_text(value)
    if scalar is not None:
        return scalar
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (date, time)):
        return value.isoformat()
    return str(value).strip()


def workbook_table(data: bytes, sheet: str | int | None = None) -> tuple[Table, str]:
    """The cells of one sheet as text (by default the first sheet Excel shows), and its name.

    The workbook is opened once and each sheet parsed once per content (a small cache keeps
    the last few), so detecting the layout, offering the columns and reading the file share
    one parse. The sheet is streamed cell by cell: its declared dimensions are ignored, rows
    are never padded, and every cell met (blank ones too) counts toward the cell limit.
    """
    digest = _digest(data)
    book = _workbook(data, digest)
    names = book.sheetnames
    position = 0 if sheet is None else sheet
    if isinstance(position, int):
        if not 0 <= position < len(names):
            raise PreferenceFormatError(
                f"The workbook has {len(names)} sheet(s); there is no sheet "
                f"{position + 1}.",
                fix="Choose one of: " + ", ".join(f"'{n}'" for n in names) + ".")
        title = str(names[position])
    else:
        title = str(position)
    if title not in names:
        raise PreferenceFormatError(
            f"The workbook has no sheet called '{title}'.",
            fix="Choose one of: " + ", ".join(f"'{n}'" for n in names) + ".")
    known = _recall(_TABLES, (digest, title))
    if known is None:
        try:
            known = (_sheet_table(book, title), None)
        except PreferenceFormatError as refusal:  # a slow refusal is not repeated either
            known = (None, refusal)
        _remember(_TABLES, (digest, title), known, _TABLE_ENTRIES)
    table, failure = known
    if failure is not None:
        raise _again(failure)
    assert table is not None  # a remembered sheet is a table or a refusal
    return table, title


_CHUNK_BYTES = 1 << 20  # XML fed to the parser at a time (the reading may stop in between)
_DIGITS = "0123456789"
_XML_FIX = "Open it in Excel and save it again, or save the sheet as CSV."
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#: The elements this reader acts on, as expat names them in the main namespace
#: (``namespace}local``), by local name.
_ELEMENTS = {local: f"{_MAIN}}}{local}" for local in ("c", "v", "row", "t", "rPh", "sheetData")}


class _ElementCodes(dict[str, str]):
    """Element name (``namespace}local``) → the :data:`_ELEMENTS` name of its local name
    (the same object, whatever the namespace), or "" for an element this reader ignores."""

    def __missing__(self, name: str) -> str:
        self[name] = code = _ELEMENTS.get(name.rpartition("}")[2], "")
        return code


def _attribute(attributes: list[str], name: str) -> str | None:
    """The value of attribute ``name`` in expat's ordered list ``[name, value, name, ...]``."""
    if name in attributes:
        for at in range(0, len(attributes), 2):
            if attributes[at] == name:
                return attributes[at + 1]
    return None


class _SheetStream:
    """The handlers of one streamed sheet: cells become text as they end, rows as they end.

    Built on expat directly (no element tree): memory stays at one row, whatever the size
    of the sheet. Every cell and every row met counts toward the limit, blank ones too.
    The handlers are closures over local variables (a sheet of a million rows makes some
    17 million callbacks, and an attribute look-up on ``self`` in each cost about a third
    of the reading); :meth:`counts` tells the reading loop how far they got.
    """

    def __init__(self, book: _OpenBook, title: str):
        self.book, self.title = book, title
        # the values of the rows read, one after another (no list per row: a million rows
        # of lists cost the garbage collector more than their reading), each row's width
        # and line
        self.values: list[str] = []
        self.widths: list[int] = []
        self.lines: list[int] = []
        self.counts: Callable[[], tuple[int, int, int, bool]] = lambda: (0, 0, 0, False)

    def bind(self, parser: Any) -> None:
        """Set ``parser``'s element and text handlers (it gives ordered attribute lists)."""
        book, title = self.book, self.title
        flat, widths, lines = self.values, self.widths, self.lines
        shared_texts = book.shared_texts
        # elements are told apart by identity: any name is mapped to its _ELEMENTS name,
        # which expat itself hands back for the main namespace (its table of names is seeded
        # with them), so the usual cell, value and row need no look-up at all
        codes = _ElementCodes()
        c_, v_, row_, t_, phonetic_, sheet_data_ = _ELEMENTS.values()
        names = getattr(parser, "intern", None)
        if isinstance(names, dict):
            names.update((name, name) for name in _ELEMENTS.values())
        columns, digits = _COLUMNS, _DIGITS
        max_cells = _MAX_SHEET_CELLS
        parsed = values = row_number = width = 0
        # the cell being read: its attributes; its column is the last reference met in the
        # row (``anchor``) plus the cells since (``steps``), worked out only for a value
        cell: list[str] = []
        anchor: str | None = None
        steps = 0
        # the text of the cell being read: its first piece, and any more (a long text, or
        # one split between two chunks of XML)
        text: str | None = None
        more: list[str] = []
        collect = in_phonetic = done = False
        # the row being read: while its values come in columns 1, 2, 3 ..., they are added
        # to ``flat`` as they come (``expected`` is the next such column); else every value
        # is kept by column in ``scattered`` (``expected`` is then 0)
        scattered: dict[int, str] = {}
        expected = 1
        count = 0  # the rows with values so far

        def too_many() -> PreferenceFormatError:
            return PreferenceFormatError(
                f"The sheet '{title}' holds more than {max_cells:,} cells and rows (blank "
                "ones count too).",
                fix="Save the sheet as CSV, or remove the rows and columns that are not needed.")

        def start(name: str, attributes: list[str]) -> None:
            nonlocal parsed, cell, anchor, steps, collect, in_phonetic, row_number
            if name is not c_ and name is not v_ and name is not row_:
                name = codes[name]  # a name met first is learnt (_ElementCodes.__missing__)
            if name is c_:  # kept cheap: a flood of blank cells costs only this and its end
                parsed += 1
                cell = attributes
                if attributes and attributes[0] == "r":
                    anchor, steps = attributes[1], 0
                else:
                    reference = _attribute(attributes, "r")
                    if reference is None:
                        steps += 1
                    else:
                        anchor, steps = reference, 0
                if parsed > max_cells:  # only cells and rows count
                    raise too_many()
            elif name is v_:
                collect = True
            elif name is row_:
                parsed += 1  # a row counts toward the limit, even a blank one
                number = (attributes[1] if attributes and attributes[0] == "r"
                          else _attribute(attributes, "r"))
                row_number = _row_number(number if number is not None
                                         else str(row_number + 1), row_number)
                anchor, steps = None, 0
                if parsed > max_cells:
                    raise too_many()
            elif name is t_:
                collect = not in_phonetic
            elif name is phonetic_:
                in_phonetic = True

        def end(name: str) -> None:
            nonlocal collect, text, values, scattered, expected, width, count, in_phonetic, \
                done
            if name is not c_ and name is not v_ and name is not row_:
                name = codes[name]  # a name met first is learnt (_ElementCodes.__missing__)
            if name is c_:
                collect = False
                if text is None:
                    return
                raw, text = text, None
                if more:
                    raw += "".join(more)
                    more.clear()
                value = None
                # a shared string (most text cells); "t" is its cell's last attribute as
                # Excel and openpyxl write it
                if (cell[-1] if cell and cell[-2] == "t" else _attribute(cell, "t")) == "s":
                    try:
                        value = shared_texts[int(raw)]
                    except (ValueError, IndexError):
                        pass  # cell_text says what is wrong
                if value is None:
                    value = cell_text(raw)
                if value:
                    column = columns.get(anchor.rstrip(digits)) \
                        if anchor is not None and not steps else None
                    if column is None:
                        column = column_met()
                    values += 1
                    if column == expected:
                        flat.append(value)
                        expected += 1
                    else:
                        if expected:  # the values so far come back out of flat
                            scattered, expected = take_back_row(flat, expected), 0
                        scattered[column] = value
            elif name is v_ or name is t_:
                collect = False
            elif name is row_:
                if expected == 1:
                    return  # no value in the row
                if expected:
                    last = expected - 1  # every column from A on, in order
                else:
                    last = pad_row(flat, scattered)
                    scattered = {}
                widths.append(last)
                lines.append(row_number)
                count += 1
                if last > width:
                    width = last
                expected = 1
                if width * count > max_cells:
                    raise PreferenceFormatError(
                        f"The sheet '{title}' spans {count:,} rows by {width:,} columns "
                        f"up to its row {row_number:,}: more than {max_cells:,} cells.",
                        fix="Save the sheet as CSV, or remove the rows and columns that are "
                            "not needed.")
            elif name is phonetic_:
                in_phonetic = False
            elif name is sheet_data_:
                done = True

        def characters(data: str) -> None:
            nonlocal text
            if collect:
                if text is None:
                    text = data
                else:
                    more.append(data)

        def column_met() -> int:
            """The column of the cell being read (1 = A), within Excel's grid."""
            base = 0 if anchor is None else _reference_column(anchor, row_number + 1)
            column = base + steps
            if column > MAX_SHEET_COLUMN:
                raise PreferenceFormatError(
                    f"A row holds more than {MAX_SHEET_COLUMN:,} cells, Excel's widest row.",
                    row=row_number + 1, fix="Save the sheet as CSV.")
            return column

        def cell_text(raw: str) -> str:
            """A cell's text from its type, its raw value and its style (dates)."""
            try:
                return _typed_text(book, raw, _attribute(cell, "t"), _attribute(cell, "s"))
            except Exception as exc:  # noqa: BLE001 - a damaged cell (a string index, a number)
                raise PreferenceFormatError(
                    f"A cell of the sheet could not be read ({type(exc).__name__}: "
                    f"'{raw[:20]}').", row=row_number + 1,
                    column=str(_attribute(cell, "r") or column_met())[:20],
                    fix=_XML_FIX) from None

        def counts() -> tuple[int, int, int, bool]:
            return parsed, values, row_number, done

        parser.ordered_attributes = True
        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = characters
        self.counts = counts


def _typed_text(book: _OpenBook, raw: str, kind: str | None, style: str | None) -> str:
    """A cell's text from its raw value, its type (``t``) and its style (``s``, for dates);
    raises on a damaged cell (a string index or a number that is not one)."""
    if kind is None:
        kind = "n"
    if kind == "s":
        index = int(raw)
        known = book.shared_texts[index]
        if known is None:
            known = book.shared_texts[index] = _cell_text(book.shared_strings[index])
        return known
    if kind == "n":
        value = float(raw) if "." in raw or "e" in raw or "E" in raw else int(raw)
        number = int(style or 0)
        if number and number in book.date_formats:
            from openpyxl.utils.datetime import from_excel
            value = from_excel(value, book.epoch, timedelta=number in book.timedelta_formats)
        return _cell_text(value)
    if kind == "b":
        return "TRUE" if int(raw) else "FALSE"
    if kind == "d":
        from openpyxl.utils.datetime import from_ISO8601
        return _cell_text(from_ISO8601(raw))
    return raw.strip()  # inline strings, formula texts ("str") and errors ("e")


def _sheet_table(book: _OpenBook, title: str, *, fast: bool = True) -> Table:
    """Read one sheet's cells into a table of text (see :func:`workbook_table`).

    A sheet in the grammar spreadsheet programs write is read whole rows at a time
    (:mod:`.sheet_scan`); any other, or one near a limit, is streamed through the XML
    parser cell by cell, which gives the same table or a refusal. ``fast=False`` streams
    every sheet (the reference the fast reading is tested against).
    """
    should_stop, progress = _HOOKS.get()
    total = max(1, -(-book.archive.getinfo(book.parts[title]).file_size // _CHUNK_BYTES))

    def before_chunk(done: int, row: int) -> None:
        if progress is not None:
            progress(min(done, total), total)
        check_stop(should_stop, f"reading stopped at row {row:,} of sheet '{title}'")

    def table_of(read: tuple[list[str], list[int], list[int]], watch: _MergeWatch) -> Table:
        table = Table.from_flat(*read, ",")
        if (table.cells == "").any():  # only a blank cell can lie under a merged one
            table = _filled_down(table, _merged_blocks(watch.tail()))
        return table

    table = None
    if fast:
        try:
            with book.archive.open(book.parts[title]) as source:
                watch = _MergeWatch(source)
                read = scan_sheet(
                    watch, chunk_bytes=_CHUNK_BYTES, shared_texts=book.shared_texts,
                    convert=partial(_typed_text, book), columns=_COLUMNS,
                    max_cells=_MAX_SHEET_CELLS, blank_slack=BLANK_CELLS_SLACK,
                    blank_factor=BLANK_CELLS_FACTOR, before_chunk=before_chunk,
                    max_row=MAX_SHEET_ROW)
                table = table_of(read, watch)
        except NotCanonical:
            table = None
    if table is None:  # the parser reads the sheet from its start
        with book.archive.open(book.parts[title]) as source:
            watch = _MergeWatch(source)
            table = table_of(_streamed_sheet(book, title, before_chunk, watch), watch)
    if progress is not None:
        progress(total, total)
    table.cells.flags.writeable = False  # shared through the cache
    return table


_MERGE_CELL = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?mergeCell\s[^>]*?\bref\s*=\s*[\"']"
                         rb"\$?([A-Za-z]{1,3})\$?(\d{1,7}):\$?([A-Za-z]{1,3})\$?(\d{1,7})[\"']")


class _MergeWatch:
    """A sheet's XML stream that keeps, as the rows are read, the XML from its first
    ``mergeCell`` on: Excel writes ``<mergeCells>`` after the rows, so they are found in the
    same pass as the cells, without unpacking the sheet again."""

    def __init__(self, source: Readable):
        self._source = source
        self._carry = b""
        self._kept: bytearray | None = None
        self._room = MAX_PART_BYTES  # what is kept after the chunk where they begin

    def read(self, size: int = -1) -> bytes:
        """Read as from the stream itself, watching for the merged cells."""
        chunk = self._source.read(size)
        self._watch(chunk)
        return chunk

    def _watch(self, chunk: bytes) -> None:
        if self._kept is not None:
            self._kept += chunk[:self._room]
            self._room -= min(len(chunk), self._room)
            return
        text = self._carry + chunk
        at = text.find(b"mergeCell")
        if at >= 0:
            self._kept = bytearray(text[max(at - 64, 0):])
        else:
            self._carry = text[-64:]

    def tail(self) -> bytes:
        """The XML from the merged cells on; what the reading of rows left unread is read
        now (the same pass through the sheet), and nothing when there are none."""
        while self._kept is None and (chunk := self._source.read(_CHUNK_BYTES)):
            self._watch(chunk)
        if self._kept is not None and self._room > 0:
            self._watch(self._source.read(self._room))
        return bytes(self._kept or b"")


def _merged_blocks(tail: bytes) -> list[tuple[int, int, int]]:
    """The merged cells of a sheet that span rows: (column, first row, last row), 1-based,
    from the sheet's XML after its first ``mergeCell`` (:meth:`_MergeWatch.tail`)."""
    blocks = []
    for first_col, first_row, _, last_row in _MERGE_CELL.findall(tail):
        column = _COLUMNS.get(first_col.decode().upper())
        if column is not None and int(last_row) > int(first_row):
            blocks.append((column, int(first_row), int(last_row)))
    return blocks


def _filled_down(table: Table, blocks: list[tuple[int, int, int]]) -> Table:
    """The table with each merged block's value copied into its blank cells below, as the
    sheet shows it (a judge's name merged over the rows of the judge's ranking)."""
    if not blocks:
        return table
    cells, lines = table.cells.copy(), table.lines
    widths = list(table.head_widths)
    budget = 2 * len(lines)  # merged blocks do not overlap; a file claiming so is cut short
    for column, first_row, last_row in blocks:
        j = column - 1
        top = int(np.searchsorted(lines, first_row))  # the sheet's rows come in order
        if j >= table.width or top == len(lines) or lines[top] != first_row \
                or cells[top, j] == "":
            continue
        end = int(np.searchsorted(lines, last_row, side="right"))
        budget -= end - top
        if budget < 0:
            break
        below = np.arange(top + 1, end)
        below = below[cells[below, j] == ""]
        cells[below, j] = cells[top, j]
        for i in below[below < len(widths)]:
            widths[i] = max(widths[i], column)
    return Table(cells, lines, table.delimiter, tuple(widths))


def _streamed_sheet(book: _OpenBook, title: str, before_chunk: Callable[[int, int], None],
                    source: Readable) -> tuple[list[str], list[int], list[int]]:
    """One sheet's rows with values from ``source`` (its XML), streamed through expat cell by
    cell: the values, each row's width and each row's number (as
    :func:`.sheet_scan.scan_sheet` returns them)."""
    from xml.parsers import expat

    stream = _SheetStream(book, title)
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    stream.bind(parser)
    parser.StartDoctypeDeclHandler = _refuse_doctype
    done = 0
    try:
        while not stream.counts()[3]:
            before_chunk(done, stream.counts()[2])
            done += 1
            chunk = source.read(_CHUNK_BYTES)
            parser.Parse(chunk, not chunk)
            if not chunk:
                break
            _refuse_blank_flood(title, *stream.counts()[:3])
    except expat.ExpatError as exc:
        raise PreferenceFormatError(
            f"The sheet '{title}' is not well-formed XML ({expat.ErrorString(exc.code)}, "
            f"line {exc.lineno}).", fix=_XML_FIX) from None
    del stream.values[sum(stream.widths):]  # values after the last row belong to no row
    return stream.values, stream.widths, stream.lines


def _refuse_blank_flood(title: str, parsed: int, values: int, row_number: int) -> None:
    """Refuse a sheet whose blank cells and rows far outnumber its values (checked after
    every chunk: a flood of blank styled cells is refused in about a second, not parsed)."""
    blank = parsed - values
    if blank > BLANK_CELLS_SLACK + BLANK_CELLS_FACTOR * values:
        raise PreferenceFormatError(
            f"The sheet '{title}' holds more than {blank:,} blank cells and rows but "
            f"only {values:,} cells with values, up to its row "
            f"{row_number:,}: formatting spread over empty cells.",
            fix="Clear the formatting of the empty rows and columns (or copy only the "
                "table to a new sheet), or save the sheet as CSV.")


def _refuse_doctype(*_: object) -> None:
    raise PreferenceFormatError(
        "The sheet declares a DOCTYPE, which Excel never writes (it can hide entities that "
        "expand to gigabytes).", fix=_XML_FIX)


def _row_number(text: str, previous: int) -> int:
    """A row number from the sheet's XML, within Excel's grid."""
    try:
        number = int(text) if len(text) < 12 else MAX_SHEET_ROW + 1
    except ValueError:
        raise PreferenceFormatError(
            f"The sheet gives '{text[:20]}' as a row number after its row {previous:,}.",
            fix=_XML_FIX) from None
    if not 1 <= number <= MAX_SHEET_ROW:
        raise PreferenceFormatError(
            f"The sheet has a row numbered {text[:20]}, outside Excel's grid of "
            f"{MAX_SHEET_ROW:,} rows.", fix=_XML_FIX)
    return number


def _reference_column(reference: str, row: int) -> int:
    """The column of a cell reference such as ``B7`` or ``$XFD$9``, within Excel's grid.

    The row part is not used: a cell's row is its row element's.
    """
    column = _COLUMNS.get(reference.rstrip(_DIGITS))
    if column is None:
        column = _column_number(reference.rstrip(_DIGITS).replace("$", ""))
        if not 1 <= column <= MAX_SHEET_COLUMN:
            raise PreferenceFormatError(
                f"The sheet has a cell at '{reference[:20]}', outside Excel's grid (A1 to "
                f"XFD{MAX_SHEET_ROW}).", row=row, fix=_XML_FIX)
    return column


def _column_number(letters: str) -> int:
    """``A`` → 1, ``XFD`` → 16,384; 0 for anything that is not one to three letters."""
    if not 1 <= len(letters) <= 3 or not letters.isascii() or not letters.isalpha():
        return 0
    number = 0
    for letter in letters.upper():
        number = 26 * number + ord(letter) - 64
    return number


def _column_names() -> dict[str, int]:
    names: dict[str, int] = {}
    for number in range(1, MAX_SHEET_COLUMN + 1):
        name, rest = "", number
        while rest:
            rest, letter = divmod(rest - 1, 26)
            name = chr(65 + letter) + name
        names[name] = number
    return names


_COLUMNS = _column_names()  # "A" → 1 ... "XFD" → 16,384


def looks_json(text: str) -> bool:
    """Whether ``text`` is a JSON array or object, or JSON lines."""
    return text.lstrip()[:1] in ("[", "{")


def json_table(text: str) -> Table:
    """Objects of a JSON array (or of one list inside an object, also inside an envelope of
    objects each holding one object and no list), or JSON lines, as a table.

    Columns are the keys in order of first appearance; a cell is the value as text.
    """
    stripped = text.strip()
    try:
        records = _json_loads(stripped, None)
        numbered = None
    except json.JSONDecodeError as exc:
        records, numbered = _json_lines(text, exc)
    for _ in range(8):  # an API's envelope: {"MRData": {"RaceTable": {"Races": [...]}}}
        if not isinstance(records, dict) or any(isinstance(v, list) for v in records.values()):
            break
        inner = [v for v in records.values() if isinstance(v, dict)]
        if len(inner) != 1:
            break
        records = inner[0]
    if isinstance(records, dict):
        lists = [v for v in records.values() if isinstance(v, list)]
        if not lists and all(not isinstance(v, dict) for v in records.values()):
            lists = [[records]]
        if len(lists) != 1:
            raise PreferenceFormatError(
                "The JSON file holds one object, not a list of comparisons or rankings.",
                fix="Give a list of objects such as "
                    '[{"model_a": "x", "model_b": "y", "winner": "model_a"}], or one object '
                    "a line.")
        records = lists[0]
    if not isinstance(records, list) or not records:
        raise PreferenceFormatError("The JSON file holds no list of records.",
                                    fix="Give a list of objects, or one object a line.")
    if all(isinstance(r, list) and all(isinstance(v, _SCALARS) for v in r) for r in records):
        return _rows_of_cells(records, numbered)
    bad = next((i for i, r in enumerate(records) if not isinstance(r, dict)), None)
    if bad is not None:
        raise PreferenceFormatError(
            f"Record {bad + 1} is not an object with named fields.",
            row=numbered[bad] if numbered else bad + 1,
            fix="Write every record as an object such as "
                '{"model_a": "x", "model_b": "y", "winner": "model_a"}, or every record as '
                'a list of items, best first: ["tea", "coffee", "juice"].')
    if all(isinstance(r.get("annotations"), list) and isinstance(r.get("data"), dict)
           for r in records):
        records, numbered = _label_studio_answers(records), None
    records, numbered = _one_row_per_result(records, numbered)
    records = _flatten_named_objects(records)
    keys = list(dict.fromkeys(k for r in records for k in r))
    _refuse_sparse_keys(records, keys, numbered)
    frame = pd.DataFrame.from_records(records, columns=keys)
    lines = [1] + (list(numbered) if numbered else list(range(1, len(records) + 1)))
    nested = {title: texts for key in keys
              for title, texts in nested_rankings(str(key), frame[key], lines[1:]).items()
              if title not in keys}
    nested.update({title: texts for title, texts in chosen_rankings(frame).items()
                   if title not in keys and not built_from(title, nested)})
    cells = np.empty((len(frame) + 1, len(keys) + len(nested)), dtype=object)
    cells[0] = [str(k) for k in keys] + list(nested)
    for j, key in enumerate(keys):
        cells[1:, j] = _column_text(frame[key], _number_objects(str(key)))
    for j, texts in enumerate(nested.values(), len(keys)):
        cells[1:, j] = texts
    keys += list(nested)
    return Table(cells, np.asarray(lines, dtype=np.int64), ",", (len(keys),))


#: The values a JSON row of cells may hold: no list or object inside.
_SCALARS = (str, int, float, bool, type(None))


def _rows_of_cells(rows: list[list[Any]], numbered: list[int] | None) -> Table:
    """A JSON array of arrays of values (a spreadsheet API's ``values``, pandas'
    ``orient="values"``) as the rows of a CSV file, whose first row may or may not be a
    header; ``null`` is a blank cell and a row of blanks is left out, as a blank line is.
    Held to the text tables' limits on columns and on padding."""
    widths = np.asarray([len(r) for r in rows], dtype=np.int64)
    lines = np.asarray(numbered or range(1, len(rows) + 1), dtype=np.int64)
    width = int(widths.max(initial=0))
    if width > MAX_COLUMNS:
        refuse_wide_row(width, int(lines[int(np.argmax(widths))]))
    refuse_padded_grid(widths, width)
    texts = [[_json_text(v) for v in r] for r in rows]
    kept = [i for i, cells in enumerate(texts) if any(cells)]
    return without_blank_end_columns(Table.from_rows([texts[i] for i in kept], lines[kept],
                                                     ","))


def _one_row_per_result(records: list[dict[str, Any]], numbered: list[int] | None
                        ) -> tuple[list[dict[str, Any]], list[int] | None]:
    """Records that each hold, under one field, a list of results (Ergast's races, each with
    its ``Results``: objects of a competitor and its ``position``) as one row per result,
    the record's own fields beside it, and each row's line (its record's). Objects inside
    are opened by their paths (``Driver.code``). Lists whose objects name their item by one
    plain field are rankings :func:`nested_rankings` reads, and are left to it."""
    keys = list(dict.fromkeys(k for r in records for k in r))
    listed = [k for k in keys if any(_objects_list(r.get(k)) for r in records)]
    if len(listed) != 1 or not all(_objects_list(r.get(listed[0])) for r in records):
        return records, numbered
    key = listed[0]
    column = pd.Series([r[key] for r in records], dtype=object)
    objects = [o for v in column for o in v]
    common = set.intersection(*(set(o) for o in objects))
    placed = [f for f in common if _number_objects(str(f)) == "rank" and all(
        _is_place(o[f]) for o in objects)]
    if not placed or _object_names(column, distinct=True) is not None:
        return records, numbered
    rows, lines = [], []
    for i, record in enumerate(records):
        own = _object_fields({k: v for k, v in record.items() if k != key}, "")
        for result in record[key]:
            rows.append({**own, **_object_fields(result, "")})
            lines.append(numbered[i] if numbered else i + 1)
    return rows, lines


def _objects_list(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(o, dict) for o in value)


def _is_place(value: object) -> bool:
    """A place as a JSON API writes it: a whole number, also as text (``"1"``)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or isinstance(value, str) and value.strip().isdigit()


#: At most this many fields of a named object become columns of their own.
_MOST_OBJECT_FIELDS = 50


def _flatten_named_objects(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records whose field holds, in every record, an object naming something
    (``"winner": {"id": 3, "name": "Cid"}``) with that object's fields as columns of their
    own (``winner.id``, ``winner.name``), objects inside it too. An object of numbers alone
    stays whole: it is a ranking (item → rank or score)."""
    keys = list(dict.fromkeys(k for r in records for k in r))
    named = {k for k in keys if _named_objects([r.get(k) for r in records])}
    if not named:
        return records
    flat = []
    for record in records:
        row: dict[str, Any] = {}
        for key, value in record.items():
            if key in named:
                row.update(_object_fields(value, f"{key}.") if isinstance(value, dict) else {})
            else:
                row[key] = value
        flat.append(row)
    # each path shortened to its last fields that no other column ends with: 'model_a' for
    # 'metadata.model_a', but 'winner.name' beside 'loser.name'
    paths = list(dict.fromkeys(k for r in flat for k in r if k not in keys))
    shown = {path: _shortest_own_suffix(path, paths, keys) for path in paths}
    return [{shown.get(k, k): v for k, v in row.items()} for row in flat]


#: Fields that say what a value is, not what it belongs to: kept beside their object's name.
_GENERIC_FIELDS = frozenset({"name", "id", "code", "label", "title", "text", "value", "key",
                             "number", "no", "type", "username", "displayname", "fullname"})


def _shortest_own_suffix(path: str, paths: list[str], keys: list[Any]) -> str:
    """The last fields of ``path`` that end no other path and name no top-level field."""
    parts = path.split(".")
    # a generic field ('name', 'id') is named with its object: 'item.name', 'winner.id'
    last = len(parts) - (2 if len(parts) > 1 and parts[-1].lower() in _GENERIC_FIELDS else 1)
    for start in range(last, -1, -1):
        suffix = ".".join(parts[start:])
        if suffix not in keys and not any(
                p != path and (p == suffix or p.endswith("." + suffix)) for p in paths):
            return suffix
    return path


def _named_objects(values: list[Any]) -> bool:
    """Whether every value given is an object of plain values (or such objects), one of
    them a text that is not a number, and all together of at most
    :data:`_MOST_OBJECT_FIELDS` fields."""
    given = [v for v in values if v is not None]
    if not given or not all(isinstance(v, dict) and v for v in given):
        return False
    fields: set[str] = set()
    named = False
    for value in given:
        for key, field_value in _object_fields(value, "").items():
            if isinstance(field_value, list):
                return False
            fields.add(key)
            named = named or (isinstance(field_value, str) and not is_float_text(field_value))
        if len(fields) > _MOST_OBJECT_FIELDS:
            return False
    return named


def _object_fields(value: dict[str, Any], prefix: str) -> dict[str, Any]:
    """An object's fields by their path (``winner.name``), objects inside it opened."""
    out: dict[str, Any] = {}
    for key, inner in value.items():
        if isinstance(inner, dict) and inner:
            out.update(_object_fields(inner, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = inner
    return out


def _refuse_sparse_keys(records: list[dict[str, Any]], keys: list[Any],
                       numbered: Sequence[int] | None) -> None:
    """Refuse records whose fields, one column each, would not fit: more than
    :data:`~coarsenrank_core.io.tables.MAX_COLUMNS` fields, or a grid of records × fields
    over :data:`~coarsenrank_core.io.tables.MAX_GRID_CELLS` cells mostly empty (every record
    with fields of its own)."""
    held = sum(len(r) for r in records)
    grid = len(records) * len(keys)
    if len(keys) <= MAX_COLUMNS and (grid <= MAX_GRID_CELLS or grid <= GRID_WASTE * held):
        return
    counts = np.fromiter((len(r) for r in records), dtype=np.int64, count=len(records))
    i = int(np.argmax(counts))
    raise PreferenceFormatError(
        f"The records hold {len(keys):,} different fields between them; as one column each "
        f"they would make {grid:,} cells, more than can be read "
        f"({MAX_COLUMNS:,} columns, {MAX_GRID_CELLS:,} cells).",
        row=numbered[i] if numbered else i + 1,
        fix="Give the records the same fields (the items as values, not as field names), or "
            "write one row per ranked item (ranker, item, rank).")


def _label_studio_answers(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Label Studio export (tasks, each with its ``annotations``) as one record per
    annotation: ``task``, ``annotator`` and each Ranker's order under the Ranker's name; a
    Pairwise tag's chosen side (``left`` or ``right``) under its name beside the task's own
    fields (``text1``, ``text2``), as its CSV export writes them.

    Raises
    ------
    PreferenceFormatError
        Where no annotation holds a Ranker's order (choices, ratings, boxes), or a Ranker
        sorted items into buckets, which is a grouping rather than an order.
    """
    answers: list[dict[str, Any]] = []
    kinds: set[str] = set()
    for number, task in enumerate(tasks, 1):
        for annotation in task["annotations"]:
            if not isinstance(annotation, dict) or annotation.get("was_cancelled") is True:
                continue
            annotator = annotation.get("completed_by")
            if isinstance(annotator, dict):
                annotator = annotator.get("email", annotator.get("id"))
            answer: dict[str, Any] = {"task": task.get("id", number), "annotator": annotator}
            for result in annotation.get("result") or []:
                if not isinstance(result, dict):
                    continue
                kinds.add(str(result.get("type")))
                value = result.get("value")
                if result.get("type") == "pairwise" and isinstance(value, dict) \
                        and isinstance(value.get("selected"), str):
                    answer.update({k: v for k, v in task["data"].items()
                                   if k not in answer and isinstance(v, _SCALARS)})
                    answer[str(result.get("from_name") or "pairwise")] = value["selected"]
                    continue
                order = value.get("ranker") if isinstance(value, dict) else None
                if result.get("type") != "ranker" or not isinstance(order, dict):
                    continue
                if len(order) != 1:
                    buckets = ", ".join(repr(str(b)) for b in order)
                    raise PreferenceFormatError(
                        f"This Label Studio export sorts items into the buckets {buckets}: "
                        "a grouping, not an order.", row=number, column="annotations",
                        fix="Use a Ranker without buckets, so that each annotator orders "
                            "the whole list, or export one ranking per annotator with the "
                            "best bucket first.")
                answer[str(result.get("from_name") or "ranker")] = next(iter(order.values()))
            if len(answer) > 2:
                answers.append(answer)
    if not answers:
        held = ", ".join(sorted(kinds - {"None"})) or "no results"
        raise PreferenceFormatError(
            f"This Label Studio export holds no Ranker's order and no Pairwise choice (its "
            f"annotations hold: {held}).", column="annotations",
            fix="Label the tasks with a List and a Ranker tag (or a Pairwise tag), or export "
                "the rankings as one row per annotator with the items in order.")
    return answers


#: Titles of a JSON field whose objects map items to ranks (1 the best) or to scores (the
#: highest the best); under any other title (``emojis``, ``detoxify``) such an object is
#: no ranking and stays JSON text.
_RANK_FIELDS = re.compile(r"(?:^|[^a-z])(?:rank|ranks|ranked|ranker|ranking|rankings|order|"
                          r"ordered|position|positions|place|places|pref|prefs|preference|"
                          r"preferences)(?:$|[^a-z])", re.IGNORECASE)
_SCORE_FIELDS = re.compile(r"(?:^|[^a-z])(?:score|scores|rating|ratings|points|grade|grades|"
                           r"votes)(?:$|[^a-z])", re.IGNORECASE)


#: Titles of a JSON list of names that is the set shown, not an order (UltraFeedback's
#: ``models``, its ``correct_answers``); ``choices``, ``items`` or ``answers`` may well be
#: ranked and stay rankings.
_SHOWN_FIELDS = re.compile(r"(?:^|[^a-z])(?:models|shown|displayed|presented|tags|"
                           r"categories|keywords|(?:correct|incorrect)_?answers)(?:$|[^a-z])",
                           re.IGNORECASE)
#: Titles of the field naming the item in each object of a JSON list (UltraFeedback's
#: ``completions[].model``).
_NAME_FIELDS = re.compile(r"(?:model|model_name|name|item|item_name|system|candidate|option|"
                          r"player|team|entry|choice|title|label|policy)", re.IGNORECASE)
#: A record's field giving the position of the chosen object in a list beside it
#: (summarize-from-feedback's ``choice``: 0 or 1 into its ``summaries``).
CHOSEN_INDEX = re.compile(r"(?:choice|chosen|preferred|preference|winner|best|selected|"
                           r"pick(?:ed)?)(?:[_ ]?(?:index|idx|id|no))?", re.IGNORECASE)


def _number_objects(title: str) -> str | None:
    """How a JSON field titled ``title`` reads an object of item → number: ``"rank"``,
    ``"score"``, or None (not a ranking); ``"shown"`` where even a list of names under it
    is the set shown rather than an order."""
    if _RANK_FIELDS.search(title):
        return "rank"
    if _SCORE_FIELDS.search(title):
        return "score"
    return "shown" if _SHOWN_FIELDS.search(title) else None


def _object_names(column: pd.Series, distinct: bool = False) -> str | None:
    """The one field by which every object of every list in ``column`` names its item
    (a non-blank text; ``distinct``: a different one in each object of a list), or None."""
    lists = [v for v in column if isinstance(v, list) and v]
    if not lists or not all(isinstance(o, dict) for v in lists for o in v):
        return None
    common = set.intersection(*(set(o) for v in lists for o in v))
    names = [k for k in common if _NAME_FIELDS.fullmatch(str(k)) and all(
        all(isinstance(o[k], str) and o[k].strip() for o in v)
        and (not distinct or len({o[k] for o in v}) == len(v)) for v in lists)]
    return names[0] if len(names) == 1 else None


def built_from(title: str, built: dict[str, np.ndarray]) -> bool:
    """Whether a ranking was already built from the list ``title`` (``list.field``) names:
    its objects' own ranks or scores, which a pick beside them only repeats."""
    parent = title.rpartition(".")[0]
    return any(t.rpartition(".")[0] == parent for t in built)


def chosen_rankings(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """The choices in records that pick one object of a list by its position
    (summarize-from-feedback: ``choice`` 1 picks the second of ``summaries``, each naming
    its ``policy``): a ranking ``chosen > the others`` per record, titled ``list.field``.
    Only where every record's pick is a whole number within its list and some record
    picks position 0; a record whose objects share one name holds that one item (a row the
    reader skips, and says so). Lists whose objects rank or score their items are left to
    :func:`nested_rankings`, and records holding a list of names (a ballot) to that list."""
    found: dict[str, np.ndarray] = {}
    picks = [k for k in frame.columns if CHOSEN_INDEX.fullmatch(str(k))]
    if any(not _SHOWN_FIELDS.search(str(k)) and frame[k].map(
            lambda v: isinstance(v, list) and bool(v) and all(isinstance(x, str) for x in v)
    ).all() for k in frame.columns):
        return found  # the records hold a ballot of names: their own ranking
    for key in frame.columns:
        name = _object_names(frame[key]) if picks else None
        if name is None:
            continue
        sizes = frame[key].map(lambda v: len(v) if isinstance(v, list) else 0)
        for pick in picks:
            chosen = frame[pick]
            whole = chosen.map(lambda c: isinstance(c, int) and not isinstance(c, bool))
            if not whole.all() or not ((chosen >= 0) & (chosen < sizes)).all() \
                    or sizes.max() < 2 or not (chosen == 0).any():
                continue  # never a first object picked: the positions may count from 1
            texts = []
            for objects, c in zip(frame[key], chosen):
                first = objects[c][name].strip()
                rest = [n for n in dict.fromkeys(o[name].strip() for o in objects)
                        if n != first]
                texts.append(f"{first} > {' = '.join(rest)}" if rest else first)
            found[f"{key}.{name}"] = np.asarray(texts, dtype=object)
            break
    return found


def nested_rankings(title: str, column: pd.Series, lines: list[int]
                     ) -> dict[str, np.ndarray]:
    """The rankings in a JSON column whose cells are lists of objects, each object naming
    its item and giving it a score or a rank (UltraFeedback's ``completions``: ``model`` and
    ``overall_score``): one column of ranking texts per such number, titled
    ``title.field``. Empty where the objects name no item by one field, or give no number
    under a rank or score title.

    Raises
    ------
    PreferenceFormatError
        Where such a number is infinite: the record's line and the field are named.
    """
    name = _object_names(column, distinct=True)
    if name is None:
        return {}
    lists = [v for v in column if isinstance(v, list) and v]
    common = set.intersection(*(set(o) for v in lists for o in v))
    found: dict[str, np.ndarray] = {}
    for field in sorted(common - {name}, key=str):
        numbers = _number_objects(str(field))
        if numbers not in ("rank", "score") or not all(
                o[field] is None or isinstance(o[field], (int, float))
                and not isinstance(o[field], bool) for v in lists for o in v):
            continue
        for v, line in zip(column, lines):
            bad = next((o for o in v if isinstance(o[field], float)
                        and math.isinf(o[field])), None) if isinstance(v, list) else None
            if bad is not None:
                raise PreferenceFormatError(
                    f"{bad[name].strip()!r} has the {numbers} {bad[field]!r}, which places "
                    "it nowhere.", row=line, column=f"{title}.{field}",
                    fix=f"Give every item a finite {numbers}, or null to leave it unranked.")
        found[f"{title}.{field}"] = np.asarray(
            [_json_ranking({o[name].strip(): o[field] for o in v}, numbers) or ""
             if isinstance(v, list) and v else "" for v in column], dtype=object)
    return found


def _unranked(number: object) -> bool:
    """A JSON rank or score that places no item: ``null``, or ``NaN`` (pandas and NumPy
    write a missing number so)."""
    return number is None or isinstance(number, float) and math.isnan(number)


def _column_text(column: pd.Series, numbers: str | None = "rank") -> np.ndarray:
    """A column of JSON values as text cells, converting each distinct value once; an
    object of item → number read as ``numbers`` says (:func:`_number_objects`)."""
    try:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    except TypeError:  # lists or objects in the column: convert cell by cell
        return np.asarray([_json_text(v, numbers) for v in column], dtype=object)
    texts = np.asarray([_json_text(u, numbers) for u in uniques] + [""], dtype=object)
    cells: np.ndarray = texts[codes]
    return cells


def _json_loads(text: str, row: int | None) -> Any:
    """``json.loads``, with what Python's parser cannot hold said as a refusal: nesting
    deeper than its recursion limit, or a number of more than 4,300 digits."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise PreferenceFormatError(
            "The JSON nests lists or objects inside each other too deeply to be read.",
            row=row, fix="Write each ranking as a flat list of names, one record a row.") from None
    except ValueError as exc:  # a whole number of more than 4,300 digits
        raise PreferenceFormatError(
            f"The JSON holds a number too long to read ({str(exc)[:80]}).", row=row,
            fix="Write numbers of at most a few dozen digits (a count or a rank).") from None


def _json_lines(text: str, first_error: json.JSONDecodeError
                ) -> tuple[list[Any], list[int]]:
    records: list[Any] = []
    numbered: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(_json_loads(line, number))
        except json.JSONDecodeError as exc:
            row = number if len(records) else first_error.lineno
            raise PreferenceFormatError(
                f"This is not valid JSON ({exc.msg}).", row=row,
                fix="Write one complete JSON object per line, or one JSON array.") from None
        numbered.append(number)
    return records, numbered


def _json_ranking(value: object, numbers: str | None = "rank") -> str | None:
    """A JSON ranking as ``A > B = C``: a list best first (``null`` places no item, an inner
    list is a tie), or an object of item → rank (equal ranks tie; a ``null`` rank leaves the
    item out), or of item → score with ``numbers="score"`` (the highest first); None for
    anything else, and for such an object with ``numbers=None``."""
    def name(v: object) -> bool:
        return isinstance(v, (str, int)) and not isinstance(v, bool)

    if isinstance(value, list):
        if numbers == "shown" or not all(
                v is None or name(v) or isinstance(v, list) and v and all(map(name, v))
                for v in value):
            return None
        stages = [" = ".join(str(m) for m in (v if isinstance(v, list) else [v]))
                  for v in value if v is not None]
        return " > ".join(stages)
    if numbers == "rank" and isinstance(value, dict) and len(value) == 1 \
            and isinstance(next(iter(value.values())), list):
        # Label Studio's JSON-MIN export keeps a Ranker's order under its List's name
        return _json_ranking(next(iter(value.values())), numbers)
    # an item whose rank or score is null was not ranked: it is left out, as a blank cell
    given = {k: r for k, r in value.items() if not _unranked(r)} \
        if isinstance(value, dict) else {}
    if numbers is not None and given and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r)
            for r in given.values()):
        ranks = sorted(set(given.values()), reverse=numbers == "score")
        return " > ".join(" = ".join(str(k) for k, r in given.items() if r == rank)
                          for rank in ranks)
    return None


def _json_text(value: object, numbers: str | None = "rank") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # Infinity: a cell like any other, refused only where it is read
    if isinstance(value, float) and value == int(value) and abs(value) < 2 ** 53:
        return str(int(value))
    ranking = _json_ranking(value, numbers)
    if ranking is not None:
        return ranking
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value).strip()
