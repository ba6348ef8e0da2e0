"""Pairwise files of any length, counted chunk by chunk into a weighted collection (pyarrow)."""

from __future__ import annotations

import csv
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import PreferenceFormatError
from ..preferences import MAX_ID, MAX_WEIGHT, MIN_WEIGHT, Preferences
from ._text import CONTROL_CHARACTER, SourceLike
from .arrow import ARROW_EXTENSIONS
from .assembly import (
    ANONYMOUS_NAMES,
    check_items,
    guard,
    name_key,
    names_note,
    parse_weights,
    tidy_name,
    unneutralise,
    without_unpaired_names,
)
from .columns import PREFERENCE_ROLES, column_label, find_roles, normalise, plural, quote_list
from .pairwise import (
    _FALSE,
    _TRUE,
    ROW_ID_TITLES,
    _is_bye,
    _resolve_flags,
    _second_share,
    label_outcomes,
    not_played_rows,
    pairwise_columns,
    shown_walkover,
    status_column,
    walkover_marks,
)
from .report import ReadReport, ReadResult
from .tables import choose_delimiter, multiline_error, padded, split_with

__all__ = ["stream_pairwise", "CHUNK_BYTES"]

CHUNK_BYTES = 16 << 20
"""Bytes of CSV text (or about as many Parquet/Arrow rows' worth) parsed per chunk."""

_COMPACT_ROWS = 1 << 18
"""Partial counts are re-summed once this many rows of them have piled up."""


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError:  # pragma: no cover - pyarrow is in requirements.txt
        raise PreferenceFormatError(
            "Reading large files in chunks needs the pyarrow package, which is not installed.",
            fix="Install it (pip install pyarrow).") from None
    return pyarrow


POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"
"""The environment variable by which a user chooses pyarrow's pool; when it is set,
:func:`stream_pairwise` keeps that choice instead of the system allocator."""

_POOL_LOCK = threading.Lock()
_POOL_STATE: dict[str, Any] = {"depth": 0, "previous": None}


def reading_pool(memory_pool: Any = None) -> Any:
    """The pyarrow memory pool a chunked read allocates from.

    Parameters
    ----------
    memory_pool : pyarrow.MemoryPool, optional
        A pool chosen by the caller, returned as it is.

    Returns
    -------
    pyarrow.MemoryPool
        ``memory_pool`` when given; else pyarrow's default pool when the user chose one
        through ``ARROW_DEFAULT_MEMORY_POOL``; else the C library's allocator
        (``pyarrow.system_memory_pool()``), which gives back the pages each chunk frees.
        Arrow's own default (mimalloc) keeps them while the next chunks take blocks of
        other sizes: a library call on a 1.5 M-row ``rater,winner,loser`` file peaked at
        430-560 MB with it, 384-399 MB with the system pool, as the command line's
        (``python -m benchmarks.readers --memory``).
    """
    pa = _pa()
    if memory_pool is not None:
        return memory_pool
    if os.environ.get(POOL_VARIABLE):
        return pa.default_memory_pool()
    return pa.system_memory_pool()


@contextmanager
def _allocating_from(pool: Any) -> Iterator[None]:
    """Make ``pool`` pyarrow's default for the calls inside (restored after, also on error).

    The default is process-wide; nested or concurrent reads share one switch, set by the
    first to enter and restored by the last to leave. Buffers remember the pool they came
    from, so those allocated before or after are freed by their own pool.
    """
    pa = _pa()
    with _POOL_LOCK:
        if _POOL_STATE["depth"] == 0:
            _POOL_STATE["previous"] = pa.default_memory_pool()
            pa.set_memory_pool(pool)
        _POOL_STATE["depth"] += 1
    try:
        yield
    finally:
        with _POOL_LOCK:
            _POOL_STATE["depth"] -= 1
            if _POOL_STATE["depth"] == 0:
                pa.set_memory_pool(_POOL_STATE["previous"])
                _POOL_STATE["previous"] = None


#: The one name every 'Anonymous' ranker is counted under until the file is finished.
_ANONYMOUS = "\x00anonymous"


@dataclass
class _Names:
    """Names seen so far, each with its id in order of first appearance (tidied as the
    table readers tidy them: a spreadsheet-safe apostrophe undone, Unicode form, spaces;
    curly quote marks compared as straight ones)."""

    ids: dict[str, int] = field(default_factory=dict)  # by name_key: the first spelling's
    spellings: list[str] = field(default_factory=list)
    raw: dict[str, int] = field(default_factory=dict)
    tidied: int = 0
    merged: list[tuple[str, int]] = field(default_factory=list)

    def of(self, values: list[str], order: np.ndarray | None = None) -> np.ndarray:
        """Global ids of a chunk's distinct ``values`` (new ones numbered in ``order``)."""
        out = np.empty(len(values), dtype=np.int64)
        for k in (range(len(values)) if order is None else order.tolist()):
            value = values[k]
            known = self.raw.get(value)
            if known is None:
                plain = unneutralise(value)
                name = tidy_name(plain)
                self.tidied += name != plain
                key = name_key(name)
                if key in self.ids:  # a look-alike of a name already seen
                    self.merged.append((value, self.ids[key]))
                else:
                    self.spellings.append(name)
                known = self.ids.setdefault(key, len(self.ids))
                self.raw[value] = known
            out[k] = known
        return out

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.spellings)

    def note(self, what: str) -> str | None:
        """The note on names merged or tidied, as the table readers write it."""
        names = self.names
        groups = {known for _, known in self.merged}
        shown = [(raw, names[k]) for raw, k in self.raw.items()
                 if k in groups and raw != names[k]] if groups else []  # none merged
        return names_note(what, len(self.merged), self.tidied, shown)


