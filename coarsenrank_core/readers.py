"""Read preferences and ground truths from CSV and PrefLib files, with messages for people."""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import PreferenceFormatError
from .preferences import Preferences

__all__ = ["FORMATS", "read_preferences", "read_truth", "detect_format", "example_file"]

FORMATS: dict[str, str] = {
    "wide": (
        "Wide rankings table: one row per ranking, with the item names in order from best "
        "(first column) to worst. Rankings may have different lengths; leave the remaining "
        "cells blank. Several items tied at one position go in one cell separated by a "
        "vertical bar, e.g. 'margherita|funghi'. A first row of column titles such as "
        "'1st,2nd,3rd' or 'rank1,rank2' is optional. An optional column titled 'ranker' "
        "(or voter, user, id, name, respondent, worker, annotator, student, rater) says who "
        "gave each ranking, and an optional 'count' or 'weight' column says how many times "
        "it was given."
    ),
    "long": (
        "Long rankings table: one row per ranked item, with the columns 'ranker' (or voter, "
        "user, id ...), 'item' and 'rank' (1 = best). Items of one ranker that share a rank "
        "are tied; ranks need not be consecutive. When one ranker gave several rankings, a "
        "column such as 'preference', 'list', 'ballot', 'query', 'task', 'question', 'round' "
        "or 'session' tells them apart. An optional 'weight' or 'count' column must hold the "
        "same value on every row of one ranking. The CSV this app exports is of this kind."
    ),
    "pairwise": (
        "Pairwise comparisons: one row per comparison of two items. Either columns "
        "'winner' and 'loser', or columns 'left', 'right' and 'winner' (or 'label'), where "
        "the winner cell holds the winning item's name, the word 'left' or 'right', or "
        "'tie' for a draw. An optional 'worker' (or ranker, voter, user ...) column says who "
        "made the comparison, and an optional 'weight' or 'count' column how many times."
    ),
    "preflib": (
        "PrefLib file (.soc, .soi, .toc or .toi) as published on preflib.org: header lines "
        "starting with '#', such as '# ALTERNATIVE NAME 1: Foo', then one line per distinct "
        "order, 'count: 1,2,{3,4},5', where the numbers are alternatives best first and "
        "braces hold tied alternatives. The older PrefLib layout (number of alternatives, "
        "their names, a summary line, then 'count,1,2,{3,4}' lines) is read as well."
    ),
}

_TITLES = {"wide": "wide rankings", "long": "long rankings", "pairwise": "pairwise comparisons",
           "preflib": "PrefLib"}
_UNEXPECTED = "Unexpected problem while reading the file"
_FIX_CSV = ("Save the file as CSV (comma-separated) text in one of the layouts described on "
            "this page; the example files show each layout.")


# ---------------------------------------------------------------------------- column names
def _synonyms(*words: str, suffixes: Sequence[str] = ()) -> frozenset[str]:
    return frozenset(w + s for w in words for s in ("", *suffixes))


_RANKER_WORDS = ("ranker", "voter", "user", "id", "name", "respondent", "worker", "annotator",
                 "student", "rater")
_PREFERENCE_ROLES: dict[str, frozenset[str]] = {
    "ranker": _synonyms(*_RANKER_WORDS, suffixes=("id", "name")),
    "list": _synonyms("preference", "list", "ballot", "query", "task", "question", "round",
                      "session", suffixes=("id",)),
    "weight": frozenset({"weight", "weights", "count", "counts"}),
    "item": frozenset({"item", "items", "itemid", "itemname", "alternative", "candidate"}),
    "rank": frozenset({"rank", "position", "place"}),
    "winner": frozenset({"winner", "winnerid", "winneritem"}),
    "loser": frozenset({"loser", "loserid", "loseritem"}),
    "left": frozenset({"left", "leftitem", "itema", "modela"}),
    "right": frozenset({"right", "rightitem", "itemb", "modelb"}),
    "label": frozenset({"label", "result", "outcome"}),
    "score": frozenset({"score", "value", "level", "grade", "truth", "worth", "quality",
                        "rating"}),
}
_TRUTH_ROLES: dict[str, frozenset[str]] = {
    "item": frozenset({"item", "items", "itemid", "itemname", "name", "id", "alternative",
                       "candidate", "object", "doc", "document", "option"}),
    "score": _PREFERENCE_ROLES["score"] | frozenset({"scores", "groundtruth", "truescore"}),
    "rank": frozenset({"rank", "position", "place"}),
    "order": frozenset({"order", "ranking", "trueorder", "truthorder", "bestfirst"}),
}
_ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
             "twelfth|last")
_RANK_LABEL = re.compile(
    r"(?:(?:rank(?:ed|ing)?|choice|pref(?:erence)?|position|pos|place|option|vote|item|top|"
    r"no|nr|number|r|c|p|\#)[\s_.#:-]*)?"
    rf"(?:\d+(?:st|nd|rd|th)?|{_ORDINALS})"
    r"(?:[\s_.-]*(?:choice|place|preference|pref|rank(?:ed)?|item|option|best|favou?rite|pick))?",
    re.IGNORECASE | re.ASCII)
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_INTEGER = re.compile(r"\d+", re.ASCII)


def _norm(cell: str) -> str:
    return re.sub(r"[\s_\-.]+", "", cell.strip().lower())


def _roles(cells: Sequence[str], table: dict[str, frozenset[str]]) -> dict[str, int]:
    """Role -> index of the first header cell that names it."""
    found: dict[str, int] = {}
    for j, cell in enumerate(cells):
        key = _norm(cell)
        for role, names in table.items():
            if key in names and role not in found:
                found[role] = j
                break
    return found


def _label(header: Sequence[str] | None, j: int) -> str:
    """A column as the user sees it: its header text, else its 1-based position."""
    if header is not None and j < len(header) and header[j]:
        return header[j]
    return str(j + 1)


def _quote_list(values, limit: int = 5) -> str:
    values = list(values)
    text = ", ".join(f"'{v}'" for v in values[:limit])
    return text + (f" (and {len(values) - limit} more)" if len(values) > limit else "")


def _count(n: int, noun: str, number: bool = True) -> str:
    word = noun if n == 1 else noun + "s"
    return f"{n} {word}" if number else word


def _rows_text(lines, limit: int = 10) -> str:
    lines = [int(x) for x in lines]
    text = ", ".join(map(str, lines[:limit]))
    return text + (f", ... ({len(lines) - limit} more)" if len(lines) > limit else "")


# ---------------------------------------------------------------------------- bytes -> text
_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_PREFLIB_EXTENSIONS = {".soc", ".soi", ".toc", ".toi"}
_BINARY_FIX = ("Open the file in Excel (or another spreadsheet program), choose File > Save As, "
               "pick 'CSV (comma delimited)' and upload the .csv file.")


