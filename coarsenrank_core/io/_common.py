"""Shared helpers of the file readers: column roles, tables of cells, cell values, assembly."""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from ..errors import Cancelled, PreferenceFormatError
from ..export import FORMULA_STARTS
from ..preferences import ID_DTYPE, MAX_WEIGHT, MIN_WEIGHT, Preferences

UNEXPECTED = "Unexpected problem while reading the file"


# ---------------------------------------------------------------------------- column names
def _synonyms(*words: str, suffixes: Sequence[str] = ()) -> frozenset[str]:
    return frozenset(w + s for w in words for s in ("", *suffixes))


_RANKER_WORDS = ("ranker", "voter", "user", "id", "name", "respondent", "worker", "annotator",
                 "student", "rater", "judge", "grader", "participant", "email", "emailaddress",
                 "#")
PREFERENCE_ROLES: dict[str, frozenset[str]] = {
    "ranker": _synonyms(*_RANKER_WORDS, suffixes=("id", "name")) | frozenset(
        {"responseid", "respondentid", "recipientemail", "fullname", "username"}),
    "list": _synonyms("preference", "list", "ballot", "query", "task", "question", "round",
                      "session", suffixes=("id",)),
    "weight": frozenset({"weight", "weights", "count", "counts", "votes", "n", "freq",
                         "frequency", "numberofvoters", "multiplicity"}),
    "item": frozenset({"item", "items", "itemid", "itemname", "alternative", "candidate",
                       "choice", "option"}),
    "rank": frozenset({"rank", "position", "place"}),
    "winner": frozenset({"winner", "winnerid", "winneritem", "chosen", "preferred",
                         "selected", "picked"}),
    "loser": frozenset({"loser", "loserid", "loseritem"}),
    "left": frozenset({"left", "leftitem", "itemleft", "itema", "modela", "white", "home",
                       "hometeam", "player1", "playera", "team1", "teama", "competitor1",
                       "stimleft", "leftstim", "leftoption", "optionleft", "optiona",
                       "generator1", "systema"}),
    "right": frozenset({"right", "rightitem", "itemright", "itemb", "modelb", "black", "away",
                        "awayteam", "player2", "playerb", "team2", "teamb", "competitor2",
                        "stimright", "rightstim", "rightoption", "optionright", "optionb",
                        "generator2", "systemb"}),
    "label": frozenset({"label", "result", "outcome", "ftr", "res", "fulltimeresult"}),
    "score": frozenset({"score", "value", "level", "grade", "truth", "worth", "quality",
                        "rating"}),
}
TRUTH_ROLES: dict[str, frozenset[str]] = {
    "item": frozenset({"item", "items", "itemid", "itemname", "name", "id", "alternative",
                       "candidate", "object", "doc", "document", "option"}),
    "score": PREFERENCE_ROLES["score"] | frozenset({"scores", "groundtruth", "truescore"}),
    "rank": frozenset({"rank", "position", "place"}),
    "order": frozenset({"order", "ranking", "trueorder", "truthorder", "bestfirst"}),
}
ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
             "twelfth|last")
RANK_LABEL = re.compile(
    r"(?:(?:rank(?:ed|ing)?|choice|pref(?:erence)?|position|pos|place|option|vote|item|top|"
    r"no|nr|number|r|c|p|\#)[\s_.#:-]*)?"
    rf"(?:\d+(?:st|nd|rd|th)?|{ORDINALS})"
    r"(?:[\s_.-]*(?:choice|place|preference|pref|rank(?:ed)?|item|option|best|favou?rite|pick))?",
    re.IGNORECASE | re.ASCII)
NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
INTEGER = re.compile(r"\d+", re.ASCII)


def normalise(cell: str) -> str:
    return re.sub(r"[\s_\-.]+", "", cell.strip().lower())


ID_ENDS = ("id", "code", "no", "number", "num", "key")
NAME_ENDS = ("name", "text", "label", "title")
SIBLING_ROLES = frozenset({"winner", "loser", "left", "right", "item"})


def role_base(key: str, names: frozenset[str]) -> tuple[str, int] | None:
    """A normalised title's role word and kind: 0 a name, 1 plain, 2 an id; None if none.

    ``winner_name``/``Winner Text`` are names, ``winner``/``white`` plain, ``winner_id``,
    ``white_id``/``Winner ID`` ids (of the role words in ``names``).
    """
    for kind, ends in ((0, NAME_ENDS), (2, ID_ENDS)):
        for end in ends:
            if key.endswith(end) and key[:-len(end)] in names and key[:-len(end)]:
                return key[:-len(end)], kind
    return (key, 1) if key in names else None


