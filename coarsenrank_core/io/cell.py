"""A whole ranking in one cell: ``A;B;C;`` (Microsoft Forms), ``A > B = C``, ``a b c`` (Kobo)."""

from __future__ import annotations

import re
from typing import cast

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from .assembly import (
    assemble,
    check_weights,
    dense_places,
    factorize,
    first_repeat,
    parse_weights,
)
from .columns import quote_list
from .condorcet import cell_counts, refuse_counts_in_names
from .content import NUMBERED_LIST
from .notation import written_ranks
from .options import ReadOptions
from .survey import Prepared, asks_for_ranking
from .tables import Table, multiline_error, padded
from .wide import item_columns

__all__ = ["ranking_column", "read_cell"]

# Separators in order of preference; '>' lists may tie items with '='.
SEPARATORS = (">", ";", ",", " ")
STRONG = (">", ";")  # separators that free-text answers rarely use
SAMPLE = 200  # rows looked at before a whole column is checked
_TAG = r"</?[A-Za-z][A-Za-z0-9]*\s*/?>"
_LINE_BREAK_TAG = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)
#: Arrows people type between items, read as '>': ``->``, ``-->``, ``=>``, ``>>``, ``→``, ``»``.
_ARROW = re.compile(r"\s*(?:-+>|=+>|>>+|[→⟶➔➜➝⇒»])\s*")
#: Ties in a '>' list: ``A = B`` or ``A | B``.
_TIE = re.compile(r"[=|]")


def _plain_arrows(values: pd.Series) -> pd.Series:
    """Cells with every arrow between items written as ``>``, and numbered lists
    (``1. Rome 2. Paris``) as ``Rome > Paris``."""
    values = values.fillna("").astype(str)
    if values.str.contains(_LINE_BREAK_TAG).any():  # Jotform's '1: Apple<br>2: Cherry'
        values = values.str.replace(_LINE_BREAK_TAG, "\n", regex=True)
    if values.str.contains(_ARROW).any():
        values = values.str.replace(_ARROW, " > ", regex=True)
    numbered = values.str.fullmatch(NUMBERED_LIST.pattern, flags=re.S).fillna(False)
    if numbered.any():
        values = values.copy()
        values[numbered] = values[numbered].map(_numbered_as_arrows)
    filled = (values.str.strip() != "") & ~numbered
    if filled.any() and values[filled].str.contains(_RANK_AFTER, regex=True).all():
        ranked = values[filled].map(_item_places)
        if ranked.notna().all():  # every answer names its items' places: read them in order
            values = values.copy()
            values[filled] = ranked.map(_places_as_arrows)
    return values


#: An item followed by its rank (Formstack's ``Apple = 1``, Zoho's ``Apple:1``).
_RANK_AFTER = re.compile(r"\S\s*[=:]\s*\d{1,3}\s*(?:[,;\n]|$)")
_ITEM_RANK = re.compile(r"(?P<item>.*?\S)\s*(?P<mark>[=:])\s*(?P<rank>\d{1,3})")
#: An item's name beside its rank: with a letter; after a colon not ending in a number
#: (``John 1:1`` is a verse, ``10:30`` a time).
_NAMED = re.compile(r".*[^\W\d_].*")
_COLON_NAMED = re.compile(r".*[^\W\d_].*(?<!\d)")


def _item_places(cell: str) -> list[tuple[int, str]] | None:
    """The (place, item) pairs of a cell of items each followed by its place, split by
    commas, semicolons or lines (``Apple = 1, Cherry = 2``, ``Apple:1; Cherry:2``); None
    unless every part is a named item and the places run from 1 as ranks do (ties and
    partial rankings allowed: ``1, 2, 2``; not ``2, 2``, which counts something)."""
    parts = [part.strip() for part in re.split(r"[,;\n]", cell) if part.strip()]
    found = [_ITEM_RANK.fullmatch(part) for part in parts]
    if len(parts) < 2 or not all(
            m is not None and (_COLON_NAMED if m["mark"] == ":" else _NAMED).fullmatch(m["item"])
            for m in found):
        return None
    places = sorted(((int(m["rank"]), m["item"]) for m in found if m is not None),
                    key=lambda pair: pair[0])  # equal places keep the order written
    if places[0][0] != 1 or any(place > i + 1 for i, (place, _) in enumerate(places)):
        return None
    return places