@dataclass
class _Coding:
    """Which columns hold the two items, the outcome, the tie flag, the ranker and the count.

    ``mode`` is the table reader's (:func:`~coarsenrank_core.io.pairwise.pairwise_columns`):
    ``"winner"`` (``winner``/``loser``: ``winner`` and ``loser`` are those columns),
    ``"label"`` (``left``/``right`` items and a column naming the winner: an item, a side
    such as ``model_a``/``left``/``H``, or a tie word) or ``"flags"`` (arena style 0/1
    columns ``winner_model_a``/``winner_model_b``). In the last two ``winner`` and
    ``loser`` are the left and right columns and the outcome is resolved per row.
    """

    header: list[str]
    winner: int
    loser: int
    tie: int | None
    ranker: int | None
    count: int | None
    mode: str = "winner"
    label: int | None = None
    flag_a: int | None = None
    flag_b: int | None = None
    walkover_marks: tuple[tuple[int, frozenset[str]], ...] = ()
    status: int | None = None

    @classmethod
    def of(cls, header: list[str]) -> _Coding:
        coding = pairwise_columns(header)
        # two games' winners (MT-Bench) or one side's flag ('Left Won'): the table reader's
        table_only = coding is not None and (coding.get("label2") is not None or (
            coding["mode"] == "flags" and coding["flag_b"] is None))
        if coding is None or coding["mode"] not in ("winner", "label", "flags") or table_only:
            found = quote_list(c for c in header if c)
            raise PreferenceFormatError(
                "Reading in chunks needs a pairwise file with a 'winner' and a 'loser' column, "
                "or 'left' and 'right' items with a column naming the winner (or 0/1 winner "
                "flags), and optionally a tie flag, a ranker and a count; the columns here "
                f"are {found}.", row=1,
                fix="Read the file with read_preferences (every layout), or name the columns "
                    "'winner' and 'loser'.")
        roles = find_roles(header, PREFERENCE_ROLES)
        return cls(header, coding["a"], coding["b"], coding["tie"], roles.get("ranker"),
                   roles.get("weight"), coding["mode"], coding.get("label"),
                   coding.get("flag_a"), coding.get("flag_b"),
                   tuple(walkover_marks(header, (coding["a"], coding["b"])).items())
                   if coding["mode"] in ("winner", "label") else (), status_column(header))

    @property
    def used(self) -> list[int]:
        return [j for j in (self.winner, self.loser, self.tie, self.label, self.flag_a,
                            self.flag_b, self.ranker, self.count) if j is not None]

    @property
    def item_columns(self) -> list[int]:
        """The columns the report names as the items' (and the outcome's)."""
        return [j for j in (self.winner, self.loser, self.label, self.flag_a, self.flag_b,
                            self.tie) if j is not None]


class _Counts:
    """Summed weights of each distinct (winner, loser, tie, ranker) key, kept compact."""

    def __init__(self) -> None:
        self.parts: list[Any] = []  # pyarrow tables
        self.rows = 0
        self.compacted = 0

    @staticmethod
    def _summed(table: Any) -> Any:
        """Rows of equal (key, side) as one, their weights summed (counted when the table
        has no weights: every row 1).

        Sorted by (key, side) and summed over runs of equal rows (``np.add.reduceat``):
        numpy's own memory, where Acero's ``group_by`` would allocate from Arrow's process
        default (mimalloc) whatever pool the read chose.
        """
        pa = _pa()

        def column(name: str) -> np.ndarray:
            values: np.ndarray = table.column(name).combine_chunks().to_numpy(
                zero_copy_only=False)
            return values

        key = column("key")
        side = column("side") if "side" in table.column_names else None
        order = np.argsort(key, kind="stable") if side is None else np.lexsort((side, key))
        key = key[order]
        starts = np.ones(key.size, dtype=bool)
        starts[1:] = key[1:] != key[:-1]
        if side is not None:
            side = side[order]
            starts[1:] |= side[1:] != side[:-1]
        first = np.flatnonzero(starts)
        if "weight" in table.column_names:
            weight = np.add.reduceat(column("weight").astype(float)[order], first) \
                if first.size else np.zeros(0)
        else:
            weight = np.diff(np.r_[first, key.size]).astype(float)
        return pa.table({"key": key[first],
                         "side": np.zeros(first.size, np.int64) if side is None else side[first],
                         "weight": weight})

    def add(self, table: Any) -> None:
        self.add_summed(self._summed(table))

    def add_summed(self, grouped: Any) -> None:
        """Add counts whose (key, side) are already distinct."""
        self.parts.append(grouped)
        self.rows += grouped.num_rows
        if self.rows > max(_COMPACT_ROWS, 2 * self.compacted):
            self.compact()

    def compact(self) -> Any:
        pa = _pa()
        if len(self.parts) > 1:
            self.parts = [self._summed(pa.concat_tables(self.parts))]
        self.rows = self.compacted = sum(p.num_rows for p in self.parts)
        return self.parts[0] if self.parts else None


def _text_column(column: Any) -> Any:
    """A column as trimmed strings (numbers written as the CSV reader writes them)."""
    pa = _pa()
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_floating(column.type):
        column = pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)  # blank
        # whole numbers that a float holds exactly, as integers; others (1e+16) as written
        integral = pc.and_(pc.equal(column, pc.floor(column)),
                           pc.less(pc.abs(column), 2.0 ** 53))
        column = pc.if_else(integral, pc.cast(pc.cast(column, pa.int64(), safe=False),
                                              pa.string()), pc.cast(column, pa.string()))
    elif not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        column = pc.cast(column, pa.string())
    return pc.utf8_trim_whitespace(column.fill_null(""))