def _load(source) -> tuple[bytes, str | None]:
    """The raw bytes of ``source`` and its file name (when it has one)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            return path.read_bytes(), path.name
        except (OSError, ValueError) as exc:
            hint = ("It looks like file contents rather than a file name; pass the contents as "
                    "bytes (text.encode()) instead." if isinstance(source, str)
                    and ("\n" in source or "," in source) else "Check the file name and folder.")
            reason = ("there is no file with that name" if isinstance(exc, FileNotFoundError)
                      else "it is a folder" if isinstance(exc, IsADirectoryError)
                      else "it could not be opened")
            shown = str(source).replace("\n", " ")
            shown = shown if len(shown) < 80 else shown[:77] + "..."
            raise PreferenceFormatError(f"Cannot read '{shown}': {reason}.", fix=hint) from None
    reader = getattr(source, "getvalue", None) or getattr(source, "read", None)
    if reader is None:
        raise PreferenceFormatError(
            f"Cannot read preferences from a {type(source).__name__}.",
            fix="Pass a file path, the file's bytes, or an uploaded file.")
    data = reader()
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PreferenceFormatError(
            f"Reading the uploaded file gave a {type(data).__name__}, not its contents.",
            fix="Pass a file path, the file's bytes, or an uploaded file.")
    name = getattr(source, "name", None)
    return bytes(data), (str(name) if name else None)


def _line_of(data: bytes, position: int) -> int:
    return data[:position].count(b"\n") + 1


def _decode(data: bytes, encoding: str | None = None) -> str:
    """Decode file bytes: BOM first, then UTF-8, Windows-1252 and Latin-1."""
    if data.startswith(_ZIP_MAGIC):
        raise PreferenceFormatError(
            "This looks like an Excel workbook (.xlsx) or another zipped binary file, not a "
            "CSV text file.", fix=_BINARY_FIX)
    if data.startswith(_OLE_MAGIC):
        raise PreferenceFormatError(
            "This looks like an old Excel (.xls) or other Office binary file, not a CSV text "
            "file.", fix=_BINARY_FIX)
    if encoding is not None:
        try:
            text = data.decode(encoding)
        except LookupError:
            raise PreferenceFormatError(f"'{encoding}' is not a known text encoding.",
                                        fix="Use e.g. 'utf-8', 'cp1252' or 'latin-1'.") from None
        except UnicodeDecodeError as exc:
            line = _line_of(data, exc.start)
            raise PreferenceFormatError(
                f"The file is not valid {encoding} text (byte {exc.start + 1}).", row=line,
                fix="Choose the encoding the file was saved with, or leave it to be "
                    "detected.") from None
    else:
        bom = next((enc for magic, enc in _BOMS if data.startswith(magic)), None)
        if bom is None and b"\x00" in data:
            raise PreferenceFormatError(
                "This looks like an Excel or other binary file: it contains zero bytes, which "
                "a CSV text file never has.", fix=_BINARY_FIX)
        text = None
        for enc in ([bom] if bom else ["utf-8", "cp1252", "latin-1"]):
            try:
                text = data.decode(enc)
                break
            except UnicodeDecodeError as exc:
                if bom:
                    shown = bom.upper().removesuffix("-SIG")
                    raise PreferenceFormatError(
                        f"The file starts with a {shown} marker but is not valid {shown} text.",
                        row=_line_of(data, exc.start),
                        fix="Save the file again as 'CSV UTF-8'.") from None
    text = text.removeprefix("\ufeff").rstrip("\x1a")
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise PreferenceFormatError(
            "This looks like an Excel or other binary file, or text in an unknown encoding: "
            f"it contains the control character U+{ord(bad.group()):04X}, which text files "
            "do not have.", row=line, fix=_BINARY_FIX + " Use the 'CSV UTF-8' option if "
            "offered.")
    return text


def _text(source, encoding: str | None = None) -> tuple[str, str | None]:
    data, name = _load(source)
    return _decode(data, encoding), name


def _empty_error() -> PreferenceFormatError:
    return PreferenceFormatError("The file is empty.",
                                 fix="Choose the file that holds the data; the example files "
                                     "show what it should contain.")


def _header_only_error(line: int) -> PreferenceFormatError:
    return PreferenceFormatError("The file has a header but no rows below it.", row=line,
                                 fix="Add the data rows under the header.")


# ---------------------------------------------------------------------------- text -> table
_DELIMITERS = (",", ";", "\t")
_DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


@dataclass(frozen=True)
class _Table:
    """The non-blank records of a delimited text file, with the line each starts on."""

    rows: list[list[str]]
    lines: list[int]
    delimiter: str

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)


def _records(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
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


def _table(text: str) -> _Table:
    """Split text into cells, choosing comma, semicolon or tab as the separator."""
    candidates = [d for d in _DELIMITERS if d in text] or [","]
    parsed = {d: _records(text, d) for d in candidates}
    nonblank = {d: [(line, r) for line, r in recs if any(c.strip() for c in r)]
                for d, recs in parsed.items()}

    def score(d: str) -> tuple[int, bool, int]:
        recs = nonblank[d]
        used = sum(len(r) > 1 for _, r in recs)
        return used, bool(recs) and len(recs[0][1]) > 1, -_DELIMITERS.index(d)

    delimiter = max(candidates, key=score)
    records = nonblank[delimiter]
    others = {d: {line: len(r) for line, r in nonblank[d]} for d in candidates if d != delimiter}
    for line, record in records:
        if len(record) > 1:
            continue
        for d, widths in others.items():
            if widths.get(line, 0) > 1:
                raise PreferenceFormatError(
                    f"This row separates its values with {_DELIMITER_NAMES[d]}, but the rest "
                    f"of the file uses {_DELIMITER_NAMES[delimiter]}.", row=line,
                    fix="Use the same separator on every row (saving the file again from a "
                        "spreadsheet program as CSV does this).")
    rows = []
    for line, record in records:
        cells = [c.strip() for c in record]
        for j, cell in enumerate(cells):
            if "\n" in cell or "\r" in cell:
                raise PreferenceFormatError(
                    "A cell runs over several lines, which usually means a quote mark (\") was "
                    "opened and never closed.", row=line, column=str(j + 1),
                    fix="Close the quote, or remove the stray quote mark.")
        rows.append(cells)
    return _Table(rows, [line for line, _ in records], delimiter)


def _padded(table: _Table, header: list[str], start: int) -> np.ndarray:
    """Data rows as an object array of the header's width; longer rows are an error."""
    width = len(header)
    rows = table.rows[start:]
    for row, line in zip(rows, table.lines[start:]):
        extra = [j for j in range(width, len(row)) if row[j]]
        if extra:
            raise PreferenceFormatError(
                f"This row has {max(extra) + 1} values but the header names only {width} "
                f"columns (the extra value is '{row[extra[0]]}').", row=line,
                column=str(extra[0] + 1),
                fix="Remove the extra values, or put quote marks around names that contain "
                    f"{_DELIMITER_NAMES[table.delimiter]}.")
    out = np.full((len(rows), width), "", dtype=object)
    for i, row in enumerate(rows):
        out[i, :min(len(row), width)] = row[:width]
    return out