# Mechanical Turk batch results prefix the task's fields: ``Input.item_a``, ``Answer.choice``
_UNPREFIXED = re.compile(r"^\s*(?:input|answer)\.", re.IGNORECASE)


def _ranker_kind(key: str) -> int:
    """Ranker titles by priority: ranker words, then ids, then e-mails, then names."""
    if "name" in key:
        return 4
    if "mail" in key:
        return 3
    return 2 if key in ("id", "#", "responseid", "respondentid") else 1


def find_roles(cells: Sequence[str], table: dict[str, frozenset[str]]) -> dict[str, int]:
    """Role -> index of the first header cell that names it.

    For the item roles (winner, loser, left, right, item), a name column beats its id
    sibling: ``winner_id, winner_name`` gives the names, an id only when no name is there.
    For the ranker, ranker words beat ids, which beat e-mails, which beat names.
    """
    found: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for j, cell in enumerate(cells):
        key = normalise(_UNPREFIXED.sub("", cell))
        for role, names in table.items():
            if role in SIBLING_ROLES:
                base = role_base(key, names)
                if base is None:
                    continue
                kind = base[1]
            elif key in names:
                kind = _ranker_kind(key) if role == "ranker" else 1
            else:
                continue
            if role not in found or kind < kinds[role]:
                found[role], kinds[role] = j, kind
            break
    return found


def column_label(header: Sequence[str] | None, j: int) -> str:
    """A column as the user sees it: its header text, else its 1-based position."""
    if header is not None and j < len(header) and header[j]:
        return header[j]
    return str(j + 1)


def quote_list(values, limit: int = 5) -> str:
    values = list(values)
    text = ", ".join(f"'{v}'" for v in values[:limit])
    return text + (f" (and {len(values) - limit} more)" if len(values) > limit else "")


def plural(n: int, noun: str, number: bool = True) -> str:
    word = noun if n == 1 else noun + "s"
    return f"{n} {word}" if number else word


def skipped_note(lines, unit: str, reason: str) -> str:
    """``Skipped 2 rows comparing an item with itself: rows 4, 9`` for the user."""
    n = len(lines)
    return f"Skipped {plural(n, unit)} {reason}: {plural(n, 'row', number=False)} " \
           f"{rows_text(lines)}"


def rows_text(lines, limit: int = 10) -> str:
    lines = [int(x) for x in lines]
    text = ", ".join(map(str, lines[:limit]))
    return text + (f", ... ({len(lines) - limit} more)" if len(lines) > limit else "")


# ---------------------------------------------------------------------------- text -> table
DELIMITERS = (",", ";", "\t")
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


MAX_COLUMNS = 20_000
#: A header may declare more items than its file names or uses (items nobody ranked), but at
#: most ``DECLARED_FACTOR`` × those present plus ``DECLARED_SLACK``: no reader (nor a saved
#: session) allocates per declared item beyond what the data support.
DECLARED_FACTOR, DECLARED_SLACK = 10, 1_000


def declared_within_present(declared: int, present: int) -> bool:
    """Whether ``declared`` items are plausible for the ``present`` ones a file names or uses."""
    return declared <= DECLARED_FACTOR * present + DECLARED_SLACK
HEAD_BYTES = 65536  # layouts and separators are recognised from the first 64 KB
_HEAD_RECORDS = 3   # records whose exact number of fields is kept (the header rows)



def scalar_text(value) -> str | None:
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
        """A table from Python lists of cells (small inputs: workbooks, JSON, fallbacks)."""
        width = max((len(r) for r in rows), default=0)
        cells = np.full((len(rows), width), "", dtype=object)
        for i, row in enumerate(rows):
            cells[i, :len(row)] = row
        return cls(cells, np.asarray(lines, dtype=np.int64), delimiter,
                   tuple(len(r) for r in rows[:_HEAD_RECORDS]))

    @property
    def width(self) -> int:
        return self.cells.shape[1]

    def __len__(self) -> int:
        return self.cells.shape[0]

    @cached_property
    def factorized(self) -> tuple[np.ndarray, np.ndarray]:
        """Every cell's code and the distinct cells: ``cells == uniques[codes]`` (hashed once)."""
        codes, uniques = pd.factorize(self.cells.ravel())
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