def _flags(column: Any, lines: np.ndarray, header: list[str], j: int) -> np.ndarray:
    """A tie-flag column as booleans (0/1, true/false, yes/no; each distinct cell once)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(_text_column(column))
    words = [str(w).lower().removesuffix(".0") for w in encoded.dictionary.to_pylist()]
    bad = [k for k, w in enumerate(words) if w not in _TRUE and w not in _FALSE]
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    if bad:
        position = int(np.flatnonzero(np.isin(codes, bad))[0])
        raise PreferenceFormatError(
            f"'{encoded.dictionary[bad[0]].as_py()}' is not a yes/no flag.",
            row=int(lines[position]), column=header[j] or str(j + 1),
            fix="Write 1 or 0 (or true/false, yes/no).")
    flags: np.ndarray = np.asarray([w in _TRUE for w in words] or [False])[codes]
    return flags


def _weights(column: Any, lines: np.ndarray, header: list[str], j: int) -> np.ndarray:
    pa = _pa()
    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
        numbers: np.ndarray = column.fill_null(1).to_numpy(zero_copy_only=False).astype(float)
        bad = np.flatnonzero(~((numbers >= MIN_WEIGHT) & (numbers <= MAX_WEIGHT)))
        if not bad.size:
            return numbers
    text = np.array(_text_column(column).to_pylist(), dtype=object)
    return parse_weights(text, lines, header[j] or str(j + 1))


def _blank_rows(batch: Any) -> np.ndarray:
    """Whether every cell of each row is blank (a line of bare separators)."""
    import pyarrow.compute as pc

    blank = np.ones(batch.num_rows, dtype=bool)
    for j in range(batch.num_columns):
        blank &= pc.equal(_text_column(batch.column(j)), "").to_numpy(zero_copy_only=False)
    return blank


class _Cells:
    """The few text columns of a chunk, indexed as the table reader's ``cells[:, j]``."""

    def __init__(self, columns: dict[int, np.ndarray]) -> None:
        self.columns = columns

    def __getitem__(self, index: tuple[Any, int]) -> np.ndarray:
        return self.columns[index[1]]