# ---------------------------------------------------------------------------- cell values
def _numbers(values: np.ndarray) -> np.ndarray:
    """Parse plain decimal numbers; NaN where a cell is not one."""
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    ok = series.str.fullmatch(_NUMBER).fillna(False).to_numpy(dtype=bool)
    out = np.full(len(series), np.nan)
    if ok.any():
        with np.errstate(over="ignore"):
            out[ok] = np.asarray(series[ok].tolist(), dtype=float)
    return out


def _weights(values: np.ndarray, lines: np.ndarray, column: str) -> np.ndarray:
    """Positive finite weights; a blank cell means 1."""
    values = np.asarray(values, dtype=object)
    numbers = _numbers(values)
    blank = values == ""
    numbers[blank] = 1.0
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        i = bad[0]
        raise PreferenceFormatError(
            f"The weight '{values[i]}' is not a positive number.", row=int(lines[i]),
            column=column, fix="Write how many times the ranking was given, e.g. 1 or 3 "
                               "(or leave the cell blank for 1).")
    return numbers


def _ranker_ids(values: np.ndarray, lines: np.ndarray, column: str):
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
    return codes.astype(np.intp), tuple(str(n) for n in names)


def _factorize(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    codes, names = pd.factorize(np.asarray(values, dtype=object))
    return codes.astype(np.intp), tuple(str(n) for n in names)


def _check_items(item_names: tuple[str, ...]) -> None:
    if len(item_names) == 0:
        raise PreferenceFormatError("The file names no items.",
                                    fix="Put the item names in the rankings.")
    if len(item_names) == 1:
        raise PreferenceFormatError(
            f"The file mentions only one item in total ('{item_names[0]}'); a ranking needs "
            "at least two items.", fix="Check that the rankings list all the items compared.")


# ---------------------------------------------------------------------------- layout detection
def _classify(first: Sequence[str]) -> str | None:
    """'long' or 'pairwise' when the first row names their columns, else None."""
    roles = _roles(first, _PREFERENCE_ROLES)
    if "item" in roles and "rank" in roles:
        return "long"
    if "winner" in roles and "loser" in roles:
        return "pairwise"
    if "left" in roles and "right" in roles and ("winner" in roles or "label" in roles):
        return "pairwise"
    return None


def _unknown_layout(first: Sequence[str], line: int) -> PreferenceFormatError | None:
    """An error when the first row names columns that fit no layout; None if it names none."""
    roles = _roles(first, _PREFERENCE_ROLES)
    named = {r for r in roles if r in ("item", "rank", "winner", "loser", "left", "right",
                                       "label", "score")}
    if not named:
        return None
    found = _quote_list(c for c in first if c)
    if "score" in roles and "rank" not in roles and "winner" not in roles:
        reason = ("it looks like a ground truth (items with scores), not rankings. Load it as "
                  "the ground truth instead")
    elif "item" in roles:
        reason = "there is an 'item' column but no 'rank' column to put the items in order"
    elif "rank" in roles:
        reason = "there is a 'rank' column but no 'item' column saying what was ranked"
    elif "winner" in roles or "loser" in roles:
        reason = ("pairwise comparisons need both a 'winner' and a 'loser' column (or 'left', "
                  "'right' and 'winner')")
    else:
        reason = "pairwise comparisons with 'left' and 'right' also need a 'winner' column"
    return PreferenceFormatError(
        f"The layout of this file was not recognised: the first row names the columns {found}, "
        f"but {reason}.", row=line,
        fix="Use one of the layouts described on this page (the example files show each). If "
            "these are item names rather than column titles, choose the wide format.")


_PREFLIB_KEY = re.compile(
    r"#\s*(?:file name|title|description|data type|modification type|relates to|related files|"
    r"publication date|modification date|number alternatives|number voters|"
    r"number unique orders|alternative name\s*\d+)\s*:", re.IGNORECASE)


def _lines(text: str) -> list[tuple[int, str]]:
    """Non-blank lines, stripped, with their 1-based line numbers."""
    return [(i, s.strip()) for i, s in enumerate(re.split(r"\r\n|\r|\n", text), 1) if s.strip()]


def _old_preflib_size(lines: list[tuple[int, str]]) -> int | None:
    """M when ``lines`` follow the older PrefLib layout, else None."""
    if not lines or not _INTEGER.fullmatch(lines[0][1]):
        return None
    m = int(lines[0][1])
    if m < 1 or len(lines) < m + 2:
        return None
    if not all(re.match(r"\d+\s*,", s) for _, s in lines[1:m + 1]):
        return None
    return m if re.fullmatch(r"\d+\s*,\s*\d+\s*,\s*\d+", lines[m + 1][1]) else None


def _looks_preflib(text: str) -> bool:
    lines = _lines(text)
    if lines and lines[0][1].startswith("#"):
        return any(_PREFLIB_KEY.match(s) for _, s in lines if s.startswith("#"))
    return _old_preflib_size(lines) is not None


def _detect(text: str, name: str | None) -> str:
    if name and Path(name).suffix.lower() in _PREFLIB_EXTENSIONS:
        return "preflib"
    if not text.strip():
        raise _empty_error()
    if _looks_preflib(text):
        return "preflib"
    table = _table(text)
    if not table.rows:
        raise _empty_error()
    fmt = _classify(table.rows[0])
    if fmt:
        return fmt
    error = _unknown_layout(table.rows[0], table.lines[0])
    if error:
        raise error
    return "wide"


# ---------------------------------------------------------------------------- assembling
def _assemble(pref: np.ndarray, group: np.ndarray, item: np.ndarray, n_pref: int,
              item_names: tuple[str, ...], pref_lines: np.ndarray, *, rankers=None,
              ranker_column: str = "", weights=None, notes: Sequence[str] = (),
              unit: str = "row") -> Preferences:
    """Build Preferences from entries sorted by preference and group; skip one-item lists.

    ``pref``, ``group`` and ``item`` describe each entry; ``pref_lines``, ``rankers`` (raw
    cell values) and ``weights`` describe each of the ``n_pref`` preferences.
    """
    _check_items(item_names)
    counts = np.bincount(pref, minlength=n_pref)
    keep = counts >= 2
    notes = list(notes)
    single = np.flatnonzero(counts == 1)
    if single.size:
        notes.append(f"Skipped {_count(single.size, unit)} with fewer than 2 items: "
                     f"{_count(single.size, 'row', number=False)} "
                     f"{_rows_text(pref_lines[single])}")
    if not keep.any():
        raise PreferenceFormatError(
            "No ranking in the file has two or more items, so there is nothing to compare.",
            fix="Put at least two items in each ranking. If the values on a row are separated "
                "by spaces or another character, save the file with commas between them.")
    entry_keep = keep[pref]
    ranker_ids, ranker_names = (None, None)
    if rankers is not None:
        ranker_ids, ranker_names = _ranker_ids(np.asarray(rankers, dtype=object)[keep],
                                               pref_lines[keep], ranker_column)
    return Preferences.from_arrays(
        item[entry_keep], counts[keep], groups=group[entry_keep], n_items=len(item_names),
        item_names=item_names, weights=None if weights is None else weights[keep],
        rankers=ranker_ids, ranker_names=ranker_names, notes=tuple(notes))


def _ignored_note(header: Sequence[str], used: set[int]) -> list[str]:
    ignored = [c or str(j + 1) for j, c in enumerate(header) if j not in used]
    return [f"Ignored the columns {_quote_list(ignored, 10)}"] if ignored else []


# ---------------------------------------------------------------------------- wide
def _is_wide_header(first: Sequence[str], rest: Sequence[Sequence[str]]) -> bool:
    """Whether the first row of a wide file holds column titles rather than a ranking."""
    roles = _roles(first, _PREFERENCE_ROLES)
    if "ranker" in roles or "weight" in roles:
        return True
    cells = [c for c in first if c]
    if not cells or not all(_RANK_LABEL.fullmatch(c) for c in cells):
        return False
    if not all(_INTEGER.fullmatch(c) for c in cells):
        return True
    # plain numbers 1, 2, 3 ... are titles only when the rows below hold no plain numbers
    return ([int(c) for c in cells] == list(range(1, len(cells) + 1))
            and not any(_INTEGER.fullmatch(c) for row in rest for c in row if c))


def _read_wide(table: _Table) -> Preferences:
    rows, lines = table.rows, table.lines
    first = rows[0]
    other = _classify(first)
    if other:
        raise PreferenceFormatError(
            f"The first row names the columns of a {_TITLES[other]} file "
            f"({_quote_list(c for c in first if c)}), not a wide rankings table.",
            row=lines[0], fix=f"Choose the '{other}' format, or let it be detected.")
    header = list(first) if _is_wide_header(first, rows[1:]) else None
    data, data_lines = (rows[1:], lines[1:]) if header else (rows, lines)
    if header and not data:
        raise _header_only_error(lines[0])
    roles = _roles(header, _PREFERENCE_ROLES) if header else {}
    special = {roles[r] for r in ("ranker", "weight") if r in roles}
    pref, group, names, column = [], [], [], []
    for i, cells in enumerate(data):
        g = 0
        for j, cell in enumerate(cells):
            if not cell or j in special:
                continue
            members = [m for m in (part.strip() for part in cell.split("|")) if m]
            for m in members:
                pref.append(i)
                group.append(g)
                names.append(m)
                column.append(j)
            g += bool(members)
    pref_a = np.asarray(pref, dtype=np.intp)
    column_a = np.asarray(column, dtype=np.intp)
    item, item_names = _factorize(np.asarray(names, dtype=object))
    line_a = np.asarray(data_lines, dtype=np.intp)
    _wide_duplicates(pref_a, item, column_a, item_names, line_a, header)

    def column_values(role):
        if role not in roles:
            return None
        j = roles[role]
        return np.asarray([r[j] if j < len(r) else "" for r in data], dtype=object)

    weight_cells = column_values("weight")
    weights = (None if weight_cells is None else
               _weights(weight_cells, line_a, _label(header, roles["weight"])))
    return _assemble(pref_a, np.asarray(group, dtype=np.intp), item, len(data), item_names,
                     line_a, rankers=column_values("ranker"),
                     ranker_column=_label(header, roles.get("ranker", 0)), weights=weights)


def _first_repeat(codes: np.ndarray) -> tuple[int, int] | None:
    """Index of the first value seen before, after the index of its earlier occurrence."""
    repeated = np.flatnonzero(pd.Series(codes).duplicated().to_numpy())
    if not repeated.size:
        return None
    second = int(repeated[0])
    return int(np.flatnonzero(codes == codes[second])[0]), second


def _wide_duplicates(pref, item, column, item_names, lines, header) -> None:
    repeat = _first_repeat(pref.astype(np.int64) * max(len(item_names), 1) + item)
    if repeat is None:
        return
    first, second = repeat
    name = item_names[item[second]]
    a, b = _label(header, int(column[first])), _label(header, int(column[second]))
    where = ("twice in the same cell" if a == b and column[first] == column[second]
             else f"twice in this ranking: in column '{a}' and in column '{b}'")
    raise PreferenceFormatError(
        f"The item '{name}' appears {where}.", row=int(lines[pref[second]]), column=b,
        fix="Each item may appear only once per ranking; to say that items are tied, put them "
            "in one cell separated by '|'.")


# ---------------------------------------------------------------------------- long
def _read_long(table: _Table) -> Preferences:
    rows, lines = table.rows, table.lines
    header = list(rows[0])
    roles = _roles(header, _PREFERENCE_ROLES)
    if "item" not in roles or "rank" not in roles:
        missing = " and ".join(f"'{r}'" for r in ("item", "rank") if r not in roles)
        raise PreferenceFormatError(
            f"A long rankings file needs a first row naming its columns, including {missing}; "
            f"the first row here is {_quote_list(c for c in header if c)}.", row=lines[0],
            fix="Add a header row such as 'ranker,item,rank', or choose another format.")
    if len(rows) == 1:
        raise _header_only_error(lines[0])
    keys = [roles[r] for r in ("ranker", "list") if r in roles]
    if not keys:
        raise PreferenceFormatError(
            "Nothing tells which rows belong to the same ranking: there is no ranker column "
            "(ranker, voter, user, id ...) and no ranking column (preference, list, ballot ...).",
            row=lines[0],
            fix="Add a 'ranker' column saying who gave each ranking. If the file holds the true "
                "order of the items, load it as the ground truth instead.")
    cells = _padded(table, header, 1)
    line = np.asarray(lines[1:], dtype=np.intp)
    item_col, rank_col = roles["item"], roles["rank"]
    items = cells[:, item_col]
    blank = np.flatnonzero(items == "")
    if blank.size:
        raise PreferenceFormatError("The item is blank on this row.", row=int(line[blank[0]]),
                                    column=_label(header, item_col),
                                    fix="Fill in the item's name or delete the row.")
    rank = _ranks(cells[:, rank_col], line, _label(header, rank_col))
    joined = cells[:, keys[0]]
    for j in keys[1:]:
        joined = joined + "\x00" + cells[:, j]
    key, _ = _factorize(joined)
    item, item_names = _factorize(items)
    _long_duplicates(key, item, item_names, line, _label(header, item_col))
    n_lists = int(key.max()) + 1
    first_row = np.unique(key, return_index=True)[1]
    weights = None
    if "weight" in roles:
        weight_col = roles["weight"]
        row_weights = _weights(cells[:, weight_col], line, _label(header, weight_col))
        differs = np.flatnonzero(row_weights != row_weights[first_row][key])
        if differs.size:
            i = int(differs[0])
            raise PreferenceFormatError(
                f"The weight '{cells[i, weight_col]}' differs from the weight "
                f"'{cells[first_row[key[i]], weight_col]}' given on row "
                f"{line[first_row[key[i]]]} for the same ranking.", row=int(line[i]),
                column=_label(header, weight_col),
                fix="Give every row of one ranking the same weight.")
        weights = row_weights[first_row]
    order = np.lexsort((np.arange(key.size), rank, key))
    key_s, rank_s = key[order], rank[order]
    start = np.r_[True, key_s[1:] != key_s[:-1]]
    steps = np.cumsum(~start & np.r_[False, rank_s[1:] != rank_s[:-1]])
    group = steps - np.repeat(steps[start], np.bincount(key_s, minlength=n_lists))
    rankers = cells[first_row, roles["ranker"]] if "ranker" in roles else None
    notes = _ignored_note(header, {item_col, rank_col, *keys, roles.get("weight", -1)})
    return _assemble(key_s, group, item[order], n_lists, item_names, line[first_row],
                     rankers=rankers, ranker_column=_label(header, roles.get("ranker", 0)),
                     weights=weights, notes=notes, unit="ranking")


def _ranks(values: np.ndarray, lines: np.ndarray, column: str) -> np.ndarray:
    numbers = _numbers(values)
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers >= 1) & (numbers == np.floor(numbers))))
    if bad.size:
        i = int(bad[0])
        found = f"'{values[i]}'" if values[i] else "a blank cell"
        raise PreferenceFormatError(
            f"The rank must be a whole number, 1 or more (1 = best), but this row has {found}.",
            row=int(lines[i]), column=column,
            fix="Write the item's position in the ranking: 1 for the best, 2 for the next ...")
    return numbers


