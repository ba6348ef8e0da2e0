"""The format registry: one record per layout, the detector that picks one, and the reader."""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from . import examples
from ._memory import release_freed_memory
from ._text import SourceLike, decode, load_source
from .arrow import ARROW_EXTENSIONS, arrow_table, is_arrow
from .assembly import empty_error, parse_numbers
from .blt import BLT_EXTENSIONS, looks_blt, read_blt
from .cast_votes import dominion_ballots
from .cell import (
    SIDE_TITLE,
    STRONG,
    list_separator,
    one_order,
    ranking_column,
    read_cell,
    refuse_records,
    same_items_each_row,
)
from .columns import (
    ANSWER_STEMS,
    MTURK_PREFIX,
    PREFERENCE_ROLES,
    RANK_LABEL,
    find_roles,
    is_event_title,
    is_float_text,
    normalise,
    quote_list,
    shown_cell,
)
from .condorcet import CONDORCET_EXTENSIONS, looks_condorcet, read_condorcet
from .containers import (
    JSON_EXTENSIONS,
    WORKBOOK_EXTENSIONS,
    is_workbook,
    json_table,
    looks_json,
    sheet_names,
    workbook_table,
)
from .content import count_title, counter_title, is_ballot_mark
from .crosstable import crosstable_games
from .game_archive import game_archive
from .grades import GradesPlan, long_grades
from .long import list_columns, long_roles, ranking_keys, read_long, reads_smaller_first
from .options import ReadOptions
from .pairwise import (
    chosen_coding,
    one_side_win_error,
    pairwise_columns,
    read_pairwise,
    refuse_one_off_items,
)
from .pgn import PGN_EXTENSIONS, looks_pgn, read_pgn
from .place_columns import place_columns
from .preflib import PREFLIB_EXTENSIONS, looks_preflib, read_preflib
from .ranks import END_CELL, looks_like_ranks, read_ranks, with_text_ranker
from .report import ReadReport, ReadResult
from .results import ResultsPlan, refuse_one_results_list, results_plan
from .sections import sectioned_results
from .survey import (
    Prepared,
    asks_for_ranking,
    is_plain_number,
    one_is_worst_by_words,
    platform_fix,
    prepare,
    questions_note,
    ranked_in_objects,
    without_summary_rows,
    without_title_rows,
)
from .tables import Table, multiline_item_error, padded, split_table
from .wide import has_rank_header, headerless, item_columns, read_wide

__all__ = ["Format", "FORMAT_LIST", "FORMATS", "Source", "read_file", "detect", "extensions"]

TABLE_EXTENSIONS = (".csv", ".tsv", ".txt", *WORKBOOK_EXTENSIONS, *JSON_EXTENSIONS,
                    *ARROW_EXTENSIONS)


#: The event a whole file is, while it is read as one of a collection of one event a
#: file (a race's results, named by the file).
FILE_EVENT: ContextVar[str | None] = ContextVar("coarsenrank_file_event", default=None)


@contextmanager
def file_as_event(name: str) -> Iterator[None]:
    """Read files, while inside, as results of one event named ``name`` (an ``Event``
    column holding it on every row)."""
    token = FILE_EVENT.set(name)
    try:
        yield
    finally:
        FILE_EVENT.reset(token)


class Source:
    """A file being read: its bytes, and the text, table and header understood from them."""

    def __init__(self, source: SourceLike, options: ReadOptions, encoding: str | None = None):
        self.data, self.name = load_source(source)
        self.options = options
        self.encoding = encoding
        self.layout_chosen = False  # the user named the layout (not detected)
        self.sheet: str | None = None
        self.title_rows = 0
        self.summary_note: str | None = None
        self.reshaped_note: str | None = None
        self.title_text: tuple[str, ...] = ()  # the title rows above the header

    @property
    def extension(self) -> str:
        return Path(self.name).suffix.lower() if self.name else ""

    @cached_property
    def workbook(self) -> bool:
        return self.extension in WORKBOOK_EXTENSIONS or is_workbook(self.data)

    @cached_property
    def arrow(self) -> bool:
        """A Parquet, Arrow or Feather file: a table of typed columns, never text."""
        return not self.workbook and (self.extension in ARROW_EXTENSIONS or is_arrow(self.data))

    @property
    def binary_table(self) -> bool:
        """A workbook or an Arrow-family file: its tables are read, never its text."""
        return self.workbook or self.arrow

    @cached_property
    def sheets(self) -> tuple[str, ...]:
        return sheet_names(self.data) if self.workbook else ()

    @cached_property
    def text(self) -> str:
        if self.workbook:
            raise PreferenceFormatError(
                "This is an Excel workbook; only its sheets hold tables of rankings.",
                fix="Let the layout be detected, or choose a table layout (wide, long, "
                    "pairwise, item columns holding ranks, one ranking per cell).")
        if self.arrow:
            raise PreferenceFormatError(
                "This is a Parquet/Arrow file; only its table holds rankings.",
                fix="Let the layout be detected, or choose a table layout (wide, long, "
                    "pairwise, item columns holding ranks, one ranking per cell).")
        return decode(self.data, self.encoding)

    @cached_property
    def table(self) -> Table:
        if self.workbook:
            table, self.sheet = workbook_table(self.data, self.options.sheet)
        elif self.arrow:
            table = arrow_table(self.data)
        elif self.extension in JSON_EXTENSIONS or looks_json(self.text):
            table = json_table(self.text)
        else:
            if not self.text.strip():
                raise empty_error()
            table = split_table(self.text)
        if not len(table):
            raise empty_error()
        whole = table
        table, self.reshaped_note = dominion_ballots(table)
        if self.reshaped_note is None:
            table, self.reshaped_note = game_archive(table)
        if self.reshaped_note is None:
            table, self.reshaped_note = crosstable_games(table)
        if self.reshaped_note is None:
            table, self.reshaped_note = sectioned_results(table)
        if self.reshaped_note is None:
            table, self.title_rows = without_title_rows(table)
            self.title_text = tuple(c for c in whole.cells[:self.title_rows].ravel() if c)
            table, self.summary_note = without_summary_rows(table)
            table, self.reshaped_note = place_columns(table)
        _refuse_repeated_header(table)
        event = FILE_EVENT.get()
        if event is not None and len(table) >= 2:  # one race a file: the file names it
            column = np.full((len(table), 1), event, dtype=object)
            column[0, 0] = "Event"
            table = Table(np.hstack([table.cells, column]), table.lines, table.delimiter,
                          (table.width + 1,))
        return table

    @cached_property
    def grades(self) -> GradesPlan | None:
        """The plan to read the table as one row per grade (rater, item, grade), or None."""
        return long_grades(self.table, self.name, self._sheet_named())

    @cached_property
    def results(self) -> ResultsPlan | None:
        """The plan to read the table as one ranking per event (a results table), or None."""
        return results_plan(self.table, self.name, self._sheet_named())

    def _sheet_named(self) -> ReadOptions:
        """The options with a chosen sheet by its name, as the command line's ``--sheet``
        takes it (the table read first)."""
        if self.options.sheet is None or not self.workbook:
            return self.options
        _ = self.table
        return replace(self.options, sheet=self.sheet)

    @cached_property
    def header_read(self) -> Prepared:
        """The header as read from the table alone, before the user's choice of columns."""
        return prepare(self.table)

    @cached_property
    def prepared(self) -> Prepared:
        return _apply_options(self.header_read, self.options)

    @cached_property
    def ranks_prepared(self) -> Prepared:
        """The header as a table of ranks reads it: a leading column of names is the ranker."""
        return with_text_ranker(self.prepared, self.options)


def _apply_options(prepared: Prepared, options: ReadOptions) -> Prepared:
    """The user's choice of ranker and count column, over the automatic one."""
    labels = [prepared.label(j) for j in range(prepared.width)]
    chosen = {}
    for role, choice in (("ranker", options.ranker_column), ("count", options.count_column)):
        if choice is None:
            continue
        if choice and choice not in labels:
            raise PreferenceFormatError(f"There is no column called '{choice}'.",
                                        fix="Choose a column of the file, or none.")
        chosen[role] = labels.index(choice) if choice else None
    if not chosen:
        return prepared
    skipped = {j: why for j, why in prepared.skipped.items() if j not in chosen.values()}
    return replace(prepared, skipped=skipped, ranker=chosen.get("ranker", prepared.ranker),
                   count=chosen.get("count", prepared.count))


@dataclass(frozen=True)
class Format:
    """One file layout the readers know.

    Attributes
    ----------
    id, title : str
        Registry id (``--format`` in the CLI) and a short title for people.
    description : str
        The layout in plain words, for the "Which layouts can I upload?" help.
    example : str
        A small file in this layout.
    extensions : tuple of str
        File name endings this layout comes in.
    detect : callable
        ``detect(source) -> bool``: whether an automatically read file has this layout.
    read : callable
        ``read(source) -> Preferences``.
    table : bool
        Whether the layout is a table (CSV, TSV, Excel or JSON) rather than a text format.
    """

    id: str
    title: str
    description: str
    example: str
    extensions: tuple[str, ...]
    detect: Callable[[Source], bool] = field(repr=False)
    read: Callable[[Source], Preferences] = field(repr=False)
    table: bool = True


def _table_reader(function: Callable[[Prepared, ReadOptions], Preferences]
                  ) -> Callable[[Source], Preferences]:
    return lambda source: function(source.prepared, source.options)


def _header(source: Source) -> list[str]:
    return source.table.row(0)


def _named_long(source: Source) -> bool:
    """Long rankings by their titles: an 'item' and a 'rank' column, unless the 'rank'
    column holds whole rankings (``b > a > c``, as Label Studio's JSON-MIN export writes a
    Ranker's order under its name)."""
    roles = find_roles(_header(source), PREFERENCE_ROLES)
    if not {"item", "rank"} <= set(roles):
        return False
    ranks = pd.Series(source.table.column(roles["rank"])[1:], dtype=object).astype(str)
    return not (len(ranks) and ranks.str.contains(" > ", regex=False).mean() >= 0.5)


FORMAT_LIST: tuple[Format, ...] = (
    Format("preflib", "PrefLib", examples.PREFLIB_TEXT, examples.PREFLIB, PREFLIB_EXTENSIONS,
           detect=lambda s: s.extension in PREFLIB_EXTENSIONS or (
               not s.binary_table and looks_preflib(s.text)),
           read=lambda s: read_preflib(s.text), table=False),
    Format("blt", "BLT ballots", examples.BLT_TEXT, examples.BLT, BLT_EXTENSIONS,
           detect=lambda s: s.extension in BLT_EXTENSIONS or (
               not s.binary_table and looks_blt(s.text)),
           read=lambda s: read_blt(s.text), table=False),
    Format("pgn", "chess games (PGN)", examples.PGN_TEXT, examples.PGN, PGN_EXTENSIONS,
           detect=lambda s: s.extension in PGN_EXTENSIONS or (
               not s.binary_table and looks_pgn(s.text)),
           read=lambda s: read_pgn(s.text), table=False),
    Format("condorcet", "Condorcet election format", examples.CONDORCET_TEXT,
           examples.CONDORCET, CONDORCET_EXTENSIONS,
           detect=lambda s: s.extension in CONDORCET_EXTENSIONS or (
               not s.binary_table and looks_condorcet(s.text)),
           read=lambda s: read_condorcet(s.text), table=False),
    Format("long", "long rankings", examples.LONG_TEXT, examples.LONG, TABLE_EXTENSIONS,
           detect=lambda s: _named_long(s) or s.results is not None or s.grades is not None,
           read=lambda s: read_long(s.table, s.options)),
    Format("pairwise", "pairwise comparisons", examples.PAIRWISE_TEXT, examples.PAIRWISE,
           TABLE_EXTENSIONS, detect=lambda s: pairwise_columns(_header(s)) is not None,
           read=lambda s: read_pairwise(s.table, s.options, explicit=True,
                                        skipped=_row_ids(s))),
    Format("ranks", "item columns holding ranks", examples.RANKS_TEXT, examples.RANKS,
           TABLE_EXTENSIONS, detect=lambda s: looks_like_ranks(s.ranks_prepared, s.options),
           read=lambda s: read_ranks(s.ranks_prepared, s.options,
                                     any_number=s.layout_chosen)),
    Format("cell", "one ranking per cell", examples.CELL_TEXT, examples.CELL, TABLE_EXTENSIONS,
           detect=lambda s: _one_ranking_column(s),
           read=_table_reader(read_cell)),
    Format("wide", "wide rankings", examples.WIDE_TEXT, examples.WIDE, TABLE_EXTENSIONS,
           detect=lambda s: True, read=_table_reader(read_wide)),
)
FORMATS: dict[str, Format] = {f.id: f for f in FORMAT_LIST}


def extensions() -> tuple[str, ...]:
    """Every file name ending some layout reads, without the dot."""
    return tuple(dict.fromkeys(e.lstrip(".") for f in FORMAT_LIST for e in f.extensions))


def _row_ids(source: Source) -> dict[int, str]:
    """Per-row id columns of a pairwise file (never its ranker)."""
    return {j: why for j, why in source.header_read.skipped.items()
            if why.startswith("a per-row id")}


