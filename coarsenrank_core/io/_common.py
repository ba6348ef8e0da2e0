"""Shared helpers of the file readers: column roles, tables of cells, cell values, assembly."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences

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
    "item": frozenset({"item", "items", "itemid", "itemname", "alternative", "candidate"}),
    "rank": frozenset({"rank", "position", "place"}),
    "winner": frozenset({"winner", "winnerid", "winneritem"}),
    "loser": frozenset({"loser", "loserid", "loseritem"}),
    "left": frozenset({"left", "leftitem", "itema", "modela", "white", "home", "hometeam",
                       "player1", "playera", "team1", "teama", "competitor1"}),
    "right": frozenset({"right", "rightitem", "itemb", "modelb", "black", "away", "awayteam",
                        "player2", "playerb", "team2", "teamb", "competitor2"}),
    "label": frozenset({"label", "result", "outcome"}),
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


def find_roles(cells: Sequence[str], table: dict[str, frozenset[str]]) -> dict[str, int]:
    """Role -> index of the first header cell that names it."""
    found: dict[str, int] = {}
    for j, cell in enumerate(cells):
        key = normalise(cell)
        for role, names in table.items():
            if key in names and role not in found:
                found[role] = j
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


def rows_text(lines, limit: int = 10) -> str:
    lines = [int(x) for x in lines]
    text = ", ".join(map(str, lines[:limit]))
    return text + (f", ... ({len(lines) - limit} more)" if len(lines) > limit else "")


# ---------------------------------------------------------------------------- text -> table
DELIMITERS = (",", ";", "\t")
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


@dataclass(frozen=True)
class Table:
    """The non-blank records of a delimited text file, with the line each starts on."""

    rows: list[list[str]]
    lines: list[int]
    delimiter: str

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)


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


def split_table(text: str) -> Table:
    """Split text into cells, choosing comma, semicolon or tab as the separator."""
    candidates = [d for d in DELIMITERS if d in text] or [","]
    parsed = {d: csv_records(text, d) for d in candidates}
    nonblank = {d: [(line, r) for line, r in recs if any(c.strip() for c in r)]
                for d, recs in parsed.items()}

    def score(d: str) -> tuple[int, bool, int]:
        recs = nonblank[d]
        used = sum(len(r) > 1 for _, r in recs)
        return used, bool(recs) and len(recs[0][1]) > 1, -DELIMITERS.index(d)

    delimiter = max(candidates, key=score)
    records = nonblank[delimiter]
    others = {d: {line: len(r) for line, r in nonblank[d]} for d in candidates if d != delimiter}
    for line, record in records:
        if len(record) > 1:
            continue
        for d, widths in others.items():
            if widths.get(line, 0) > 1:
                raise PreferenceFormatError(
                    f"This row separates its values with {DELIMITER_NAMES[d]}, but the rest "
                    f"of the file uses {DELIMITER_NAMES[delimiter]}.", row=line,
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
    return Table(rows, [line for line, _ in records], delimiter)


def padded(table: Table, header: list[str], start: int) -> np.ndarray:
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
                    f"{DELIMITER_NAMES[table.delimiter]}.")
    out = np.full((len(rows), width), "", dtype=object)
    for i, row in enumerate(rows):
        out[i, :min(len(row), width)] = row[:width]
    return out


# ---------------------------------------------------------------------------- cell values
def parse_numbers(values: np.ndarray) -> np.ndarray:
    """Parse plain decimal numbers; NaN where a cell is not one."""
    series = pd.Series(np.asarray(values, dtype=object), dtype=object)
    ok = series.str.fullmatch(NUMBER).fillna(False).to_numpy(dtype=bool)
    out = np.full(len(series), np.nan)
    if ok.any():
        with np.errstate(over="ignore"):
            out[ok] = np.asarray(series[ok].tolist(), dtype=float)
    return out


def parse_weights(values: np.ndarray, lines: np.ndarray, column: str) -> np.ndarray:
    """Positive finite weights; a blank cell means 1."""
    values = np.asarray(values, dtype=object)
    numbers = parse_numbers(values)
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
    return codes.astype(np.intp), tuple(str(n) for n in names)


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
              unit: str = "row") -> Preferences:
    """Build Preferences from entries sorted by preference and group; skip one-item lists.

    ``pref``, ``group`` and ``item`` describe each entry; ``pref_lines``, ``rankers`` (raw
    cell values) and ``weights`` describe each of the ``n_pref`` preferences.
    """
    check_items(item_names)
    counts = np.bincount(pref, minlength=n_pref)
    keep = counts >= 2
    notes = list(notes)
    single = np.flatnonzero(counts == 1)
    if single.size:
        notes.append(f"Skipped {plural(single.size, unit)} with fewer than 2 items: "
                     f"{plural(single.size, 'row', number=False)} "
                     f"{rows_text(pref_lines[single])}")
    if not keep.any():
        raise PreferenceFormatError(
            "No ranking in the file has two or more items, so there is nothing to compare.",
            fix="Put at least two items in each ranking. If the values on a row are separated "
                "by spaces or another character, save the file with commas between them.")
    entry_keep = keep[pref]
    ranker_codes, ranker_names = (None, None)
    if rankers is not None:
        ranker_codes, ranker_names = ranker_ids(np.asarray(rankers, dtype=object)[keep],
                                                pref_lines[keep], ranker_column)
    return Preferences.from_arrays(
        item[entry_keep], counts[keep], groups=group[entry_keep], n_items=len(item_names),
        item_names=item_names, weights=None if weights is None else weights[keep],
        rankers=ranker_codes, ranker_names=ranker_names, notes=tuple(notes))


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
    except PreferenceFormatError:
        raise
    except Exception as exc:  # a safety net: the UI must only ever see PreferenceFormatError
        raise PreferenceFormatError(
            f"{UNEXPECTED} ({type(exc).__name__}: {str(exc)[:200]}).",
            fix="Check that the file is laid out like one of the example files; if it is, "
                "please report this problem.") from exc