def _long_duplicates(key, item, item_names, lines, column) -> None:
    repeat = _first_repeat(key.astype(np.int64) * max(len(item_names), 1) + item)
    if repeat is not None:
        first, second = repeat
        raise PreferenceFormatError(
            f"The item '{item_names[item[second]]}' appears twice in the same ranking: on rows "
            f"{lines[first]} and {lines[second]}.", row=int(lines[second]), column=column,
            fix="Each item may appear only once per ranking; give tied items the same rank.")


# ---------------------------------------------------------------------------- pairwise
_LEFT_WORDS = {"left", "a", "modela", "itema"}
_RIGHT_WORDS = {"right", "b", "modelb", "itemb"}
_TIE_WORDS = {"tie", "draw", "equal", "tied", "both", "bothbad", "bothgood", "tie(bothbad)",
              "same"}


def _read_pairwise(table: _Table, explicit: bool = False) -> Preferences:
    rows, lines = table.rows, table.lines
    first = list(rows[0])
    roles = _roles(first, _PREFERENCE_ROLES)
    if "winner" in roles and "loser" in roles:
        mode, a_col, b_col = "winner", roles["winner"], roles["loser"]
    elif "left" in roles and "right" in roles and ("winner" in roles or "label" in roles):
        mode, a_col, b_col = "label", roles["left"], roles["right"]
    elif explicit and not roles and table.width <= 2:
        return _pairs_headerless(table)
    else:
        raise PreferenceFormatError(
            "A pairwise file needs a first row naming its columns: 'winner' and 'loser', or "
            f"'left', 'right' and 'winner'; the first row here is "
            f"{_quote_list(c for c in first if c)}.", row=lines[0],
            fix="Add such a header row, or choose another format.")
    if len(rows) == 1:
        raise _header_only_error(lines[0])
    cells = _padded(table, first, 1)
    line = np.asarray(lines[1:], dtype=np.intp)
    a, b = a_raw, b_raw = cells[:, a_col], cells[:, b_col]
    for col, values in ((a_col, a), (b_col, b)):
        blank = np.flatnonzero(values == "")
        if blank.size:
            raise PreferenceFormatError(
                "This cell is blank; every comparison needs two items.",
                row=int(line[blank[0]]), column=_label(first, col),
                fix="Fill in the item or delete the row.")
    used = {a_col, b_col}
    tied = np.zeros(len(a), dtype=bool)
    if mode == "label":
        label_col = roles.get("winner", roles.get("label"))
        used.add(label_col)
        a, b, tied = _resolve_labels(a, b, cells[:, label_col], line, first, label_col, a_col,
                                     b_col)
    for role in ("ranker", "weight"):
        if role in roles:
            used.add(roles[role])
    notes = _ignored_note(first, used)
    return _pairs(a, b, tied, line, cells, roles, first, notes, appearance=(a_raw, b_raw))