class _Reader:
    """The running state of one collection read in chunks: names, rankers and counts."""

    def __init__(self) -> None:
        self.items = _Names()
        self.rankers = _Names()
        self.counts = _Counts()
        self.coding: _Coding | None = None
        self.rows = 0
        self.self_pairs = 0
        self.ranked_rows = 0
        self.unfinished = 0
        self.byes = 0
        self.walkovers = 0
        self.walkover_shown: str | None = None  # how the file first wrote it ('W/O')
        self.anonymous_shown: str | None = None  # how the file first wrote 'no one'

    def _refuse_header_again(self, batch: Any, values: list[str], codes: np.ndarray, n: int,
                             line: np.ndarray) -> None:
        """Refuse a row that repeats the header, every cell its column's title: a second
        export pasted below the first (as the table reader refuses it)."""
        coding = self.coding
        assert coding is not None
        titles = [coding.header[j].lstrip("\ufeff").strip() for j in (coding.winner,
                                                                       coding.loser)]
        plain = [v.lstrip("\ufeff").strip() for v in values]
        found = [[k for k, v in enumerate(plain) if v == t] for t in titles]
        if not found[0] or not found[1]:
            return
        again = [int(i) for i in np.flatnonzero(np.isin(codes[:n], found[0])
                                                & np.isin(codes[n:], found[1]))
                 if all(str(batch.column(j)[int(i)].as_py() or "").lstrip("\ufeff").strip()
                        == title.lstrip("\ufeff").strip()
                        for j, title in enumerate(coding.header) if j < batch.num_columns)]
        if again:
            shown = quote_list([c for c in coding.header if c], 3)
            raise PreferenceFormatError(
                f"This row repeats the first row's column titles ({shown}): it looks like a "
                "second export pasted below the first, and would be read as an answer.",
                row=int(line[again[0]]),
                fix="Delete this row (and any other repeated title row), then load the file "
                    "again.")

    def _outcome(self, batch: Any, n: int, line: np.ndarray,
                 void: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For left/right files: whether the right item won and whether the row is a tie,
        resolved by the table reader's own rules, and the rows with a result (those whose
        outcome says unfinished, ``*`` or void are skipped, as the table reader does). The
        results of ``void`` rows (no match played) are not read."""
        coding = self.coding
        assert coding is not None
        header = coding.header
        text = {j: np.asarray(_text_column(batch.column(j)).to_pylist(), dtype=object)
                for j in coding.used if j not in (coding.ranker, coding.count)}
        left, right = text[coding.winner], text[coding.loser]
        keep = np.ones(n, dtype=bool)
        if coding.mode == "flags":
            cells = _Cells(text)
            b_won, tie = _resolve_flags(left, right, cells, line, header, {  # type: ignore[arg-type]
                "flag_a": coding.flag_a, "flag_b": coding.flag_b, "tie": coding.tie})
            return b_won, tie, keep
        assert coding.label is not None
        if _second_share(text[coding.label], header, coding.winner, coding.loser) is not None:
            raise PreferenceFormatError(
                f"'{column_label(header, coding.label)}' holds shares between 1 and 2 (such "
                "as a weighted annotator's preference), which reading in chunks does not "
                "split between the two sides.", row=int(line[0]),
                column=column_label(header, coding.label),
                fix="Read the file without --stream: each comparison then counts for both "
                    "sides by their shares.")
        drawn = (np.zeros(n, dtype=bool) if coding.tie is None
                 else _flags(batch.column(coding.tie), line, header, coding.tie))
        status = (None if coding.status is None else np.asarray(
            _text_column(batch.column(coding.status)).to_pylist(), dtype=object))
        b_won, tie, unfinished = label_outcomes(
            left, right, np.where(void, left, text[coding.label]), drawn, line, header,
            coding.label, coding.winner, coding.loser, status)
        unfinished &= ~void
        if unfinished.any():
            keep &= ~unfinished
            self.unfinished += int(np.count_nonzero(unfinished))
        return b_won, tie, keep

    def start(self, header: list[str], name: str) -> None:
        coding = _Coding.of(header)
        if self.coding is not None and [header[j] for j in coding.used] != [
                self.coding.header[j] for j in self.coding.used]:
            raise PreferenceFormatError(
                f"'{name}' names its columns {quote_list(header)}, unlike the first file "
                f"({quote_list(self.coding.header)}).",
                fix="Read files of one layout together, with the same column titles.")
        self.coding = coding

    def chunk(self, batch: Any, first_line: int, row_lines: np.ndarray | None = None,
              n_lines: int | None = None) -> None:
        """Count one record batch (None: lines without rows).

        ``row_lines`` holds each row's line counted from the lines read so far (0-based;
        by default one row a line) and ``n_lines`` the lines the batch spans (by default its
        rows); an error names the line ``first_line`` plus both.
        """
        n = 0 if batch is None else batch.num_rows
        line = first_line + self.rows + (np.arange(n) if row_lines is None else row_lines)
        self.rows += n if n_lines is None else n_lines
        if n:
            self._count(batch, line)

    def _count(self, batch: Any, line: np.ndarray) -> None:
        pa = _pa()
        import pyarrow.compute as pc

        coding = self.coding
        assert coding is not None
        n, header = batch.num_rows, coding.header
        if not n:
            return
        sides: list[Any] = []  # pyarrow string arrays
        for j in (coding.winner, coding.loser):
            column = batch.column(j)
            if isinstance(column, pa.ChunkedArray):
                column = column.combine_chunks()
            if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
                column = _text_column(column)  # numbers, categories: as the CSV reader writes
            sides.append(column)
        if sides[0].type != sides[1].type:  # string beside large_string (or a column of nulls)
            sides = [side.cast(pa.large_string()) for side in sides]
        # one dictionary of the chunk's distinct cells; each is trimmed and checked once
        both = pc.dictionary_encode(pa.concat_arrays(sides))
        codes = both.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        values = both.dictionary.to_pylist()
        blank = [k for k, v in enumerate(values) if not v.strip()]
        broken = [k for k, v in enumerate(values) if "\n" in v or "\r" in v]
        control = next((v for v in values if CONTROL_CHARACTER.search(v)), None)
        if control is not None:  # as the table reader refuses a file holding one
            found = CONTROL_CHARACTER.search(control)
            assert found is not None
            position = values.index(control)
            at = int(np.flatnonzero(codes == position)[0])
            raise PreferenceFormatError(
                f"This item's name holds the control character U+{ord(found.group()):04X}, "
                "which text files do not have.", row=int(line[at % n]),
                column=header[coding.winner if at < n else coding.loser] or None,
                fix="Delete the character from the name (a binary file, or text pasted from "
                    "a terminal, can hold one), then load the file again.")
        if both.indices.null_count or blank or broken:
            empty = _blank_rows(batch)
            if empty.any():  # lines of bare separators: the table reader skips them too
                self._count(batch.filter(pa.array(~empty)), line[~empty])
                return
            position = int(np.flatnonzero((codes < 0) | np.isin(codes, blank + broken))[0])
            j = coding.winner if position < n else coding.loser
            if codes[position] in broken:  # a list typed with line breaks in one cell
                raise multiline_error(int(line[position % n]), header[j] or str(j + 1), True)
            raise PreferenceFormatError(
                "This cell is blank; every comparison needs two items.",
                row=int(line[position % n]), column=header[j] or str(j + 1),
                fix="Fill in the item or delete the row.")
        self.ranked_rows += n  # rows of a ranking (bare separators were left out above)
        values = [v.strip() for v in values]
        self._refuse_header_again(batch, values, codes, n, line)
        b_won: np.ndarray | None = None
        outcome_tie: np.ndarray | None = None
        walkover = np.zeros(n, dtype=bool)
        first: tuple[int, int] | None = None
        texts: dict[int, Any] = {}
        if coding.walkover_marks:  # a score of 'W/O': not played
            texts = {j: _text_column(batch.column(j)) for j, _ in coding.walkover_marks}
            walkover, first = not_played_rows(
                {j: np.asarray(pc.utf8_lower(t).to_pylist(), dtype=object).astype(str)
                 for j, t in texts.items()}, dict(coding.walkover_marks), n)
        counted = np.ones(n, dtype=bool)
        if coding.mode != "winner":
            b_won, outcome_tie, counted = self._outcome(batch, n, line, walkover)
        walkover &= counted
        if walkover.any():
            self.walkovers += int(np.count_nonzero(walkover))
            if first is not None:
                self.walkover_shown = self.walkover_shown or shown_walkover(
                    coding.header, dict(coding.walkover_marks), first[0],
                    str(texts[first[0]][first[1]]))
            counted = counted & ~walkover
        byes = np.flatnonzero(_is_bye(np.asarray(values, dtype=object)))
        if byes.size:  # a round without an opponent, skipped as the table reader skips it
            bye_rows = np.isin(codes[:n], byes) | np.isin(codes[n:], byes)
            self.byes += int(np.count_nonzero(bye_rows & counted))
            counted = counted & ~bye_rows
        keep_rows: np.ndarray | None = None
        if not counted.all():  # rows without a result or opponent: not counted, name nothing
            keep_rows = counted
            codes = np.concatenate([codes[:n][keep_rows], codes[n:][keep_rows]])
            if b_won is not None and outcome_tie is not None:
                b_won, outcome_tie = b_won[keep_rows], outcome_tie[keep_rows]
            n = int(np.count_nonzero(keep_rows))
        order = None
        if any(v not in self.items.raw for v in values):
            # new names are numbered in order of first appearance, row by row (winner
            # before loser), as the table reader numbers them
            first_seen = np.full(len(values), 2 * n, dtype=np.int64)
            seen_at = np.arange(0, 2 * n, 2)
            np.minimum.at(first_seen, codes[:n], seen_at)
            np.minimum.at(first_seen, codes[n:], seen_at + 1)
            order = np.argsort(first_seen, kind="stable")
            order = order[first_seen[order] < 2 * n]  # only names on rows that count
        ids = self.items.of(values, order)
        winner, loser = ids[codes[:n]], ids[codes[n:]]
        if b_won is not None:
            winner, loser = np.where(b_won, loser, winner), np.where(b_won, winner, loser)
            tie = outcome_tie
        else:
            tie = (None if coding.tie is None
                   else _flags(batch.column(coding.tie), line, header, coding.tie))
            if tie is not None and keep_rows is not None:
                tie = tie[keep_rows]
        weight = (None if coding.count is None
                  else _weights(batch.column(coding.count), line, header, coding.count))
        ranker = None
        if coding.ranker is not None:
            column = pc.dictionary_encode(_text_column(batch.column(coding.ranker)))
            if isinstance(column, pa.ChunkedArray):
                column = column.combine_chunks()
            local = column.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            values = column.dictionary.to_pylist()
            blank = [k for k, v in enumerate(values) if v == ""]
            if blank:
                position = int(np.flatnonzero(local == blank[0])[0])
                raise PreferenceFormatError(
                    "The ranker is blank on this row; every row of a file read in chunks "
                    "must name one (or the file has no ranker column).",
                    row=int(line[position]),
                    column=header[coding.ranker] or str(coding.ranker + 1),
                    fix="Fill in who gave this comparison, or delete the ranker column.")
            placeholders = [v for v in values if v.strip().lower() in ANONYMOUS_NAMES]
            if placeholders:
                # 'Anonymous' names no one person: one ranker per row, made when the file
                # is finished (every row a ranker of its own would defeat the counting)
                self.anonymous_shown = self.anonymous_shown or placeholders[0].strip()
                values = [_ANONYMOUS if v in placeholders else v for v in values]
            seen = None  # the dictionary is in order of first appearance already
            if keep_rows is not None:
                # only the rankers of rows that count, as the table reader names them
                local = local[keep_rows]
                codes_seen, first_row = np.unique(local, return_index=True)
                seen = codes_seen[np.argsort(first_row, kind="stable")]
            ranker = self.rankers.of(values, seen)[local]
        if keep_rows is not None and weight is not None:
            weight = weight[keep_rows]
        if max(len(self.items.ids), len(self.rankers.ids)) > MAX_ID:
            raise PreferenceFormatError(f"The files name more than {MAX_ID:,} items or rankers.",
                                        fix="Split the data.")
        if tie is not None:  # a tie is stored with its items in id order, as Preferences does
            swap = tie & (winner > loser)
            winner, loser = np.where(swap, loser, winner), np.where(swap, winner, loser)
        if self._counted(winner, loser, tie, ranker, weight):
            return
        key = winner << 32
        key |= loser
        columns = {"key": key}
        if ranker is not None or tie is not None:
            side = np.zeros(n, dtype=np.int64) if ranker is None else ranker * 2
            if tie is not None:
                side += tie
            columns["side"] = side
        if weight is not None:
            columns["weight"] = weight
        keep = winner != loser
        dropped = n - int(np.count_nonzero(keep))
        if dropped:
            self.self_pairs += dropped
            columns = {name: values[keep] for name, values in columns.items()}
        self.counts.add(pa.table(columns))

    def _counted(self, winner: np.ndarray, loser: np.ndarray, tie: np.ndarray | None,
                 ranker: np.ndarray | None, weight: np.ndarray | None) -> bool:
        """Sum the chunk's rows by ``bincount`` on one combined key when its range is at
        most a few times the chunk (few items, rankers): O(chunk + range), no hashing."""
        pa = _pa()
        n, m = winner.size, len(self.items.ids)
        sides = (1 if ranker is None else len(self.rankers.ids)) * (1 if tie is None else 2)
        if float(m) * m * sides > 4 * n + (1 << 20):
            return False
        flat = winner * m
        flat += loser
        if sides > 1:
            flat *= sides
            if ranker is not None:
                flat += ranker * (sides // len(self.rankers.ids))
            if tie is not None:
                flat += tie
        counts = np.bincount(flat, weights=weight, minlength=m * m * sides)
        self.self_pairs += int(np.count_nonzero(winner == loser))
        present = np.flatnonzero(counts)
        pair, side = np.divmod(present, sides)
        if tie is None:
            side *= 2  # the stored side is always ranker · 2 + tie
        first, second = np.divmod(pair, m)
        keep = first != second
        key = first[keep] << 32
        key |= second[keep]
        self.counts.add_summed(pa.table({"key": key, "side": side[keep],
                                         "weight": counts[present[keep]].astype(float)}))
        return True

    def _anonymous_rankers(self, key: np.ndarray, side: np.ndarray, weight: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...], str]:
        """The counts with each comparison of no one in particular ('Anonymous') given a
        ranker of its own, as the table reader gives each such row one; no rankers at all
        where no row names anyone. A counted file's anonymous comparisons are one ranker for
        each distinct comparison, as the count column does not say how many rows it sums.
        """
        coding = self.coding
        assert coding is not None
        anonymous = self.rankers.raw[_ANONYMOUS]
        named = [n for k, n in enumerate(self.rankers.names) if k != anonymous]
        title = coding.header[coding.ranker] if coding.ranker is not None else ""
        if not named:
            return key, side, weight, (), (
                f"Every comparison names no one in '{title}' ('{self.anonymous_shown}'): the "
                "file is read without rankers")
        ranker, tie = side >> 1, side & 1
        is_anonymous = ranker == anonymous
        rows = np.where(is_anonymous, np.rint(weight).astype(np.int64)
                        if coding.count is None else 1, 1)
        key, tie, weight, ranker, is_anonymous = (
            np.repeat(a, rows) for a in (key, tie, weight / rows, ranker, is_anonymous))
        ranker -= ranker > anonymous
        n_anonymous = int(np.count_nonzero(is_anonymous))
        ranker[is_anonymous] = len(named) + np.arange(n_anonymous)
        names = (*named, *(f"(anonymous {k})" for k in range(1, n_anonymous + 1)))
        return key, ranker * 2 + tie, weight, names, (
            f"{plural(n_anonymous, 'comparison')} name no one in '{title}' "
            f"('{self.anonymous_shown}'): each is taken as a ranker of its own")

    def result(self, names: list[str]) -> ReadResult:
        coding = self.coding
        assert coding is not None
        counts = self.counts.compact()
        check_items(self.items.names)
        if counts is None or counts.num_rows == 0:
            raise PreferenceFormatError(
                "Every row compares an item with itself, so there is nothing to compare.",
                fix="Each row must name two different items.")
        order = np.lexsort((counts.column("side").to_numpy(), counts.column("key").to_numpy()))
        key = counts.column("key").to_numpy()[order]
        side = counts.column("side").to_numpy()[order]
        weight = counts.column("weight").to_numpy()[order]
        notes = []
        ranker_names = self.rankers.names
        if _ANONYMOUS in self.rankers.raw:
            key, side, weight, ranker_names, anonymous = self._anonymous_rankers(
                key, side, weight)
            notes.append(anonymous)
        pieces = np.ceil(weight / MAX_WEIGHT).astype(np.int64)
        if pieces.max() > 1:
            # rows that each fit the weight range can sum above it: the likelihood only adds
            # weights, so such a total is kept as equal rows that fit, as the rows were
            key, side = np.repeat(key, pieces), np.repeat(side, pieces)
            weight = np.repeat(weight / pieces, pieces)
        if self.unfinished:
            notes.append(f"Skipped {plural(self.unfinished, 'row')} with no result (unfinished)")
        if self.walkovers:
            notes.append(f"Skipped {plural(self.walkovers, 'row')} with no match played "
                         f"('{self.walkover_shown}')")
        if self.byes:
            notes.append(f"Skipped {plural(self.byes, 'row')} with a bye (no opponent)")
        if self.self_pairs:
            notes.append(f"Skipped {plural(self.self_pairs, 'row')} comparing an item with "
                         "itself")
        for seen, what in ((self.items, "item name"), (self.rankers, "ranker name")):
            note = seen.note(what)
            if note:
                notes.append(note)
        (winner, loser), item_names, left_out = without_unpaired_names(
            [key >> 32, key & 0xFFFFFFFF], tuple(self.items.names))
        if left_out:
            notes.append(left_out)
        has_rankers = coding.ranker is not None and bool(ranker_names)
        title = coding.header[coding.ranker] if coding.ranker is not None else ""
        if has_rankers and normalise(title) in ROW_ID_TITLES and \
                len(ranker_names) == self.ranked_rows:
            # an 'id' that differs on every row names the game, not who judged it
            has_rankers = False
            notes.append(f"Ignored the column '{title}': a different value on every row, a "
                         "per-row id, not a ranker")
        prefs = Preferences.from_pairs(
            winner, loser, n_items=len(item_names), tied=(side & 1) == 1,
            weights=weight, rankers=(side >> 1) if has_rankers else None,
            item_names=item_names,
            ranker_names=ranker_names if has_rankers else None, notes=tuple(notes))
        header = coding.header
        labels = tuple(c or str(j + 1) for j, c in enumerate(header))
        items = tuple(labels[j] for j in coding.item_columns)
        ranker = labels[coding.ranker] if coding.ranker is not None and has_rankers else None
        count = labels[coding.count] if coding.count is not None else None
        used = {*items, ranker, count}
        report = ReadReport(
            layout="pairwise", layout_title="pairwise comparisons (counted in chunks)",
            file_name=names[0] if len(names) == 1 else f"{len(names)} files",
            header_rows=1, columns=labels, item_columns=items, ranker_column=ranker,
            count_column=count, skipped_columns=tuple(c for c in labels if c not in used),
            notes=prefs.notes, automatic=True)
        return ReadResult(prefs, report)


def _csv_layout(path: Path) -> tuple[list[str], str, int]:
    """A CSV/TSV file's header, its delimiter and the byte where its data rows start."""
    with open(path, "rb") as handle:
        head = handle.read(1 << 16)
    bom = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    text = head[bom:].decode("utf-8", "replace")
    delimiter = "\t" if path.suffix.lower() == ".tsv" else choose_delimiter(text)
    first = text.splitlines()[0] if text.strip() else ""
    header = [h.strip() for h in next(iter(csv.reader([first], delimiter=delimiter)), [])]
    if not any(header):
        raise PreferenceFormatError("The file is empty.", fix="Choose a file with comparisons.")
    newline = head.find(b"\n")
    return header, delimiter, len(head) if newline < 0 else newline + 1