def _one_ranking_column(source: Source) -> bool:
    """A single non-blank free column whose cells hold whole rankings.

    Raises the refusal of :func:`_scores_in_cells` when its cells are names with scores.
    """
    prepared, options = source.prepared, source.options
    codes, uniques = prepared.table.factorized
    blank = np.flatnonzero(uniques == "")
    width = codes.shape[1]
    filled = [j for j in item_columns(prepared, options)
              if j < width and not np.isin(codes[prepared.start:, j], blank).all()]
    if not filled or has_rank_header(prepared):
        return False
    found = ranking_column(prepared, options)
    survey = bool(prepared.skipped) or prepared.ranker is not None
    if found is None:
        return False
    # a survey's other answers beside the ranking: numbers (an age) are no list of names
    numbers = survey and all(is_plain_number(_filled_cells(prepared, j)).all()
                             for j in filled if j != found[0])
    # a column asking for a ranking, or listing one set of items in every row, unless
    # another column lists things the same way (a multi-select answer lists varying sets)
    lists = [j for j in filled if j != found[0] and list_separator(
        pd.Series(_filled_cells(prepared, j), dtype=object)) == found[1]]
    cells = _filled_cells(prepared, found[0])
    whole = same_items_each_row(cells, found[1])
    if not (len(filled) == 1 or (survey and found[1] in STRONG) or numbers
            or ranked_in_objects(prepared, found[0])
            or (not lists and asks_for_ranking(prepared.label(found[0])))
            or (whole and (not lists or found[2] and found[1] == " " and not one_order(
                pd.Series(cells, dtype=object), " ") and not any(
                _one_set(_filled_cells(prepared, j), " ") for j in lists)))):
        return False
    error = _scores_in_cells(source, found)
    if error is not None:
        raise error
    start = prepared.start if found[2] else 0  # no title row: the first row is a record too
    refuse_records(pd.Series(prepared.table.column(found[0])[start:], dtype=object),
                   np.asarray(prepared.table.lines[start:]),
                   prepared.label(found[0]) if found[2] else str(found[0] + 1),
                   found[1] == " ")
    return True


def _one_set(cells: np.ndarray, separator: str) -> bool:
    """Whether most cells list one set of two or more items: rankings of those items,
    where a multi-select answer's sets vary from row to row."""
    sets = pd.Series(cells, dtype=object).str.split(separator, regex=False).map(
        lambda parts: frozenset(p.strip() for p in parts if p.strip())).value_counts()
    return bool(len(sets)) and len(sets.index[0]) >= 2 and sets.iloc[0] * 2 > len(cells)


def _filled_cells(prepared: Prepared, column: int) -> np.ndarray:
    """The non-blank cells of ``column`` below the header."""
    cells = np.asarray(prepared.table.column(column)[prepared.start:], dtype=object)
    filled: np.ndarray = cells[cells != ""]
    return filled


def _unknown_layout(source: Source) -> PreferenceFormatError | None:
    """An error when the first row names columns that fit no layout; None if it names none,
    or if the user chose the item columns (then read as wide rankings)."""
    if source.options.item_columns is not None:
        return None
    one_side = one_side_win_error(source.table)
    if one_side is not None:
        return one_side
    first = _header(source)
    skipped = source.prepared.skipped
    roles = find_roles([c if j not in skipped else "" for j, c in enumerate(first)],
                       PREFERENCE_ROLES)
    named = {r for r in roles if r in ("item", "rank", "winner", "loser", "left", "right",
                                       "label", "score")}
    if not named or has_rank_header(source.prepared):  # 'Winner, Runner-up, Third place'
        return None
    found = quote_list(c for c in first if c)
    if "item" in roles and "rank" not in roles and (
            scores := _scores_per_item(source.prepared, source.table.lines[0])) is not None:
        return scores
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
        reason = ("pairwise comparisons with 'left' and 'right' also need a 'winner' column "
                  "(or a result, 0/1 winner flags, or two scores)")
    return PreferenceFormatError(
        f"The layout of this file was not recognised: the first row names the columns {found}, "
        f"but {reason}.", row=source.table.lines[0],
        fix=_long_hint(source.prepared) or
        "Use one of the layouts described on this page (the example files show each). If "
        "these are item names rather than column titles, choose the wide format.")


def _scores_per_item(prepared: Prepared, line: int) -> PreferenceFormatError | None:
    """The error for a table of scores per item (a leaderboard, a results grid: ``Model,
    MMLU, BoolQ`` with one row per model): a column titled as what competes, naming each row
    once, beside two or more columns of numbers. Each number column ranks the rows; read
    row by row, the measures would be ranked."""
    from .columns import COMPETITOR_WORDS
    from .content import title_words

    if prepared.header is None or prepared.n_rows < 2:
        return None
    body = prepared.table.cells[prepared.start:]
    names = [j for j in range(min(prepared.width, body.shape[1]))
             if COMPETITOR_WORDS & set(title_words(prepared.label(j)))
             and pd.Series(body[:, j], dtype=object).is_unique
             and not is_plain_number(body[:, j]).any()]
    numbers = [j for j in range(body.shape[1]) if j not in names
               and is_plain_number(body[:, j]).mean() >= 0.9]
    if not names or len(numbers) < 2:
        return None
    name = prepared.label(names[0])
    return PreferenceFormatError(
        f"Each row names a '{name}' and the columns hold its numbers on several measures "
        f"({quote_list([prepared.label(j) for j in numbers], 3)}): the rows are the items, and "
        "each column would be one ranking of them.", row=line,
        fix=f"To rank the '{name}' entries by every measure, turn the table round in a "
            "spreadsheet (copy it, then Paste Special > Transpose) so that each measure is a "
            "row, and load it with the layout 'item columns holding ranks' (--format ranks), "
            "with 'Rank numbers mean: 1 is the worst' (--one-is-worst) where a higher number is "
            "better. A single measure is one ranking: load it as the ground truth.")


def _long_hint(prepared: Prepared) -> str | None:
    """How to read the table as long rankings, when it looks like them: a ranker column
    whose names repeat beside exactly two other columns, one of names and one of numbers."""
    from .survey import rank_values

    if prepared.header is None or prepared.ranker is None or prepared.n_rows < 2:
        return None
    table = prepared.table
    if not pd.Series(table.column(prepared.ranker, prepared.start)).duplicated().any():
        return None
    columns = [j for j in range(table.width) if j not in (prepared.ranker, prepared.count)
               and (table.column(j, prepared.start) != "").any()]
    if len(columns) != 2:
        return None
    cells = [table.column(j, prepared.start) for j in columns]
    numeric = [(rank_values(c) >= 1) | is_plain_number(c) | (c == "") for c in cells]
    kinds = [bool(n.all()) for n in numeric]
    if sorted(kinds) != [False, True] or (numeric[kinds.index(False)] & (cells[kinds.index(
            False)] != "")).any():
        return None
    item, rank = (prepared.label(columns[k]) for k in (kinds.index(False), kinds.index(True)))
    return (f"If each row gives one item and its rank, choose the layout 'long rankings' with "
            f"the item columns '{item}' then '{rank}' (--format long --items "
            f"{shlex.quote(item)} {shlex.quote(rank)}); if a higher number is better, also "
            "'Rank numbers mean: 1 is the worst' (--one-is-worst).")


def detect(source: Source) -> Format:
    """The layout of an automatically read file (the first registry entry that fits)."""
    for fmt in FORMAT_LIST:
        if not fmt.table:
            if fmt.detect(source):
                return fmt
            continue
        if fmt.id == "wide":
            error = _unknown_layout(source)
            if error is not None:
                raise error
        if fmt.detect(source):
            return fmt
    return FORMATS["wide"]


_DECIMAL = re.compile(r"[+-]?\d*\.\d+(?:[eE][+-]?\d+)?")


def _scores_in_cells(source: Source, found: tuple[int, str, bool]
                     ) -> PreferenceFormatError | None:
    """An error when the ranking column ``found`` (column, separator, titled) holds, on
    space-separated rows, a name and a decimal number each (a list of scores, such as a
    ground truth), which would read as two-item rankings."""
    column, separator, titled = found
    if separator != " ":
        return None
    start = source.prepared.start if titled else 0
    values = pd.Series(source.table.column(column)[start:], dtype=object)
    parts = values.astype(str).str.split()
    pairs = parts[parts.str.len() == 2]
    if len(values) < 2 or len(pairs) < 0.9 * len(values):
        return None
    if pairs.str[1].str.fullmatch(_DECIMAL).mean() < 0.9:
        return None
    first = " ".join(pairs.iloc[0])
    return PreferenceFormatError(
        f"Each row holds a name and a number with a decimal point (such as '{first}'): "
        "that reads as items with their scores, such as a ground truth, not as rankings.",
        row=source.table.lines[start],
        fix="Load it as the ground truth (the optional true-order upload, or --truth), or "
            "choose the layout 'one ranking per cell' by hand if each row really ranks two "
            "items.")


_TRIM_BYTES = 1 << 20
"""Files larger than this give the memory their parse freed back to the system."""


class _Loaded:
    """A source already loaded: its bytes and file name, read by ``load_source`` again."""

    def __init__(self, data: bytes, name: str | None):
        self.data, self.name = data, name

    def getvalue(self) -> bytes:
        return self.data


def read_file(source: SourceLike, format: str = "auto", *, encoding: str | None = None,
              options: ReadOptions | None = None) -> ReadResult:
    """Read a file of rankings and say how it was read.

    See :func:`coarsenrank_core.io.read_preferences` for ``source``, ``format`` and
    ``encoding``; ``options`` corrects the automatic reading (sheet, item columns, ranker
    and count column, whether 1 is the best). In a workbook with no sheet chosen, when the
    first sheet holds fewer than two rankings (notes, a title), the first later sheet that
    holds two or more is read instead, and a note says so; when the first sheet cannot be
    read, the error names the other sheets.
    """
    options = options or ReadOptions()
    loaded = _Loaded(*load_source(source))
    try:
        result = _read_sheet(loaded, format, encoding, options)
    except PreferenceFormatError as error:
        raise _naming_other_sheets(error, loaded, options) from None
    prefs = result.preferences
    if options.sheet is None and (len(prefs) < 2 or not _shares_items(prefs)):
        why = (f"it holds {len(prefs)} ranking" if len(prefs) < 2
               else "no item in it is in two rankings, so nothing is compared")
        other = _later_sheet(loaded, format, encoding, options, why)
        if other is not None:
            result = other
        elif format == "auto" and len(prefs) >= 2 and _several_sheets(loaded, options):
            # a workbook's overview sheet (Kahoot, Quizizz) read as rankings of its labels
            raise _naming_other_sheets(PreferenceFormatError(
                f"No item is in two of the {len(prefs)} rankings read as "
                f"{result.report.layout_title}, so they share nothing to compare: these rows "
                "are not rankings of the same items.",
                fix="Check the layout and the columns read as items (the layout can be "
                    "chosen by hand), or load a file where the same items are ranked again "
                    "and again."), loaded, options) from None
    if len(prefs) >= 3 and not _shares_items(prefs) and _written_answers(result):
        raise _one_off_answers(result)
    if not options.one_is_best and result.report.one_is_best is None:
        note = (f"'Rank numbers mean: 1 is the worst' (--one-is-worst) was not used: "
                f"{result.report.layout_title} hold no rank numbers (the items are listed "
                "in order, or as winner and loser)")
        result = replace(result, report=replace(result.report,
                                                notes=(*result.report.notes, note)))
    return result


def _written_answers(result: ReadResult) -> bool:
    """Whether the items read are answers written for the occasion, not names: columns
    titled as answers (``response-1``, ``output_a``: :data:`~.columns.ANSWER_STEMS`), or
    items of sentences (six words or more, on average)."""
    titled = any(normalise(c).startswith(ANSWER_STEMS) for c in result.report.item_columns)
    names = result.preferences.item_names
    words = np.mean([len(str(n).split()) for n in names[:1000]]) if len(names) else 0.0
    return titled or bool(words >= 6)


def _one_off_answers(result: ReadResult) -> PreferenceFormatError:
    """The refusal of three rankings or more of which no item is in two (each row's own
    answers to its own prompt, ``response-1`` ... ``response-3``): nothing to rank
    together."""
    report, prefs = result.report, result.preferences
    columns = report.item_columns
    return PreferenceFormatError(
        f"No item is in two of the {len(prefs)} rankings read as {report.layout_title} (such "
        f"as {shown_cell(' '.join(str(prefs.item_names[0]).split())[:60])}"
        f"{f', from {quote_list(columns, 3)}' if columns else ''}): each ranking holds its own "
        "one-off answers, so the rankings share nothing to rank together.",
        row=report.header_rows + 1 if report.header_rows else None,
        column=columns[0] if columns else None,
        fix="If another column names what wrote each answer (a model, a system, a person), "
            "rank those instead: one row per answer with its ranking, its writer and its "
            "rank, loaded as long rankings.")


def _shares_items(prefs: Preferences) -> bool:
    """Whether some item is in two or more of the rankings: else nothing is compared."""
    return bool(prefs.appearances().max(initial=0) >= 2)


def _several_sheets(loaded: _Loaded, options: ReadOptions) -> bool:
    """Whether the source is a workbook of two or more sheets."""
    try:
        file = Source(loaded, options)
    except PreferenceFormatError:
        return False
    return bool(file.workbook) and len(file.sheets) >= 2