def _resolve_labels(left, right, label, lines, header, label_col, left_col, right_col):
    """Turn left/right/winner rows into winner, loser and tie flags."""
    words = np.asarray([_norm(x) for x in label], dtype=object)
    left_words = _LEFT_WORDS | {_norm(header[left_col])}
    right_words = _RIGHT_WORDS | {_norm(header[right_col])}
    is_left = label == left
    is_right = ~is_left & (label == right)
    rest = ~(is_left | is_right)
    word_left = rest & np.isin(words, list(left_words))
    word_right = rest & ~word_left & np.isin(words, list(right_words))
    tie = rest & ~word_left & ~word_right & np.isin(words, list(_TIE_WORDS))
    bad = np.flatnonzero(rest & ~word_left & ~word_right & ~tie)
    if bad.size:
        i = int(bad[0])
        found = f"'{label[i]}'" if label[i] else "a blank cell"
        raise PreferenceFormatError(
            f"The winner is {found}, which is neither the left item ('{left[i]}') nor the right "
            f"item ('{right[i]}').", row=int(lines[i]),
            column=_label(header, label_col),
            fix="Write the winning item's name, the word 'left' or 'right', or 'tie' for a draw.")
    right_wins = is_right | word_right
    winner = np.where(right_wins, right, left)
    loser = np.where(right_wins, left, right)
    return winner, loser, tie


