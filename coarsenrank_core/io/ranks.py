"""Item columns holding ranks: one row per respondent, one column per item, a rank in each cell."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import Preferences
from .assembly import (
    assemble,
    first_repeat,
    header_only_error,
    parse_weights,
    rank_beyond_items_error,
)
from .columns import plural, quote_list, shown_cell
from .options import ReadOptions
from .survey import (
    Prepared,
    is_plain_number,
    looks_like_rank,
    one_is_worst_by_labels,
    places_once,
    rank_values,
    score_values,
    tied_rank_values,
)
from .tables import padded
from .wide import has_rank_header, item_columns

__all__ = ["looks_like_ranks", "read_ranks", "with_text_ranker", "with_averaged_ties",
           "item_ranks", "with_end_words", "END_CELL", "STRAY_ROWS"]

#: A table of ranks may hold a cell that is no rank in one row, or in this share of its
#: rows: detection then keeps the layout, and the reader names the first such cell.
STRAY_ROWS = 0.02


def with_text_ranker(prepared: Prepared, options: ReadOptions) -> Prepared:
    """Take an untitled-role first column of names (no rank in it) as the ranker.

    Only when there is no ranker yet and every other free column holds ranks.
    """
    free = prepared.free
    if prepared.ranker is not None or options.ranker_column is not None \
            or prepared.header is None or len(free) < 3 \
            or not prepared.n_rows:
        return prepared
    cells = padded(prepared.table, _titles(prepared), prepared.start)
    if not np.isfinite(score_values(cells[:200, free[1:]])).all():
        return prepared  # the first rows already hold a cell that is neither rank nor score
    first = cells[:, free[0]]
    if (first == "").any() or np.isfinite(score_values(first)).any():
        return prepared
    rest = score_values(cells[:, free[1:]])
    if not np.isfinite(rest).all():
        return prepared
    return replace(prepared, ranker=free[0])


def _podium_of_ranks(prepared: Prepared, free: list[int]) -> bool:
    """Whether columns titled as a podium's places (``Gold, Silver, Bronze``) hold rank
    numbers: items named so (a loyalty scheme's tiers), each given its rank."""
    from .content import podium_title

    if not all(podium_title(prepared.label(j)) for j in free):
        return False
    ranks = rank_values(prepared.table.cells[prepared.start:, free])
    return bool(np.isfinite(ranks).all() and (ranks > 0).any())


def looks_like_ranks(prepared: Prepared, options: ReadOptions) -> bool:
    """Whether the item columns are titled by names and the cells below are ranks or blank
    (but in one row, or :data:`STRAY_ROWS` of them)."""
    free = item_columns(prepared, options)
    if prepared.header is None or len(free) < 2 or not prepared.n_rows or \
            has_rank_header(prepared) and not _podium_of_ranks(prepared, free):
        return False
    titles = [prepared.header[j] if j < len(prepared.header) else "" for j in free]
    named = [t for t in titles if t]
    if len(named) < 2:
        return False
    # numbers above the count of columns (years, room numbers) beside a titled column of
    # who answered title the items; otherwise a first row of numbers is places or data
    numbered = prepared.ranker is not None and bool(
        (rank_values(np.asarray(named, dtype=object)) > len(named)).any())
    if not numbered and all(looks_like_rank(t) for t in named):
        return False
    if not numbered and sum(t.strip().lstrip("+-").isdigit() for t in named) * 2 >= len(named):
        return False  # a first row of numbers is data, not item names
    cells = padded(prepared.table, _titles(prepared), prepared.start)[:, free]
    ranks = item_ranks(cells)
    astray = (~np.isfinite(ranks)).any(axis=1).sum()
    if astray > max(1, round(STRAY_ROWS * len(ranks))):
        return False
    # a stray cell or two is the reader's to name (row, column and what to write)
    return bool(((ranks > 0).sum(axis=1) >= 2).any())


def _refuse_untitled_items(prepared: Prepared, columns: list[int], ranks: np.ndarray) -> None:
    """Refuse an item column with ranks under a blank title: its item has no name (its
    column number would stand in for one, as if an item were called '3')."""
    header = prepared.header or []
    for k, j in enumerate(columns):
        if (j >= len(header) or not header[j].strip()) and (ranks[:, k] > 0).any():
            raise PreferenceFormatError(
                f"Column {j + 1} holds ranks but its title is blank, so the item it ranks "
                "has no name.", row=int(prepared.table.lines[0]), column=str(j + 1),
                fix="Type the item's name in the first row of this column, or delete the "
                    "column if it holds no item.")


def item_ranks(cells: np.ndarray) -> np.ndarray:
    """The ranks written under item columns (one row per ranking), as float; 0 where an item
    is not ranked and NaN where a cell is no rank.

    Cells are read by :func:`~coarsenrank_core.io.survey.tied_rank_values`, then by
    :func:`with_averaged_ties` and :func:`with_end_words`.
    """
    return with_end_words(cells, with_averaged_ties(cells, tied_rank_values(cells)))


#: A cell naming an end of the order in place of its number: ``Most preferred``, ``Best``,
#: ``Least favourite``, ``Last choice``.
END_CELL = re.compile(
    r"\s*(?:(?P<top>most\s+(?:preferred|important|liked|wanted|useful|favou?rite)|best|top|"
    r"favou?rite)|(?P<bottom>least\s+(?:preferred|important|liked|wanted|useful|favou?rite)|"
    r"worst|bottom|last))(?:\s+(?:choice|pick|place|option))?\s*", re.IGNORECASE)
#: :data:`END_CELL` over a whole cell, as ``fullmatch`` reads it (for ``str.extract``).
_END_CELL_WHOLE = re.compile(rf"^(?:{END_CELL.pattern})\Z", re.IGNORECASE)


def with_end_words(cells: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The ranks, with cells that name an end of the order read as places where the rest of
    their row is numbered by ordinals (``Most preferred, Second, Third, Least preferred``).

    A top word (``Most preferred``, ``Best``) is place 1 and a bottom word (``Least
    preferred``, ``Last``) the place after every other in its row. A row is read so only
    when it numbers some other place by an ordinal (``2nd``, ``Second``: a bare ``2`` might
    count from either end), names each end at most once and, beside a top word, holds no
    place 1; elsewhere the cells stay NaN. A best-worst choice, which marks only its
    two ends, is not a ranking of the items between them.
    """
    unread = ~np.isfinite(ranks)
    if not unread.any():
        return ranks
    found = pd.Series(cells[unread], dtype=object).astype(str).str.extract(_END_CELL_WHOLE)
    top = np.zeros(ranks.shape, dtype=bool)
    bottom = np.zeros(ranks.shape, dtype=bool)
    top[unread] = found["top"].notna().to_numpy()
    bottom[unread] = found["bottom"].notna().to_numpy()
    numbered = np.where(np.isfinite(ranks), ranks, 0)
    # a bare number beside the ends may count from either ('Worst, 4, 2, Best'); '2nd' or
    # 'Second' counts from the best
    bare = np.asarray(is_plain_number(cells), dtype=bool) & (numbered > 0)
    readable = (top.sum(axis=1) <= 1) & (bottom.sum(axis=1) <= 1) & ~bare.any(axis=1) & \
        (numbered >= 2).any(axis=1) & ~(top.any(axis=1) & (numbered == 1).any(axis=1))
    ranks = ranks.copy()
    ranks[top & readable[:, None]] = 1.0
    after = np.maximum(numbered.max(axis=1), top.any(axis=1)) + 1
    rows, columns = np.nonzero(bottom & readable[:, None])
    ranks[rows, columns] = after[rows]
    return ranks


def with_averaged_ties(cells: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The ranks, with the averaged places of ties read too (Excel's RANK.AVG: two items
    sharing places 1 and 2 both get 1.5).

    A number ending in .5 is such a place only where its row holds it an even number of
    times (a tie of an odd number of items averages to a whole place); elsewhere it stays
    NaN, not a rank.
    """
    unread = ~np.isfinite(ranks)
    if not unread.any():
        return ranks
    values = np.where(unread, score_values(cells), np.nan)
    half = unread & np.isfinite(values) & (values >= 1) & (values % 1 == 0.5)
    if not half.any():
        return ranks
    # each row's runs of one half place, found together for every row: sorted by row, then
    # value, a run is cut where either changes
    rows, cols = np.nonzero(half)
    order = np.lexsort((values[rows, cols], rows))
    rows, cols = rows[order], cols[order]
    found = values[rows, cols]
    starts = np.r_[True, (rows[1:] != rows[:-1]) | (found[1:] != found[:-1])]
    run = np.cumsum(starts) - 1
    paired = np.bincount(run)[run] % 2 == 0
    ranks = ranks.copy()
    ranks[rows[paired], cols[paired]] = found[paired]
    return ranks


def _titles(prepared: Prepared) -> list[str]:
    return [prepared.label(j) for j in range(prepared.width)]


def read_ranks(prepared: Prepared, options: ReadOptions, any_number: bool = False
               ) -> Preferences:
    """Read one ranking per row from the ranks written under each item's column.

    Equal ranks are ties; blank, ``-``, ``N/A``, ``No opinion`` and 0 mean "not ranked".
    With 1 the best, a number above the count of items is refused (ratings read upside
    down) unless ``any_number``: the layout was chosen by hand, so the numbers are read as
    they stand, smaller better (scores such as school grades or golf strokes). Scores that
    are not whole numbers (``8.5``, or ``8,5`` with a decimal comma) are read when the
    layout was chosen by hand or with 1 the worst.
    """
    if prepared.header is None:
        raise PreferenceFormatError(
            "A table of ranks needs a first row naming the items.",
            fix="Add a header row with one item name per column.")
    if not prepared.n_rows:
        raise header_only_error(prepared.table.lines[0])
    columns = item_columns(prepared, options)
    if len(columns) < 2:
        raise PreferenceFormatError(
            "A table of ranks needs at least two item columns.",
            fix="Choose the columns that hold each item's rank.")
    names = np.asarray([prepared.label(j) for j in columns], dtype=object)
    repeat = first_repeat(names)
    if repeat is not None:
        raise PreferenceFormatError(
            f"Two columns are called '{names[repeat[1]]}'.", row=prepared.table.lines[0],
            column=str(columns[repeat[1]] + 1), fix="Give every item column its own name.")
    cells = padded(prepared.table, _titles(prepared), prepared.start)
    line = np.asarray(prepared.lines, dtype=np.intp)
    as_scores = any_number or not options.one_is_best
    if options.one_is_best and (said := one_is_worst_by_labels(cells[:, columns])):
        i, k = np.argwhere(cells[:, columns] == said)[0]
        raise PreferenceFormatError(
            f"The answers label their ends ({shown_cell(said)}): 1 is the worst here, and read "
            "with 1 the best the order would be upside down.", row=int(line[i]),
            column=prepared.label(columns[k]),
            fix="Choose 'Rank numbers mean: 1 is the worst' (--one-is-worst).")
    ranks = score_values(cells[:, columns]) if as_scores else item_ranks(cells[:, columns])
    bad = np.argwhere(~np.isfinite(ranks))
    if bad.size:
        i, k = bad[0]
        if is_plain_number(cells[i, columns[k]]):
            raise _number_not_rank_error(str(cells[i, columns[k]]), as_scores, int(line[i]),
                                         prepared.label(columns[k]))
        raise PreferenceFormatError(
            f"'{cells[i, columns[k]]}' is not a rank. In this layout every cell under an item "
            "holds that item's rank (1, 2, 3 ... or 1st, First, Rank 1), or is blank.",
            row=int(line[i]), column=prepared.label(columns[k]),
            fix="Write the rank as a whole number, or leave the cell blank (or '-', 'N/A') "
                "when the item was not ranked.")
    kept_aside: list[str] = []
    if options.item_columns is None and not as_scores:
        block = _complete_block(ranks, [str(n) for n in names])
        if block is not None:  # a group or a check's 1 and 2 beside a whole ranking
            inside = np.arange(block[0], block[1])
            kept_aside.append(
                f"Left out {quote_list(np.delete(names, inside), 3)}: on every row the columns "
                f"{quote_list(names[inside], 3)} hold the ranks 1 to {inside.size} once each, "
                "and these repeat one of them, so they are not items of that ranking")
            columns = [columns[k] for k in inside]
            names, ranks = names[inside], ranks[:, inside]
    _refuse_untitled_items(prepared, columns, ranks)
    labels = [str(n) for n in names]
    _refuse_ranks_from_zero(cells[:, columns], ranks, line, labels)
    shared = _shared_place(ranks)
    if options.one_is_best and not any_number:
        _refuse_zeros_and_ones(cells[:, columns], ranks, line, labels)
        _refuse_points_scale(ranks, line, labels)
        _refuse_ratings(ranks, shared, line, labels,
                        None if prepared.platform is not None else ranking_shaped(ranks))
    places = max(len(columns), len(prepared.free))
    if options.one_is_best and not any_number and (ranks > places).any():
        i, k = np.argwhere(ranks > places)[0]
        raise rank_beyond_items_error(cells[i, columns[k]], places, int(line[i]),
                                      prepared.label(columns[k]))
    if options.one_is_best and not any_number:
        _refuse_asked_ratings([prepared.questions.get(j, prepared.question) or ""
                               for j in columns], ranks, line, labels)
    notes = kept_aside + _shared_places(ranks, shared, line, labels, prepared.platform)
    unranked = ~(ranks > 0).any(axis=0)
    if unranked.any() and (~unranked).sum() >= 2:  # a column nobody ranked names no item
        notes.append(f"Left out {quote_list(names[unranked], 3)}: no row ranks "
                     f"{'it' if unranked.sum() == 1 else 'them'} (every cell blank or marked "
                     "not ranked), so the answers say nothing of where "
                     f"{'it stands' if unranked.sum() == 1 else 'they stand'}")
        names, ranks = names[~unranked], ranks[:, ~unranked]
    row, k = np.nonzero(ranks > 0)
    value = ranks[row, k] * (1.0 if options.one_is_best else -1.0)
    order = np.lexsort((k, value, row))
    row, k, value = row[order], k[order], value[order]
    start = np.r_[True, row[1:] != row[:-1]]
    steps = np.cumsum(~start & np.r_[False, value[1:] != value[:-1]])
    group = steps - np.repeat(steps[start], np.diff(np.r_[np.flatnonzero(start), row.size]))
    rankers = cells[:, prepared.ranker] if prepared.ranker is not None else None
    weights = None
    if prepared.count is not None:
        weights = parse_weights(cells[:, prepared.count], line, prepared.label(prepared.count))
    return assemble(row.astype(np.intp), group.astype(np.intp), k.astype(np.intp),
                    len(line), tuple(str(n) for n in names), line, rankers=rankers,
                    ranker_column=prepared.label(prepared.ranker or 0), weights=weights,
                    notes=notes)


#: Words of the title of a column of small numbers about the answer, not an item: a group,
#: an arm of a study, an attention check, the order blocks were shown in.
_ABOUT_THE_ANSWER = frozenset({"group", "check", "attention", "block", "order", "condition",
                               "version", "wave", "arm", "cohort", "treatment", "session",
                               "class", "section", "period", "form", "set"})


def _complete_block(ranks: np.ndarray, names: list[str]) -> tuple[int, int] | None:
    """The columns ``[start, stop)``, all but one to four of them side by side, that on
    every row (three or more) hold the ranks 1 to their number once each, while every
    other column holds a rank among them and is titled as something about the answer
    (``Group``, ``attention_check``, ``block_order``): a ranking beside small numbers that
    are no items. None when there is no such block (an item tied on every row stays)."""
    from .content import title_words

    n, m = ranks.shape
    if n < 3 or m < 4:
        return None
    sample = ranks[np.linspace(0, n - 1, min(n, 200)).astype(np.intp)]
    for width in range(m - 1, max(2, m - 5), -1):
        places = np.arange(1, width + 1)
        for start in range(m - width + 1):
            stop = start + width
            if not (np.sort(sample[:, start:stop], axis=1) == places).all():
                continue
            outside = np.delete(ranks, np.arange(start, stop), axis=1)
            about = all(set(title_words(re.sub(r"[_.-]+", " ", t))) & _ABOUT_THE_ANSWER
                        for t in np.delete(np.asarray(names, dtype=object),
                                           np.arange(start, stop)))
            if about and (np.sort(ranks[:, start:stop], axis=1) == places).all() and \
                    ((outside >= 1) & (outside <= width)).all():
                return start, stop
    return None


def _number_not_rank_error(cell: str, as_scores: bool, row: int, column: str
                           ) -> PreferenceFormatError:
    """A number that is not a whole rank: a score, or one this layout cannot read."""
    if cell.strip().startswith("-"):
        return PreferenceFormatError(
            f"'{cell}' is below 0: ranks run from 1, and a score here must be above 0, since "
            "0, blank and '-' mean the item was not ranked.", row=row, column=column,
            fix="Correct the cell, or shift the scores so that all are above 0; leave it "
                "blank when the item was not ranked.")
    if as_scores:
        return PreferenceFormatError(
            f"'{cell}' cannot be read as a score: a score here is a number above 0, since 0, "
            "blank and '-' mean the item was not ranked.", row=row, column=column,
            fix="Shift the scores so that all are above 0, or leave the cell blank when the "
                "item was not scored.")
    return PreferenceFormatError(
        f"'{cell}' is not a whole rank. Numbers with decimals are scores, not ranks.",
        row=row, column=column,
        fix="If these are scores, choose the layout 'item columns holding ranks' by hand "
            "(--format ranks), and if a higher score is better choose 'Rank numbers mean: 1 "
            "is the worst' (--one-is-worst). If they are ranks, correct the cell.")


def _refuse_ranks_from_zero(cells: np.ndarray, ranks: np.ndarray, line: np.ndarray,
                            labels: list[str]) -> None:
    """Refuse rows that each hold 0 once beside 1, 2, ...: ranks counted from 0 would lose
    every row's best item, since 0 means not ranked."""
    zero = (ranks == 0) & is_plain_number(cells)
    if not zero.any() or not (zero.sum(axis=1) == 1).all():
        return
    counted = (ranks > 0).sum(axis=1)
    places = np.arange(1, ranks.shape[1] + 1)
    ordered = np.sort(np.where(ranks > 0, ranks, np.inf), axis=1)
    if not ((ordered == places) | (places > counted[:, None])).all():
        return
    i, k = np.argwhere(zero)[0]
    raise PreferenceFormatError(
        "Every row holds the rank 0 once, beside 1, 2, 3 ...: the ranks seem to count from "
        "0 (0 the best), while here 0 means the item was not ranked, which would drop each "
        "row's best item.", row=int(line[i]), column=labels[k],
        fix="If 0 is the best, add 1 to every rank so that 1 is the best. If 0 means the item "
            "was not ranked, write '-' or leave the cell blank.")


def _refuse_zeros_and_ones(cells: np.ndarray, ranks: np.ndarray, line: np.ndarray,
                           labels: list[str]) -> None:
    """Refuse a grid of 0 and 1 only, with 0 written somewhere and some row giving 1 to
    several items: ticks of approval (1 = accepted), which read as ranks tie every accepted
    item at the top and say nothing of the rest."""
    filled = np.isfinite(ranks)
    written_zero = (ranks == 0) & is_plain_number(cells)
    if (not written_zero.any() or not filled.any()
            or not np.isin(ranks[filled], (0.0, 1.0)).all()):
        return
    several = np.flatnonzero((ranks == 1).sum(axis=1) >= 2)
    if not several.size:
        return
    i = int(several[0])
    named = [labels[k] for k in np.flatnonzero(ranks[i] == 1)]
    raise PreferenceFormatError(
        f"Every cell under the items is 0 or 1, and this row gives 1 to {quote_list(named, 3)}: "
        "this looks like a grid of approvals (1 = accepted), which says which items each "
        "person accepts but not in what order.", row=int(line[i]), column=named[0],
        fix="Ask for rankings instead: each item's rank (1, 2, 3 ...) under its column, or "
            "the items in order under columns '1st', '2nd', .... If these are ranks, correct "
            "the row.")


def _refuse_points_scale(ranks: np.ndarray, line: np.ndarray, labels: list[str]) -> None:
    """Refuse rows that mostly give out one fixed set of numbers with two or more gaps (12,
    10, 8, 7 ... 1, never 9 or 11): points awarded on a scale (a song contest's votes, a
    race's points table), where the largest number is the best, not ranks with the same
    places skipped by everyone."""
    if len(ranks) < 2:
        return
    given = np.where(np.isfinite(ranks) & (ranks > 0), ranks, 0.0)
    rows = np.sort(given, axis=1)
    keys, counts = np.unique(rows, axis=0, return_counts=True)
    common = keys[np.argmax(counts)]
    values = common[common > 0]
    if (counts.max() * 2 <= len(ranks) or values.size < 3
            or np.unique(values).size < values.size or values[-1] < values.size + 2):
        return
    i = int(np.flatnonzero((rows == common).all(axis=1))[0])
    k = int(np.argmax(given[i]))
    raise PreferenceFormatError(
        f"Most rows give out the same numbers, {', '.join(f'{v:g}' for v in values[::-1])}, "
        "skipping some in between: these look like points awarded on a scale (the largest "
        "the best), not ranks.", row=int(line[i]), column=labels[k],
        fix="If more points are better, choose 'Rank numbers mean: 1 is the worst' "
            "(--one-is-worst). If they are ranks, correct the rows.")


def _shared_place(ranks: np.ndarray) -> np.ndarray:
    """Per row, the best place it gives to several items; NaN where it ties nothing."""
    ordered = np.sort(np.where(ranks > 0, ranks, np.nan), axis=1)
    twin = ordered[:, 1:] == ordered[:, :-1]
    first = np.argmax(twin, axis=1) + 1
    return np.where(twin.any(axis=1), ordered[np.arange(len(ordered)), first], np.nan)


def ranking_shaped(ranks: np.ndarray) -> np.ndarray:
    """Per row, whether its places (above 0) are written as ranks with ties are: each item
    at 1 + the count of items placed better (1, 1, 3), at 1 + the count of distinct places
    better (1, 1, 2), at the mean of the places a tied block shares (1.5, 1.5, 3), or at
    the last of them (1, 3, 3; the unranked all last: 1, 2, 5, 5, 5).

    Ratings seldom are (3, 3, 4, 4 or 2, 4, 4): a row of them can look like ranks only by
    chance.
    """
    values = np.sort(np.where(np.isfinite(ranks) & (ranks > 0), ranks, np.inf), axis=1)
    width = values.shape[1]
    column = np.broadcast_to(np.arange(width), values.shape)
    new = np.ones(values.shape, dtype=bool)
    new[:, 1:] = values[:, 1:] != values[:, :-1]
    better = np.maximum.accumulate(np.where(new, column, 0), axis=1)
    distinct_better = np.cumsum(new, axis=1) - 1  # also each entry's tied block in its row
    block = np.arange(len(values))[:, None] * width + distinct_better
    tied = np.bincount(block.ravel(), minlength=values.size)[block]
    shaped = ((values == 1 + better) | (values == 1 + distinct_better)
              | (values == better + (tied + 1) / 2) | (values == better + tied))
    return np.asarray(np.where(np.isfinite(values), shaped, True).all(axis=1), dtype=bool)


#: Words of a question asking for a rating, and of one asking for an order.
_RATING_WORDS = frozenset({"rate", "rating", "ratings", "rated", "score", "scores", "stars",
                           "star", "grade", "satisfied", "satisfaction", "marks"})
#: A constant-sum question: a number of points (coins, tokens) shared out among the items
#: (``Allocate 10 points``, ``Distribute 100 coins``), said nowhere to put 1 first.
_SHARE_OUT = re.compile(r"^(?!.*\b1\s*(?:\(|=|-|is|for|to)\s*(?:the\s+)?(?:most|best|top|first|"
                        r"highest)).*\b(?:allocate|distribute|divide|spend|share|split|assign)\b"
                        r".*?\b\d+\s+(?:points|coins|tokens|chips|credits|dollars|euros|votes)\b",
                        re.IGNORECASE)
_ORDER_WORDS = frozenset({"rank", "ranks", "ranking", "rankings", "ranked", "order", "place",
                          "places", "preference", "preferences", "prefer", "position",
                          "positions", "favourite", "favorite", "1st", "first"})


def _refuse_asked_ratings(titles: list[str], ranks: np.ndarray, line: np.ndarray,
                          labels: list[str]) -> None:
    """Refuse item columns (``labels``) whose every question (``titles``) asks for a rating
    (Jotform's ``Rate our pizzas: Margherita``) and none for an order, unless most rows give
    the places 1, 2, 3 ... once each: the numbers are stars or marks, and read as ranks with
    1 the best the order would be upside down."""
    from .content import title_words

    words = [set(title_words(t)) for t in titles]
    rows = np.flatnonzero((ranks > 0).any(axis=1))
    if len(titles) >= 2 and rows.size and all(_SHARE_OUT.search(t) for t in titles):
        raise PreferenceFormatError(
            f"The question asks to share out points ('{titles[0]}'): each number is how much "
            "of them an item was given, more is better, even where the numbers happen to run "
            "1, 2, 3 …; read as ranks with 1 the best the order would be upside down.",
            row=int(line[rows[0]]), column=labels[0],
            fix="Choose 'Rank numbers mean: 1 is the worst' (--one-is-worst), so that the "
                "item given most comes first.")
    if len(titles) < 2 or not all(w & _RATING_WORDS for w in words) \
            or any(w & _ORDER_WORDS for w in words):
        return
    if rows.size < 2 or places_once(ranks)[rows].mean() >= 0.5:
        return  # each row gives the places 1, 2, 3 ... once: ranks, whatever the question
    said = sorted(set.intersection(*words) & _RATING_WORDS) or sorted(words[0] & _RATING_WORDS)
    raise PreferenceFormatError(
        f"The question asks for a rating ('{said[0]}' in '{titles[0]}'), not for an order: "
        "the numbers are ratings, and reading them as ranks with 1 the best could turn the "
        "order upside down.", row=int(line[rows[0]]), column=labels[0],
        fix="If a higher number is better, choose 'Rank numbers mean: 1 is the worst' "
            "(--one-is-worst). If these are ranks after all, choose the layout 'item columns "
            "holding ranks' by hand (--format ranks).")


def _refuse_ratings(ranks: np.ndarray, shared: np.ndarray, line: np.ndarray,
                    labels: list[str], shaped: np.ndarray | None = None) -> None:
    """Refuse a grid whose rows mostly give one number to several items (``shared``, from
    :func:`_shared_place`): ratings (1 to 5 stars) rather than ranks, which read with 1 the
    best would turn the order upside down.

    A survey platform's grid is refused on that alone. A table written by hand may tie as
    often as it likes as long as its ties are written as ranks are (``shaped``, from
    :func:`ranking_shaped`): it is refused only when a quarter or more of its tied rows are
    not (``3, 3, 4, 4``).
    """
    repeats = np.isfinite(shared)
    rated = (ranks > 0).sum(axis=1) >= 3
    if rated.sum() < 2 or repeats[rated].mean() <= 0.5:
        return
    if shaped is not None:
        tied = repeats & rated
        if (~shaped[tied]).mean() < 0.25:
            return
        repeats = tied & ~shaped
    i = int(np.flatnonzero(repeats & rated)[0])
    value = shared[i]
    named = [labels[k] for k in np.flatnonzero(ranks[i] == value)]
    raise PreferenceFormatError(
        f"Most rows give the same number to several items (this row gives {value:g} to "
        f"{quote_list(named, 3)}): the numbers look like ratings or scores, not ranks, and "
        "reading them as ranks with 1 the best could turn the order upside down.",
        row=int(line[i]), column=named[0],
        fix="If a higher number is better, choose 'Rank numbers mean: 1 is the worst' "
            "(--one-is-worst). If these are ranks with many ties, choose the layout 'item "
            "columns holding ranks' by hand (--format ranks).")


def _shared_places(ranks: np.ndarray, shared: np.ndarray, line: np.ndarray,
                   names: list[str], platform: str | None) -> list[str]:
    """A note naming the rows that give one place to several items (``shared``, from
    :func:`_shared_place`; read as ties), in a survey platform's export: there that is
    usually a form that let a place be ticked twice (a table of ranks written by hand ties
    items on purpose)."""
    rows = np.flatnonzero(np.isfinite(shared))
    if not rows.size or platform is None:
        return []
    i = int(rows[0])
    value = shared[i]
    tied = [names[k] for k in np.flatnonzero(ranks[i] == value)]
    verb = "gives" if rows.size == 1 else "give"
    return [f"{plural(rows.size, 'row')} {verb} the same place to several items, read as "
            f"ties (row {int(line[i])}: {quote_list(tied, 3)} at {value:g}); if the form let "
            "a place be chosen twice by mistake, correct those rows"]