def _later_sheet(loaded: _Loaded, format: str, encoding: str | None, options: ReadOptions,
                 why: str) -> ReadResult | None:
    """The first sheet after the first that reads as two or more rankings that disagree
    somewhere (a list of the options shown, in one order every time, ranks nothing), with a
    note."""
    file = Source(loaded, options, encoding)
    if options.sheet is not None or not file.workbook or len(file.sheets) < 2:
        return None
    for sheet in file.sheets[1:]:
        try:
            result = _read_sheet(loaded, format, encoding, replace(options, sheet=sheet))
        except PreferenceFormatError:
            continue
        if len(result.preferences) >= 2 and _shares_items(result.preferences) \
                and any(len(c) > 1 for c in result.preferences.components(strong=True)):
            note = (f"The first sheet, '{file.sheets[0]}', was not read ({why}): this is "
                    f"the sheet '{sheet}'")
            return replace(result, report=replace(result.report,
                                                  notes=(note, *result.report.notes)))
    return None


def _naming_other_sheets(error: PreferenceFormatError, loaded: _Loaded, options: ReadOptions
                         ) -> PreferenceFormatError:
    """The error of a workbook's first sheet, saying which other sheets there are."""
    try:
        file = Source(loaded, options)
        sheets = file.sheets if file.workbook and options.sheet is None else ()
    except PreferenceFormatError:
        sheets = ()
    if len(sheets) < 2:
        return error
    hint = (f"This was the workbook's first sheet, '{sheets[0]}'; it also has "
            f"{quote_list(sheets[1:], 4)}: choose the sheet that holds the rankings (--sheet).")
    return PreferenceFormatError(error.reason, row=error.row, column=error.column,
                                 fix=" ".join(p for p in (error.fix, hint) if p))


def _refuse_direction_said(file: Source) -> None:
    """Refuse ranks read with 1 the best where the question or a title row says 1 is the
    worst (``Rank the cities (4 = favourite, 1 = least favourite)``)."""
    prepared = file.ranks_prepared
    texts = [*file.title_text, prepared.question or "", *prepared.questions.values()]
    said = one_is_worst_by_words(texts)
    if said is not None:
        raise PreferenceFormatError(
            f"The question says which end is best ('{said}'): 1 is the worst here, and read "
            "with 1 the best the order would be upside down.", row=int(file.table.lines[0]),
            fix="Choose 'Rank numbers mean: 1 is the worst' (--one-is-worst). If 1 is the "
                "best after all, choose the layout 'item columns holding ranks' by hand "
                "(--format ranks).")


def _read_sheet(source: SourceLike, format: str, encoding: str | None, options: ReadOptions
                ) -> ReadResult:
    """:func:`read_file` of one sheet (the chosen one, or the first)."""
    if format != "auto" and format not in FORMATS:
        raise PreferenceFormatError(f"'{format}' is not a known format.",
                                    fix=f"Use one of: auto, {', '.join(FORMATS)}.")
    file = Source(source, options, encoding)
    if not file.data[:4096].strip() and not file.data.strip():
        raise empty_error()
    fmt = detect(file) if format == "auto" else FORMATS[format]
    file.layout_chosen = format != "auto"
    if fmt.id == "wide" and format == "auto":
        _refuse_judges_as_items(file.prepared, file.options)
        _refuse_decimal_scores_down_columns(file.prepared, file.options)
        refuse_one_results_list(file.table)
        _refuse_one_option_a_row(file.prepared, file.options)
    if fmt.id in ("long", "ranks", "wide") and format == "auto":
        _refuse_count_rounds(file.ranks_prepared if fmt.id == "ranks" else file.prepared)
        _refuse_standings_figures(file.ranks_prepared if fmt.id == "ranks" else file.prepared)
        _refuse_pairwise_matrix(file.table)
    if fmt.id == "ranks" and format == "auto":
        _refuse_judges_as_items(file.ranks_prepared, file.options)
        _refuse_ranks_down_columns(file.ranks_prepared, file.options)
        _refuse_rank_slots(file.ranks_prepared, file.options)
    if fmt.id == "ranks" and file.options.one_is_best and format == "auto":
        _refuse_direction_said(file)  # a layout chosen by hand reads 1 as the best
    # a results table is asked first: only its plain "Name" of a competitor (beside an
    # event and the times or places achieved) could also be read as a grader's
    results = (file.results if format == "auto" and fmt.id == "long" and not _named_long(file)
               else None)
    if results is not None:  # one ranking per event: its columns and direction, as by hand
        file.options = results.options(file.options)
    grades = (file.grades if format == "auto" and fmt.id == "long" and not _named_long(file)
              and results is None else None)
    if grades is not None:  # one row per grade: its columns and direction, likewise
        file.options = grades.options(file.options)
    if fmt.table and not file.binary_table and (looks_preflib(file.text) and fmt.id != "wide"
                                            or looks_preflib(file.text) and format != "auto"):
        raise PreferenceFormatError(
            f"This looks like a PrefLib file, not a {fmt.title} table.",
            fix="Choose the 'preflib' format, or let it be detected.")
    for other, looks in (("pgn", looks_pgn), ("condorcet", looks_condorcet)):
        if fmt.table and not file.binary_table and looks(file.text):
            raise PreferenceFormatError(
                f"This is a {FORMATS[other].title} file, not a {fmt.title} table.",
                fix=f"Choose the '{other}' format, or let it be detected.")
    try:
        if format == "auto" and fmt.id in ("ranks", "wide"):
            _refuse_criteria_as_items(file)
        if format == "auto" and fmt.id == "wide":
            _refuse_rank_slots(file.prepared, file.options)
        if format == "auto" and fmt.id in ("ranks", "wide"):
            _refuse_counts_per_place(file.prepared)
            _refuse_tick_grid(file.prepared)
        if format == "auto" and fmt.id in ("ranks", "wide", "cell"):
            _refuse_one_off_sides(file.prepared)
            _refuse_unsaid_side_flag(file.prepared)
            if fmt.id == "cell":  # the other layouts were checked before reading began
                _refuse_count_rounds(file.prepared)
            _refuse_mark_grid(file.table)
            _refuse_only_ticked(file.prepared)
        prefs = fmt.read(file)
        if fmt.table:
            _refuse_multiline_items(prefs, file.table)
    except PreferenceFormatError as error:
        if format == "auto" and fmt.id == "wide":
            if file.options.item_columns is None:  # a label twice in a row: still labels
                try:
                    _refuse_answer_labels(file.prepared, fmt.title)
                    _refuse_figures(_free_cells(file.prepared), fmt.title)
                except PreferenceFormatError as labels:
                    raise _with_platform(labels, file, fmt) from None
            error = _with_long_hint(_with_choices_hint(error, file.prepared), file.prepared)
        if grades is not None:  # say what was read, and how, before what went wrong
            error = PreferenceFormatError(
                f"Read as one row per grade ('{grades.ranker}' grades '{grades.item}' with "
                f"'{grades.grade}'). {error.reason}", row=error.row, column=error.column,
                fix=error.fix)
        if results is not None:
            error = PreferenceFormatError(
                f"Read as a results table (one ranking per '{results.event}', "
                f"'{results.item}' ordered by '{results.measure}'). {error.reason}",
                row=error.row, column=error.column, fix=error.fix)
        raise _with_platform(error, file, fmt) from None
    finally:
        if len(file.data) > _TRIM_BYTES:
            release_freed_memory()
    report = _report(file, fmt, prefs, automatic=format == "auto")
    if grades is not None:
        report = replace(report, notes=(grades.note, *report.notes))
    if results is not None:
        report = replace(report, notes=(results.note, *report.notes))
    for note in (file.summary_note, file.reshaped_note):
        if note is not None:
            report = replace(report, notes=(note, *report.notes))
    warning = unusual_read(prefs)
    if warning:
        report = replace(report, warning=warning)
    if format == "auto" and fmt.id in ("wide", "cell"):
        try:
            _refuse_implausible_items(prefs, report)
            if fmt.id == "cell" and file.prepared.platform is not None \
                    and not _written_in_order(file.prepared, report):
                _refuse_form_order(prefs)
            if fmt.id == "wide":
                _refuse_rank_numbers(file.prepared, report)
                if file.options.item_columns is None:  # columns chosen by hand are read
                    _refuse_answer_labels(file.prepared, report.layout_title)
                    _refuse_number_column(file.prepared, report)
                _refuse_names_beside_numbers(file.prepared, report)
                _refuse_headerless_numbers(file.prepared, report)
                _refuse_unrelated_columns(file.prepared, report)
        except PreferenceFormatError as error:
            raise _with_platform(error, file, fmt) from None
    return ReadResult(prefs, report)


def _refuse_multiline_items(prefs: Preferences, table: Table) -> None:
    """Refuse an item named over several lines: a list typed with line breaks in one cell
    (a line break in a skipped column, a comment or a question's text, is no item)."""
    broken = next((n for n in prefs.item_names if "\n" in n or "\r" in n), None)
    if broken is not None:
        raise multiline_item_error(table, broken)


def _with_long_hint(error: PreferenceFormatError, prepared: Prepared) -> PreferenceFormatError:
    """The error, saying how to read the table as long rankings when it looks like them."""
    hint = _long_hint(prepared)
    if hint is None or hint in (error.fix or ""):
        return error
    return PreferenceFormatError(error.reason, row=error.row, column=error.column,
                                 fix=" ".join(p for p in (error.fix, hint) if p))


def _with_platform(error: PreferenceFormatError, file: Source, fmt: Format
                   ) -> PreferenceFormatError:
    """The error, saying which survey platform the file looks like and what to change."""
    if not fmt.table:
        return error
    try:
        platform = file.prepared.platform
    except PreferenceFormatError:
        return error
    if platform is None:
        return error
    fix = platform_fix(platform)
    return PreferenceFormatError(
        f"This looks like a {platform} export. {error.reason}", row=error.row,
        column=error.column, fix=" ".join(p for p in (error.fix, fix) if p))


def _report(file: Source, fmt: Format, prefs: Preferences, automatic: bool) -> ReadReport:
    base: dict[str, Any] = dict(layout=fmt.id, layout_title=fmt.title, file_name=file.name,
                                notes=prefs.notes, automatic=automatic)
    if not fmt.table:
        return ReadReport(**base)
    if file.workbook:
        base.update(sheet=file.sheet, sheets=file.sheets)
    if fmt.id in ("long", "pairwise"):
        header = _header(file)
        roles = (long_roles(header, file.options) if fmt.id == "long" else
                 find_roles(header, PREFERENCE_ROLES))
        labels = tuple(c or str(j + 1) for j, c in enumerate(header))
        ranker = labels[roles["ranker"]] if "ranker" in roles else None
        count = labels[roles["weight"]] if "weight" in roles else None
        if file.options.ranker_column is not None:
            ranker = file.options.ranker_column or None
        if file.options.count_column is not None:
            count = file.options.count_column or None
        lists: tuple[str, ...] = ()
        if fmt.id == "long":
            items = tuple(labels[roles[r]] for r in ("item", "rank"))
            if "list" in roles:  # a task column that splits nothing is skipped
                splits = list_columns(roles)
                keys = (ranking_keys(header, roles, padded(file.table, header, 1))
                        if "ranker" in roles else splits)
                lists = tuple(labels[j] for j in keys if j in splits)
        else:
            coding = (chosen_coding(header, file.options) if file.options.item_columns
                      else pairwise_columns(header) or {})
            items = tuple(labels[j] for k, j in coding.items() if k != "mode" and j is not None)
        if ranker in _row_ids(file).values() or not prefs.has_rankers:
            ranker = None
        used = {*items, *lists, ranker, count}
        return ReadReport(**base, header_rows=1 + file.title_rows, columns=labels,
                          item_columns=items,
                          ranker_column=ranker if prefs.has_rankers else None,
                          count_column=count, list_columns=lists,
                          skipped_columns=tuple(c for c in labels if c not in used),
                          one_is_best=file.options.one_is_best if fmt.id == "long" else None,
                          smaller_is_better=fmt.id == "long"
                          and reads_smaller_first(items[1], file.options))
    prepared = file.ranks_prepared if fmt.id == "ranks" else file.prepared
    if fmt.id == "wide" and not prepared.wide_header and file.options.item_columns is None:
        prepared = headerless(prepared)
    if fmt.id == "cell":
        found = ranking_column(prepared, file.options)
        if found is not None and not found[2]:
            prepared = headerless(prepared)
    labels = tuple(prepared.label(j) for j in range(prepared.width))
    columns = item_columns(prepared, file.options)
    if fmt.id == "cell":
        found = ranking_column(prepared, file.options)
        columns = [found[0]] if found else columns
    skipped = [f"{labels[j]} ({why})" for j, why in sorted(prepared.skipped.items())]
    chosen = set(columns)
    skipped += [labels[j] for j in item_columns(prepared, ReadOptions())
                if j not in chosen and prepared.header is not None]
    if (asked := questions_note(prepared, columns)) is not None:
        base.update(notes=(asked, *prefs.notes))
    return ReadReport(
        **base, platform=prepared.platform,
        header_rows=prepared.start + (file.title_rows if prepared.header is not None else 0),
        columns=labels,
        item_columns=tuple(labels[j] for j in columns) if prepared.header is not None else (),
        ranker_column=labels[prepared.ranker] if prepared.ranker is not None else None,
        count_column=labels[prepared.count] if prepared.count is not None else None,
        skipped_columns=tuple(skipped),
        one_is_best=file.options.one_is_best if fmt.id == "ranks" else None)


