"""PrefLib files (.soc, .soi, .toc, .toi), current and older layouts."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..errors import PreferenceFormatError
from ..preferences import ID_DTYPE, MAX_WEIGHT, MIN_WEIGHT, Preferences
from .assembly import (
    DECLARED_FACTOR,
    DECLARED_SLACK,
    assemble,
    check_weights,
    declared_within_present,
    empty_error,
    parse_numbers,
    tidy_name,
    unique_names,
    whole,
)
from .columns import INTEGER
from .tables import numeric_rows, rows_in_chunks, split_fast
from .wide import TIE, split_ties

__all__ = ["read_preflib", "looks_preflib", "PREFLIB_EXTENSIONS"]

PREFLIB_EXTENSIONS = (".soc", ".soi", ".toc", ".toi")
_PREFLIB_KEY = re.compile(
    r"#\s*(?:file name|title|description|data type|modification type|relates to|related files|"
    r"publication date|modification date|number alternatives|number voters|"
    r"number unique orders|alternative name\s*\d+)\s*:", re.IGNORECASE)


def lines_of(text: str) -> list[tuple[int, str]]:
    """Non-blank lines, stripped, with their 1-based line numbers."""
    return [(i, s.strip()) for i, s in enumerate(re.split(r"\r\n|\r|\n", text), 1) if s.strip()]


def _old_preflib_size(lines: list[tuple[int, str]]) -> int | None:
    """M when ``lines`` follow the older PrefLib layout, else None."""
    if not lines or not INTEGER.fullmatch(lines[0][1]):
        return None
    if len(lines[0][1]) > 9:
        return None
    m = int(lines[0][1])
    if m < 1 or len(lines) < m + 2:
        return None
    if not all(re.match(r"\d+\s*,", s) for _, s in lines[1:m + 1]):
        return None
    return m if re.fullmatch(r"\d+\s*,\s*\d+\s*,\s*\d+", lines[m + 1][1]) else None


def looks_preflib(text: str) -> bool:
    """Whether ``text`` has PrefLib header lines or the older PrefLib layout."""
    lines = lines_of(text[:65536])
    if lines and lines[0][1].startswith("#"):
        return any(_PREFLIB_KEY.match(s) for _, s in lines if s.startswith("#"))
    return _old_preflib_size(lines) is not None

_MAX_ALTERNATIVES = 100_000
#: A data line: a count, a colon, an order (no backtracking: a long line is read once).
_PREFLIB_DATA = re.compile(r"([^:,]*):(.*)")
_ORDER_TOKEN = re.compile(r"\{[^{}]*\}|[^,{}]+|[{}]")


def read_preflib(text: str) -> Preferences:
    """Read a PrefLib file: ``count: 1,2,{3,4}`` lines under ``#`` header lines.

    The orders are parsed at once as a table; a file that this cannot read is read line by
    line, which names the line and the problem.
    """
    fast = _read_fast(text)
    return fast if fast is not None else _read_by_line(text)


_TIED = re.compile(r"\{([^{}\n]*)\}")


def _read_fast(text: str) -> Preferences | None:
    """The orders as one table: ``3: 1,{2,4},3`` becomes the row ``3,1,2|4,3``.

    Orders without ties are parsed as numbers (no text per cell), a chunk of lines at a
    time so that memory stays near the size of the result; None sends the file to the
    line-by-line reader, which names the line and the problem.
    """
    text = text.replace("\r\n", "\n") if "\r\n" in text else text
    head_lines, start, offset = [], 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip()
        if line and not line.startswith("#"):
            break
        offset += 1
        if line:
            head_lines.append((offset, line))
        start = end + 1
    if not head_lines or start >= len(text):
        return None  # the older layout, or no orders: read line by line
    names, declared, _ = _preflib_current(head_lines)
    orders = rows_in_chunks(text, start, None, _orders)
    if orders is None:
        return None
    counts, pref, group, number, lines = orders
    m = declared[0] if declared is not None else max([*names, int(number.max(initial=0))])
    if m > _MAX_ALTERNATIVES or number.size and (number.min() < 1 or number.max() > m):
        return None
    if not (np.isfinite(counts) & (counts >= MIN_WEIGHT) & (counts <= MAX_WEIGHT)).all():
        return None
    if declared is not None:
        m = _preflib_size(names, declared, [], used=np.unique(number).tolist())
    item_names, notes = unique_names(
        [tidy_name(names.get(k, (str(k), 0))[0] or str(k)) for k in range(1, m + 1)],
        "Alternatives")
    number -= 1
    try:
        return assemble(pref, group, number, counts.size, tuple(item_names), lines + offset,
                        weights=counts, notes=notes, unit="order", merge_names=False)
    except ValueError:
        return None  # e.g. an alternative twice in one order: the line reader says where


def _orders(piece: str) -> tuple[np.ndarray, ...] | None:
    """One chunk of order lines as ``(counts, pref, group, number, lines)``, or None."""
    if not _one_count_per_line(piece):
        return None
    piece = piece.replace(":", ",")
    if "{" in piece or "}" in piece:
        piece = _TIED.sub(lambda match: match[1].replace(",", TIE), piece)
        if "{" in piece or "}" in piece:
            return None
        return _tied_orders(piece)
    return _strict_orders(piece)


def _one_count_per_line(data: str) -> bool:
    """Whether every non-blank line holds exactly one colon, before any comma."""
    encoded = np.frombuffer(data.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    newlines = np.flatnonzero(encoded == 10)
    n_lines = newlines.size + 1

    def per_line(positions: np.ndarray) -> np.ndarray:
        return np.searchsorted(newlines, positions)

    colons = np.flatnonzero(encoded == ord(":"))
    colon_line = per_line(colons)
    n_colons = np.bincount(colon_line, minlength=n_lines)
    ends = np.r_[newlines, encoded.size]
    starts = np.r_[0, newlines + 1]
    content = (ends - starts) > (encoded[np.maximum(ends - 1, 0)] == 13)  # '\r' alone is blank
    if (n_colons != content).any():
        return False
    colon_at = np.full(n_lines, -1)
    colon_at[colon_line] = colons
    commas = np.flatnonzero(encoded == ord(","))
    return not (commas < colon_at[per_line(commas)]).any()


def _strict_orders(data: str) -> tuple[np.ndarray, ...] | None:
    """Orders without ties, parsed as numbers: counts, entries and each order's line."""
    parsed = numeric_rows(data, ",")
    if parsed is None:
        return None
    values, lines = parsed
    alternatives = values[:, 1:]
    filled = ~np.isnan(alternatives)
    index = np.flatnonzero(filled.ravel())
    number = alternatives.ravel()[index]
    if not (np.isfinite(number) & (np.abs(number) < 1e9) & (number == np.floor(number))).all():
        return None
    width = max(alternatives.shape[1], 1)
    group = (np.cumsum(filled, axis=1, dtype=ID_DTYPE) - 1).ravel()[index]
    return values[:, 0].copy(), index // width, group, number.astype(ID_DTYPE), lines