def _pairs_headerless(table: _Table) -> Preferences:
    width = 2
    cells = np.full((len(table.rows), width), "", dtype=object)
    for i, row in enumerate(table.rows):
        cells[i, :len(row)] = row
    line = np.asarray(table.lines, dtype=np.intp)
    for col in range(width):
        blank = np.flatnonzero(cells[:, col] == "")
        if blank.size:
            raise PreferenceFormatError(
                "This cell is blank; every comparison needs two items (winner first).",
                row=int(line[blank[0]]), column=str(col + 1),
                fix="Fill in the item or delete the row.")
    return _pairs(cells[:, 0], cells[:, 1], np.zeros(len(line), bool), line, cells, {}, None,
                  [])


def _pairs(winner, loser, tied, line, cells, roles, header, notes, appearance=None
           ) -> Preferences:
    """Build pairwise Preferences, skipping pairs of an item with itself.

    Items are numbered in order of first appearance in the two columns of ``appearance``
    (the file's own columns), which default to ``winner`` and ``loser``.
    """
    winner = np.asarray(winner, dtype=object)
    loser = np.asarray(loser, dtype=object)
    first, second = appearance if appearance is not None else (winner, loser)
    seen = np.column_stack([first, second]).ravel()
    codes, item_names = _factorize(np.concatenate([seen, winner, loser]))
    _check_items(item_names)
    w_id, l_id = codes[seen.size:seen.size + winner.size], codes[seen.size + winner.size:]
    notes = list(notes)
    keep = w_id != l_id
    if not keep.all():
        self_lines = line[~keep]
        notes.append(f"Skipped {_count(self_lines.size, 'row')} comparing an item with "
                     f"itself: {_count(self_lines.size, 'row', number=False)} "
                     f"{_rows_text(self_lines)}")
    if not keep.any():
        raise PreferenceFormatError(
            "Every row compares an item with itself, so there is nothing to compare.",
            fix="Each row must name two different items.")
    weights = None
    if "weight" in roles:
        col = roles["weight"]
        weights = _weights(cells[:, col], line, _label(header, col))[keep]
    rankers, ranker_names = None, None
    if "ranker" in roles:
        col = roles["ranker"]
        rankers, ranker_names = _ranker_ids(cells[keep, col], line[keep], _label(header, col))
    return Preferences.from_pairs(w_id[keep], l_id[keep], n_items=len(item_names),
                                  tied=np.asarray(tied, bool)[keep], weights=weights,
                                  rankers=rankers, item_names=item_names,
                                  ranker_names=ranker_names, notes=tuple(notes))


# ---------------------------------------------------------------------------- PrefLib
_MAX_ALTERNATIVES = 100_000
_PREFLIB_DATA = re.compile(r"([^:,]*?)\s*:\s*(.*)")
_ORDER_TOKEN = re.compile(r"\{[^{}]*\}|[^,{}]+|[{}]")


def _read_preflib(text: str) -> Preferences:
    lines = _lines(text)
    if not lines:
        raise _empty_error()
    size = None if lines[0][1].startswith("#") else _old_preflib_size(lines)
    if size is None:
        if not (lines[0][1].startswith("#") or _PREFLIB_DATA.fullmatch(lines[0][1])):
            raise PreferenceFormatError(
                "This does not look like a PrefLib file: it should start with header lines "
                "such as '# DATA TYPE: soi' (current PrefLib) or with the number of "
                "alternatives on a line by itself (older PrefLib).", row=lines[0][0],
                fix="Choose the format that matches the file, or download the file again "
                    "from PrefLib.")
        names, declared, data = _preflib_current(lines)
    else:
        names, declared, data = _preflib_old(lines, size)
    return _preflib_build(names, declared, data)


def _preflib_current(lines):
    names: dict[int, tuple[str, int]] = {}
    declared = None
    data = []
    for lineno, s in lines:
        if s.startswith("#"):
            alt = re.match(r"#\s*alternative name\s*(\d+)\s*:\s?(.*)$", s, re.IGNORECASE)
            count = re.match(r"#\s*number alternatives\s*:\s*(\S+)\s*$", s, re.IGNORECASE)
            if alt:
                names[int(alt[1])] = (alt[2].strip(), lineno)
            elif count:
                if not _INTEGER.fullmatch(count[1]):
                    raise PreferenceFormatError(
                        f"The number of alternatives should be a whole number, not "
                        f"'{count[1]}'.", row=lineno, fix="Correct the header line.")
                declared = (int(count[1]), lineno)
            continue
        match = _PREFLIB_DATA.fullmatch(s)
        if not match:
            raise PreferenceFormatError(
                f"This line should look like '3: 1,2,{{3,4}}' (how many voters gave the order, "
                f"a colon, then the order), but it is '{s[:60]}'.", row=lineno,
                fix="Correct the line, or check that the file is a PrefLib file.")
        data.append((lineno, match[1], match[2]))
    return names, declared, data


def _preflib_old(lines, size):
    names: dict[int, tuple[str, int]] = {}
    for lineno, s in lines[1:size + 1]:
        number, _, name = s.partition(",")
        names[int(number)] = (name.strip(), lineno)
    data = []
    for lineno, s in lines[size + 2:]:
        count, comma, order = s.partition(",")
        if not comma:
            raise PreferenceFormatError(
                f"This line should look like '3,1,2,{{3,4}}' (how many voters gave the order, "
                f"then the order), but it is '{s[:60]}'.", row=lineno,
                fix="Correct the line, or check that the file is a PrefLib file.")
        data.append((lineno, count.strip(), order))
    return names, (size, lines[0][0]), data


def _preflib_size(names, declared, data) -> int:
    if declared is not None:
        m, lineno = declared
        if m > _MAX_ALTERNATIVES:
            raise PreferenceFormatError(
                f"The file declares {m} alternatives; at most {_MAX_ALTERNATIVES} are "
                "supported.", row=lineno, fix="Check the number of alternatives.")
        for number, (_, name_line) in names.items():
            if not 1 <= number <= m:
                raise PreferenceFormatError(
                    f"Alternative {number} is named, but the file declares only {m} "
                    f"alternatives (numbered 1 to {m}).", row=name_line,
                    fix="Correct the number of alternatives or the alternative's number.")
        return m
    used = [int(t) for _, _, order in data for t in re.findall(r"\d+", order)]
    m = max([*names, *used, 0])
    if m > _MAX_ALTERNATIVES:
        raise PreferenceFormatError(
            f"The file refers to alternative {m}; at most {_MAX_ALTERNATIVES} are supported.",
            fix="Check the alternative numbers.")
    return m