def _places_as_arrows(places: list[tuple[int, str]]) -> str:
    """``[(1, 'Apple'), (2, 'Cherry'), (2, 'Banana')]`` as ``Apple > Cherry = Banana``."""
    groups: dict[int, list[str]] = {}
    for place, item in places:
        groups.setdefault(place, []).append(item)
    return " > ".join(" = ".join(items) for _, items in sorted(groups.items()))


#: A place written before each item of a list: ``1: Apple``, ``2. Cherry``, ``3) Banana``
#: (a space after the mark: ``3.11`` is a version, not place 3).
_PLACE_MARK = re.compile(r"^\d{1,3}\s*[:.)]\s+(?=\S)")
_NUMBER_MARK = re.compile(r"(?:^|(?<=\s))(\d{1,3})([.):])\s+")


def _numbered_as_arrows(cell: str) -> str:
    """``1. Rome 2. Paris 3. London`` as ``Rome > Paris > London``; a cell whose numbers do
    not run 1, 2, 3 ... is left as it is."""
    marks = list(_NUMBER_MARK.finditer(cell.strip()))
    if marks:  # one kind of mark: '2:' inside 'Half-Life 2: Episode Two' of a '1.' list
        marks = [m for m in marks if m[2] == marks[0][2]]
    if [int(m[1]) for m in marks] != list(range(1, len(marks) + 1)):
        return cell
    text = cell.strip()
    ends = [m.start() for m in marks[1:]] + [len(text)]
    # a separator typed after an item as well ('1: Apple, 2: Cherry') is not part of it
    return " > ".join(text[m.end():end].strip().rstrip(",;").strip()
                      for m, end in zip(marks, ends))


#: Cells looked at to tell a column's separator: evenly spaced through a longer column.
_SEPARATOR_SAMPLE = 20_000


def list_separator(values: pd.Series) -> str | None:
    """The separator that splits most of the non-blank cells into two or more items (of a
    long column, judged on :data:`_SEPARATOR_SAMPLE` cells spread evenly through it)."""
    values = values[values != ""]
    if len(values) > _SEPARATOR_SAMPLE:
        values = values.iloc[np.linspace(0, len(values) - 1, _SEPARATOR_SAMPLE).astype(int)]
    values = _plain_arrows(values)
    if values.empty:
        return None
    if values.str.contains("</", regex=False).any():  # HTML emphasis: its '>' separate nothing
        values = values.str.replace(_TAG, "", regex=True)
    for separator in SEPARATORS:
        if separator == " " and values.str.contains(r"[>=;,|]").any():
            return None
        pattern = "[>=]" if separator == ">" else re.escape(separator)
        parts = values.str.strip(separator + " ").str.count(pattern)
        if (parts >= 1).mean() >= 0.5:
            return separator
    return None


SIDE_TITLE = re.compile(r"(?P<stem>.*?\D)[\s_.-](?P<side>[0-9]|[ab])", re.IGNORECASE)


def _numbered_side(titles: list[str], column: int) -> bool:
    """Whether ``titles[column]`` ends in a side's mark after a separator (``_0``, ``_1``,
    `` a``) that another title shares its stem with (``tokens_0`` and ``tokens_1``; ``Q1``
    beside ``Q2`` are two questions)."""
    found = SIDE_TITLE.fullmatch(titles[column].strip())
    if found is None:
        return False
    return any(j != column and (other := SIDE_TITLE.fullmatch(t.strip())) is not None
               and other["stem"].lower() == found["stem"].lower()
               and other["side"].lower() != found["side"].lower()
               for j, t in enumerate(titles))