CsvPiece = tuple[Any, np.ndarray | None, int]
"""A parsed piece of a CSV file: its record batch (None when it holds no rows), the line
of each row counted from the piece's first line (0-based; None when a row is on every
line), and the lines it spans."""


def _csv_range(path: Path, delimiter: str, width: int, start: int, end: int,
               chunk_bytes: int, first_line: int = 2) -> Iterator[CsvPiece]:
    """The lines that start in bytes ``[start, end)`` of a CSV file, parsed a piece of
    about ``chunk_bytes`` at a time by ``pyarrow.csv.read_csv``.

    Memory holds one piece (pyarrow's own streaming reader keeps many blocks in flight).
    A piece pyarrow cannot read line for line (a row with fewer or more values than the
    header, a line of spaces, a quoted cell over several lines) is read by the table
    reader's own parse instead, so it is refused, padded or skipped as a whole file read by
    :func:`~coarsenrank_core.io.read_file` would be; its errors name the line, counting
    ``first_line`` for the range's first line.
    """
    pa = _pa()
    import pyarrow.csv as pacsv

    names = [f"c{j}" for j in range(width)]
    options = dict(
        read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in names},
                                             strings_can_be_null=False))
    not_utf8 = PreferenceFormatError(
        f"'{path.name}' is not UTF-8 text, which the chunked reader needs.",
        fix="Save it as UTF-8 (CSV UTF-8 in Excel), or read it with "
            "read_preferences, which also reads Windows-1252 and Latin-1.")

    def by_table_reader(block: bytes, before: int) -> tuple[Any, np.ndarray]:
        try:
            table = split_with(block.decode("utf-8"), delimiter)
            cells = padded(table, names, 0)
        except UnicodeDecodeError:
            raise not_utf8 from None
        except PreferenceFormatError as error:
            raise error.moved_down(first_line - 1 + before) from None
        batch = pa.RecordBatch.from_arrays(
            [pa.array(cells[:, j].tolist(), pa.string()) for j in range(width)], names=names)
        return batch, table.lines.astype(np.int64) - 1

    def parse(block: bytes, before: int) -> Iterator[CsvPiece]:
        n_lines = block.count(b"\n") + (0 if block.endswith(b"\n") or not block else 1)
        if not block.strip():
            yield None, np.zeros(0, dtype=np.int64), n_lines
            return
        try:
            table = pacsv.read_csv(pa.py_buffer(block), **options)
        except pa.ArrowInvalid as error:
            if "UTF8" in str(error):
                raise not_utf8 from None
            table = None
        if table is not None and table.num_rows == n_lines:  # a row on every line
            for batch in table.to_batches():
                yield batch, None, batch.num_rows
            return
        rows = _filled_lines(block, n_lines)  # pyarrow skips empty lines
        if table is None or table.num_rows != rows.size:
            batch, rows = by_table_reader(block, before)
            yield batch, rows, n_lines
            return
        batches = table.to_batches() or [None]
        done = 0
        for k, batch in enumerate(batches):
            count = 0 if batch is None else batch.num_rows
            yield batch, rows[done:done + count], n_lines if k == len(batches) - 1 else 0
            done += count

    with open(path, "rb") as handle:
        handle.seek(max(start - 1, 0))
        if start > 0 and handle.read(1) != b"\n":
            handle.readline()  # the line under way at start belongs to the range before
        position, rest, before = handle.tell(), b"", 0
        while position < end:
            block = handle.read(min(chunk_bytes, end - position))
            if not block:
                break
            position += len(block)
            last = position >= end
            if last and not block.endswith(b"\n"):
                block += handle.readline()  # the line that starts before end, to its end
            block = rest + block
            cut = len(block) if last else record_end(block, chunk_bytes)
            rest, block = block[cut:], block[:cut]
            for piece in parse(block, before):
                before += piece[2]
                yield piece
        if rest:
            yield from parse(rest, before)