_ID_LIKE = re.compile(r"[#]?\d{5,}|[A-Za-z]{0,3}[_-]?[0-9a-fA-F]{8,}|"
                      r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def unusual_read(prefs: Preferences) -> str | None:
    """One line saying why a read looks unusual, or None when it looks ordinary.

    Unusual: more items than rankings; an item in only one ranking while the others are
    in three or more (median); item names that look like people (e-mail addresses, or the
    rankers' own names), dates, ids or numbers; names that differ only in capitals or spaces.
    """
    names = [str(name).strip() for name in prefs.item_names or ()]
    reasons = []
    n_lists = len(prefs)
    if not prefs.is_pairwise and prefs.n_items > n_lists >= 2:
        reasons.append(f"there are more items ({prefs.n_items}) than rankings ({n_lists})")
    seen = prefs.appearances()
    if seen.size >= 4 and np.median(seen) >= 3 and (seen == 1).any():
        once = [names[i] for i in np.flatnonzero(seen == 1)]
        reasons.append(f"{quote_list(once, 3)} appear{'s' if len(once) == 1 else ''} in only "
                       "one ranking while the other items appear in many")
    looks = []
    for kind, pattern in (("e-mail addresses", _EMAIL), ("dates or times", _DATE),
                          ("ids", _ID_LIKE), ("numbers", _NUMBER)):
        hits = [name for name in names if pattern.fullmatch(name)]
        if hits and len(hits) * 4 >= len(names):
            looks.append(f"{kind} ({quote_list(hits, 2)})")
    if prefs.has_rankers:
        rankers = set(prefs.ranker_names or ())
        people = [name for name in names if name in rankers]
        if people:
            looks.append(f"the rankers' own names ({quote_list(people, 2)})")
    if looks:
        reasons.append("item names look like " + " and ".join(looks[:2]))
    folded = [re.sub(r"\s+", " ", name.casefold()) for name in names]
    counts = Counter(folded)
    spelled = [k for k, key in enumerate(folded) if counts[key] > 1]
    if spelled:
        same = [names[k] for k in spelled if folded[k] == folded[spelled[0]]]
        reasons.append(f"some items differ only in capitals or spaces ({quote_list(same, 3)}), "
                       "so they count as different items; if they are one, spell them alike")
    if not reasons:
        return None
    return ("Check this read: " + "; ".join(reasons) + ". If it is wrong, correct the layout "
            "or the columns below.")


_DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}([ T]\d{1,2}:\d{2}.*)?|"
                   r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}([ T,]+\d{1,2}:\d{2}.*)?|"
                   r"\d{1,2}:\d{2}(:\d{2})?(\s*[AaPp][Mm])?")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_IP = re.compile(r"\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}")
_KINDS = (("dates or times", _DATE), ("e-mail addresses", _EMAIL), ("IP addresses", _IP))
#: Cells that are figures of a results or summary table, not names: match scores (``2–1``)
#: and percentages (``50.00%``); a read whose items are many of them is refused.
_FIGURES = (("match scores", re.compile(r"\d{1,3}\s*[-–—:]\s*\d{1,3}")),
            ("percentages", re.compile(r"[-+]?\d+(?:[.,]\d+)?\s*%")))


def _refuse_figures(names: Sequence[str] | np.ndarray, layout_title: str) -> None:
    """Refuse a read whose items would be many match scores or percentages
    (:data:`_FIGURES`): a results crosstable or a summary, not rankings."""
    names = [str(n) for n in names]
    for kind, pattern in _FIGURES:
        hits = [n for n in names if pattern.fullmatch(n.strip())]
        if kind == "match scores":
            # a season's crosstable holds draws (1-1); time slots and ranges (9-11, 50-59)
            # never name one number twice
            sides = [re.findall(r"\d+", h) for h in hits]
            enough = len(set(hits)) >= 3 and any(a == b for a, b in sides)
        else:  # a summary's many shares, not a few options such as 1%, 2% or a 15% tip
            enough = len(set(hits)) >= 5
        if enough and 4 * len(hits) >= len(names):
            raise PreferenceFormatError(
                f"This file was not loaded: read as {layout_title}, its items would "
                f"include {kind} such as {quote_list(hits, 3)}: this looks like a table of "
                "results or of a summary (a crosstable of games, a report of how often each "
                "place was chosen), not rankings people gave.",
                fix="Load the answers themselves (one row per person or per game), or, for "
                    "games, a list of matches with the two sides and the winner (pairwise "
                    "layout). If these really are the items, choose the layout explicitly.")


def _refuse_implausible_items(prefs: Preferences, report: ReadReport) -> None:
    """Refuse an automatic read whose items look like survey metadata, not things ranked."""
    from .survey import metadata_name

    names = np.asarray(prefs.item_names or (), dtype=object)
    for kind, pattern in _KINDS:
        hits = [n for n in names if pattern.fullmatch(n.strip())]
        if hits:
            raise PreferenceFormatError(
                f"This file was not loaded: read as {report.layout_title}, its items would "
                f"include {kind} such as {quote_list(hits, 3)}, which are answers' details, "
                "not things people ranked.",
                fix="Choose the layout and the item columns by hand, or remove these columns. "
                    "If these really are the items, choose the layout explicitly.")
    _refuse_figures(names, report.layout_title)
    titles = [n for n in names if metadata_name(n)]
    if titles:
        raise PreferenceFormatError(
            f"This file was not loaded: read as {report.layout_title}, its items would include "
            f"column titles such as {quote_list(titles, 3)}.",
            fix="Check that the first row holds the column titles, then choose the layout by "
                "hand. If these really are the items, choose the layout explicitly.")


def _written_in_order(prepared: Prepared, report: ReadReport) -> bool:
    """Whether the cells read hold an order a checkbox never writes (``A > B``), or their
    question asks for one (``Rank the candidates``)."""
    columns = [j for j in range(prepared.table.width)
               if prepared.label(j) in report.item_columns]
    if not columns:
        return False
    cells = pd.Series(prepared.table.cells[prepared.start:, columns].ravel(), dtype=object)
    return bool(cells.astype(str).str.contains(">", regex=False).any()
                or _asks_for_order(prepared, columns))