def ranking_column(prepared: Prepared, options: ReadOptions) -> tuple[int, str, bool] | None:
    """The one column holding whole rankings, its separator and whether row 1 is a title
    (worked out once a table and options: detection, the reader and its report ask)."""
    key = ("ranking_column", options)
    try:
        hash(key)
    except TypeError:  # options built with lists, not tuples: worked out each time
        return _find_ranking_column(prepared, options)
    if key not in prepared.found:
        prepared.found[key] = _find_ranking_column(prepared, options)
    return cast("tuple[int, str, bool] | None", prepared.found[key])


def _find_ranking_column(prepared: Prepared, options: ReadOptions
                         ) -> tuple[int, str, bool] | None:
    columns = item_columns(prepared, options)
    table = prepared.table
    candidates = []
    titles = [prepared.label(j) for j in range(prepared.width)]
    for j in columns:
        if options.item_columns is None and _numbered_side(titles, j):
            continue  # 'tokens_0' beside 'tokens_1': one side's field of a comparison
        values = pd.Series(table.column(j), dtype=object)
        if len(values) < 2 or list_separator(values.iloc[1:SAMPLE]) is None:
            continue  # the first rows hold no whole ranking in this column
        separator = list_separator(values.iloc[1:])
        if separator == " " and len(values) > 3 and values.iloc[1:].nunique() == 1:
            continue  # one phrase on every row ('Box Score', a link's text): no ranking
        if separator is not None and options.item_columns is None and \
                _whole_cells_elsewhere(table, j, columns, values, separator):
            continue  # 'Salt; vinegar' also a whole place of another column: an item's name
        if separator is not None:
            first_splits = list_separator(values.iloc[:1]) == separator
            # beside other columns, names ('Cara Singh', 'ENG 101 A') keep one order; lines
            # of rankings alone, or under a title naming a list, are read as they are
            if (separator == " " and options.item_columns is None and prepared.width > 1
                    and not asks_for_ranking(prepared.label(j))
                    and not _LIST_TITLE.search(prepared.label(j))
                    and one_order(values.iloc[int(not first_splits):SAMPLE], separator)):
                continue
            candidates.append((j, separator, not first_splits))
    asked = [c for c in candidates if asks_for_ranking(prepared.label(c[0]))]
    if len(candidates) > 1 and len(asked) == 1:  # beside a multi-select answer ('Red;Blue;')
        candidates = asked
    if len(candidates) > 1 and all(c[1] == " " for c in candidates):
        # names one space apart (KoboToolbox, ODK): the rank question lists one set of
        # options a row in varying orders, a multiple-choice one varying sets in one order
        whole = [c for c in candidates if same_items_each_row(cells := np.asarray(
            table.column(c[0])[prepared.start:], dtype=object), " ") and not one_order(
            pd.Series(cells, dtype=object), " ")]
        if len(whole) == 1:
            candidates = whole
    if len(candidates) > 1:  # other answers with commas or spaces: trust only ';' and '>'
        candidates = [c for c in candidates if c[1] in STRONG]
    if len(candidates) != 1:
        return None
    return candidates[0]


def same_items_each_row(cells: np.ndarray, separator: str) -> bool:
    """Whether most cells list one set of three or more items, each once, in some order:
    whole rankings, not a multi-select answer (whose choices vary in number)."""
    if separator == ">" or cells.size < 2:
        return False
    common = pd.Series(cells, dtype=object).str.split(separator, regex=False).map(
        _items_once).value_counts()
    return bool(len(common) and len(common.index[0]) >= 3 and common.iloc[0] * 2 > len(cells))


def _items_once(parts: list[str]) -> frozenset[str]:
    """The items a cell lists, or none when one of them comes twice (no ranking)."""
    names = [p.strip() for p in parts if p.strip()]
    return frozenset(names) if len(set(names)) == len(names) else frozenset()


