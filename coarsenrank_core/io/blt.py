"""BLT ballots (OpaVote, OpenSTV): ``weight c1 c2=c3 0`` lines between a header and the names."""

from __future__ import annotations

import re

import numpy as np

from ..errors import PreferenceFormatError
from ..preferences import ID_DTYPE, MAX_WEIGHT, MIN_WEIGHT, Preferences
from .assembly import (
    assemble,
    check_weights,
    empty_error,
    parse_numbers,
    tidy_name,
    unique_names,
    whole,
)
from .columns import plural
from .tables import numeric_rows, rows_in_chunks

__all__ = ["read_blt", "looks_blt", "BLT_EXTENSIONS"]

BLT_EXTENSIONS = (".blt",)
_HEADER = re.compile(r"\d+\s+\d+")
_BALLOT = re.compile(r"(?:\([^()]*\)\s+)?\d+(?:\.\d+)?(?:\s+[\d=\-]+)*\s+0")


def _lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate(re.split(r"\r\n|\r|\n", text), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith('"') else raw.strip()
        if line:
            out.append((number, line))
    return out


def looks_blt(text: str) -> bool:
    """Whether ``text`` opens with ``candidates seats`` and a ballot ending in 0."""
    lines = _lines(text[:65536])
    if len(lines) < 3 or not _HEADER.fullmatch(lines[0][1]):
        return False
    body = lines[1:]
    if body and re.fullmatch(r"(-\d+\s*)+", body[0][1]):
        body = body[1:]
    return bool(body) and (_BALLOT.fullmatch(body[0][1]) is not None or body[0][1] == "0")


def read_blt(text: str) -> Preferences:
    """Read a BLT file: a ``candidates seats`` line, optional ``-k`` withdrawn candidates,
    ballots ``weight c1 c2=c3 0`` (optionally after a ``(id)``), a ``0`` line, then the
    candidates' names and the election's title, each in double quotes.

    Ballots without ties are parsed at once as a table of numbers; any other file is read
    ballot by ballot, which names the line and the problem."""
    fast = _read_fast(text)
    return fast if fast is not None else _read_by_ballot(text)


_TERMINATOR = re.compile(r"^[ \t]*0[ \t]*\r?$", re.MULTILINE)
_BALLOT_ID = re.compile(r"^[ \t]*\([^()\n]*\)[ \t]+", re.MULTILINE)


def _read_fast(text: str) -> Preferences | None:
    """Strict ballots (no ``=``, ``-`` or comments) as one table of numbers; else None."""
    head_end = text.find("\n")
    if head_end < 0 or not _HEADER.fullmatch(text[:head_end].strip()):
        return None
    m = int(text[:head_end].split()[0]) if len(text[:head_end].split()[0]) <= 6 else 0
    if not 2 <= m <= 100_000:
        return None
    start, offset, withdrawn = head_end + 1, 1, set()
    second_end = text.find("\n", start)
    second = text[start:second_end if second_end >= 0 else len(text)].strip()
    if re.fullmatch(r"(-\d{1,6}\s*)+", second):
        withdrawn = {-int(t) for t in second.split()}
        start, offset = second_end + 1, 2
    end = _TERMINATOR.search(text, start)
    if end is None:
        return None
    if any(text.find(mark, start, end.start()) >= 0 for mark in ("=", "-", "#", "\t", '"')):
        return None
    ballots = rows_in_chunks(text, start, end.start(),
                             lambda piece: _ballots(piece, m, withdrawn))
    if ballots is None:
        return None
    weight, pref, group, number, lines = ballots
    try:
        names = _names(_lines(text[end.end():]), m)
    except PreferenceFormatError:
        return None  # the ballot reader says which line
    notes = []
    if withdrawn:
        notes.append(f"Left out {plural(len(withdrawn), 'withdrawn candidate')}: "
                     + ", ".join(f"'{names[c - 1]}'" for c in sorted(withdrawn) if c <= m))
    if not (np.isfinite(weight) & (weight >= MIN_WEIGHT) & (weight <= MAX_WEIGHT)).all():
        return None
    number, names = _without_withdrawn(number - 1, names, withdrawn)
    try:
        return assemble(pref, group, number, weight.size, tuple(names), lines + offset,
                        weights=weight, notes=notes, unit="ballot", merge_names=False)
    except ValueError:
        return None  # e.g. a candidate twice on one ballot: the ballot reader says where


def _ballots(piece: str, m: int, withdrawn: set[int]) -> tuple[np.ndarray, ...] | None:
    """Strict ballots of one chunk as ``(weight, pref, group, number, lines)``, or None."""
    parsed = numeric_rows(_BALLOT_ID.sub("", piece), " ")
    if parsed is None:
        return None
    values, lines = parsed
    filled = ~np.isnan(values)
    last = values.shape[1] - 1 - np.argmax(filled[:, ::-1], axis=1)
    if (filled.sum(axis=1) < 2).any() or (values[np.arange(len(values)), last] != 0).any():
        return None
    filled[np.arange(len(values)), last] = False  # the 0 that ends each ballot
    filled[:, 0] = False  # the weight
    candidate = values[filled]
    if not ((candidate >= 1) & (candidate <= m) & (candidate == np.floor(candidate))).all():
        return None
    number = candidate.astype(ID_DTYPE)
    if withdrawn:
        keep = ~np.isin(number, list(withdrawn))
        filled[filled] = keep
        number = number[keep]
    index = np.flatnonzero(filled.ravel())
    pref = index // values.shape[1]
    group = (np.cumsum(filled, axis=1, dtype=ID_DTYPE) - 1).ravel()[index]
    return values[:, 0].copy(), pref, group, number, lines


def _read_by_ballot(text: str) -> Preferences:
    lines = _lines(text)
    if not lines:
        raise empty_error()
    number, first = lines[0]
    if not _HEADER.fullmatch(first):
        raise PreferenceFormatError(
            f"A BLT file starts with the number of candidates and of seats, e.g. '4 2', but "
            f"this line is '{first[:60]}'.", row=number, fix="Correct the first line.")
    m = whole(first.split()[0], number, "the number of candidates")
    if not 2 <= m <= 100_000:
        raise PreferenceFormatError(f"The file declares {m} candidates.", row=number,
                                    fix="A BLT file needs between 2 and 100,000 candidates.")
    position = 1
    withdrawn: set[int] = set()
    if position < len(lines) and re.fullmatch(r"(-\d+\s*)+", lines[position][1]):
        row = lines[position][0]
        withdrawn = {-whole(t, row, "a candidate") for t in lines[position][1].split()}
        position += 1
    ballots = []
    while position < len(lines) and lines[position][1] != "0":
        ballots.append(lines[position])
        position += 1
    if position == len(lines):
        raise PreferenceFormatError(
            "The ballots are not ended by a line holding only 0.",
            row=lines[-1][0], fix="Add a line with 0 after the last ballot.")
    names = _names(lines[position + 1:], m)
    pref, group, item, weights, rows = [], [], [], [], []
    for n, (lineno, ballot) in enumerate(ballots):
        tokens = re.sub(r"^\([^()]*\)\s+", "", ballot).split()
        if len(tokens) < 2 or tokens[-1] != "0":
            raise PreferenceFormatError(
                f"A ballot is a weight, the candidates' numbers and a final 0, e.g. '1 2 3=4 0', "
                f"but this line is '{ballot[:60]}'.", row=lineno, fix="Correct the ballot.")
        weights.append(tokens[0])
        rows.append(lineno)
        seen: set[int] = set()
        g = 0
        for token in tokens[1:-1]:
            members = []
            for part in token.split("="):
                if part == "-":
                    continue
                if not part.isdigit() or not 1 <= whole(part, lineno, "a candidate") <= m:
                    raise PreferenceFormatError(
                        f"'{part[:20]}' is not a candidate number between 1 and {m}.",
                        row=lineno, fix="Use the candidates' numbers, 1 to the number of "
                                        "candidates.")
                c = int(part)
                if c in seen:
                    raise PreferenceFormatError(
                        f"Candidate {c} ('{names[c - 1]}') appears twice on this ballot.",
                        row=lineno, fix="Each candidate may appear only once per ballot.")
                seen.add(c)
                if c not in withdrawn:
                    members.append(c - 1)
            for c in members:
                pref.append(n)
                group.append(g)
                item.append(c)
            g += bool(members)
    line = np.asarray(rows, dtype=np.intp)
    weight = parse_numbers(np.asarray(weights, dtype=object))
    bad = np.flatnonzero(~(np.isfinite(weight) & (weight > 0)))
    if bad.size:
        raise PreferenceFormatError(
            f"The ballot's weight '{weights[bad[0]]}' is not a positive number.",
            row=int(line[bad[0]]), fix="Start each ballot with how many voters gave it.")
    check_weights(weight, weights, line, None, what="ballot weight")
    notes = []
    if withdrawn:
        notes.append(f"Left out {plural(len(withdrawn), 'withdrawn candidate')}: "
                     + ", ".join(f"'{names[c - 1]}'" for c in sorted(withdrawn) if c <= m))
    items, names = _without_withdrawn(np.asarray(item, dtype=np.intp), names, withdrawn)
    return assemble(np.asarray(pref, dtype=np.intp), np.asarray(group, dtype=np.intp),
                    items, len(ballots), tuple(names), line,
                    weights=weight, notes=notes, unit="ballot", merge_names=False)


def _without_withdrawn(number: np.ndarray, names: list[str], withdrawn: set[int]
                       ) -> tuple[np.ndarray, list[str]]:
    """Candidates renumbered (0-based) without the withdrawn ones, and their names: a
    withdrawn candidate is no item, so no ranking lists it."""
    if not withdrawn:
        return number, names
    kept = np.array([c for c in range(len(names)) if c + 1 not in withdrawn], dtype=np.intp)
    renumber = np.full(len(names), -1, dtype=number.dtype)
    renumber[kept] = np.arange(kept.size, dtype=number.dtype)
    return renumber[number], [names[c] for c in kept]


def _names(lines: list[tuple[int, str]], m: int) -> list[str]:
    """The candidates' names after the ballots: quoted (or bare) strings, one or more a line."""
    names: list[str] = []
    for lineno, text in lines:
        names.extend(_quoted_names(text, lineno) if '"' in text else [text])
    if len(names) < m:
        raise PreferenceFormatError(
            f"The file declares {m} candidates but names only {len(names)}.",
            fix="After the 0 line, give each candidate's name in double quotes, then the "
                "title.")
    return unique_names([tidy_name(n) for n in names[:m]], "Candidates")[0]


#: A name in double quotes (a quote inside written twice, ``""``, or as ``\"``), or a bare
#: word.
_NAME_TOKEN = re.compile(r'\s*(?:"(?P<quoted>(?:[^"\\]|""|\\.)*)"|(?P<bare>[^\s"]+))\s*')


def _quoted_names(text: str, lineno: int) -> list[str]:
    """The names on one line: ``"Bob ""The Builder"" Jones"`` is ``Bob "The Builder" Jones``."""
    names, at = [], 0
    while at < len(text):
        token = _NAME_TOKEN.match(text, at)
        if token is None or token.end() == at:
            raise PreferenceFormatError("A quote mark (\") is not closed.", row=lineno,
                                        fix="Put each name in a pair of double quotes.")
        quoted = token["quoted"]
        names.append(token["bare"] if quoted is None else
                      re.sub(r'""|\\(["\\])', lambda m: m[1] or '"', quoted))
        at = token.end()
    return names