def _preflib_build(names, declared, data) -> Preferences:
    m = _preflib_size(names, declared, data)
    item_names, notes, seen = [], [], {}
    for number in range(1, m + 1):
        name = names.get(number, (str(number), 0))[0] or str(number)
        if name in seen:
            notes.append(f"Alternatives {seen[name]} and {number} are both called '{name}'; "
                         f"the second is shown as '{name} ({number})'")
            name = f"{name} ({number})"
        seen.setdefault(name, number)
        item_names.append(name)
    if not data:
        raise PreferenceFormatError("The PrefLib file has header lines but no orders.",
                                    fix="Add the lines holding the orders.")
    pref, group, item, lines, counts = [], [], [], [], []
    for n, (lineno, count, order) in enumerate(data):
        groups = _preflib_order(order, lineno, m)
        lines.append(lineno)
        counts.append(count)
        for g, members in enumerate(groups):
            for alternative in members:
                pref.append(n)
                group.append(g)
                item.append(alternative - 1)
    line = np.asarray(lines, dtype=np.intp)
    weights = _preflib_counts(np.asarray(counts, dtype=object), line)
    return _assemble(np.asarray(pref, dtype=np.intp), np.asarray(group, dtype=np.intp),
                     np.asarray(item, dtype=np.intp), len(data), tuple(item_names), line,
                     weights=weights, notes=notes, unit="order")


def _preflib_counts(counts: np.ndarray, lines: np.ndarray) -> np.ndarray:
    numbers = _numbers(counts)
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"The count before the order should be a positive number, but it is "
            f"'{counts[i]}'.", row=int(lines[i]), column="count",
            fix="Write how many voters gave this order, e.g. '3: 1,2,3'.")
    return numbers


def _preflib_order(order: str, lineno: int, m: int) -> list[list[int]]:
    """Parse '1,2,{3,4},5' into tied groups of alternative numbers."""
    groups: list[list[int]] = []
    seen: set[int] = set()
    for token in _ORDER_TOKEN.findall(order):
        token = token.strip()
        if token in ("{", "}"):
            raise PreferenceFormatError(
                f"The braces in the order '{order.strip()[:60]}' do not match up.", row=lineno,
                fix="Put tied alternatives in one pair of braces, e.g. {3,4}.")
        parts = token[1:-1].split(",") if token.startswith("{") else [token]
        members = []
        for part in (p.strip() for p in parts):
            if not part:
                continue
            if not _INTEGER.fullmatch(part) or not 1 <= int(part) <= m:
                raise PreferenceFormatError(
                    f"'{part[:40]}' is not an alternative number between 1 and {m}.",
                    row=lineno, fix="Use the numbers given in the ALTERNATIVE NAME lines.")
            number = int(part)
            if number in seen:
                raise PreferenceFormatError(
                    f"Alternative {number} ('{number}') appears twice in this order.",
                    row=lineno, fix="Each alternative may appear only once per order.")
            seen.add(number)
            members.append(number)
        if members:
            groups.append(members)
    return groups


# ---------------------------------------------------------------------------- public API
def _guard(task: Callable):
    """Run ``task``; turn any failure that is not already a PreferenceFormatError into one."""
    try:
        return task()
    except PreferenceFormatError:
        raise
    except Exception as exc:  # a safety net: the UI must only ever see PreferenceFormatError
        raise PreferenceFormatError(
            f"{_UNEXPECTED} ({type(exc).__name__}: {str(exc)[:200]}).",
            fix="Check that the file is a CSV or PrefLib file laid out like the example "
                "files; if it is, please report this problem.") from exc


def read_preferences(source, format: str = "auto", *, encoding: str | None = None
                     ) -> Preferences:
    """Read a file of rankings into :class:`Preferences`.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file-like
        A path, the file's bytes, or an object with ``getvalue()``/``read()`` (e.g.
        Streamlit's ``UploadedFile``); its ``name`` helps to recognise PrefLib files.
    format : {"auto", "wide", "long", "pairwise", "preflib"}
        The layout (see :data:`FORMATS`); ``"auto"`` detects it with :func:`detect_format`.
    encoding : str, optional
        The text encoding; by default a byte-order mark, then UTF-8, Windows-1252 and
        Latin-1 are tried.

    Returns
    -------
    Preferences
        Items are numbered in order of first appearance (PrefLib: in the file's numbering);
        rows that were skipped are described in ``notes``.

    Raises
    ------
    PreferenceFormatError
        For every problem with the input, naming the row and column where possible.

    Examples
    --------
    >>> prefs = read_preferences(b"voter,1st,2nd\\nann,tea,coffee\\nbob,coffee,tea\\n")
    >>> prefs.to_lists(names=True), prefs.ranker_names
    ([['tea', 'coffee'], ['coffee', 'tea']], ('ann', 'bob'))
    """
    if format != "auto" and format not in FORMATS:
        raise PreferenceFormatError(f"'{format}' is not a known format.",
                                    fix=f"Use one of: auto, {', '.join(FORMATS)}.")

    def task() -> Preferences:
        text, name = _text(source, encoding)
        fmt = _detect(text, name) if format == "auto" else format
        if fmt == "preflib":
            return _read_preflib(text)
        if _looks_preflib(text):
            raise PreferenceFormatError(
                f"This looks like a PrefLib file, not a {_TITLES[fmt]} table.",
                fix="Choose the 'preflib' format, or let it be detected.")
        if not text.strip():
            raise _empty_error()
        table = _table(text)
        if not table.rows:
            raise _empty_error()
        if fmt == "wide":
            return _read_wide(table)
        if fmt == "long":
            return _read_long(table)
        return _read_pairwise(table, explicit=format == "pairwise")

    return _guard(task)


def detect_format(source) -> str:
    """Say which layout a file has.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file-like
        As for :func:`read_preferences`.

    Returns
    -------
    str
        One of ``"wide"``, ``"long"``, ``"pairwise"``, ``"preflib"``: PrefLib by file
        extension or header lines; long and pairwise by their column titles; otherwise wide.

    Raises
    ------
    PreferenceFormatError
        When the file is empty, binary, or names columns that fit no layout.
    """
    return _guard(lambda: _detect(*_text(source)))


