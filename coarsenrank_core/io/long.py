"""Long rankings: one row per ranked item, with ranker (or list), item and rank columns."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import CANONICAL_COLUMNS, Preferences
from .assembly import (
    assemble,
    factorize,
    first_repeat,
    header_only_error,
    parse_durations,
    parse_numbers,
    parse_weights,
    tidy_cells,
)
from .columns import (
    PREFERENCE_ROLES,
    column_label,
    find_roles,
    ignored_note,
    is_event_title,
    is_school_task,
    lower_is_better_words,
    normalise,
    plural,
    quote_list,
    shown_cell,
    skipped_note,
    without_weak_events,
)
from .content import is_ballot_mark
from .distinct import per_distinct
from .options import ReadOptions, override_roles
from .survey import summary_label, tied_rank_values
from .tables import Table, padded

__all__ = ["read_long", "long_roles", "ranking_keys", "reads_smaller_first",
           "smaller_better_numbers", "list_columns"]


#: Words of a title that promise whole ranks from 1 (``Rank``, ``Final place``, ``Pos``):
#: under such a title 0, 1.5 or -2 is a slip, refused, not a number to order by.
_RANK_TITLE_WORDS = frozenset({"rank", "ranks", "ranked", "ranking", "place", "placing",
                               "position", "pos", "standing"})


def reads_smaller_first(title: str, options: ReadOptions) -> bool:
    """Whether the rank column titled ``title`` is read smaller-is-better, any numbers.

    So it is when 1 is not the worst and the title says a smaller number is better (a time,
    strokes, errors: :func:`~coarsenrank_core.io.columns.lower_is_better_words`) or does not
    promise ranks: a grade or score chosen as the rank column (by hand, or in the command a
    grade or results table's note gives to read it the other way up) may hold 0 or 7.5.
    Under a rank's title (``Rank``, ``Place``) the numbers must be whole ranks from 1.
    """
    words = set(re.findall(r"[a-z]+", title.lower()))
    return options.one_is_best and (bool(lower_is_better_words(title))
                                    or not words & _RANK_TITLE_WORDS)


def long_roles(header: Sequence[str], options: ReadOptions) -> dict[str, int]:
    """Column roles of a long file: detected, then the user's ranker, count, item and rank.

    ``options.item_columns`` names the item column and then the rank column, and
    ``options.list_columns`` the columns that together tell one ranking from another (roles
    ``list``, ``list2`` ...). Without that choice, with no ranker and no ranking column, the
    one column titled as an event (a results table's ``heat``, ``race``, ``game``:
    :func:`~coarsenrank_core.io.columns.is_event_title`) tells one ranking from another.
    """
    roles = override_roles(find_roles(header, PREFERENCE_ROLES), header, options)
    if options.item_columns is None:
        labels = [column_label(header, j) for j in range(len(header))]
        return _ranking_roles(roles, header, labels, options)
    chosen = options.item_columns
    if len(chosen) != 2 or chosen[0] == chosen[1]:
        raise PreferenceFormatError(
            "A long rankings file takes two item columns, in this order: the column naming "
            f"the item, then the column holding its rank; the choice here is {quote_list(chosen)}.",
            fix="Choose the item column, then the rank column (--items ITEM RANK).")
    labels = [column_label(header, j) for j in range(len(header))]
    missing = [c for c in chosen if c not in labels]
    if missing:
        raise PreferenceFormatError(f"There is no column called '{missing[0]}'.",
                                    fix="Choose the item and rank columns among the file's "
                                        "columns.")
    item, rank = labels.index(chosen[0]), labels.index(chosen[1])
    for role, choice in (("ranker", options.ranker_column), ("weight", options.count_column)):
        if choice and roles.get(role) in (item, rank):
            raise PreferenceFormatError(
                f"The column '{choice}' was chosen both as an item column and as the "
                f"{'ranker' if role == 'ranker' else 'count'} column.",
                fix="Choose each column for one role only.")
    roles = {r: j for r, j in roles.items() if j not in (item, rank) and r not in ("item", "rank")}
    return _ranking_roles({**roles, "item": item, "rank": rank}, header, labels, options)


def _ranking_roles(roles: dict[str, int], header: Sequence[str], labels: Sequence[str],
                   options: ReadOptions) -> dict[str, int]:
    """``roles`` with the columns that tell one ranking from another: the user's
    (``options.list_columns``: the first as ``list``, the others as ``list2``, ``list3``
    ...), else the one event column where nothing else tells them apart
    (:func:`_with_event`)."""
    if options.list_columns is None:
        return _with_event(roles, header)
    roles = {r: j for r, j in roles.items() if r != "list"}
    used = {j: r for r, j in roles.items() if r in _READ_ROLES}
    if len(set(options.list_columns)) < len(options.list_columns):
        raise PreferenceFormatError("A ranking column was chosen twice.",
                                    fix="Choose each ranking column once.")
    for k, choice in enumerate(options.list_columns, start=1):
        if choice not in labels:
            raise PreferenceFormatError(f"There is no column called '{choice}'.",
                                        fix="Choose the ranking columns among the file's "
                                            "columns.")
        j = labels.index(choice)
        if j in used:
            role = _READ_ROLES[used[j]]
            raise PreferenceFormatError(
                f"The column '{choice}' was chosen as a ranking column but is read as the "
                f"{role}.",
                fix=f"Choose another column, or another {role} column (in the command line: "
                    f"--{'ranker' if role == 'ranker' else 'count'} '' for none)."
                if role in ("ranker", "count") else "Choose each column for one role only.")
        roles["list" if k == 1 else f"list{k}"] = j
    return roles


#: The roles the long reader reads, as its messages name them.
_READ_ROLES = {"ranker": "ranker", "weight": "count", "item": "item", "rank": "rank"}


def list_columns(roles: dict[str, int]) -> list[int]:
    """The columns that tell rankings apart besides the ranker's: the ranking column, then
    any further ones the user chose (``list2``, ``list3`` ...)."""
    return [roles[r] for r in ["list", *(f"list{k}" for k in range(2, len(roles) + 2))]
            if r in roles]


def _with_event(roles: dict[str, int], header: Sequence[str]) -> dict[str, int]:
    """``roles`` with the one event column as the ranking column, when nothing else tells
    one ranking from another (no ranker, no ranking column)."""
    if "ranker" in roles or "list" in roles:
        return roles
    used = {roles.get("item"), roles.get("rank"), roles.get("weight")}
    events = [j for j, c in enumerate(header) if j not in used and is_event_title(c)]
    events = without_weak_events(events, [normalise(c) for c in header])  # 'Month', 'Race'
    return {**roles, "list": events[0]} if len(events) == 1 else roles

def ranking_keys(header: Sequence[str], roles: dict[str, int], cells: np.ndarray) -> list[int]:
    """The columns that tell one ranking from another: the ranker's, then the ranking's.

    A school's task column (``assignment``, ``exam``:
    :func:`~coarsenrank_core.io.columns.is_school_task`) beside a ranker column is left out
    when no ranker has two rows within one of its values: it then splits nothing, and each
    ranker gives one ranking (``cells`` are the rows below the header).
    """
    keys = ([roles["ranker"]] if "ranker" in roles else []) + list_columns(roles)
    if len(keys) == 2 and "ranker" in roles and is_school_task(header[keys[1]]):
        joined = cells[:, keys[0]] + "\x00" + cells[:, keys[1]]
        if len(factorize(joined)[1]) == len(joined):
            return keys[:1]
    return keys


#: Titles of a cast vote record's column naming the contest (office) each mark is for.
_CONTEST_TITLES = frozenset({"contest", "contestname", "contestid", "office", "officename"})


def _refuse_several_contests(header: Sequence[str], cells: np.ndarray, keys: Sequence[int],
                             line: np.ndarray) -> None:
    """Refuse a cast vote record of several contests (``Contest``: ``Mayor``, ``Council``)
    read one ranking per ballot: each ranking would mix the candidates of every contest. A
    column that never changes within one ballot (a respondent's ``Office``) mixes nothing."""
    joined = cells[:, keys[0]]
    for k in keys[1:]:
        joined = joined + "\x00" + cells[:, k]
    for j, title in enumerate(header):
        if j in keys or normalise(title) not in _CONTEST_TITLES:
            continue
        contests = pd.unique(cells[:, j][cells[:, j] != ""])
        within = pd.DataFrame({"ballot": joined, "contest": cells[:, j]})
        if len(contests) >= 2 and (within.groupby("ballot")["contest"].nunique() > 1).any():
            raise PreferenceFormatError(
                f"This file holds {len(contests)} contests in '{title}' "
                f"({quote_list(contests, 3)}): their candidates are different items, and one "
                "ranking per ballot would mix them.", row=int(line[0]), column=title,
                fix=f"Keep one contest's rows (filter '{title}' in a spreadsheet and save "
                    "them as a file of their own), and load that file.")


def read_long(table: Table, options: ReadOptions) -> Preferences:
    """Read rows of (ranker or list, item, rank); equal ranks within a ranking are ties.

    Rank 1 is the best unless ``options.one_is_best`` is False (then larger numbers are
    better). A rank above the number of items is kept: ballots skip places. A rank column
    whose title says a smaller number is better (a time, strokes, errors: the rule of
    :func:`~coarsenrank_core.io.columns.lower_is_better_words`) holds any numbers, not
    whole ranks, a smaller one better unless ``options.one_is_best`` is False.

    In an event's results (a ranking column titled as an event, or a time), a row whose
    rank column marks it out of the event (``DNF``, ``DSQ``, ``CUT``: :data:`OUT_MARKS`) is
    placed below every finisher of its ranking, tied, and one marked as not starting
    (``DNS``: :data:`ABSENT_MARKS`) is left out; the notes say so.
    """
    lines = table.lines
    header = table.row(0)
    roles = long_roles(header, options)
    if "item" not in roles or "rank" not in roles:
        missing = " and ".join(f"'{r}'" for r in ("item", "rank") if r not in roles)
        raise PreferenceFormatError(
            f"A long rankings file needs a first row naming its columns, including {missing}; "
            f"the first row here is {quote_list(c for c in header if c)}.", row=lines[0],
            fix="Add a header row such as 'ranker,item,rank', or choose another format.")
    if len(table) == 1:
        raise header_only_error(lines[0])
    keys = [roles[r] for r in ("ranker", "list") if r in roles]
    if not keys:
        raise PreferenceFormatError(
            "Nothing tells which rows belong to the same ranking: there is no ranker column "
            "(ranker, voter, user, id ...) and no ranking column (preference, list, ballot ...).",
            row=lines[0],
            fix="Add a 'ranker' column saying who gave each ranking. If the file holds the true "
                "order of the items, load it as the ground truth instead.")
    cells = padded(table, header, 1)
    _refuse_counted_games(header, roles, cells, options, lines)
    keys = ranking_keys(header, roles, cells)
    line = np.asarray(lines[1:], dtype=np.intp)
    _refuse_several_contests(header, cells, keys, line)
    item_col, rank_col = roles["item"], roles["rank"]
    # the package's own export names its items as they are, even 'Blank' or 'Skipped'
    own_export = tuple(c.strip().lower() for c in header) == CANONICAL_COLUMNS
    marks = is_ballot_mark(cells[:, item_col]) & (not own_export)
    notes = []
    if marks.any():  # undervote, overvote, write-in: no candidate at that rank
        notes.append(skipped_note(line[marks], "row", "holding a ballot mark (undervote, "
                                  "overvote, write-in), not a candidate"))
        if marks.all():
            raise PreferenceFormatError("Every row holds a ballot mark, not a candidate.",
                                        row=int(line[0]), column=column_label(header, item_col),
                                        fix="Put the candidates' names in the item column.")
        cells, line = cells[~marks], line[~marks]
    if "ranker" in roles:
        cells, line = _without_summary_rankers(cells, line, roles["ranker"], header, notes)
    cells = marked_in_row(cells, rank_col, header)
    timed = bool(lower_is_better_words(header[rank_col]))
    # in an event's results (an event column, or a time), DNS and DNF are marks of the event
    results = timed or any(is_event_title(header[j]) for j in keys)
    absent = (is_absent_mark(cells[:, rank_col]) if results
              else np.zeros(len(line), dtype=bool))
    if absent.any() and not absent.all():  # did not start: not in that event's ranking
        notes.append(skipped_note(line[absent], "row", "marked as not starting (DNS), "
                                  "left out of that ranking"))
        cells, line = cells[~absent], line[~absent]
    items = cells[:, item_col]
    blank = np.flatnonzero(items == "")
    if blank.size and blank.size == len(items):
        title = column_label(header, item_col)
        raise PreferenceFormatError(
            f"The column '{title}', read as the items, is blank on every row, so it names "
            "nothing that was ranked.", row=int(line[0]), column=title,
            fix="Choose the column naming what each row ranks (--format long --items ITEM "
                "RANK). Where each row is a one-off answer (a text ranked among the replies "
                "to one message), its items never meet again and cannot be ranked together.")
    if blank.size:
        raise PreferenceFormatError("The item is blank on this row.", row=int(line[blank[0]]),
                                    column=column_label(header, item_col),
                                    fix="Fill in the item's name or delete the row.")
    measured = reads_smaller_first(header[rank_col], options)
    out = is_out_mark(cells[:, rank_col]) if results else np.zeros(len(line), dtype=bool)
    if out.all():
        out = np.zeros(len(line), dtype=bool)  # nobody finished: refused as written
    rank = np.full(len(line), np.inf if options.one_is_best else -np.inf)
    rank[~out] = _ranks(cells[~out, rank_col], line[~out], column_label(header, rank_col),
                        whole=options.one_is_best and not measured, smaller=measured,
                        timed=timed)
    if out.any():  # did not finish, disqualified ...: below every finisher, tied
        written = quote_list(pd.unique(cells[out, rank_col]), 3)
        notes.append(f"{plural(int(out.sum()), 'row')} marked out of the event ({written}) "
                     "placed below every finisher of their ranking, tied")
    if timed:
        notes += _written_numbers_note(cells[:, rank_col], column_label(header, rank_col))
    if "ranker" in roles:  # look-alike spellings of one ranker name one ranking
        tidied, note = tidy_cells(cells[:, roles["ranker"]], "ranker name")
        if note:
            cells = cells.copy()
            cells[:, roles["ranker"]] = tidied
            notes.append(note)
    joined = cells[:, keys[0]]
    for j in keys[1:]:
        joined = joined + "\x00" + cells[:, j]
    key, _ = factorize(joined)
    item, item_names = factorize(items)
    splits = [j for j in range(cells.shape[1]) if j not in (item_col, rank_col, *keys)
              and j != roles.get("weight") and header[j]]
    _long_duplicates(key, item, item_names, line, column_label(header, item_col),
                     {column_label(header, j): cells[:, j] for j in splits})
    if options.list_columns is None:  # the ranking columns were found, not chosen
        _refuse_hidden_groups(header, cells, key, rank, splits, line, keys,
                              column_label(header, item_col), column_label(header, rank_col))
    if timed and options.one_is_best:
        _refuse_gaps_after_the_winner(key, rank, line, column_label(header, rank_col))
    if not options.one_is_best:
        rank = -rank
    n_lists = int(key.max()) + 1
    first_row = np.unique(key, return_index=True)[1]
    weights = None
    if "weight" in roles:
        weight_col = roles["weight"]
        row_weights = parse_weights(cells[:, weight_col], line, column_label(header, weight_col))
        differs = np.flatnonzero(row_weights != row_weights[first_row][key])
        if differs.size:
            i = int(differs[0])
            raise PreferenceFormatError(
                f"The weight '{cells[i, weight_col]}' differs from the weight "
                f"'{cells[first_row[key[i]], weight_col]}' given on row "
                f"{line[first_row[key[i]]]} for the same ranking.", row=int(line[i]),
                column=column_label(header, weight_col),
                fix="Give every row of one ranking the same weight.")
        weights = row_weights[first_row]
    order = np.lexsort((np.arange(key.size), rank, key))
    key_s, rank_s = key[order], rank[order]
    start = np.r_[True, key_s[1:] != key_s[:-1]]
    steps = np.cumsum(~start & np.r_[False, rank_s[1:] != rank_s[:-1]])
    group = steps - np.repeat(steps[start], np.bincount(key_s, minlength=n_lists))
    rankers = cells[first_row, roles["ranker"]] if "ranker" in roles else None
    notes = ignored_note(header, {item_col, rank_col, *keys, roles.get("weight", -1)}) + notes
    return assemble(key_s, group, item[order], n_lists, item_names, line[first_row],
                     rankers=rankers, ranker_column=column_label(header, roles.get("ranker", 0)),
                     weights=weights, notes=notes, unit="ranking")


#: Words of a column title naming a group that is ranked on its own within an event.
_GROUP_WORDS = frozenset({"pool", "pools", "room", "group", "flight", "division", "bracket",
                          "court", "section", "panel", "poule", "chamber", "table"})


def _without_summary_rankers(cells: np.ndarray, line: np.ndarray, ranker: int,
                             header: Sequence[str], notes: list[str]
                             ) -> tuple[np.ndarray, np.ndarray]:
    """The rows without those whose ranker is a summary of the others (``Average`` between
    the judges' rows, ``Rank sum``), beside two rankers or more, noted as skipped."""
    # a judge's initials ('SD', 'N') are no 'sd' or 'n' summing up the others
    summary = summary_label(cells[:, ranker]) & (np.char.str_len(
        np.char.strip(cells[:, ranker].astype(str))) >= 4)
    if not summary.any() or len(pd.unique(cells[~summary, ranker])) < 2:
        return cells, line
    shown = quote_list(pd.unique(cells[summary, ranker]), 3)
    notes.append(skipped_note(line[summary], "row", f"whose '{column_label(header, ranker)}' "
                              f"is {shown}, a summary of the others, not one of them"))
    return cells[~summary], line[~summary]


def _refuse_counted_games(header: Sequence[str], roles: dict[str, int], cells: np.ndarray,
                          options: ReadOptions, lines: Sequence[int] | np.ndarray) -> None:
    """Refuse a ``Games`` column of whole numbers, most of them different, taken as the event
    that tells rankings apart: it counts each player's games (a rating list), it names no
    event (the years of Olympic Games, each shared by its competitors, are events)."""
    j = roles.get("list")
    if options.list_columns is not None or j is None or normalise(header[j]) != "games":
        return
    values = cells[:, j].astype(str)
    # an event's number or year is shared by its competitors' rows; counts differ row by row
    if values.size and bool(np.char.isdigit(values).all()) \
            and 2 * len(set(values.tolist())) > values.size \
            and not all(len(v) == 4 and 1800 <= int(v) <= 2100 for v in values):
        raise PreferenceFormatError(
            f"The column '{column_label(header, j)}' would tell one ranking from another, but "
            "it holds whole numbers: how many games each player played, not which event.",
            row=int(lines[0]), column=column_label(header, j),
            fix="Choose the column that tells rankings apart (a date, a round, a tournament) "
                "as the ranking column (--lists COLUMN), or load a rating list as the ground "
                "truth.")


def _refuse_gaps_after_the_winner(key: np.ndarray, time: np.ndarray, line: np.ndarray,
                                  column: str) -> None:
    """Refuse times where one row of each ranking holds the winner's whole time and the
    other rows only the gaps behind it (``4:32:10``, then ``0:00``, ``+0:12``), as cycling
    results write them: read as times, the winners would come last."""
    frame = pd.DataFrame({"key": key, "time": time, "row": np.arange(key.size)}).replace(
        [np.inf, -np.inf], np.nan).dropna(subset=["time"])
    frame = frame.sort_values(["key", "time"], ascending=[True, False], kind="stable")
    top = frame.groupby("key", sort=False).nth(0).set_index("key")
    second = frame.groupby("key", sort=False).nth(1).set_index("key")["time"]
    both = top.join(second.rename("next"), how="inner")
    if both.empty:
        return
    gaps = (both["time"] > 10 * both["next"].clip(lower=1e-9)) & (both["time"] > 60)
    if gaps.mean() < 0.5:
        return
    example = int(line[int(both["row"][gaps].iloc[0])])
    raise PreferenceFormatError(
        f"In '{column}', one row of each ranking holds a much longer time than every other "
        "row: it looks like the winner's whole time and the others like gaps behind the "
        "winner, and read as times the winners would come last.", row=example,
        column=column,
        fix=f"Write every rider's whole time in '{column}' (the winner's time plus the gap), "
            "or their places in a 'Place' column, and load the file again.")


def _refuse_hidden_groups(header: Sequence[str], cells: np.ndarray, key: np.ndarray,
                          rank: np.ndarray, columns: Sequence[int], line: np.ndarray,
                          keys: Sequence[int], item_title: str, rank_title: str) -> None:
    """Refuse rankings whose places repeat once per value of a column left out of the
    ranking's key (``Round, Pool, Fencer, Place``: each pool of a round has its own 1st,
    2nd and 3rd): read one ranking per round, the pools' winners would be tied although
    they never met. The column is named with the fix of choosing it too."""
    from .content import title_words

    places = pd.Series(rank).where(np.isfinite(rank))
    for j in columns:
        # a pool, a room, a heat: a role or a side (partners sharing a place) splits nothing
        if not (is_event_title(header[j]) or _GROUP_WORDS & set(title_words(header[j]))):
            continue
        frame = pd.DataFrame({"key": key, "group": cells[:, j], "place": places})
        frame = frame[frame["place"].notna() & (frame["group"] != "")]
        if frame.empty or frame.duplicated(["key", "group", "place"]).any():
            continue  # a place twice within one group: ties, not groups of their own
        if not frame.duplicated(["key", "place"]).any():
            continue  # no place repeats within a ranking: nothing is hidden
        groups = frame.groupby("key")["group"].nunique()
        split = groups.index[groups >= 2]
        if split.empty:
            continue
        inside = frame[frame["key"].isin(split)]
        sets = inside.groupby(["key", "group"])["place"].agg(lambda v: tuple(sorted(v)))
        firsts = sets.map(lambda v: v[0]).groupby(level=0).nunique()
        if sets.map(len).min() < 2 or firsts.max() > 1:
            continue  # the groups do not each start from the same first place
        title = column_label(header, j)
        chosen = [column_label(header, k) for k in keys]
        first = int(line[int(np.flatnonzero(key == split[0])[0])])
        raise PreferenceFormatError(
            f"In each ranking told apart by {quote_list(chosen)}, the places repeat once per "
            f"'{title}' (the first holds {quote_list([f'{abs(v):g}' for v in sets.iloc[0]], 4)}): "
            f"each '{title}' looks like "
            "a ranking of its own, and read together its winners would be tied although "
            "they may never have met.", row=first, column=title,
            fix=f"Choose the layout 'long rankings', the item columns '{item_title}' then "
                f"'{rank_title}', and {quote_list([*chosen, title])} together as the columns "
                "that tell rankings apart (on the command line: --format long --items "
                f"{shlex.quote(item_title)} {shlex.quote(rank_title)} --lists "
                f"{' '.join(shlex.quote(c) for c in [*chosen, title])}).")


#: Marks of a competitor out of an event before its end, in a place or time column: missed
#: the cut, withdrew, disqualified, did not finish or start, retired, not classified, no
#: valid mark or height in a field event (``NM``, ``NH``), a missed control (orienteering's
#: ``mp``).
OUT_MARKS = frozenset({"cut", "mc", "wd", "w/d", "dq", "dsq", "disq", "dnf", "ret", "r", "nc",
                       "elim", "abd", "retired", "disqualified", "didnotfinish", "nm", "nh",
                       "mp", "mispunch", "mispunched",
                       # sailing: on the course side, flag disqualifications, not scored
                       "ocs", "bfd", "ufd", "raf", "nsc", "dne", "dgm"})
#: Marks of a competitor who never took part: not placed at all.
ABSENT_MARKS = frozenset({"dns", "dnq", "dnp", "didnotstart", "ns", "noshow", "scr",
                          "scratch", "dnc"})


def _marked(values: np.ndarray, marks: frozenset[str]) -> np.ndarray:
    """Which cells hold one of ``marks``, in any case, spaces and dots left out."""
    return per_distinct(values, lambda text: _SPACES_AND_DOTS.sub("", text.strip().lower())
                        in marks, bool)


_SPACES_AND_DOTS = re.compile(r"[\s.]+")


def is_out_mark(values: np.ndarray) -> np.ndarray:
    """Which cells mark a competitor out of the event (:data:`OUT_MARKS`, any case)."""
    return _marked(values, OUT_MARKS)


def is_absent_mark(values: np.ndarray) -> np.ndarray:
    """Which cells mark a competitor who did not start (:data:`ABSENT_MARKS`, any case)."""
    return _marked(values, ABSENT_MARKS)


#: Titles of a column where a result's place is written, or its mark instead (``DQ``).
_RESULT_TITLES = frozenset({"result", "results", "mark", "status", "finish", "score",
                            "points", "pts", "total"})


#: Titles of a column of each competitor's state at the end (``OK``, ``DNF``, ``DSQ``),
#: whose mark stands over the time or place written beside it.
_STATUS_TITLES = frozenset({"status", "finishstatus", "racestatus", "resultstatus"})


def marked_in_row(cells: np.ndarray, place: int, header: Sequence[str]) -> np.ndarray:
    """``cells`` with a blank ``place`` given the mark of the event that a result's cell of
    its row holds (swimming results leave the place blank and write ``DQ`` or ``NS`` as the
    time): the competitor is then out of the event, or did not start, as if so placed.
    Only columns of results are looked at (a time, ``Result``, ``Status``), never a state
    (``NC``, ``NS``) or a hand (``R``). A ``Status`` column's mark is taken even where the
    place or time is written: a runner who did not finish has the split where they stopped."""
    blank = cells[:, place] == ""
    states = [k for k in range(min(cells.shape[1], len(header)))
              if k != place and normalise(header[k]) in _STATUS_TITLES]
    if not blank.any() and not states:
        return cells
    cells = cells.copy()
    for k in range(min(cells.shape[1], len(header))):
        if k == place or not (lower_is_better_words(header[k])
                              or normalise(header[k]) in _RESULT_TITLES):
            continue
        # a status column's mark stands over a time or place beside it (a DNF's split)
        found = (blank | (k in states)) & is_event_mark(cells[:, k])
        cells[found, place] = cells[found, k]
        blank &= ~found
    return cells


def is_event_mark(values: np.ndarray) -> np.ndarray:
    """Which cells mark a competitor out of the event or not starting (either set)."""
    return _marked(values, OUT_MARKS | ABSENT_MARKS)


#: Golf's even par, written in a column of scores to par: 0.
_EVEN_PAR = frozenset({"e", "even", "evenpar"})
_PAR_WORDS = frozenset({"par", "topar", "overpar"})


def smaller_better_numbers(values: np.ndarray, title: str) -> np.ndarray:
    """The numbers of a column titled ``title`` whose title says a smaller number is better:
    plain numbers, times on a clock in seconds (``1:02.35`` is 62.35), and, where the title
    names par (``To Par``), golf's even par (``E``) as 0; NaN in any other cell. A number
    written with a plus sign is a gap behind the leader (``+5.478``), not a time, count or
    score of its own, unless the title names par (``+2`` over par): NaN there too."""
    values = np.asarray(values, dtype=object)
    numbers = parse_numbers(values)
    if not names_par(title):
        numbers[is_gap(values)] = np.nan
    written = np.isnan(numbers)
    if written.any():
        numbers[written] = parse_durations(values[written])
        written = np.isnan(numbers)
    if written.any():
        numbers[np.flatnonzero(written)[_even_par(values[written], title)]] = 0.0
    return numbers


def is_gap(values: np.ndarray) -> np.ndarray:
    """Which cells are written with a leading plus sign (``+5.478``, ``+1 lap``)."""
    return np.asarray(pd.Series(values, dtype=object).astype(str).str.lstrip().str.startswith(
        "+").to_numpy(), dtype=bool)


def names_par(title: str) -> bool:
    """Whether a column's title names golf's par (``To Par``, ``overpar``)."""
    return bool(_PAR_WORDS & set(lower_is_better_words(title)))


def _even_par(values: np.ndarray, title: str) -> np.ndarray:
    """Which cells are golf's even par (``E``, ``Even``), under a title that names par."""
    if not names_par(title):
        return np.zeros(len(values), dtype=bool)
    codes, unique = factorize(values)
    even = np.array([normalise(str(u)) in _EVEN_PAR for u in unique], dtype=bool)
    return np.asarray(even[codes], dtype=bool) if len(unique) else np.zeros(0, dtype=bool)


def _written_numbers_note(values: np.ndarray, column: str) -> list[str]:
    """What a smaller-is-better column held besides plain numbers, as read: times on a
    clock in seconds, golf's even par as 0 (:func:`smaller_better_numbers`)."""
    values = np.asarray(values, dtype=object)
    plain = np.isfinite(parse_numbers(values))
    durations = parse_durations(values)
    clocks = np.flatnonzero(~plain & np.isfinite(durations))
    even = np.flatnonzero(~plain & np.isnan(durations) & _even_par(values, column))
    parts = []
    if clocks.size:
        parts.append(f"times on a clock are read in seconds ('{str(values[clocks[0]]).strip()}'"
                     f" is {durations[clocks[0]]:g} s)")
    if even.size:
        parts.append(f"'{str(values[even[0]]).strip()}' is even par, 0")
    return [f"In '{column}', {' and '.join(parts)}"] if parts else []


def _ranks(values: np.ndarray, lines: np.ndarray, column: str,
           whole: bool = True, smaller: bool = False, timed: bool = False) -> np.ndarray:
    """The rank column's numbers: whole ranks from 1 (1 the best), or with ``whole=False``
    any numbers, as grades and scores are (0 to 10): larger is better (1 is the worst), or
    with ``smaller`` a smaller number is better. Under a title that says a smaller number
    is better (``timed``: times, strokes, par) a time on a clock, ``1:02.35``, is read in
    seconds and golf's even par as 0, whichever way up."""
    numbers = smaller_better_numbers(values, column) if timed else parse_numbers(values)
    written = np.isnan(numbers)
    if written.any():  # places written out: '1st', 'First choice', 'Rank 2', shared 'T2', '=1'
        places = tied_rank_values(values[written])
        numbers[written] = np.where(places >= 1, places, np.nan)
    if not whole:
        bad = np.flatnonzero(~np.isfinite(numbers))
        if bad.size:
            i = int(bad[0])
            found = shown_cell(values[i])
            reason = ("The rank column is read as numbers, a smaller one better (a time, a "
                      "count, a grade)" if smaller else
                      "With 1 the worst (--one-is-worst), the rank column holds numbers "
                      "where larger is better")
            raise PreferenceFormatError(
                f"{reason}, but this row has {found}.", row=int(lines[i]),
                column=column, fix="Write a number (a grade or score), or delete the row.")
        return numbers
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers >= 1) & (numbers == np.floor(numbers))))
    huge = np.flatnonzero(np.isfinite(numbers) & (numbers >= 2 ** 53))
    if huge.size:
        i = int(huge[0])
        raise PreferenceFormatError(
            f"The rank '{values[i][:20]}' is too large to tell apart from its neighbours.",
            row=int(lines[i]), column=column,
            fix="Write ranks as small whole numbers: 1 for the best, 2 for the next ...")
    if bad.size:
        i = int(bad[0])
        found = shown_cell(values[i])
        raise PreferenceFormatError(
            f"The rank must be a whole number, 1 or more (1 = best), but this row has {found}.",
            row=int(lines[i]), column=column,
            fix="Write the item's position in the ranking: 1 for the best, 2 for the next ...")
    return numbers