def quote_parity(block: bytes, before: int = 0) -> np.ndarray:
    """For each byte of ``block``, 1 where it stands inside a quoted cell (an odd count of
    quote marks up to it, counting ``before`` from earlier bytes), else 0."""
    marks = (np.frombuffer(block, dtype=np.uint8) == 34).view(np.uint8)
    if before & 1 and marks.size:
        marks = marks.copy()
        marks[0] ^= 1
    parity: np.ndarray = np.bitwise_xor.accumulate(marks)
    return parity


def record_end(block: bytes, chunk_bytes: int) -> int:
    """One past the last line break of ``block`` (which starts a record) that ends a record:
    outside quotes, so a quoted cell over several lines (a prompt) is never cut; 0 when no
    record ends in it. Past four chunks without one (stray quote marks: ``27" monitor``),
    the last line break."""
    last = block.rfind(b"\n")
    if last < 0 or b'"' not in block:
        return last + 1
    breaks = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
    outside = breaks[quote_parity(block)[breaks] == 0]
    if outside.size:
        return int(outside[-1]) + 1
    return last + 1 if len(block) > 4 * chunk_bytes else 0


def record_starts(path: Path, bounds: Sequence[int], block_bytes: int = 16 << 20,
                  longest: int | None = None) -> list[int]:
    """Each of ``bounds`` (sorted byte offsets of a CSV file, after its header) moved on to
    the first record that starts at or after it: a line break outside quotes just before,
    so a partition never starts inside a quoted cell over several lines, however far into
    the file its first quote mark comes. The file is read once up to the last bound, a
    block at a time; until the first quote mark every line break ends a record, found at
    the speed of a byte search. A stretch of more than ``longest`` bytes (default four
    blocks) inside quotes is a stray quote mark (``27" monitor``), not a cell: the bounds
    then stay as given (the range reader starts each at its next line)."""
    longest = 4 * block_bytes if longest is None else longest
    with open(path, "rb") as handle:
        moved: list[int] = []
        pending = list(bounds)
        offset, quotes, last_outside = 0, 0, 0
        while pending:
            block = handle.read(block_bytes)
            if not block:
                break
            if not quotes and b'"' not in block:
                while pending and (
                        found := block.find(b"\n", max(pending[0] - offset - 1, 0))) >= 0:
                    moved.append(offset + found + 1)
                    pending.pop(0)
                last_outside = offset + block.rfind(b"\n") + 1 if b"\n" in block \
                    else last_outside
                offset += len(block)
                continue
            breaks = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
            outside = offset + breaks[quote_parity(block, quotes)[breaks] == 0] + 1
            last_outside = int(outside[-1]) if outside.size else last_outside
            if offset + len(block) - last_outside > longest:
                return list(bounds)
            while pending and (k := np.searchsorted(outside, pending[0])) < outside.size:
                moved.append(int(outside[k]))
                pending.pop(0)
            quotes += block.count(b'"')
            offset += len(block)
    return moved + [offset] * len(pending)  # bounds past the last record: empty ranges