def _nonblank(records):
    return [(line, r) for line, r in records if any(c.strip() for c in r)]


def _choose_delimiter(head: str) -> str:
    """The separator that splits most records of the file's head into several cells."""
    candidates = [d for d in DELIMITERS if d in head] or [","]
    if len(candidates) == 1:
        return candidates[0]
    nonblank = {d: _nonblank(csv_records(head, d)) for d in candidates}

    def score(d: str) -> tuple[int, bool, int]:
        recs = nonblank[d]
        used = sum(len(r) > 1 for _, r in recs)
        return used, bool(recs) and len(recs[0][1]) > 1, -DELIMITERS.index(d)

    return max(candidates, key=score)


def _mixed_delimiter_error(line: int, found: str, used: str) -> PreferenceFormatError:
    return PreferenceFormatError(
        f"This row separates its values with {DELIMITER_NAMES[found]}, but the rest "
        f"of the file uses {DELIMITER_NAMES[used]}.", row=line,
        fix="Use the same separator on every row (saving the file again from a "
            "spreadsheet program as CSV does this).")


def _multiline_error(line: int, column: int) -> PreferenceFormatError:
    return PreferenceFormatError(
        "A cell runs over several lines, which usually means a quote mark (\") was "
        "opened and never closed.", row=line, column=str(column),
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
    delimiter = _choose_delimiter(head)
    table = split_fast(text, delimiter)
    if table is None:
        table = _split_slow(text, delimiter)
    _check_single_cells(table, text)
    return table


def split_fast(text: str, delimiter: str) -> Table | None:
    """Parse with pandas' C engine when every record is one line; None otherwise."""
    encoded = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    newlines = np.flatnonzero(encoded == 10)
    n_lines = newlines.size + (0 if text.endswith("\n") else 1)
    if n_lines == 0:
        return Table.from_rows([], [], delimiter)
    per_line = _marks_per_line(encoded, newlines, n_lines, delimiter)
    width = int(per_line.max()) + 1
    if width > MAX_COLUMNS:
        line = int(np.argmax(per_line)) + 1
        raise PreferenceFormatError(
            f"This row holds {width:,} values separated by {DELIMITER_NAMES[delimiter]}; at "
            f"most {MAX_COLUMNS:,} columns can be read.", row=line,
            fix="Put one ranking per row with at most that many items, or use the long "
                "layout (ranker, item, rank), which has no such limit.")
    padding = _has_padding(text, encoded, delimiter)
    # a line can be blank only if it holds nothing but separators (and a carriage return)
    lengths = np.diff(np.r_[-1, newlines, encoded.size if n_lines > newlines.size else -1])
    maybe_blank = np.flatnonzero(lengths[:n_lines] - 1 <= per_line + 1) if not padding \
        else None
    del encoded
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, names=range(width),
                            dtype=object, na_filter=False, keep_default_na=False,
                            skip_blank_lines=False, engine="c", quotechar='"',
                            doublequote=True, index_col=False)
    except (pd.errors.ParserError, ValueError, MemoryError):
        return None
    if len(frame) != n_lines:
        return None
    cells = frame.to_numpy(dtype=object)
    del frame
    if '"' in text or padding:
        cells = _strip(cells)
    quoted = '"' in text
    if (quoted or "\r" in text and text.count("\r") != text.count("\r\n")) and any(
            _contains(cells, c) for c in ("\n", "\r")):
        return None
    keep = np.ones(len(cells), dtype=bool)
    if maybe_blank is None:
        keep = (cells != "").any(axis=1)
    elif maybe_blank.size:
        keep[maybe_blank] = (cells[maybe_blank] != "").any(axis=1)
    lines = np.flatnonzero(keep) + 1
    if not keep.all():
        cells = cells[keep]
    last = cells.shape[1]
    while last and not (cells[:, last - 1] != "").any():
        last -= 1  # columns that are blank on every row
    widths = _head_widths(text, delimiter, min(int(keep.sum()), _HEAD_RECORDS))
    last = max(last, *widths, 0)
    return Table(np.ascontiguousarray(cells[:, :last]), lines.astype(np.int64), delimiter,
                 widths)


CHUNK_CHARACTERS = 1 << 22
"""Characters of text parsed at a time by the line-based fast paths (PrefLib, BLT): the
temporaries of one chunk stay in the tens of megabytes whatever the file's size."""


def line_chunks(text: str, start: int = 0, stop: int | None = None,
                size: int = CHUNK_CHARACTERS):
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