def _tied_orders(data: str) -> tuple[np.ndarray, ...] | None:
    """Orders with tied alternatives (``2|4`` in a cell), read as a table of text."""
    table = split_fast(data, ",")
    if table is None or not len(table):
        return None
    alternatives = table.cells[:, 1:]
    index, codes, labels = split_ties(alternatives.ravel())
    if not all(INTEGER.fullmatch(label) and len(label) <= 9 for label in labels):
        return None
    number = np.asarray([int(label) for label in labels] or [0], dtype=ID_DTYPE)[codes]
    counts = parse_numbers(table.cells[:, 0])
    width = max(alternatives.shape[1], 1)
    filled = np.zeros(alternatives.size, dtype=bool)
    filled[index] = True
    group = (np.cumsum(filled.reshape(alternatives.shape), axis=1, dtype=ID_DTYPE)
             - 1).ravel()[index]
    return counts, index // width, group, number, table.lines


def _read_by_line(text: str) -> Preferences:
    lines = lines_of(text)
    if not lines:
        raise empty_error()
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


#: A PrefLib file's parts: alternative names (number -> name, line), the declared number of
#: alternatives and its line, and the order lines as (line, count, order)
Names = dict[int, tuple[str, int]]
Declared = tuple[int, int] | None
Data = list[tuple[int, str, str]]