def _filled_lines(block: bytes, n_lines: int) -> np.ndarray:
    """The 0-based lines of ``block`` that hold something (not even a carriage return)."""
    codes = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(codes == 10)
    starts = np.r_[0, ends + 1][:n_lines]
    stops = np.r_[ends, codes.size][:n_lines]
    carriage = (stops > starts) & (codes[np.maximum(stops - 1, 0)] == 13)
    filled: np.ndarray = np.flatnonzero(stops - starts - carriage > 0)
    return filled


def _csv_batches(path: Path, chunk_bytes: int) -> tuple[list[str], Iterator[CsvPiece], int]:
    """The header and the parsed pieces of a CSV/TSV file, read by pyarrow in chunks."""
    header, delimiter, start = _csv_layout(path)
    end = path.stat().st_size
    return header, _csv_range(path, delimiter, len(header), start, end, chunk_bytes), 2


def _table_batches(path: Path, chunk_rows: int) -> tuple[list[str], Iterable[Any], int]:
    """The header and the record batches of a Parquet or Arrow/Feather file."""
    pa = _pa()
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic[:4] == b"PAR1":
        import pyarrow.parquet as pq

        # no pre-buffering: it holds whole column chunks ahead (40 M rows: 306 MB peak
        # against 236 MB without, the same time)
        parquet = pq.ParquetFile(str(path), pre_buffer=False)
        header = [str(n) for n in parquet.schema_arrow.names]
        return header, parquet.iter_batches(batch_size=chunk_rows, use_threads=False), 1
    import pyarrow.ipc as ipc

    try:
        file = ipc.open_file(pa.memory_map(str(path)))
        batches = (file.get_batch(i) for i in range(file.num_record_batches))
        return [str(n) for n in file.schema.names], batches, 1
    except pa.ArrowInvalid:  # an Arrow stream, not a file
        stream = ipc.open_stream(pa.memory_map(str(path)))
        return [str(n) for n in stream.schema.names], iter(stream), 1