def rows_in_chunks(text: str, start: int, stop: int | None, parse: Callable
                   ) -> tuple[np.ndarray, ...] | None:
    """Parse ``text[start:stop]`` a chunk of lines at a time and join the pieces.

    ``parse(piece)`` gives, for the rows of one chunk, ``(weights, row, group, number,
    lines)``: a weight per row, then per entry its row (from 0 in the chunk), tied group
    and number, and each row's 1-based line in the chunk; or None, which stops the whole
    parse (None is returned). The joined rows are numbered on, and their lines counted from
    ``start``, across chunks; None as well when no chunk holds a row.
    """
    columns: tuple[list, ...] = ([], [], [], [], [])
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


def joined(pieces: list) -> np.ndarray:
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
    return np.add.reduceat(encoded == ord(delimiter), starts, dtype=np.int64)


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


def _has_padding(text: str, encoded: np.ndarray, delimiter: str) -> bool:
    """Whether some cell may start or end with white space."""
    if text.isascii():
        spaces = encoded == 32
        for c in "\t\x0b\x0c":
            if c != delimiter:
                spaces |= encoded == ord(c)
        edges = (encoded == ord(delimiter)) | (encoded == 10) | (encoded == 13)
        return bool(spaces[:1].any() or spaces[-1:].any() or (spaces[1:] & edges[:-1]).any()
                    or (spaces[:-1] & edges[1:]).any())
    space = r"[^\S\n\t]" if delimiter == "\t" else r"[^\S\n]"
    sep = re.escape(delimiter)
    return re.search(rf"{space}(?:{sep}|\n|\Z)|(?:\A|{sep}|\n){space}", text) is not None


def _strip(cells: np.ndarray) -> np.ndarray:
    out = np.empty_like(cells)
    for j in range(cells.shape[1]):
        out[:, j] = pd.Series(cells[:, j], dtype=object).str.strip().to_numpy(dtype=object)
    return out


def _contains(cells: np.ndarray, character: str) -> bool:
    return any(pd.Series(cells[:, j], dtype=object).str.contains(character, regex=False).any()
               for j in range(cells.shape[1]))


def _split_slow(text: str, delimiter: str) -> Table:
    """The csv module's reading, record by record, with the line each record starts on."""
    rows, lines = [], []
    for line, record in _nonblank(csv_records(text, delimiter)):
        cells = [c.strip() for c in record]
        for j, cell in enumerate(cells):
            if "\n" in cell or "\r" in cell:
                raise _multiline_error(line, j + 1)
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