def _refuse_form_order(prefs: Preferences) -> None:
    """Refuse a survey platform's answers that all list their items in one fixed order
    while some skip options in between (of any lengths): the options ticked in a
    checkbox question (``Margherita, Pepperoni, Veggie``), which a form writes in its own
    order, read as rankings would rank that order."""
    lengths = np.asarray(prefs.lengths, dtype=np.int64)
    if prefs.has_ties or (lengths >= 2).sum() < 4 or prefs.n_items < 3:
        return
    items = np.asarray(prefs.items, dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    place = ((np.arange(items.size) - np.repeat(starts, lengths))
             / np.repeat(np.maximum(lengths - 1, 1), lengths))
    seen = np.bincount(items, minlength=prefs.n_items)
    mean_place = np.bincount(items, place, minlength=prefs.n_items) / np.maximum(seen, 1)
    order = np.argsort(np.where(seen > 0, mean_place, np.inf), kind="stable")
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.size)
    ranked = rank_of[items]
    same_row = np.ones(items.size, dtype=bool)
    same_row[starts[1:]] = False  # the first entry of every later ranking
    if not (np.diff(ranked)[same_row[1:]] > 0).all():
        return
    # rankings that agree stop early (a top two); ticked boxes skip options in between
    filled = lengths > 0
    skips = np.maximum.reduceat(ranked, starts[filled]) > lengths[filled] - 1
    if skips.sum() < max(2, filled.sum() // 4):
        return
    names = [str(prefs.item_names[i]) if prefs.item_names else str(i) for i in order
             if seen[i]]
    differ = ("the answers differ in length" if np.unique(lengths[filled]).size > 1 else
              "the answers pick different options")
    raise PreferenceFormatError(
        f"Every answer lists the items in one fixed order ({quote_list(names, 4)}), and "
        f"{differ}: they look like the options ticked in a checkbox question, which a form "
        "writes in its own order, not rankings.",
        fix="Load the answers of a ranking question, where each answer holds the options in "
            "the order the person chose. If these really are rankings that all agree, choose "
            "the layout 'one ranking per cell' by hand.")


def _refuse_number_column(prepared: Prepared, report: ReadReport) -> None:
    """Refuse a column of numbers read as items beside columns of names (a count or score)."""
    from .survey import rank_values

    if not report.header_rows:
        return
    table = prepared.table
    codes, uniques = table.factorized
    # judged once for every distinct cell, not once a column (20,000 columns, 20,000 calls)
    kept = (uniques != "") & ~is_ballot_mark(uniques)
    ranked = np.isfinite(rank_values(uniques))
    numeric, named = [], 0
    for j in (j for j in prepared.free if j < table.width):
        present = pd.unique(codes[prepared.start:, j])
        present = present[kept[present]]
        if not present.size:
            continue
        if not (ranked[present[0]] or is_float_text(uniques[present[0]])):
            named += 1  # its first value is a name: not a column of numbers
            continue
        if ranked[present].all() or all(is_float_text(v) for v in uniques[present]):
            numeric.append(j)
        else:
            named += 1
    if numeric and named:
        title = prepared.label(numeric[0])
        distinct = pd.unique(table.column(numeric[0], prepared.start))
        what = ("a counter of the experiment's trial loop" if counter_title(title) else
                "only numbers")
        reason = (f"This file was not loaded: read as {report.layout_title}, the column "
                  f"'{title}' holds {what} while the other columns hold names, so its numbers "
                  "would become items.")
        if count_title(title) and len(distinct) > 1:
            fix = (f"If '{title}' says how many times a row was given, choose it as the count "
                   "column; otherwise leave it out of the item columns.")
        else:
            fix = (f"Leave '{title}' out of the item columns (choose the item columns by "
                   "hand).")
        raise PreferenceFormatError(reason, row=int(table.lines[0]), column=title, fix=fix)


_PLACE_TITLE = re.compile(r"\s*(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|"
                          r"last)\b.*|.*\b(?:place|choice|rank|preference)\s*\d+\b.*",
                          re.IGNORECASE)


#: First-column titles saying that the rows are the options ranked, not who ranked them.
_OPTION_TITLES = frozenset({"item", "items", "option", "options", "answer", "answers",
                            "answerchoice", "answerchoices", "choice", "choices", "candidate",
                            "candidates", "product", "products"})


def _refuse_counts_per_place(prepared: Prepared) -> None:
    """Refuse a summary table: one row per option with how many put it 1st, 2nd, ...
    (columns titled by places over whole numbers beside a column of names)."""
    from .survey import rank_values

    if prepared.header is None or not prepared.n_rows:
        return
    table = prepared.table
    columns = [j for j in range(1, min(table.width, len(prepared.header)))
               if _PLACE_TITLE.fullmatch(prepared.header[j] or "")]
    cells = table.cells[prepared.start:]
    # beside the counts, a total or an average of each option (Mentimeter's 'Points')
    placed = set(columns)
    totals = [j for j in range(1, table.width) if j not in placed]
    if len(columns) < 2 or len(totals) > 2 or any(
            not np.isfinite(parse_numbers(cells[:, j])).all() for j in totals):
        return
    names, counts = cells[:, 0], cells[:, columns]
    whole = np.char.isdigit(counts.astype(str)) | (counts == "")
    if (names == "").any() or np.isfinite(rank_values(names)).any() or not whole.all():
        return
    numbers = np.where(counts == "", "0", counts).astype(float)
    sums = numbers.sum(axis=0)
    # the rows are options (the first column says so), or every place was given by as many
    # people as there are, with counts above the number of places
    summary = normalise(prepared.header[0] or "") in _OPTION_TITLES or (
        bool((sums == sums[0]).all()) and float(numbers.max()) > len(columns))
    if not summary and not _repeats_in_a_row(counts):
        return  # no row repeats a number: these may be numbered items in order
    raise PreferenceFormatError(
        f"The columns are titled by places ({quote_list(prepared.header[j] for j in columns)})"
        f" over whole numbers beside a column of names ({quote_list(dict.fromkeys(names), 3)}):"
        " this looks like a summary of how many people put each option in each place, not "
        "one ranking per person.", row=int(table.lines[0]),
        fix="Load the individual answers (one ranking per row, as the survey tool exports "
            "them); counts per place cannot be turned back into rankings.")


def _option_columns(prepared: Prepared) -> tuple[list[int], list[str]] | None:
    """The item columns and their titles, or None when a title names a place ('1st',
    'Rank 2'): columns titled by places hold rankings, whatever their cells."""
    columns = [j for j in prepared.free if j < prepared.table.width]
    titles = [prepared.label(j) for j in columns]
    if any(RANK_LABEL.fullmatch(t.strip()) or _PLACE_TITLE.fullmatch(t) for t in titles):
        return None
    return columns, titles


#: Marks of a tick grid: ticks, crosses and yes/no answers, not items.
_TICK_MARKS = frozenset({"x", "✓", "✔", "☑", "☒", "✗", "✘", "•", "yes", "no", "y", "n",
                         "(yes)", "maybe", "ifneedbe", "ok", "(ok)", "(x)"})


def _refuse_tick_grid(prepared: Prepared) -> None:
    """Refuse a grid of ticks or yes/no answers under columns titled by options (not by
    places): approvals or availabilities, whose marks would be read as items."""
    if prepared.header is None or not prepared.n_rows:
        return
    found = _option_columns(prepared)
    if found is None or len(found[0]) < 2:
        return
    columns, titles = found
    table = prepared.table
    codes, uniques = table.factorized
    end = len(table)
    last = [str(m) for m in uniques[codes[end - 1, columns]] if m != ""]
    if end - prepared.start >= 3 and last and all(m.isdigit() for m in last):
        end -= 1  # Doodle's 'Count' row under the marks
    marks = [m for m in uniques[pd.unique(codes[prepared.start:end, columns].ravel())]
             if m != ""]
    own = {j: {str(m).strip().casefold() for m in uniques[pd.unique(
        codes[prepared.start:, j])] if m != ""} for j in columns}
    if marks and all(own[j] <= {prepared.label(j).strip().casefold()} for j in columns):
        # SurveyMonkey's checkbox question: a ticked box writes its option's own name
        column = next(j for j in columns if own[j])
        raise PreferenceFormatError(
            f"Each answer under the columns {quote_list(titles, 3)} is its own column's title "
            f"(such as '{prepared.label(column)}' under '{prepared.label(column)}'): these are "
            "the boxes ticked in a checkbox question, which say which options each person "
            "chose but not in what order.", row=int(table.lines[0]),
            column=prepared.label(column),
            fix="Ask for rankings instead: a ranking question, or one row per person with the "
                "options in order under columns '1st', '2nd', ...")
    if not marks or any(re.sub(r"\s+", "", m.lower()) not in _TICK_MARKS for m in marks):
        return
    raise PreferenceFormatError(
        f"The columns {quote_list(titles, 3)} hold only marks such as {quote_list(marks, 3)} "
        "(ticks or yes/no answers): this looks like a grid of approvals or availabilities, "
        "which says which options each person accepts but not in what order.",
        row=int(table.lines[0]),
        fix="Ask for rankings instead: one row per person with the options in order under "
            "columns '1st', '2nd', ..., or each option's rank (1, 2, 3 ...) under its column.")


#: Marks only a poll of availabilities writes (Doodle's ``OK`` and ``(OK)``, ticks and
#: crosses): a row of them is never a ranking of items, whatever the columns' titles.
_POLL_MARKS = frozenset({"ok", "(ok)", "(x)", "(yes)", "ifneedbe", "✓", "✔", "☑", "☒", "✗",
                         "✘"})


def _refuse_mark_grid(table: Table) -> None:
    """Refuse a poll of availabilities read whole (its title rows, date and time rows and
    a count row around the answers): from the first answer down, every row holds beside a
    name only marks of a tick grid, over two columns or more, and some rows a poll's own
    mark (``OK``, ``(OK)``, a tick) or one mark twice, which no ranking holds; unless the
    first row titles columns by places."""
    if len(table) < 2 or table.width < 3 or any(
            RANK_LABEL.fullmatch(c) or _PLACE_TITLE.fullmatch(c) for c in table.row(0) if c):
        return  # columns titled by places hold rankings, whatever their items
    codes, uniques = table.factorized
    plain = pd.Series(uniques, dtype=object).astype(str).str.lower().str.replace(
        r"\s+", "", regex=True).to_numpy(dtype=object)
    mark = np.isin(plain, list(_TICK_MARKS))
    if not mark.any():
        return
    own = np.isin(plain, list(_POLL_MARKS))
    answers = codes[:, 1:]
    filled = plain[answers] != ""
    marks_only = filled.any(axis=1) & (mark[answers] | ~filled).all(axis=1)
    repeated = np.zeros(len(table), dtype=bool)
    repeated[marks_only] = [len(set(r[f])) < int(f.sum()) for r, f in zip(
        answers[marks_only], filled[marks_only])]
    rows = np.flatnonzero(marks_only & (own[answers].any(axis=1) | repeated))
    answered = np.flatnonzero(filled.any(axis=1))
    below = answered[answered >= rows[0]] if len(rows) else answered
    if len(rows) < 2 or not marks_only[below].all() or len(
            np.flatnonzero(mark[answers[rows]].any(axis=0))) < 2:
        return  # a grid of marks from its first answer down, over two columns or more
    shown = list(dict.fromkeys(str(uniques[c]) for c in answers[rows].ravel()
                               if plain[c] != ""))
    raise PreferenceFormatError(
        f"Rows such as this one hold, beside a name, only marks such as "
        f"{quote_list(shown, 3)}: this looks like a poll of availabilities or approvals (as "
        "Doodle exports it), which says which options each person accepts but not in what "
        "order.", row=int(table.lines[rows[0]]),
        fix="Ask for rankings instead: one row per person with the options in order under "
            "columns '1st', '2nd', ..., or each option's rank (1, 2, 3 ...) under its column.")


def _with_choices_hint(error: PreferenceFormatError, prepared: Prepared
                       ) -> PreferenceFormatError:
    """The error of a table with no ranking of two items, told where a column lists
    several names a cell, split by spaces, always in one order and a different set from
    row to row: the options ticked in a multiple-choice question (KoboToolbox, ODK), which
    commas between them would not make a ranking."""
    if not error.reason.startswith("No ranking in the file has two or more items"):
        return error
    for j in prepared.free:
        cells = _filled_cells(prepared, j) if j < prepared.table.width else np.empty(0)
        spaced = pd.Series(cells, dtype=object).str.contains(" ", regex=False)
        if cells.size < 3 or not spaced.any() or _one_set(cells, " ") \
                or not one_order(pd.Series(cells, dtype=object), " "):
            continue
        example = str(cells[spaced.to_numpy()][0])
        return PreferenceFormatError(
            f"No ranking in the file has two or more items. The column '{prepared.label(j)}' "
            f"lists several names a cell (such as '{example}'), always in one order and a "
            "different set on each row: this looks like the options ticked in a "
            "multiple-choice question, which say nothing about order.",
            column=prepared.label(j),
            fix="Ask for a ranking instead (in KoboToolbox or ODK a question of type 'rank'). "
                "Only if each cell does list its names best first, save the file with commas "
                "between them.")
    return error


#: Starts of titles of the texts judged side by side (``answer_0``, ``human_ref_A``)
#: beside :data:`~.columns.ANSWER_STEMS`, whose sides are refused where they are read.
_SIDE_TEXTS = ("answer", "humanref")


def _refuse_one_off_sides(prepared: Prepared) -> None:
    """Refuse two texts judged side by side (WebGPT's ``answer_0`` and ``answer_1``, SHP's
    ``human_ref_A`` and ``human_ref_B``) of which none comes twice: one-off answers, each
    compared once, which no layout can rank (the columns that would be read instead are
    their scores and counts)."""
    if prepared.header is None:
        return
    titles = [prepared.label(j) for j in range(prepared.table.width)]
    sides: dict[str, list[int]] = {}
    for j, title in enumerate(titles):
        found = SIDE_TITLE.fullmatch(title.strip())
        if found is not None and normalise(found["stem"]).startswith(_SIDE_TEXTS):
            sides.setdefault(normalise(found["stem"]), []).append(j)
    line = np.asarray(prepared.table.lines[prepared.start:])
    for a_col, b_col, *_ in (pair for pair in sides.values() if len(pair) >= 2):
        a, b = (np.asarray(prepared.table.column(j)[prepared.start:], dtype=object)
                for j in (a_col, b_col))
        if (a != "").all() and (b != "").all():
            refuse_one_off_items(a, b, line, titles, a_col, b_col)


#: Titles of a column that says which of two lettered sides won as 0 or 1 (SHP's ``labels``).
_SIDE_FLAG_TITLES = {"label", "labels", "preference", "preferred", "choice"}


def _refuse_unsaid_side_flag(prepared: Prepared) -> None:
    """Refuse two sides marked by letters (``c_root_id_A``, ``c_root_id_B``) beside a column
    of 0 and 1 (SHP's ``labels``): whether 1 means side A or side B is not said (1 marks A in
    the Stanford Human Preferences data; a 0-based index would make it B), and a guess would
    turn every comparison round."""
    if prepared.header is None or pairwise_columns(list(prepared.header)) is not None:
        return
    titles = [prepared.label(j) for j in range(prepared.table.width)]
    lettered: dict[str, dict[str, int]] = {}
    for j, title in enumerate(titles):
        found = SIDE_TITLE.fullmatch(title.strip())
        if found is not None and found["side"].lower() in ("a", "b"):
            lettered.setdefault(normalise(found["stem"]), {}).setdefault(found["side"].lower(), j)
    pair = next((sides for sides in lettered.values() if len(sides) == 2), None)
    flag = next((j for j, t in enumerate(titles) if normalise(t) in _SIDE_FLAG_TITLES), None)
    if pair is None or flag is None:
        return
    values = {str(c).strip() for c in prepared.table.column(flag)[prepared.start:]} - {""}
    if not values or not values <= {"0", "1"}:
        return
    a, b = titles[pair["a"]], titles[pair["b"]]
    raise PreferenceFormatError(
        f"'{a}' and '{b}' are the two sides of each comparison and '{titles[flag]}' holds 0 "
        "or 1, but the file does not say which side 1 means (in the Stanford Human "
        "Preferences data 1 means side A; where the sides are counted from 0 it means side B); "
        "read either way, the other would turn every comparison round.",
        row=int(prepared.table.lines[prepared.start]), column=titles[flag],
        fix=f"Add a column titled 'winner' holding A or B for each row (the side that was "
            f"preferred), keep '{a}' and '{b}', and load the file again.")


#: Titles of a standings table's figures: games played, won, drawn and lost, goals or
#: points for and against, their difference, the points earned.
_STANDINGS_FIGURES = frozenset({
    "played", "pld", "mp", "gp", "p", "games", "won", "w", "wins", "drawn", "draws", "d",
    "tied", "ties", "t", "lost", "l", "losses", "gf", "ga", "gd", "goalsfor",
    "goalsagainst", "goaldifference", "pf", "pa", "pd", "pointsfor", "pointsagainst",
    "pointsdifference", "for", "against", "diff", "pts", "points", "bonus", "trybonus",
    "losingbonus", "bp", "otl", "ot", "pct", "winpct", "gb", "streak", "form"})


def _refuse_standings_figures(prepared: Prepared) -> None:
    """Refuse a standings table without places: one row per team (each named once) with
    its figures (``Played``, ``Won``, ``Lost``, ``Points``) and no column naming an event.
    Read as rankings, each team's figures would rank the figures; the table holds one
    final order, which is a ground truth, not answers to aggregate."""
    if prepared.header is None or prepared.n_rows < 2:
        return
    titles = [prepared.label(j) for j in range(prepared.table.width)]
    keys = [normalise(t) for t in titles]
    figures = [j for j, k in enumerate(keys) if k in _STANDINGS_FIGURES]
    if len(figures) < 3 or sum(len(keys[j]) > 1 for j in figures) < 2 \
            or any(is_event_title(t) for t in titles):
        return  # single letters alone may be items named A to Z
    numbers = parse_numbers(prepared.table.cells[prepared.start:, figures])
    if np.isfinite(numbers).all() and numbers.min() >= 1 and numbers.max() < len(titles) \
            and (numbers == np.round(numbers)).all():
        return  # every figure a place among the columns: ranks of items named so
    named = [j for j in range(prepared.table.width) if j not in figures and pd.Series(
        prepared.table.column(j, prepared.start), dtype=object).is_unique and not np.isfinite(
        parse_numbers(prepared.table.column(j, prepared.start))).any()]
    if not named:
        return
    raise PreferenceFormatError(
        f"This looks like a standings table: one row per '{titles[named[0]]}' with its "
        f"figures ({quote_list([titles[j] for j in figures], 4)}), which together give one "
        "final order, not one ranking per person or per game to aggregate.",
        row=int(prepared.table.lines[0]),
        fix="Load it as the ground truth (the optional true-order upload, or --truth) to score "
            "the methods against it; to rank the teams from their games, load the results "
            "of the games (one row per game: the two teams and the score).")


_DIAGONAL = frozenset({"", "-", "–", "—", "x", "n/a", "na", "0"})


def _refuse_pairwise_matrix(table: Table) -> None:
    """Refuse a square table whose rows and columns name the same items in the same order,
    its diagonal blank or ``-``, and whole numbers elsewhere: a pairwise matrix (CIVS,
    Condorcet tools) of how many preferred one item to another, not rankings."""
    if len(table) < 3:
        return
    first = [str(c).strip() for c in table.row(0)]
    names = first[1:]
    down = [str(c).strip() for c in table.column(0)[1:]]
    if not 2 <= len(names) <= 1000 or len(down) != len(names) or names != down \
            or len(set(names)) < 2 or "" in names:
        return  # (a tool writes such a matrix for a ballot's candidates, not thousands)
    n = len(names)  # the table's cells are padded to its width, which the first row is within
    body = np.char.strip(table.cells[1:n + 1, 1:n + 1].astype(str)).astype(object)
    diagonal = np.eye(len(names), dtype=bool)
    if not all(str(c).lower() in _DIAGONAL for c in body[diagonal]) or not all(
            re.fullmatch(r"\d+", str(c)) for c in body[~diagonal]):
        return
    counts = np.where(diagonal, 0, body).astype(np.int64)
    both = (counts + counts.T)[~diagonal]
    if both.max() - both.min() > 0.1 * both.max():
        return  # a pair's two counts add up to those who compared it, the same for every
        # pair: else each row scores or ranks the others (peers, a jury's points)
    raise PreferenceFormatError(
        f"The rows and the columns name the same items ({quote_list(names, 3)}) and the "
        "diagonal is empty: this is a pairwise matrix (how many preferred one item to "
        "another), which does not say whether a count is the row's wins over the column or "
        "the column's over the row.", row=int(table.lines[0]),
        fix="Write one row per pair instead, with the columns winner, loser and count (the "
            "number who preferred the winner), and load that file.")


#: A column of an election count's round (``Round 2``, ``Count 3``, ``Stage 1``).
_ROUND_TITLE_OF_COUNT = re.compile(r"(?:round|count|stage)\s*\d+(?:\s+(?:votes?|tally|total))?",
                                   re.IGNORECASE)
#: What an election count says of a candidate after each round.
_COUNT_STATES = frozenset({"eliminated", "continuing", "elected", "defeated", "excluded",
                           "exhausted", "winner", "transferred"})
_CANDIDATE_TITLES = frozenset({"candidate", "candidates", "option", "options", "choice",
                               "nominee", "party"})


def _eliminated(prepared: Prepared, rounds: list[int]) -> bool:
    """Whether some row holds a number in one round column and none in the next (a
    candidate eliminated), and no round column holds the ranks 1 to n once each."""
    cells = prepared.table.cells[prepared.start:, rounds]
    numbers = parse_numbers(cells)
    places = np.arange(1, len(cells) + 1)
    if any(np.array_equal(np.sort(numbers[:, k]), places) for k in range(len(rounds))):
        return False  # each round column ranks the rows: people's rankings, not a count
    held = np.isfinite(numbers)
    return bool((held[:, :-1] & ~held[:, 1:]).any())


def _refuse_count_rounds(prepared: Prepared) -> None:
    """Refuse an election's count round by round (RCV or STV tabulation: each candidate's
    votes after each elimination, as ``Round 1``, ``Round 2`` columns beside candidates or
    votes, or a ``Round`` column beside states such as ``Eliminated``): every round counts
    the same ballots again, so the rounds are no rankings of their own."""
    if prepared.header is None or not prepared.n_rows:
        return
    titles = [prepared.label(j) for j in range(prepared.table.width)]
    keys = [normalise(t) for t in titles]
    rounds = [j for j, t in enumerate(titles) if _ROUND_TITLE_OF_COUNT.fullmatch(t.strip())]
    voted = any(k in ("vote", "votes", "votecount", "tally") or k.endswith("votes")
                for k in keys) or (bool(keys) and keys[0] in _CANDIDATE_TITLES)
    if {"ranker", "rank"} & find_roles(titles, PREFERENCE_ROLES).keys():
        return  # who answered, or their ranks: answers, not a count
    wide = len(rounds) >= 2 and voted and _eliminated(prepared, rounds)
    states = set()
    if "round" in keys:
        cells = pd.Series(prepared.table.cells[prepared.start:].ravel(), dtype=object)
        states = set(cells.astype(str).str.strip().str.lower()) & _COUNT_STATES
    if not (wide or (states and voted)):
        return
    raise PreferenceFormatError(
        "This looks like an election's count round by round (the votes of each candidate "
        "after each elimination" + (f", marked {quote_list(sorted(states), 3)}" if states
                                     else "") + "): every round counts the same ballots "
        "again, so the rounds are not rankings of their own.",
        row=int(prepared.table.lines[0]),
        fix="Load the cast vote records (one ballot per row, its candidates in the voter's "
            "order). The count's final order is its outcome, which can be loaded as the "
            "ground truth.")


def _refuse_only_ticked(prepared: Prepared) -> None:
    """Refuse a table whose only question is a multiple-choice one (KoboToolbox's
    ``favs`` beside ``favs/pizza`` ... of 1 and 0): which options each person ticked."""
    ticked = [j for j, why in prepared.skipped.items()
              if why.startswith("a multiple-choice question")]
    if not ticked or any(_filled_cells(prepared, j).size for j in prepared.free
                         if j < prepared.table.width):
        return
    question = prepared.label(ticked[0])
    raise PreferenceFormatError(
        f"The only question here, '{question}', is a multiple-choice question: its answers "
        "say which options each person ticked, not in what order.", column=question,
        fix="Ask for a ranking instead (in KoboToolbox or ODK a question of type 'rank'), "
            "and load the column of its answers.")


def _refuse_repeated_header(table: Table) -> None:
    """Refuse a later row that repeats a first row of column titles: two exports pasted
    one below the other, whose second header would be read as a ranking."""
    if len(table) < 3:
        return
    first = table.cells[0]
    titles = [c for c in first if c]
    if len(titles) < 2 or not (find_roles(titles, PREFERENCE_ROLES)
                                or any(RANK_LABEL.fullmatch(c.strip()) for c in titles)):
        return
    codes, uniques = table.factorized  # one integer per distinct cell: rows compare fast
    again = np.flatnonzero((codes[1:] == codes[0]).all(axis=1))
    if not again.size and any(str(u).startswith("\ufeff") for u in uniques):
        # each export began with a byte-order mark: the header again, behind one (the
        # distinct cells compared without it, never the whole table copied)
        plain, _ = pd.factorize(np.asarray([str(u).lstrip("\ufeff") for u in uniques],
                                           dtype=object))
        marked = plain[codes]
        again = np.flatnonzero((marked[1:] == marked[0]).all(axis=1))
    if again.size:
        raise PreferenceFormatError(
            f"This row repeats the first row's column titles ({quote_list(titles, 3)}): it "
            "looks like a second export pasted below the first, and would be read as an "
            "answer.", row=int(table.lines[1 + again[0]]),
            fix="Delete this row (and any other repeated title row), then load the file "
                "again.")


def _refuse_unrelated_columns(prepared: Prepared, report: ReadReport) -> None:
    """Refuse a wide read of titled columns that are not places and never share a value
    (a class and a team, say): no item is then compared with another across them."""
    if not report.header_rows or prepared.header is None or prepared.n_rows < 3:
        return
    found = _option_columns(prepared)
    if found is None or not 2 <= len(found[0]) <= 50 or _numbered_series(found[1]):
        return  # (beyond 50 columns the check's table of values by column would be large)
    columns, titles = found
    table = prepared.table
    codes, uniques = table.factorized
    present = np.zeros((len(columns), len(uniques)), dtype=bool)  # value seen in a column
    for k, j in enumerate(columns):
        present[k, codes[prepared.start:, j]] = True
    present[:, uniques == ""] = False
    if (present.sum(axis=1) >= 2).sum() < 2:
        return  # at most one column varies: near-unanimous rankings, or too little to tell
    if (present.sum(axis=0) > 1).any():
        return  # some value sits in two columns: items compared across places
    raise PreferenceFormatError(
        f"This file was not loaded: read as {report.layout_title}, its columns "
        f"{quote_list(titles, 3)} would hold the places, but they never share a value, so no "
        "item would be compared with another across them; these columns look like facts "
        "about each row (a class, a team), not rankings.", row=int(table.lines[0]),
        fix="Check that this is the table of rankings (in a workbook, choose the sheet that "
            "holds them); for rankings, title the columns by place ('1st', '2nd', ...).")


_NUMBER_IN_TITLE = re.compile(r"\d+(?:st|nd|rd|th)?", re.IGNORECASE)


def _numbered_series(titles: list[str]) -> bool:
    """Whether the titles are one title numbered ('Candidate 1', 'Candidate 2'; 'Q5_1',
    'Q5_2'): places of one question, however the platform words them."""
    stems = {_NUMBER_IN_TITLE.sub("#", t.strip().casefold()) for t in titles}
    return len(stems) == 1 and "#" in next(iter(stems)) and len(set(titles)) == len(titles)


def _refuse_names_beside_numbers(prepared: Prepared, report: ReadReport) -> None:
    """Refuse a read without titles where one column holds names and every other cell a
    number: a table of ranks or scores whose item titles are numbers (years, rooms)."""
    from .survey import rank_values

    if report.header_rows:
        return
    table = prepared.table
    if table.width < 3 or len(table) < 2:
        return
    cells = table.cells
    filled = cells != ""
    number = (rank_values(cells) >= 1) | is_plain_number(cells)
    names, rest = cells[:, 0], number[:, 1:] | ~filled[:, 1:]
    if not (filled[:, 0].all() and not number[:, 0].any() and rest.all()
            and filled[:, 1:].sum(axis=1).min() >= 2):
        return
    titles = [c for c in cells[0, 1:] if c]
    raise PreferenceFormatError(
        f"This file was not loaded: read as {report.layout_title}, the first column "
        f"holds names ({quote_list(dict.fromkeys(names), 3)}) and "
        "every other column only numbers, so the numbers would become items. It probably "
        "holds one column per item with that item's rank or score, under a first row of item "
        f"titles that are numbers ({quote_list(titles, 3)}).", row=int(table.lines[0]),
        fix="Choose the layout 'item columns holding ranks' (--format ranks); if a higher "
            "number is better, also 'Rank numbers mean: 1 is the worst' (--one-is-worst). If "
            "instead each row gives a name and then numbered items in order of preference, "
            "add a first row of titles such as 'ranker,1st,2nd,3rd'.")


def _refuse_headerless_numbers(prepared: Prepared, report: ReadReport) -> None:
    """Refuse a read without titles in which a column holds only numbers below the first row
    while another holds no number at all: names beside a time, a score or a count, which
    rankings never are (their items move from column to column)."""
    from .survey import is_plain_number

    table = prepared.table
    if report.header_rows or table.width < 2 or len(table) < 3:
        return
    below = table.cells[1:]
    filled = below != ""
    number = is_plain_number(below) & filled
    n_filled, n_number = filled.sum(axis=0), number.sum(axis=0)
    numbers = np.flatnonzero((n_filled >= 2) & (n_number == n_filled))
    names = np.flatnonzero((n_filled >= 1) & (n_number == 0))
    if not numbers.size or not names.size:
        return
    j = int(numbers[0])
    label = str(j + 1)
    first = table.row(0)
    top = str(table.cells[0, j])
    titles = top != "" and not bool(is_plain_number(np.asarray([top], dtype=object))[0])
    column = table.column(j)
    values = quote_list(dict.fromkeys(column[(column != "") & (np.arange(len(column)) > 0
                                                              if titles else True)]), 3)
    reason = (f"This file was not loaded: read as {report.layout_title} without a title row, "
              f"column {label} holds only numbers{' below the first row' if titles else ''} "
              f"({values}) while column {int(names[0]) + 1} holds only names, so each number "
              "would be ranked as an item beside the names; rankings move their items from "
              "column to column.")
    if titles:
        reason += (f" The first row ({quote_list(c for c in first if c)}) looks like column "
                   "titles over one row per competitor and its result.")
    raise PreferenceFormatError(
        reason, row=int(table.lines[0]), column=label,
        fix="If each row gives a result (a time, points, a place) of someone in an event, "
            "title the columns as a results table: the event, who competed, then the number "
            "titled by what it holds, such as 'heat,athlete,time' (a smaller time is better), "
            "'round,player,points' (more points are better) or 'race,runner,place' (1 the "
            "best). If each row is a ranking, remove that column, or name it in a first row of "
            f"titles: {_titles_naming(table.width, j, 'count')} if it says how many times the "
            f"row was given, {_titles_naming(table.width, j, 'ranker')} if it names who gave "
            "it.")


def _titles_naming(width: int, column: int, title: str) -> str:
    """A first row of ``width`` titles: ``title`` over ``column``, places over the others
    (``'ranker,1st,2nd,3rd'``)."""
    places = iter(("1st", "2nd", "3rd", *(f"{k}th" for k in range(4, max(width, 4) + 1))))
    titles = [title if j == column else next(places) for j in range(width)]
    return "'" + ",".join(titles) + "'"


#: Words of a grid's answer labels on a scale (``Very important``, ``Least preferred``).
_SCALE_WORDS = frozenset({
    "most", "least", "very", "somewhat", "not", "extremely", "slightly", "moderately",
    "fairly", "quite", "highly", "important", "preferred", "likely", "unlikely", "satisfied",
    "dissatisfied", "agree", "disagree", "neutral", "useful", "relevant", "interested",
    "best", "worst"})
#: The words a rating scale's labels are made of, and nothing else (``Strongly agree``,
#: ``Neither satisfied nor dissatisfied``, ``Very good``): answers all so worded are labels
#: however many there are, where names of things hold other words.
_SCALE_ONLY_WORDS = _SCALE_WORDS | frozenset({
    "strongly", "neither", "nor", "or", "a", "little", "bit", "at", "all", "so", "much",
    "more", "less", "completely", "totally", "mostly", "rather", "don't", "dont", "know",
    "unsure", "undecided", "unimportant", "poor", "fair", "good", "excellent", "average",
    "bad", "great", "never", "rarely", "sometimes", "often", "always", "usually", "n",
    "applicable", "probably", "definitely", "might", "would", "wouldn't", "satisfactory",
    "unsatisfactory", "acceptable", "unacceptable", "interesting", "uninteresting", "easy",
    "difficult", "hard", "helpful", "unhelpful", "low", "high", "medium", "moderate"})


#: Words of a column title naming a place in a ranking rather than an item.
_PLACE_WORDS = frozenset({
    "pick", "choice", "place", "rank", "ranked", "preference", "preferred", "top", "runner",
    "first", "second", "third", "fourth", "fifth", "last", "favourite", "favorite", "winner",
    "middle", "1st", "2nd", "3rd", "4th", "5th"})


def _repeats_in_a_row(cells: np.ndarray) -> bool:
    """Whether some row of a table's cells gives one filled cell twice."""
    rows = np.sort(cells.astype(str), axis=1)
    return bool(((rows[:, 1:] == rows[:, :-1]) & (rows[:, 1:] != "")).any())


def _scale_labels_only(answers: Sequence[str]) -> bool:
    """Whether three or more answers are all made only of a scale's words (with at least
    one of the scale's own words, not only ``good`` or ``never``)."""
    from .content import title_words

    words = [set(title_words(a)) for a in answers]
    return len(answers) >= 3 and all(w and w <= _SCALE_ONLY_WORDS for w in words) and any(
        w & _SCALE_WORDS for w in words)


def _free_body(prepared: Prepared) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The columns a wide read would take as places, the codes of their cells below the
    header, and the distinct cells the codes index."""
    codes, uniques = prepared.table.factorized
    columns = [j for j in prepared.free if j < prepared.table.width]
    return columns, codes[prepared.start:, columns], uniques


def _filled(body: np.ndarray, uniques: np.ndarray) -> list[str]:
    """The distinct filled cells of ``uniques[body]``, in order of appearance."""
    return [u for u in pd.unique(uniques[body.ravel()]) if u != ""]


def _free_cells(prepared: Prepared) -> list[str]:
    """The distinct filled cells of the columns a wide read would take as places."""
    _, body, uniques = _free_body(prepared)
    return _filled(body, uniques)


def _refuse_answer_labels(prepared: Prepared, layout_title: str) -> None:
    """Refuse a grid whose titles name its items (``How important is each? [Apple]``) read
    as rows of items: its cells are then the grid's answer labels (``Most important``,
    ``Very important``), which the rows would rank in place of the items. A grid whose
    titles name places (``[1st choice]``, ``[Most preferred]``) holds items and is read."""
    from .content import position_ranks, title_words

    columns, body, uniques = _free_body(prepared)
    grid = all(j in prepared.questions for j in columns)
    if len(columns) < 2 or not (grid or prepared.header is not None):
        return
    labels = [prepared.label(j) for j in columns]
    if position_ranks(labels) is not None:
        return
    answers = _filled(body, uniques)
    # answers made only of a scale's words are its labels, however many there are; without
    # a grid's titles, unless the titles read as places ('Top pick', 'Runner-up') and no row
    # gives one answer twice: a ranking of the labels themselves
    scale_only = _scale_labels_only(answers) and (
        grid or _repeats_in_a_row(uniques[body]) or not any(
            _PLACE_WORDS & set(title_words(t)) for t in labels))
    # without a grid's titles, a scale reused under more columns than it has labels, none of
    # them a title: a row of places would hold as many items as columns
    if not grid and not scale_only and (
            len(answers) >= len(columns)
            or {normalise(a) for a in answers} & {normalise(t) for t in labels}):
        return
    # the same few answers under every item, worded as a scale: labels, not names of things
    per_column = [set(uniques[body[:, i]]) - {""} for i in range(len(columns))]
    if not answers or not scale_only and (len(answers) > len(columns) or any(
            len(found) * 2 < len(answers) for found in per_column)):
        return
    if not scale_only and sum(
            bool(_SCALE_WORDS.intersection(title_words(a))) for a in answers) * 2 < len(answers):
        return
    asked = f"the grid '{prepared.questions[columns[0]]}'" if grid else "the first row"
    if all(END_CELL.fullmatch(a) for a in answers):
        raise PreferenceFormatError(
            f"This file was not loaded: {asked} names its items in the titles "
            f"({quote_list(labels, 3)}) and each row marks only its ends "
            f"({quote_list(answers, 3)}), a best-worst choice; read as {layout_title}, "
            "the marks would be ranked in place of the items.",
            row=prepared.table.lines[0],
            fix="In a spreadsheet, write each row's places under the items: 1 for the best, "
                "2 for every other item that was shown, 3 for the worst (equal numbers are "
                "ties), leave items not shown blank, and load the file with the layout 'item "
                "columns holding ranks'.")
    raise PreferenceFormatError(
        f"This file was not loaded: {asked} names its items in the titles "
        f"({quote_list(labels, 3)}) and its answers are labels ({quote_list(answers, 3)}); "
        f"read as {layout_title}, the labels would be ranked in place of the items, "
        "and the file does not say which label is a better place.",
        row=prepared.table.lines[0],
        fix="Give each item its place as a number: in the form, label the grid's columns "
            "1, 2, 3 ... (1 the best) or 1st, 2nd, 3rd ..., or replace every label by its "
            "place in a spreadsheet; then load the file with the layout 'item columns "
            "holding ranks'.")


#: Words of a row-label column naming what judges judge, besides competitors' words.
_JUDGED_WORDS = frozenset({"essay", "essays", "finalist", "finalists", "script", "scripts",
                           "poem", "poster", "project", "projects", "paper", "papers",
                           "student", "students", "candidate", "candidates", "dish", "wine",
                           "photo", "piece", "work", "works", "team", "teams", "couple"})


#: Titles naming a criterion a judge scores one thing on, never a thing ranked.
_CRITERIA = frozenset({
    "helpfulness", "correctness", "coherence", "complexity", "verbosity", "accuracy",
    "clarity", "relevance", "fluency", "creativity", "originality", "presentation",
    "technical", "technique", "feasibility", "innovation", "usability", "grammar",
    "organization", "organisation", "delivery", "harmlessness", "honesty", "faithfulness",
    "consistency", "readability", "engagement", "impact", "execution", "difficulty",
    "artistry", "aroma", "appearance", "flavour", "flavor", "mouthfeel", "finish", "balance",
    "expectations", "knowledge", "effort", "teamwork", "communication",
    "instructionfollowing", "honest", "helpful", "harmless",
    # CATME's five peer-evaluation dimensions
    "contributing", "interacting", "keepingontrack", "expectingquality", "havingksa",
    "havingksas", "havingrelevantksas"})
#: Titles of a column summing a row's criteria.
_TOTALS = frozenset({"total", "overall", "sum", "totalscore", "overallscore", "score",
                     "finalscore", "average", "mean"})


def _mostly_orders(prepared: Prepared, columns: list[int]) -> bool:
    """Whether half the rows or more give the columns the places 1 to their count once each
    (a ranking of them), blanks aside."""
    from .survey import places_once, rank_values

    cells = prepared.table.cells[prepared.start:, columns]
    ranks = rank_values(cells)
    given = np.isfinite(ranks) & (ranks > 0)
    if given.any() and (ranks[given] <= len(columns)).all() and not (cells == "0").any() \
            and (np.where(given, ranks, np.inf).min(axis=1) == 1).mean() >= 0.75:
        return True  # places 1 to the count of columns, a 1st in most rows: ranks with ties
    orders = places_once(ranks) & (given.sum(axis=1) >= 2)
    return bool(orders.size and orders.mean() >= 0.5)


#: A question or title asking for an order, not for ticks or scores.
_ASKS_ORDER = re.compile(r"\brank|\bprefer|\bin order\b|\border of\b|\bbest first\b|"
                         r"\bmost preferred\b|\bfavou?rites? first\b", re.IGNORECASE)


def _asks_for_order(prepared: Prepared, columns: list[int]) -> bool:
    """Whether the question or the title of the columns asks for an order (``Rank these
    skills``, ``in order, best first``); 'Which pizzas would you order?' does not."""
    asked = " ".join(filter(None, [prepared.question, *(
        f"{prepared.questions.get(j, '')} {prepared.label(j)}" for j in columns)]))
    return bool(_ASKS_ORDER.search(asked))


def _refuse_criteria_as_items(file: Source) -> None:
    """Refuse item columns that name criteria (``Creativity``, ``Technical``,
    ``helpfulness``): each row scores one thing on them, and read as items the criteria
    would be ranked in place of what was scored."""
    from .grades import command_file, long_choice

    prepared = file.prepared
    columns = item_columns(prepared, file.options)
    labels = [prepared.label(j) for j in columns]
    criteria = [t for t in labels if normalise(t) in _CRITERIA]
    if len(criteria) < 2 or len(criteria) * 2 < len(labels) or _mostly_orders(
            prepared, columns) or _asks_for_order(prepared, columns):
        return  # qualities ranked ('Communication, Teamwork'), or asked to be
    width = prepared.table.width
    total = next((prepared.label(j) for j in range(width)
                  if normalise(prepared.label(j)) in _TOTALS), None)
    cells = prepared.table.cells[prepared.start:]
    first = min(j for j in columns if prepared.label(j) in criteria)
    thing = next((prepared.label(j) for j in range(first - 1, -1, -1) if j != prepared.ranker
                  and prepared.label(j)
                  and normalise(prepared.label(j)) not in _CRITERIA | _TOTALS
                  and np.isfinite(parse_numbers(cells[:, j])).mean() <= 0.5), None)
    scored = f"one '{thing}'" if thing else "one thing"
    fix = ("To rank by the total, " + long_choice(command_file(file.name, file.options.sheet),
                                                    thing, total, True)
           if thing and total else
           "Add a column that sums the criteria, then choose the layout 'long rankings' with "
           "the column naming what was scored and that sum as the item columns, and 'Rank "
           "numbers mean: 1 is the worst'.")
    raise PreferenceFormatError(
        f"The columns {quote_list(criteria, 3)} name criteria, not things ranked: each row "
        f"scores {scored} on them, and read as items the criteria would be ranked in place "
        "of what was scored.", row=int(prepared.table.lines[0]), column=criteria[0],
        fix=fix.rstrip(".") + ".")


#: Words of a row-label column naming who answered a survey, never what was judged.
_RESPONDENT_WORDS = frozenset({"respondent", "respondents", "voter", "voters", "email",
                               "timestamp", "response", "submission", "user", "username"})


def _columns_rank_the_rows(prepared: Prepared, columns: list[int]) -> bool:
    """Whether every column holds the ranks 1 to the number of rows once each while the
    rows do not rank the columns so: each column is one judge's ranking of the rows."""
    from .survey import places_once, rank_values

    ranks = rank_values(prepared.table.cells[prepared.start:, columns])
    if ranks.shape[0] < 3 or not (np.isfinite(ranks) & (ranks > 0)).all():
        return False
    # a square ranked both ways round is read as it stands
    return bool(places_once(ranks.T).all() and not places_once(ranks).all())