def stream_pairwise(paths: SourceLike, *, chunk_bytes: int = CHUNK_BYTES,
                    memory_pool: Any = None) -> ReadResult:
    """Read pairwise files in chunks into one weighted collection of distinct pairs.

    The codings are those of the table reader: ``winner``/``loser`` columns (with an
    optional tie flag); ``left``/``right`` items (``model_a``/``model_b``, ``home``/``away``
    ...) with a column naming the winner by name, by side (``model_a``, ``left``, ``H``)
    or as a tie word, where rows marked unfinished (``*``, ``void``) are skipped; or the
    arena's 0/1 columns ``winner_model_a``/``winner_model_b``/``winner_tie``. Each may have
    a ranker and a count column. The outcome words are resolved by the table reader's own
    rules, so a file reads the same both ways.

    Every chunk (``pyarrow.csv.open_csv`` for CSV/TSV, ``ParquetFile.iter_batches`` for
    Parquet, record batches for Arrow/Feather) is turned into item ids and one key per row,
    ``(winner, loser, tie, ranker)``, whose weights (the count column, else 1) are summed
    by a hash aggregation; only the distinct keys are kept between chunks. Peak memory is
    therefore O(distinct keys + one chunk), whatever the number of rows, and the result is
    the same collection as :func:`~coarsenrank_core.io.read_preferences` gives after merging
    identical comparisons of the same ranker (:meth:`Preferences.merge_duplicates`), up to
    the order of rows: items and rankers are numbered in order of first appearance, and
    rows are sorted by (winner, loser, tie, ranker).

    Parameters
    ----------
    paths : str, pathlib.Path or sequence of them
        One file or several of the same columns, read as one collection.
    chunk_bytes : int
        About how many bytes of the file each chunk holds.
    memory_pool : pyarrow.MemoryPool, optional
        The pool pyarrow allocates from during the read (made its default for the call,
        then restored). By default the system allocator, unless the user chose a pool
        through ``ARROW_DEFAULT_MEMORY_POOL`` (:func:`reading_pool`): the lean choice the
        command line makes, now every caller's.

    Returns
    -------
    ReadResult
        The weighted pairwise :class:`Preferences` and the report of the columns used.

    Raises
    ------
    PreferenceFormatError
        When a file is not a pairwise table of one of the codings above (two score
        columns, and every other layout: use :func:`~coarsenrank_core.io.read_preferences`),
        or names a blank item, a bad tie flag, an outcome that names neither item, a bad
        count or a blank ranker (with the row and column).
    """
    def task() -> ReadResult:
        files = _files(paths)
        if not files:
            raise PreferenceFormatError("No files were given.", fix="Name at least one file.")
        reader = _Reader()
        for path in files:
            if not path.is_file():
                raise PreferenceFormatError(f"Cannot read '{path}': there is no such file.",
                                            fix="Check the file name and folder.")
            try:
                _count_file(reader, path, chunk_bytes)
            except PreferenceFormatError as error:
                raise error.in_file(path.name) if len(files) > 1 else error from None
        return reader.result([p.name for p in files])

    with _allocating_from(reading_pool(memory_pool)):
        return guard(task)


def _count_file(reader: _Reader, path: Path, chunk_bytes: int) -> None:
    """Count one file of a collection into ``reader``, its errors naming its own rows."""
    start = reader.rows
    if path.suffix.lower() in ARROW_EXTENSIONS or _is_arrow_file(path):
        header, batches, first_line = _table_batches(path, max(chunk_bytes // 64, 1024))
        reader.start(header, path.name)
        for batch in batches:
            reader.chunk(batch, first_line - start)
    else:
        header, pieces, first_line = _csv_batches(path, chunk_bytes)
        reader.start(header, path.name)
        for batch, row_lines, n_lines in pieces:
            reader.chunk(batch, first_line - start, row_lines, n_lines)


def _files(paths: SourceLike) -> list[Path]:
    """The files ``paths`` names: one path, a folder, a glob pattern or a list of them."""
    from .collection import source_paths
    from .formats import extensions

    files = source_paths(paths, tuple(f".{e}" for e in extensions()))
    if files is not None:
        return files
    if isinstance(paths, (str, Path)):
        return [Path(paths)]
    if isinstance(paths, Iterable):
        return [Path(p) for p in paths]
    raise PreferenceFormatError(f"Cannot read files from a {type(paths).__name__}.",
                                fix="Name a file, a folder, a glob pattern or a list of them.")


def _is_arrow_file(path: Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(6)
    return head[:4] in (b"PAR1", b"FEA1") or head == b"ARROW1"