def _long_duplicates(key: np.ndarray, item: np.ndarray, item_names: Sequence[str],
                     lines: np.ndarray, column: str,
                     others: dict[str, np.ndarray] | None = None) -> None:
    """Refuse an item twice in one ranking; where another column (``others``, by title)
    would keep every such pair apart (a prompt, a task), the fix names it (``--lists``)."""
    n_items = max(len(item_names), 1)
    repeat = first_repeat(key.astype(np.int64) * n_items + item)
    if repeat is None:
        return
    first, second = repeat
    fix = "Each item may appear only once per ranking; give tied items the same rank."
    for title, values in (others or {}).items():
        codes, uniques = factorize(values)
        split = (key.astype(np.int64) * len(uniques) + codes) * n_items + item
        if len(uniques) > 1 and first_repeat(split) is None:
            fix = (f"If '{title}' tells one ranking from another (a prompt, a task), choose it "
                   "among the 'Columns that together tell one ranking from another' (in the "
                   f"command line: --lists {shlex.quote(title)}). Otherwise: {fix[0].lower()}"
                   f"{fix[1:]}")
            break
    raise PreferenceFormatError(
        f"The item '{item_names[item[second]]}' appears twice in the same ranking: on rows "
        f"{lines[first]} and {lines[second]}.", row=int(lines[second]), column=column, fix=fix)