def _scored(prepared: Prepared, columns: list[int]) -> bool:
    """Whether every cell of ``columns`` below the titles is a number (a judge's score,
    ``9.25``, ``-1``), three rows or more are judged, and the rows do not each rank the
    columns 1, 2, 3 ... (readers ranking critics)."""
    from .survey import places_once, rank_values

    cells = prepared.table.cells[prepared.start:, columns]
    if len(cells) < 3 or not np.isfinite(parse_numbers(cells.ravel())).all():
        return False
    ranks = rank_values(cells)
    return not (np.isfinite(ranks).all() and bool(places_once(ranks).all()))


def _refuse_judges_as_items(prepared: Prepared, options: ReadOptions) -> None:
    """Refuse a table of ranks whose item columns are all titled as judges (``Judge Adams``,
    ``Rater 2``): each column is a judge's ranking of the rows, and read as rows the judges
    would be ranked."""
    from .columns import COMPETITOR_WORDS
    from .content import judge_title, title_words

    labels = [prepared.label(j) for j in item_columns(prepared, options)]
    if len(labels) < 2 or not all(judge_title(t) for t in labels):
        return
    # the rows must be what was judged ('Finalist', 'Essay', 'Entry'), not who answered a
    # survey about judges ('Respondent'; a grid 'Rank the candidates [Judge Smith]')
    columns = item_columns(prepared, options)
    first = prepared.ranker if prepared.ranker is not None else (
        0 if 0 not in columns and prepared.header else None)  # ids of the rows ('Couple')
    rows = prepared.label(first) if first is not None else ""
    said = set(title_words(rows))
    if prepared.questions or prepared.platform is not None or first is None or not (
            (COMPETITOR_WORDS | _JUDGED_WORDS) & said
            or not _RESPONDENT_WORDS & said and (_columns_rank_the_rows(prepared, columns)
                                                 or _scored(prepared, columns))):
        return
    raise PreferenceFormatError(
        f"The item columns are titled as judges ({quote_list(labels, 3)}): each column is "
        "probably one judge's ranking of the rows, and read row by row the judges would be "
        "ranked in place of what they judged.", row=int(prepared.table.lines[0]),
        fix="Turn the table round in a spreadsheet (copy it, then Paste Special > Transpose), "
            "so that each judge is a row and each item a column, and load it again; where "
            "the judges gave scores, a higher one better, choose the layout 'item columns "
            "holding ranks' and 'Rank numbers mean: 1 is the worst' (--format ranks "
            "--one-is-worst).")