def _whole_cells_elsewhere(table: Table, column: int, columns: list[int], values: pd.Series,
                          separator: str) -> bool:
    """Whether a cell of ``column`` holding ``separator`` is also a whole cell of another of
    the ``columns`` that holds one item a cell (places of a wide table whose item names hold
    the separator; a multi-select answer beside the ranking holds lists too)."""
    split = values.iloc[1:]
    split = split[split.str.contains(re.escape(separator), regex=True)].unique()
    places = [k for k in columns if k != column and k < table.width
              and (pd.Series(table.cells[1:, k], dtype=object)
                   .str.contains(re.escape(separator), regex=True).mean() < 0.5)]
    return bool(len(split) and places) and bool(np.isin(split, table.cells[:, places]).any())


#: Titles naming a column of lists (``Ballot``, ``Preferences``, ``Votes``, ``Order``).
_LIST_TITLE = re.compile(r"\b(?:ballots?|preferences|votes|choices|order(?:ing)?|picks|"
                         r"rankings?|list)\b", re.IGNORECASE)


def one_order(values: pd.Series, separator: str) -> bool:
    """Whether no two pieces of the cells (split at ``separator``) stand in both orders.

    Rankings put their items in different orders from row to row; the words of names
    (``Cara Singh``, ``ENG 101 A``) always stand in one order.
    """
    seen: set[tuple[str, str]] = set()
    for cell in values.fillna("").astype(str):
        pieces = [p for p in (x.strip() for x in cell.split(separator)) if p]
        for i, first in enumerate(pieces):
            for second in pieces[i + 1:]:
                if (second, first) in seen:
                    return False
                seen.add((first, second))
    return True


#: Fields of a record rather than items' names: a number with decimals (a score) and a
#: ``key:value`` feature (``qid:1``, ``3:0.761``; not a time or a verse, ``10:30``, ``3:16``).
_DECIMAL_FIELD = re.compile(r"(?:^|\s)([-+]?\d+\.\d+)(?=\s|$)")
_KEY_VALUE_FIELD = re.compile(
    r"(?:^|\s)([A-Za-z_]\w*:[-+]?[\w.]+|\d+:[-+]?\d*\.\d+)(?=\s|$)")


def refuse_records(text: pd.Series, line: np.ndarray, column: str, spaces: bool) -> None:
    """Refuse lines whose most rows hold a number with decimals or a ``key:value`` field
    (two or more of the latter, unless the lines are split by spaces): records (a search
    engine's run file, learning-to-rank features), whose fields would be read as the items
    of a ranking."""
    decimal = text.str.extract(_DECIMAL_FIELD, expand=False)
    keyed = text.str.extract(_KEY_VALUE_FIELD, expand=False)
    found = ((decimal.notna() | keyed.notna()) if spaces
             else text.str.count(_KEY_VALUE_FIELD.pattern) >= 2)
    if found.mean() <= 0.5:
        return
    i = int(np.flatnonzero(found.to_numpy(dtype=bool))[0])
    field = keyed.iloc[i] if isinstance(keyed.iloc[i], str) else decimal.iloc[i]
    raise PreferenceFormatError(
        f"Most lines hold a number with decimals or a 'key:value' field (this one holds "
        f"'{field}'): these look like records of fields (a search engine's run, features "
        "for learning to rank), not rankings of items.",
        row=int(line[i]), column=column,
        fix="Write one ranking per line with its items in order, best first (such as "
            "'A > B > C'), or one row per ranker, item and rank with a header "
            "'ranker,item,rank'.")