def read_truth(source, prefs: Preferences, *, encoding: str | None = None) -> np.ndarray:
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
    return _guard(lambda: _read_truth(_text(source, encoding)[0], prefs))


def _read_truth(text: str, prefs: Preferences) -> np.ndarray:
    if not text.strip():
        raise _empty_error()
    index = {name: i for i, name in enumerate(prefs.item_names)}
    table = _maybe_space_separated(_table(text), index)
    if not table.rows:
        raise _empty_error()
    header, item_col, value_col, value_role = _truth_columns(table, index)
    start = 1 if header else 0
    if start == len(table.rows):
        raise _header_only_error(table.lines[0])
    items = _column_cells(table.rows[start:], item_col)
    line = np.asarray(table.lines[start:], dtype=np.intp)
    column = _label(header, item_col)
    blank = np.flatnonzero(items == "")
    if blank.size:
        raise PreferenceFormatError("The item is blank on this row.", row=int(line[blank[0]]),
                                    column=column, fix="Fill in the item or delete the row.")
    _truth_items(items, line, column, index)
    if value_role == "order":
        scores = len(items) - np.arange(len(items), dtype=float)
    else:
        values = _column_cells(table.rows[start:], value_col)
        scores = _numbers(values)
        bad = np.flatnonzero(~np.isfinite(scores))
        if bad.size:
            i = int(bad[0])
            found = f"'{values[i]}'" if values[i] else "a blank cell"
            raise PreferenceFormatError(
                f"The {value_role} of '{items[i]}' should be a number, but it is {found}.",
                row=int(line[i]), column=_label(header, value_col),
                fix=f"Write a number for every item's {value_role}.")
        if value_role == "rank":
            scores = -scores
    out = np.full(prefs.n_items, np.nan)
    out[[index[name] for name in items]] = scores
    return out


def _column_cells(rows, j: int) -> np.ndarray:
    return np.asarray([r[j] if j < len(r) else "" for r in rows], dtype=object)


def _truth_columns(table: _Table, index: dict[str, int]):
    """Header (or None), item column, value column and its role: score, rank or order."""
    first = table.rows[0]
    roles = _roles(first, _TRUTH_ROLES)
    two = table.width >= 2
    if not _truth_header(first, roles, index, table.rows[1:]):
        item_col = _item_column(table.rows, index) if two else 0
        return None, item_col, 1 - item_col, "score" if two else "order"
    role = next((r for r in ("score", "rank") if r in roles), None)
    value_col = roles[role] if role else None
    item_col = roles.get("item", roles.get("order", 1 if value_col == 0 else 0))
    if value_col is None:
        value_col, role = (1 - min(item_col, 1), "score") if two else (0, "order")
    return list(first), item_col, value_col, role


def _maybe_space_separated(table: _Table, index: dict[str, int]) -> _Table:
    """Split 'item score' lines on spaces when nothing else separates the values."""
    if table.width != 1 or sum(r[0] in index for r in table.rows) * 2 > len(table.rows):
        return table
    split = [r[0].split() for r in table.rows]
    if all(len(parts) == 2 for parts in split):
        return _Table(split, table.lines, " ")
    return table


def _truth_header(first, roles, index, rest) -> bool:
    """Whether the first row of a ground truth holds column titles."""
    if any(first[j] not in index for j in roles.values()):
        return True
    if len(first) >= 2 and first[0] not in index and first[1] not in index:
        # unrecognised titles above a column of numbers
        later = np.asarray([r[1] for r in rest if len(r) > 1], dtype=object)
        return bool(np.isnan(_numbers(np.asarray(first[1:2], dtype=object))[0])
                    and np.isfinite(_numbers(later)).any())
    return False


def _item_column(rows, index) -> int:
    """Without a header: the column (of the first two) whose values name more items."""
    hits = [sum(len(r) > j and r[j] in index for r in rows) for j in (0, 1)]
    return 1 if hits[1] > hits[0] else 0


def _truth_items(items, line, column, index) -> None:
    repeat = _first_repeat(items)
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
            f"{'are' if many else 'is'} not in the preferences: {_quote_list(names)}.",
            row=int(line[unknown[0]]), column=column,
            fix="Check the spelling (names must match exactly, including capital letters), or "
                "remove these rows from the ground truth.")


# ---------------------------------------------------------------------------- examples
_EXAMPLES: dict[str, str] = {
    "wide": (
        "voter,1st,2nd,3rd,4th\n"
        "alice,margherita,funghi,hawaii,quattro formaggi\n"
        "bob,funghi,margherita|hawaii,,\n"
        "carol,quattro formaggi,margherita,funghi,\n"
        "dave,margherita,hawaii,,\n"
    ),
    "long": (
        "ranker,item,rank\n"
        "alice,margherita,1\nalice,funghi,2\nalice,hawaii,3\nalice,quattro formaggi,4\n"
        "bob,funghi,1\nbob,margherita,2\nbob,hawaii,2\n"
        "carol,quattro formaggi,1\ncarol,margherita,2\ncarol,funghi,3\n"
    ),
    "pairwise": (
        "worker,left,right,winner\n"
        "alice,margherita,funghi,margherita\n"
        "alice,funghi,hawaii,left\n"
        "bob,hawaii,quattro formaggi,right\n"
        "bob,margherita,hawaii,tie\n"
        "carol,quattro formaggi,funghi,funghi\n"
    ),
    "preflib": (
        "# FILE NAME: pizza.toi\n"
        "# TITLE: Favourite pizzas (example)\n"
        "# DATA TYPE: toi\n"
        "# NUMBER ALTERNATIVES: 4\n"
        "# NUMBER VOTERS: 6\n"
        "# NUMBER UNIQUE ORDERS: 3\n"
        "# ALTERNATIVE NAME 1: margherita\n"
        "# ALTERNATIVE NAME 2: funghi\n"
        "# ALTERNATIVE NAME 3: hawaii\n"
        "# ALTERNATIVE NAME 4: quattro formaggi\n"
        "3: 1,2,3,4\n"
        "2: 2,{1,3}\n"
        "1: 4,1\n"
    ),
}


def example_file(format: str) -> bytes:
    """A small, correctly laid out example file of a format (UTF-8 bytes).

    Parameters
    ----------
    format : {"wide", "long", "pairwise", "preflib"}

    Returns
    -------
    bytes
        The file's contents; :func:`read_preferences` reads them back, and
        :func:`detect_format` recognises the format.
    """
    if format not in _EXAMPLES:
        raise PreferenceFormatError(f"'{format}' is not a known format.",
                                    fix=f"Use one of: {', '.join(FORMATS)}.")
    return _EXAMPLES[format].encode("utf-8")