#: Words of a column of one slot's rank (``system1rank``, ``Model 2 rank``, ``rank_sys1``)
#: and of the column naming that slot's item (``system1Id``, ``Model 2 name``, ``id_sys1``).
_SLOT_WORDS = {"rank": "rank|ranking|place|position",
               "name": "id|name|system|item|model|label"}


def _slot(title: str, kind: str) -> tuple[str, str] | None:
    """The (stem, number) of a numbered slot's ``kind`` column (``"rank"`` or ``"name"``),
    the word after the number (``system1rank``) or before the slot (``rank_sys1``)."""
    words = _SLOT_WORDS[kind]
    title = MTURK_PREFIX.sub("", title)
    after = re.fullmatch(rf"(.*?)(\d+)[\s_.-]*(?:{words})", title.strip(), re.IGNORECASE)
    before = re.fullmatch(rf"(?:{words})[\s_.-]*(.*?)[\s_.-]*(\d+)", title.strip(),
                          re.IGNORECASE)
    found = after or before
    return (found.group(1).lower(), found.group(2)) if found else None


def _refuse_rank_slots(prepared: Prepared, options: ReadOptions) -> None:
    """Refuse item columns that are numbered slots whose ranks and items are in two columns
    each (WMT's ``system1Id`` … ``system5Id`` beside ``system1rank`` … ``system5rank``):
    read as items, the slots' titles would be ranked in place of what fills them, and read
    as places, the ranks written beside them would be left out."""
    from .survey import rank_values

    columns = item_columns(prepared, options)
    labels = [prepared.label(j) for j in columns]
    if len(labels) < 2:
        return
    for kind, other in (("rank", "name"), ("name", "rank")):
        if _slot(labels[0], kind) is None:
            continue  # most files: no numbered slot at all, and 20,000 titles are slow to try
        slots = [_slot(t, kind) for t in labels]
        if not all(slots):
            continue
        partner = {found: j for j in range(prepared.table.width)
                   if (found := _slot(prepared.label(j), other)) is not None}
        if len({s[0] for s in slots if s}) == 1 and len({k[0] for k in partner}) == 1:
            # one stem each side, paired by number: MTurk's 'Input.item_1' and
            # 'Answer.rank_item_1'
            numbered = {number: j for (_, number), j in partner.items()}
            pairs = [numbered[s[1]] for s in slots if s and s[1] in numbered]
        else:
            pairs = [partner[key] for key in slots if key in partner]
        if len(pairs) < len(slots):
            continue
        at = columns if kind == "rank" else pairs
        ranks = [prepared.label(j) for j in at]
        names = [prepared.label(j) for j in (pairs if kind == "rank" else columns)]
        given = rank_values(prepared.table.cells[prepared.start:, at])
        if np.isfinite(given).mean() < 0.9:
            continue  # 'rank1' naming the first item beside 'model1' shown: places
        raise PreferenceFormatError(
            f"The columns {quote_list(ranks, 3)} hold the ranks of numbered places whose "
            f"items are named in {quote_list(names, 3)}: read "
            + ("as items, the places' titles would be ranked in place of what fills them."
               if kind == "rank" else "in column order, the ranks written beside them would "
               "be left out."), row=int(prepared.table.lines[0]), column=labels[0],
            fix=f"Reshape the table to one row per ranked item: a column for the judgement "
                f"(its row), one for the item (from {quote_list(names, 2)}) and one for its "
                f"rank (from {quote_list(ranks, 2)}), with pandas' wide_to_long or a "
                "spreadsheet, and load it as long rankings.")