def read_cell(prepared: Prepared, options: ReadOptions) -> Preferences:
    """Read one ranking per row from the single column that holds it as text."""
    found = ranking_column(prepared, options)
    if found is None:
        several = [prepared.label(j) for j in item_columns(prepared, options)]
        raise PreferenceFormatError(
            "No single column holds whole rankings such as 'A;B;C' or 'A > B > C' "
            f"(columns: {quote_list(several)}).",
            fix="Choose the one column that holds the rankings.")
    column, separator, titled = found
    if not titled:
        prepared = Prepared(prepared.table, None, 0, platform=prepared.platform)
    titles = [prepared.label(j) for j in range(prepared.width)]
    cells = padded(prepared.table, titles, prepared.start)
    line = np.asarray(prepared.lines, dtype=np.intp)
    text, written = cell_counts(pd.Series(cells[:, column], dtype=object))
    if separator == ">":
        text = _plain_arrows(text)
    text = text.str.strip(separator + " ")
    stages = text.str.split(separator, regex=False).explode()
    stage_in_row = stages.groupby(level=0).cumcount().to_numpy()
    tie = _TIE if separator == ">" else None
    members = stages.str.split(tie, regex=True).explode() if tie else stages
    members = members.str.strip()
    numbered = members.str.match(_PLACE_MARK.pattern).fillna(False).to_numpy(dtype=bool)
    filled = (members.fillna("") != "").to_numpy()
    if filled.any() and numbered[filled].all():  # '1: Apple, 2: Cherry': places, not names
        members = members.str.replace(_PLACE_MARK, "", regex=True)
    stage_index = (stages.reset_index(drop=True).index.to_numpy() if tie is None else
                   np.repeat(np.arange(len(stages)),
                             stages.str.count(_TIE).fillna(0).to_numpy().astype(int) + 1))
    group_raw = stage_in_row[stage_index]
    keep = (members.fillna("") != "").to_numpy()
    pref = members.index.to_numpy()[keep]
    group_raw = group_raw[keep]
    names = members.to_numpy(dtype=object)[keep]
    group = dense_places(pref, group_raw)  # blank stages (';;') leave no gap
    broken = np.flatnonzero(pd.Series(names, dtype=object).str.contains(r"[\r\n]").to_numpy())
    if broken.size:  # a list typed with line breaks (Alt+Enter) in one cell
        raise multiline_error(int(line[pref[broken[0]]]), prepared.label(column), True)
    item, item_names = factorize(names)
    refuse_counts_in_names(item_names, line, prepared.label(column))
    pref, group, item, item_names, notes = written_ranks(pref, group, item, item_names, line,
                                                         prepared.label(column))
    repeat = first_repeat(pref.astype(np.int64) * max(len(item_names), 1) + item)
    if repeat is not None:
        raise PreferenceFormatError(
            f"The item '{item_names[item[repeat[1]]]}' appears twice in this ranking.",
            row=int(line[pref[repeat[1]]]), column=prepared.label(column),
            fix="Each item may appear only once per ranking."
                + (" If each row's values are columns rather than one ranking (who "
                   "answered, then the winner and the loser, say), save the file with commas "
                   "between them and a first row naming the columns, such as "
                   "'ranker,winner,loser'." if separator == " " else ""))
    rankers = cells[:, prepared.ranker] if prepared.ranker is not None else None
    weights = None
    if prepared.count is not None:
        weights = parse_weights(cells[:, prepared.count], line, prepared.label(prepared.count))
    if written is not None:
        if weights is not None and prepared.count is not None:
            raise PreferenceFormatError(
                "The rankings carry counts written in their cells ('* 3' or '^3') and the "
                f"file also has a count column ('{prepared.label(prepared.count)}').",
                row=int(prepared.table.lines[0]), column=prepared.label(column),
                fix="Keep one of the two: remove the counts from the cells, or choose no "
                    "count column.")
        weights = written
        check_weights(weights, text.to_numpy(dtype=object), line, prepared.label(column),
                      "count")
    return assemble(pref.astype(np.intp), group.astype(np.intp), item, len(line), item_names,
                    line, rankers=rankers,
                    ranker_column=prepared.label(prepared.ranker or 0), weights=weights,
                    notes=notes)