def _preflib_current(lines: Sequence[tuple[int, str]]) -> tuple[Names, Declared, Data]:
    names: Names = {}
    declared: Declared = None
    data: Data = []
    for lineno, s in lines:
        if s.startswith("#"):
            alt = re.match(r"#\s*alternative name\s*(\d+)\s*:\s?(.*)$", s, re.IGNORECASE)
            count = re.match(r"#\s*number alternatives\s*:\s*(\S+)\s*$", s, re.IGNORECASE)
            if alt:
                number = whole(alt[1], lineno, "an alternative's number")
                if number in names:
                    raise PreferenceFormatError(
                        f"Alternative {number} is named twice: on rows {names[number][1]} and "
                        f"{lineno}.", row=lineno, fix="Name each alternative once.")
                names[number] = (alt[2].strip(), lineno)
            elif count:
                if not INTEGER.fullmatch(count[1]):
                    raise PreferenceFormatError(
                        f"The number of alternatives should be a whole number, not "
                        f"'{count[1]}'.", row=lineno, fix="Correct the header line.")
                declared = (whole(count[1], lineno, "the number of alternatives"), lineno)
            continue
        match = _PREFLIB_DATA.fullmatch(s)
        if not match:
            raise PreferenceFormatError(
                f"This line should look like '3: 1,2,{{3,4}}' (how many voters gave the order, "
                f"a colon, then the order), but it is '{s[:60]}'.", row=lineno,
                fix="Correct the line, or check that the file is a PrefLib file.")
        data.append((lineno, match[1].rstrip(), match[2].lstrip()))
    return names, declared, data


def _preflib_old(lines: Sequence[tuple[int, str]], size: int) -> tuple[Names, Declared, Data]:
    names: Names = {}
    for lineno, s in lines[1:size + 1]:
        number, _, name = s.partition(",")
        key = whole(number, lineno, "an alternative's number")
        if key in names:
            raise PreferenceFormatError(
                f"Alternative {key} is named twice: on rows {names[key][1]} and {lineno}.",
                row=lineno, fix="Name each alternative once.")
        names[key] = (name.strip(), lineno)
    data: Data = []
    for lineno, s in lines[size + 2:]:
        count, comma, order = s.partition(",")
        if not comma:
            raise PreferenceFormatError(
                f"This line should look like '3,1,2,{{3,4}}' (how many voters gave the order, "
                f"then the order), but it is '{s[:60]}'.", row=lineno,
                fix="Correct the line, or check that the file is a PrefLib file.")
        data.append((lineno, count.strip(), order))
    return names, (size, lines[0][0]), data


def _preflib_size(names: Names, declared: Declared, data: Data, used: list[int] | None = None
                  ) -> int:
    """The number of alternatives: the declared one (within what the file holds: its named
    alternatives and those its orders use, ``used`` when already known), or the largest
    number named or used."""
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
        if used is None:
            used = [int(t) for _, _, order in data for t in re.findall(r"\d{1,7}", order)]
        present = set(names).union(used)
        if not declared_within_present(m, len(present)):
            raise PreferenceFormatError(
                f"The file declares {m:,} alternatives but names or ranks only "
                f"{len(present):,}; a file may declare at most {DECLARED_FACTOR}× the "
                f"alternatives it holds plus {DECLARED_SLACK:,}.", row=lineno,
                fix="Correct the number of alternatives to the number the file holds.")
        return m
    used = [whole(t, lineno, "an alternative's number") for lineno, _, order in data
            for t in re.findall(r"\d+", order)]
    m = max([*names, *used, 0])
    if m > _MAX_ALTERNATIVES:
        raise PreferenceFormatError(
            f"The file refers to alternative {m}; at most {_MAX_ALTERNATIVES} are supported.",
            fix="Check the alternative numbers.")
    return m


def _preflib_build(names: Names, declared: Declared, data: Data) -> Preferences:
    m = _preflib_size(names, declared, data)
    item_names, notes = unique_names(
        [tidy_name(names.get(number, (str(number), 0))[0] or str(number))
         for number in range(1, m + 1)], "Alternatives")
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
    return assemble(np.asarray(pref, dtype=np.intp), np.asarray(group, dtype=np.intp),
                     np.asarray(item, dtype=np.intp), len(data), tuple(item_names), line,
                     weights=weights, notes=notes, unit="order", merge_names=False)


def _preflib_counts(counts: np.ndarray, lines: np.ndarray) -> np.ndarray:
    numbers = parse_numbers(counts)
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"The count before the order should be a positive number, but it is "
            f"'{counts[i]}'.", row=int(lines[i]), column="count",
            fix="Write how many voters gave this order, e.g. '3: 1,2,3'.")
    check_weights(numbers, counts, lines, "count", what="count")
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
            if not INTEGER.fullmatch(part) or not 1 <= whole(part, lineno, "an alternative") <= m:
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