#: Words of a row-label column naming things that are ranked, never people who rank.
_THINGS = frozenset({
    "essay", "essays", "script", "scripts", "poem", "poems", "poster", "posters", "paper",
    "papers", "dish", "dishes", "wine", "wines", "photo", "photos", "piece", "pieces", "entry",
    "entries", "sample", "samples", "product", "products", "beer", "beers", "item", "items",
    "option", "options", "design", "designs", "logo", "logos", "recipe", "recipes", "song",
    "songs", "film", "films", "movie", "movies", "book", "books", "coffee", "cheese", "tea"})


def _refuse_scores_down_columns(prepared: Prepared, columns: list[int], first: int) -> None:
    """Refuse item columns of numbers beside rows titled as things scored (``Wine``,
    ``Dish``): each column is one judge's scores of the rows, which read row by row (even
    with 1 the worst) would rank the judges."""
    from .content import month_title

    if normalise(prepared.label(first)) not in _THINGS:  # 'Wine', not 'Wine lover'
        return
    labels = [prepared.label(j) for j in columns]
    if any(month_title(t) or re.fullmatch(r"\d+|q[1-4]", t.strip(), re.IGNORECASE)
           for t in labels):
        return  # columns of months or years: a product's figures over time, no judges
    numbers = parse_numbers(prepared.table.cells[prepared.start:, columns])
    if not np.isfinite(numbers).all():
        return
    raise PreferenceFormatError(
        f"The rows are what was scored ('{prepared.label(first)}'), and each item column "
        f"({quote_list(labels, 3)}) holds numbers down them: each column is probably one "
        "judge's scores of the rows, and read row by row the judges would be ranked in place "
        "of what they scored.", row=int(prepared.table.lines[0]), column=labels[0],
        fix="Turn the table round in a spreadsheet (copy it, then Paste Special > Transpose), "
            "so that each judge is a row and each item a column, title the first column "
            "'Judge', and load it again with the layout 'item columns holding ranks' "
            "(--format ranks); if a higher number is better, also choose 'Rank numbers mean: "
            "1 is the worst' (--one-is-worst).")


def _refuse_decimal_scores_down_columns(prepared: Prepared, options: ReadOptions) -> None:
    """Refuse, before a repeated score is taken for an item named twice, rows titled as
    things scored whose item columns hold decimal numbers (``92.5``): judges' scores down
    their columns, as :func:`_refuse_scores_down_columns` says of whole numbers."""
    columns = item_columns(prepared, options)
    first = prepared.ranker if prepared.ranker is not None else (
        0 if 0 not in columns and prepared.header else None)
    if first is None or len(columns) < 2 or prepared.questions or prepared.platform or any(
            RANK_LABEL.fullmatch(prepared.label(j).strip()) for j in columns):
        return  # columns titled by places hold the items in order, whatever they are
    cells = pd.Series(prepared.table.cells[prepared.start:, columns].ravel(), dtype=object)
    if cells.astype(str).str.fullmatch(r"\s*[+-]?\d*[.,]\d+\s*").any():
        _refuse_scores_down_columns(prepared, columns, first)


def _refuse_one_option_a_row(prepared: Prepared, options: ReadOptions) -> None:
    """Refuse rows that each hold one option of one person's answer, the person's rows one
    under another, with no column numbering their places (a poll's long export: ``Screen
    name``, ``Response``), beside columns that hold one value on every row (the question's
    title): read across, each row would be a ranking of the title above the option."""
    columns = item_columns(prepared, options)
    ranker = prepared.ranker
    if ranker is None or options.item_columns is not None or len(columns) > 3:
        return
    n_rows = len(prepared.table) - prepared.start
    if n_rows < 4:
        return
    cells = {j: np.asarray(prepared.table.column(j, prepared.start), dtype=object).astype(str)
             for j in columns}
    constant = [j for j in columns if len(set(np.char.strip(cells[j].astype(str)))) == 1]
    varying = [j for j in columns if j not in constant]
    if len(varying) != 1 or not all(_names_the_question(prepared.label(j), cells[j][0])
                                    for j in constant):
        return  # everyone's same first choice is an item, not the question
    people = np.char.strip(np.asarray(prepared.table.column(ranker, prepared.start),
                                      dtype=object).astype(str))
    starts = np.flatnonzero(np.r_[True, people[1:] != people[:-1]])
    if len(starts) != len(set(people)) or len(starts) * 2 > n_rows:
        return  # a person's rows not together, or most people with one row
    option = prepared.label(varying[0])
    also = (f"; {quote_list(prepared.label(j) for j in constant)} holds "
            f"'{cells[constant[0]][0].strip()}' on every row, the question rather than an "
            "option" if constant else "")
    raise PreferenceFormatError(
        f"Each row holds one option of one person's answer ('{option}'), each person's rows "
        f"one under another ('{prepared.label(ranker)}'), and no column numbers their "
        f"places{also}.", row=int(prepared.table.lines[prepared.start]), column=option,
        fix="If each person's rows are in the order they ranked the options, add a column "
            f"titled 'Rank' numbering them 1, 2, 3 …, retitle '{option}' as 'Item' and "
            f"'{prepared.label(ranker)}' as 'Ranker', and load the file again: it then reads "
            "as long rankings (one row per ranked option).")


_QUESTION_TITLES = frozenset({"activity", "activitytitle", "question", "questiontitle",
                              "poll", "polltitle", "prompt", "title", "survey", "surveytitle"})


def _names_the_question(title: str, value: str) -> bool:
    """Whether a column holding one value on every row names the question asked: its title
    says so (``Activity title``), or its value asks for an order or ends in '?'."""
    from .survey import asks_for_ranking

    return normalise(title) in _QUESTION_TITLES or asks_for_ranking(str(value)) or \
        str(value).rstrip().endswith("?")


def _refuse_ranks_down_columns(prepared: Prepared, options: ReadOptions) -> None:
    """Refuse a table of ranks whose rows are what was ranked (a first column titled
    ``Wine``, ``Dish``, ``Team`` ...) and whose every item column holds the ranks 1 to the
    number of rows once each: each column is one taster's ranking of the rows, and read row
    by row the tasters would be ranked."""
    from .columns import COMPETITOR_WORDS
    from .content import title_words

    columns = item_columns(prepared, options)
    first = prepared.ranker if prepared.ranker is not None else (
        0 if 0 not in columns and prepared.header else None)
    if first is None or len(columns) < 2 or prepared.questions or prepared.platform:
        return
    said = set(title_words(prepared.label(first)))
    if not (COMPETITOR_WORDS | _JUDGED_WORDS | _THINGS) & said:
        return
    n_rows = len(prepared.table) - prepared.start
    if n_rows < 3:
        return
    places = [str(k) for k in range(1, n_rows + 1)]
    for j in columns:
        cells = sorted((str(c).strip() for c in prepared.table.column(j, prepared.start)),
                       key=lambda c: (len(c), c))
        if cells != places:
            _refuse_scores_down_columns(prepared, columns, first)
            return
    rows_rank_too = n_rows == len(columns) and all(
        sorted((str(prepared.table.cells[i, j]).strip() for j in columns),
               key=lambda c: (len(c), c)) == places
        for i in range(prepared.start, len(prepared.table)))
    if rows_rank_too and not _THINGS & said:
        return  # a square either way round, its rows titled as people ('Student', 'Team')
    labels = [prepared.label(j) for j in columns]
    raise PreferenceFormatError(
        f"Each item column ({quote_list(labels, 3)}) holds the ranks 1 to {n_rows} once each, "
        f"down the rows of '{prepared.label(first)}': each column is probably one person's "
        "ranking of the rows, and read row by row the people would be ranked in place of "
        "what they ranked.", row=int(prepared.table.lines[0]),
        fix="Turn the table round in a spreadsheet (copy it, then Paste Special > Transpose), "
            "so that each person is a row and each item a column, and load it again. If each "
            "row is one person's ranking after all, choose the layout 'item columns holding "
            "ranks' by hand (--format ranks).")


def _refuse_rank_numbers(prepared: Prepared, report: ReadReport) -> None:
    """Refuse rows of rank numbers read as items under a first row of item names."""
    from .survey import is_plain_number, looks_like_rank, rank_values

    table, free = prepared.table, set(prepared.free)
    first = [c for j, c in enumerate(table.row(0)) if c and j in free]
    codes, uniques = table.factorized
    counts = np.bincount(codes[1:, [j for j in sorted(free) if j < table.width]].ravel(),
                         minlength=len(uniques))
    present = np.flatnonzero(counts)  # the distinct cells below, in order of appearance
    present = present[uniques[present] != ""]
    # a grid's columns titled by place ('Rank the albums [1st choice]') hold the items
    shown = [prepared.label(j) for j, c in enumerate(table.row(0)) if c and j in free]
    if not first or not present.size or any(looks_like_rank(c) for c in [*first, *shown]):
        return
    from .content import position_ranks

    if position_ranks(shown) is not None:  # 'Mayor Choice 1 of 5' ...: the cells name items
        return
    whole = rank_values(uniques[present]) >= 1
    number = whole | is_plain_number(uniques[present])
    numeric = uniques[present[number]]
    if counts[present[number]].sum() * 2 >= counts[present].sum():
        scores = not whole[number].all()
        if scores and (per_item := _scores_per_item(prepared, prepared.table.lines[0])):
            raise per_item
        long_hint = _long_hint(prepared)
        holds = ("one row per ranker and item, with that item's" if long_hint else
                 "one column per item with that item's")
        fix = long_hint or (
            "Choose the layout 'item columns holding ranks' (--format ranks), and if a higher "
            "score is better, 'Rank numbers mean: 1 is the worst' (--one-is-worst)." if scores
            else "Choose the layout 'item columns holding ranks', and make every cell a whole "
                 "rank (1, 2, 3 ...) or blank, or '-' when the item was not ranked.")
        raise PreferenceFormatError(
            f"This file was not loaded: read as {report.layout_title}, its items would be "
            f"{'bare numbers' if is_plain_number(numeric).all() else 'places'} such as "
            f"{quote_list(dict.fromkeys(numeric[:50]), 3)} under a first row "
            f"of names ({quote_list(first, 3)}). It probably holds {holds} "
            f"{'score' if scores else 'rank'}.", row=prepared.table.lines[0], fix=fix)