# ---------------------------------------------------------------------------- cell values
def parse_numbers(values: np.ndarray) -> np.ndarray:
    """Parse plain decimal numbers; NaN where a cell is not one (each distinct cell once)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object).ravel())
    series = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    ok = series.str.fullmatch(NUMBER).fillna(False).to_numpy(dtype=bool)
    parsed = np.full(len(series), np.nan)
    if ok.any():
        with np.errstate(over="ignore"):
            parsed[ok] = np.asarray(series[ok].tolist(), dtype=float)
    out = parsed[codes] if len(parsed) else np.full(codes.size, np.nan)
    out[codes < 0] = np.nan
    return out.reshape(np.shape(values))


def parse_weights(values: np.ndarray, lines: np.ndarray, column: str) -> np.ndarray:
    """Positive finite weights; a blank cell means 1."""
    values = np.asarray(values, dtype=object)
    numbers = parse_numbers(values)
    blank = values == ""
    numbers[blank] = 1.0
    check_weights(numbers, values, lines, column)
    return numbers


def check_weights(numbers: np.ndarray, values, lines: np.ndarray, column: str | None,
                  what: str = "weight") -> None:
    """Refuse weights that are not numbers from MIN_WEIGHT to MAX_WEIGHT (sums stay finite)."""
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"The {what} '{values[i]}' is not a positive number.", row=int(lines[i]),
            column=column, fix="Write how many times the ranking was given, e.g. 1 or 3 "
                               "(or leave the cell blank for 1).")
    bad = np.flatnonzero((numbers < MIN_WEIGHT) | (numbers > MAX_WEIGHT))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"The {what} '{values[i]}' is outside the accepted range, {MIN_WEIGHT:g} to "
            f"{MAX_WEIGHT:g}.", row=int(lines[i]), column=column,
            fix=f"Write how many times the ranking was given, between {MIN_WEIGHT:g} and "
                f"{MAX_WEIGHT:g}.")


def ranker_ids(values: np.ndarray, lines: np.ndarray, column: str):
    """Ranker ids in order of first appearance, or (None, None) when all cells are blank."""
    values = np.asarray(values, dtype=object)
    blank = values == ""
    if blank.all():
        return None, None
    if blank.any():
        i = int(np.flatnonzero(blank)[0])
        raise PreferenceFormatError(
            "The ranker is blank on this row, while other rows name one.",
            row=int(lines[i]), column=column,
            fix="Fill in who gave this ranking, or delete the ranker column.")
    codes, names = pd.factorize(values)
    labels = list(map(str, names.tolist()))
    if "\n'" not in "\n" + "\n".join(labels):  # no name starts with an apostrophe
        return codes, tuple(labels)
    shown = [unneutralise(n) for n in labels]
    if shown != labels:
        merged, unique = pd.factorize(np.asarray(shown, dtype=object))
        return merged[codes], tuple(str(n) for n in unique)
    return codes, tuple(shown)


def unneutralise(text: str) -> str:
    """A cell as written before a spreadsheet-safe export: ``'=x`` is read as ``=x``.

    :func:`coarsenrank_core.export.neutralise_cell` prefixes text that a spreadsheet would
    run as a formula with an apostrophe; reading removes exactly that one apostrophe.
    """
    if text.startswith("'") and text[1:2] and text[1] in FORMULA_STARTS:
        return text[1:]
    return text


def factorize(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    codes, names = pd.factorize(np.asarray(values, dtype=object))
    return codes.astype(np.intp), tuple(str(n) for n in names)


def check_items(item_names: tuple[str, ...]) -> None:
    if len(item_names) == 0:
        raise PreferenceFormatError("The file names no items.",
                                    fix="Put the item names in the rankings.")
    if len(item_names) == 1:
        raise PreferenceFormatError(
            f"The file mentions only one item in total ('{item_names[0]}'); a ranking needs "
            "at least two items.", fix="Check that the rankings list all the items compared.")


# ---------------------------------------------------------------------------- assembling
def assemble(pref: np.ndarray, group: np.ndarray, item: np.ndarray, n_pref: int,
              item_names: tuple[str, ...], pref_lines: np.ndarray, *, rankers=None,
              ranker_column: str = "", weights=None, notes: Sequence[str] = (),
              unit: str = "row", merge_names: bool = True) -> Preferences:
    """Build Preferences from entries sorted by preference and group; skip one-item lists.

    Item names that differ only in Unicode form, invisible characters or spacing are
    merged (``merge_names``), with a note; formats that number their items pass False.

    ``pref``, ``group`` and ``item`` describe each entry; ``pref_lines``, ``rankers`` (raw
    cell values) and ``weights`` describe each of the ``n_pref`` preferences.
    """
    notes = list(notes)
    note = None
    if merge_names:
        item, item_names, note = unify_names(item, item_names)
    if note:
        notes.append(note)
        repeat = first_repeat(pref.astype(np.int64) * max(len(item_names), 1) + item)
        if repeat is not None:
            raise PreferenceFormatError(
                f"The item '{item_names[item[repeat[1]]]}' appears twice in this ranking, "
                "written in two ways that look the same.", row=int(pref_lines[pref[repeat[1]]]),
                fix="Each item may appear only once per ranking; write its name the same "
                    "way everywhere.")
    check_items(item_names)
    counts = np.bincount(pref, minlength=n_pref)
    keep = counts >= 2
    single = np.flatnonzero(counts == 1)
    if single.size:
        notes.append(skipped_note(pref_lines[single], unit, "with fewer than 2 items"))
    if not keep.any():
        raise PreferenceFormatError(
            "No ranking in the file has two or more items, so there is nothing to compare.",
            fix="Put at least two items in each ranking. If the values on a row are separated "
                "by spaces or another character, save the file with commas between them.")
    ranker_codes, ranker_names = (None, None)
    if rankers is not None:
        ranker_codes, ranker_names = ranker_ids(np.asarray(rankers, dtype=object)[keep],
                                                pref_lines[keep], ranker_column)
    if keep.all():
        items, groups = item, group
    else:
        entry_keep = keep[pref]
        items, groups = item[entry_keep], group[entry_keep]
    for array in (items, groups):
        if array.flags.owndata and array.dtype == ID_DTYPE:
            array.flags.writeable = False  # ours alone: the collection keeps it, no copy
    return Preferences.from_arrays(
        items, counts[keep], groups=groups, n_items=len(item_names),
        item_names=item_names, weights=None if weights is None else weights[keep],
        rankers=ranker_codes, ranker_names=ranker_names, notes=tuple(notes))


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def tidy_name(name: str) -> str:
    """A name in Unicode NFC form, without invisible characters or surrounding spaces."""
    tidy = unicodedata.normalize("NFC", name).translate(_INVISIBLE).strip()
    return tidy or name


def unify_names(codes: np.ndarray, names: Sequence[str]
                ) -> tuple[np.ndarray, tuple[str, ...], str | None]:
    """Merge names that differ only in Unicode form, invisible characters or spacing.

    Returns the new codes and names, and a note for the user when anything changed.
    """
    plain = [unneutralise(n) for n in names]  # our own spreadsheet-safe export, undone
    tidy = [tidy_name(n) for n in plain]
    if tidy == list(names):
        return codes, tuple(names), None
    new_of_old, unique = pd.factorize(np.asarray(tidy, dtype=object))
    merged = len(names) - len(unique)
    changed = sum(a != b for a, b in zip(plain, tidy))
    if not merged and not changed:
        return new_of_old[codes], tuple(str(u) for u in unique), None
    if merged:
        note = (f"Merged {plural(merged, 'item name')} that looked the same as another "
                "(Unicode form, invisible characters or spaces)")
    else:
        note = (f"Tidied {plural(changed, 'item name')} (Unicode form, invisible characters "
                "or surrounding spaces)")
    return new_of_old[codes], tuple(str(u) for u in unique), note


MAX_DIGITS = 12


def whole(text: str, row: int | None = None, what: str = "this number") -> int:
    """A whole number written in a file, refusing ones too long to be meant (> 12 digits)."""
    text = text.strip()
    if len(text.lstrip("+-0")) > MAX_DIGITS:
        shown = text if len(text) <= 20 else text[:12] + f"… ({len(text)} digits)"
        raise PreferenceFormatError(
            f"The number '{shown}' is too large for {what}.", row=row,
            fix=f"Use numbers of at most {MAX_DIGITS} digits.")
    return int(text)


def unique_names(names: Sequence[str], kind: str) -> tuple[list[str], list[str]]:
    """Numbered items' names made unique: a repeated name gets its number, e.g. ``x (3)``.

    Returns the names and one note per renaming (``kind`` is e.g. ``"Alternatives"``).
    """
    taken = set(names)
    out: list[str] = []
    notes: list[str] = []
    first: dict[str, int] = {}
    for number, name in enumerate(names, 1):
        if name in first:
            new, k = f"{name} ({number})", 2
            while new in taken:
                new, k = f"{name} ({number}.{k})", k + 1
            notes.append(f"{kind} {first[name]} and {number} are both called '{name}'; "
                         f"the second is shown as '{new}'")
            taken.add(new)
            name = new
        first.setdefault(name, number)
        out.append(name)
    return out, notes


def ignored_note(header: Sequence[str], used: set[int]) -> list[str]:
    ignored = [c or str(j + 1) for j, c in enumerate(header) if j not in used]
    return [f"Ignored the columns {quote_list(ignored, 10)}"] if ignored else []




def empty_error() -> PreferenceFormatError:
    return PreferenceFormatError("The file is empty.",
                                 fix="Choose the file that holds the data; the example files "
                                     "show what it should contain.")


def header_only_error(line: int) -> PreferenceFormatError:
    return PreferenceFormatError("The file has a header but no rows below it.", row=line,
                                 fix="Add the data rows under the header.")


def first_repeat(codes: np.ndarray) -> tuple[int, int] | None:
    """Index of the first value seen before, after the index of its earlier occurrence."""
    repeated = np.flatnonzero(pd.Series(codes).duplicated().to_numpy())
    if not repeated.size:
        return None
    second = int(repeated[0])
    return int(np.flatnonzero(codes == codes[second])[0]), second


def guard(task: Callable):
    """Run ``task``; turn any failure that is not already a PreferenceFormatError into one."""
    try:
        return task()
    except (PreferenceFormatError, Cancelled):  # a stopped reading is not a bad file
        raise
    except Exception as exc:  # a safety net: the UI must only ever see PreferenceFormatError
        raise PreferenceFormatError(
            f"{UNEXPECTED} ({type(exc).__name__}: {str(exc)[:200]}).",
            fix="Check that the file is laid out like one of the example files; if it is, "
                "please report this problem.") from exc
