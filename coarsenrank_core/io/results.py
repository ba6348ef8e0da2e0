"""Results tables: one row per competitor and event (a heat, a round), one ranking per event."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from .assembly import first_repeat, parse_numbers
from .collection import ONE_RESULTS_LIST
from .columns import (
    COMPETITOR_WORDS,
    PREFERENCE_ROLES,
    column_label,
    find_roles,
    is_event_title,
    lower_is_better_words,
    normalise,
    quote_list,
    role_base,
    shown_cell,
    title_words,
    without_weak_events,
)
from .grades import column_kind, command_file, is_judge, long_choice
from .long import is_event_mark, is_gap, marked_in_row, names_par, smaller_better_numbers
from .options import ReadOptions
from .survey import rank_values, tied_rank_values
from .tables import Table

__all__ = ["ResultsPlan", "results_plan"]

#: Titles of a results column where a higher number is better, besides those of a grade
#: (``score``, ``points``, ``rating`` ...): counts of what a competitor won.
_HIGHER_TITLES = frozenset({"votes", "goals", "wins", "medals", "kills", "tricks"})
#: Titles of a results column of places, besides ``rank``, ``place`` and ``position``.
_PLACE_TITLES = frozenset({"pos", "posn", "rk", "rnk", "plc", "placing", "placement", "placed",
                           "standing", "finish", "fin", "finishpos", "finishposition",
                           "finishingposition", "finishingplace", "finalposition",
                           "finishplace", "finalplace", "finalrank", "finalstanding",
                           "overallplace", "overallrank", "overallposition", "overallpos",
                           "positionorder", "classification", "classified"})
#: Competitor titles naming what a competitor rides or races for (``Team``, ``Car``): beside
#: one naming the competitor (``Rider``, ``Driver``), that one is ranked.
_SIDE_OF_COMPETITOR = frozenset({"team", "constructor", "manufacturer", "car", "boat", "crew",
                                 "squad"})
#: Competitors who race for a team or in a vehicle: beside it, the one ranked. (A player's
#: team may be what a match ranks.)
_RACERS = frozenset({"rider", "driver", "cyclist", "jockey", "pilot", "racer", "sailor",
                     "helm", "helmsman", "helmsperson", "skipper",
                     "rower", "skier", "skater", "swimmer", "runner", "athlete"})
#: Every title of a column of places: the long files' ``rank`` words and :data:`_PLACE_TITLES`.
_PLACES = PREFERENCE_ROLES["rank"] | _PLACE_TITLES
#: The kinds of number column whose title says which way up the numbers go.
_DIRECTED = ("rank", "higher", "lower")
#: Titles that name a person without saying who they are: in a results table (an event and
#: a column of places, times or scores won) the competitor, though a survey's ``Name`` is
#: its rater.
_PLAIN_NAMES = frozenset({"name", "names", "fullname", "person"})
#: Titles naming who took part: a rater in a survey, but in a results table, named once per
#: event beside a place, time or points, the competitor.
_PEOPLE = frozenset({"student", "studentname", "participant", "participantname", "user",
                     "username", "pupil", "member", "membername"})

#: Titles of a column counting the laps a competitor completed: in a race, more laps finish
#: ahead of fewer whatever the time.
_LAP_COUNTS = frozenset({"laps", "lapscompleted", "completedlaps", "lapcount", "nlaps",
                         "numberoflaps", "lapsdone", "tours", "runden"})
#: Words of a score column's title that make it a judgment of the thing scored (``rating``,
#: ``stars``), which a rater gives, not a result a competitor achieves.
_JUDGMENT_WORDS = ("rating", "ratings", "stars", "star")


#: A normalised title naming one of several numbered events or judges: ``Race 1``, ``R2``,
#: ``Judge 3``, ``J4``, ``Round 5``.
_NUMBERED_EVENT = re.compile(r"(?:race|round|r|game|g|match|heat|stage|leg|event|week|"
                             r"judge|j|rater|marker)#?\d{1,3}")


def _refuse_one_standings(body: np.ndarray, header: Sequence[str], keys: Sequence[str],
                          lines: np.ndarray) -> None:
    """Refuse a single results list or standings table (``Place, Name, Time``; ``Rank,
    TeamName, Score``): a column of places from 1 beside one naming each competitor once,
    and no event column, hold one ranking, and there is nothing to aggregate."""
    if len(body) < 2:
        return
    places = [j for j, k in enumerate(keys)
              if k in _PLACES and j < body.shape[1]]
    names = [j for j, k in enumerate(keys) if j < body.shape[1] and j not in places and (
        k in _PLAIN_NAMES | _PEOPLE or role_base(k, COMPETITOR_WORDS) is not None)
        and (body[:, j] != "").all() and pd.Series(body[:, j], dtype=object).is_unique]
    raters = [j for j, k in enumerate(keys) if j < body.shape[1] and (
        is_judge(k) or find_roles([header[j]], PREFERENCE_ROLES).get("list") == 0)]
    # numbered events or judges ('Race 1', 'R2', 'Judge 3') beside the places: many rankings
    if not places or not names or raters or (any(_NUMBERED_EVENT.fullmatch(k) for k in keys)
                                              and not _golf(header, names[0], body)):
        return  # (a golfer's rounds are no events)
    names.sort(key=lambda j: (role_base(keys[j], COMPETITOR_WORDS) or ("", 1))[1])
    ranks = tied_rank_values(body[:, places[0]])
    if (ranks >= 1).mean() < 0.5 or np.nanmin(np.where(ranks >= 1, ranks, np.nan)) != 1:
        return
    raise PreferenceFormatError(
        f"{ONE_RESULTS_LIST} or standings table "
        f"('{header[names[0]]}' ordered by '{header[places[0]]}'), with no column naming the "
        "event (race, round, game) each row belongs to, so there is nothing to aggregate.",
        row=int(lines[0]),
        fix="Load it as the ground truth (the optional true-order upload, or --truth) to "
            "score the methods against it, or put several events' results in one file with "
            "a column naming the event ('race', 'round').")


def refuse_one_results_list(table: Table) -> None:
    """Refuse a table that is one results list or standings (a place column beside one
    naming each competitor once, and no event column), whatever layout it was detected as:
    read across, its figures would be taken for rankings of them."""
    if len(table) < 3:
        return
    header = table.row(0)
    if any(is_event_title(c) for c in header):
        return
    body = table.cells[1:, :len(header)]
    _refuse_one_standings(body, header, [normalise(c) for c in header], table.lines)


def _achieved(title: str) -> bool:
    """Whether a number column's title names a result a competitor achieved: a place, a
    time or count where smaller is better, or a score or points that are not a rating."""
    kind = _measure_kind(title)
    return kind in ("rank", "lower") or (
        kind == "higher" and not any(w in normalise(title) for w in _JUDGMENT_WORDS))


def _how(kind: str | None) -> str:
    """Which way up a number column of ``kind`` goes, as the messages say it."""
    return {"rank": "1 the best", "lower": "a lower number better"}.get(
        kind or "", "a higher number better")


#: Words of a penalty taken off a result: beside another number column (a skater's total
#: score and its deductions) such a column is a part of the result, not the result.
_PENALTY_WORDS = frozenset({"penalty", "penalties", "deduction", "deductions", "deducted"})


def _only_penalty(title: str) -> bool:
    """Whether the only words of ``title`` saying a smaller number is better name a penalty."""
    words = set(lower_is_better_words(title))
    return bool(words) and words <= _PENALTY_WORDS


#: Titles of a golf score that counts strokes (besides ``strokes`` and ``golf_score``).
_STROKE_TITLES = frozenset({"score", "scores", "total", "totalscore", "finalscore", "gross",
                            "net"})


def _golf(header: Sequence[str], competitor: int, body: np.ndarray | None = None) -> bool:
    """Whether a results table is golf's: its competitors are golfers, a column counts
    strokes to par (``To Par``), beside which a plain score is the strokes taken, or two to
    four round columns (``R1``, ``Round 2``) hold the 55 to 95 whole strokes of a round of
    golf beside a score written with its sign (``-20``)."""
    if "golf" in normalise(header[competitor]) or any(map(names_par, header)):
        return True
    if body is None:
        return False
    rounds = [j for j, t in enumerate(header) if j < body.shape[1]
              and _ROUND_COLUMN.fullmatch(t.strip())]
    if not 2 <= len(rounds) <= 4:
        return False
    strokes = parse_numbers(body[:, rounds][body[:, rounds] != ""])
    written = np.isfinite(strokes)  # rounds not played after a cut or a withdrawal
    if written.sum() * 2 < strokes.size:
        return False
    strokes = strokes[written]
    if not strokes.size or not ((strokes >= 55) & (strokes <= 95)
                                & (strokes == np.round(strokes))).all():
        return False
    # and a score to par beside them, written with its sign ('-20', '+3'): a dive's or a
    # shooting series' points fall in that range too, but their score is never signed
    scores = [j for j, t in enumerate(header) if j < body.shape[1]
              and (normalise(t) in _STROKE_TITLES or names_par(t))]
    if not scores:
        return False
    signed = pd.Series(body[:, scores].ravel(), dtype=object).astype(str).str.fullmatch(
        r"\s*[-+]\d{1,2}\s*")
    return bool(signed.any())


_ROUND_COLUMN = re.compile(r"(?:r|rd|round)\s*\d", re.IGNORECASE)


#: A mark brought to the event rather than made in it: a seed or entry time, a personal or
#: season best (``Seed Time``, ``PB``, ``SB``). ``_READING``: a reading taken beside the
#: result, a sprinter's reaction time or the wind, never the measure beside another one.
_BROUGHT = re.compile(r"(?:seed(?:ed)?(?:\s*(?:time|mark))?|entry\s*(?:time|mark)|pb|sb|"
                      r"personal\s*best|season(?:'?s)?\s*best)(?:\s*\(.*\))?",
                      re.IGNORECASE)
_READING = re.compile(r"(?:react(?:ion)?(?:\s*time)?|rt|wind(?:\s*speed)?)(?:\s*\(.*\))?",
                      re.IGNORECASE)


def _measure_kind(title: str) -> str | None:
    """``"rank"``, ``"higher"``, ``"lower"``, ``"grade"`` (direction unknown) or None (also
    for a mark brought to the event, such as a seed time)."""
    if _BROUGHT.fullmatch(title.strip()):
        return None
    kind = column_kind(title)
    if kind is None and normalise(title) in _HIGHER_TITLES:
        return "higher"
    if kind is None and normalise(title) in _PLACE_TITLES:
        return "rank"
    return kind


@dataclass(frozen=True)
class ResultsPlan:
    """How a results table is read: its columns and the direction of its numbers.

    Attributes
    ----------
    event, item, measure : str
        The titles of the event's, the competitor's and the ordering number's columns.
    higher_is_better : bool
        Whether a higher number is better (False: 1 or the smallest number is the best).
    no_count : bool
        Whether a column the long reader would take as the count is set aside (a per-row id
        it would take as the ranker always is).
    note : str
        What was read, and the choice that reads the file the other way up.
    lists : tuple of str
        The event columns that together name one event (a round and its heat), when there
        are several; empty when the one event column is found by the long reader itself.
    """

    event: str
    item: str
    measure: str
    higher_is_better: bool
    no_count: bool
    note: str
    lists: tuple[str, ...] = ()

    def options(self, options: ReadOptions) -> ReadOptions:
        """``options`` with this plan's columns and direction.

        Parameters
        ----------
        options : ReadOptions
            The options the file is read with.

        Returns
        -------
        ReadOptions
            The item then the number column as item columns, no ranker, the event
            columns as ranking columns when there are several, and 1 the worst when a
            higher number is better.
        """
        return replace(options, item_columns=(self.item, self.measure), ranker_column="",
                       count_column="" if self.no_count else options.count_column,
                       one_is_best=not self.higher_is_better,
                       list_columns=self.lists or options.list_columns)


def _readable(cells: np.ndarray, kind: str | None, title: str) -> np.ndarray:
    """Whether each cell is a number the long reader takes (a place written out, ``1st``,
    too, under a rank title; a time on a clock, or even par under a par title, under a
    title saying smaller is better), or a mark of a competitor out of the event (``DNF``),
    which it places below every finisher."""
    out = is_event_mark(cells) if kind in _DIRECTED else np.zeros(len(cells), dtype=bool)
    if kind == "lower":
        return np.asarray(np.isfinite(smaller_better_numbers(cells, title)) | out, dtype=bool)
    ok = np.isfinite(parse_numbers(cells)) | out
    if kind == "rank":
        ok |= tied_rank_values(cells) >= 1
    return np.asarray(ok, dtype=bool)


def results_plan(table: Table, file_name: str | None = None,
                 options: ReadOptions | None = None) -> ResultsPlan | None:
    """The plan to read ``table`` as a results table, or None when it is not that layout.

    The rule, on the first row's titles and the cells below:

    - one column names the event in which items were ranked
      (:func:`~coarsenrank_core.io.columns.is_event_title`: ``round``, ``heat``, ``race``,
      ``game``, ``match``, ``event``, ``stage``, ``leg``, ``contest``, ``competition``,
      ``week``, ``day``, ``session`` ..., also with an id, number or name ending); two or
      more such columns name one event together (a heat of a round, ``round / heat``), the
      long reader then told them as its ranking columns;
    - one column names the competitors (:data:`~coarsenrank_core.io.columns.COMPETITOR_WORDS`:
      ``player``, ``athlete``, ``runner``, ``team``, ``driver``, ``item`` ..., also
      ``player_name`` or ``Driver ID``, a name before an id) and holds each one once per
      event (of several such columns, the one that does);
    - one number column says which way up it goes: a place or rank (``rank``, ``place``,
      ``position``: 1 the best), a title whose words say a smaller number is better
      (:func:`~coarsenrank_core.io.columns.lower_is_better_words`: ``time``, ``strokes``,
      ``errors``, ``penalty`` ...), or a score (``score``, ``points``, ``rating``, ``goals``,
      ``votes`` ...: higher is better); of several, the one telling most competitors
      apart, when none orders two competitors of one event the other way where both hold a
      number (a place beside points, blank outside the scorers); other number columns (a
      lane, a bib) are left out;
    - no other column names a person who ranked (a rater, a judge: the grade reader's
      layout) or a ranking (``task``, ``question``), and none is a pairwise one.

    Each event is then one ranking, equal numbers tied, and the note says which column
    ordered the items, which way, and the choice that reads it the other way up.

    Parameters
    ----------
    table : Table
        The file's rows, the first holding the titles.
    file_name : str, optional
        The file's name, for the command line the messages give.
    options : ReadOptions, optional
        The user's corrections; a choice of item or ranker column turns the rule off, and
        chosen ranking columns are its events.

    Returns
    -------
    ResultsPlan or None
        How to read the table, or None when the rule does not find a results table.

    Raises
    ------
    PreferenceFormatError
        When the titles name an event and competitors but the table cannot be read as
        one ranking per event: event columns whose cells join alike (``1 / 2`` and ``3``
        against ``1`` and ``2 / 3``), every event one row, two columns that
        could each name the competitors, a competitor twice in one event, no number column
        whose title says which way up it goes, or several that do and disagree (or none of
        them filled in on every row), or a cell of the one
        that does which is no number (``DNF``, ``1:02.35``); also an event, one column of
        names under a title not known as competitors (``Club``) and one such number
        column. The message names the row or columns and the choice that reads the file.
    """
    options = options or ReadOptions()
    if len(table) < 3 or options.item_columns is not None or options.ranker_column is not None:
        return None
    file = command_file(file_name, options.sheet)
    header = table.row(0)
    width = len(header)
    if width < 3:
        return None
    chosen = options.list_columns
    titles = [column_label(header, j) for j in range(width)]
    if chosen is not None and (not chosen or any(c not in titles for c in chosen)):
        return None  # the long reader names what is wrong with the choice
    body = table.cells[1:, :width]
    keys = [normalise(c) for c in header]
    # 'Games' names the Olympic Games, but beside places that never repeat (one standings
    # list) a column of whole numbers under it counts the games each played
    single = any(k in _PLACES and j < body.shape[1]
                 and pd.Series(body[:, j], dtype=object).is_unique for j, k in enumerate(keys))
    # and so it does beside another event (a monthly rating list's 'Month')
    other_event = any(is_event_title(c) and normalise(c) != "games" for c in header)
    counted = {j for j in range(min(width, body.shape[1])) if keys[j] == "games"
               and (single or other_event)
               and pd.Series(body[:, j], dtype=object).str.fullmatch(r"\d{0,3}").all()}
    if chosen is None and not any(is_event_title(c) and j not in counted
                                  for j, c in enumerate(header)):
        _refuse_one_standings(body, header, keys, table.lines)
        return None
    filled = [j for j in range(body.shape[1]) if (body[:, j] != "").any()]
    if any(not keys[j] for j in filled) or len({keys[j] for j in filled}) < len(filled):
        return None
    events = ([titles.index(c) for c in chosen] if chosen is not None else
              [j for j in filled if is_event_title(header[j]) and j not in counted])
    if chosen is None:
        # a race's 'Month' says when it was held, beside the event that splits the rankings
        events = without_weak_events(events, keys)
    roles = find_roles(header, PREFERENCE_ROLES)
    if not events or {"winner", "loser", "left", "right"} & roles.keys():
        return None
    unique = {j: bool(pd.Series(body[:, j], dtype=object).is_unique) for j in filled}
    # a plain "Name" beside an event and a result achieved (a heat's times) is the competitor
    in_event = _joined(body[:, events]) + "\x00"
    # and so is a 'Student' or 'Participant' named once per event, where no column names a
    # competitor or an item ('Model'): a rater ranks several
    competitor_titled = any(role_base(keys[j], COMPETITOR_WORDS) is not None
                            for j in filled if j not in events)
    plain_names = {j for j in filled if keys[j] in _PLAIN_NAMES or (
        keys[j] in _PEOPLE and not competitor_titled
        and pd.Series(in_event + body[:, j], dtype=object).is_unique)} \
        if any(_achieved(header[j]) for j in filled if j not in events) else set()
    for j in filled:
        own = find_roles([header[j]], PREFERENCE_ROLES)
        if j in events or j in plain_names:
            continue
        # a bare '#' or id is a rater only if it repeats within an event (a rater ranks two
        # or more of its competitors); never repeated there (a car's '#'), it is the
        # competitor's own number
        rater = (not unique[j] and (is_judge(keys[j]) or own.get("ranker") == 0)
                 and not (keys[j] in ("#", "id")
                          and pd.Series(in_event + body[:, j], dtype=object).is_unique))
        if own.get("list") == 0 or rater:
            return None  # a ranking's or a rater's column: the long and grade readers' layouts
    labels = [column_label(header, j) for j in range(width)]
    titled = [j for j in filled if j not in events
              and (role_base(keys[j], COMPETITOR_WORDS) is not None or j in plain_names)]
    if not titled:
        _refuse_untitled_competitor(body, header, labels, filled, events, file, lines=
                                    table.lines)
        return None
    _refuse_opponents(body, labels, keys, filled, titled[0], table.lines)
    rest = [j for j in filled if j not in events and j not in titled
            and not _BROUGHT.fullmatch(header[j].strip())]  # never the result
    readings = [j for j in rest if _READING.fullmatch(header[j].strip())]
    if readings and len(readings) < len(rest):  # a reaction time only where nothing else is
        rest = [j for j in rest if j not in readings]
    kinds = {j: _measure_kind(header[j]) for j in rest}
    if not any(kinds[j] == "rank" for j in rest):  # Kaggle's '#': 1, 2, 3 … each event
        kinds.update({j: "rank" for j in rest if keys[j] == "#" and _places_in_each(
            body[:, j], in_event) and any(_runs_with_rows(body[:, k], in_event)
                                          for k in rest if k != j and kinds[k] is not None)})
    if _golf(header, titled[0], body):  # a golfer's score or total counts strokes: fewest win
        kinds.update({j: "lower" for j in rest if keys[j] in _STROKE_TITLES})
    readable = {j: _readable(marked_in_row(body, j, header)[:, j], kinds[j], header[j])
                if kinds[j] == "rank" else _readable(body[:, j], kinds[j], header[j])
                for j in rest}
    numbers = [j for j in rest if readable[j].all()]
    if any(kinds[j] not in _DIRECTED for j in numbers):  # a total beside its deductions
        kinds.update({j: None for j in numbers if _only_penalty(header[j])})
    directed = [j for j in rest if kinds[j] in _DIRECTED]  # readable or not
    measures = [j for j in numbers if kinds[j] in _DIRECTED]
    unsaid = [j for j in numbers if kinds[j] not in _DIRECTED]
    broken = [j for j in rest if kinds[j] is not None and not readable[j].all()]
    if not (numbers or broken):
        return None  # no number column: not a results table
    lines = table.lines
    lists: tuple[str, ...] = ()
    measure = labels[measures[0]] if len(measures) == 1 else "NUMBER-COLUMN"
    if len(events) > 1:
        joined = _joined(body[:, events])
        places = [j for j in measures if kinds[j] == "rank"]
        # one value each on every row (a single race's season, round and name): one event
        single = all(len(pd.unique(body[:, j])) == 1 for j in events)
        if single or _joined_apart(body[:, events], joined) and (
                chosen is not None
                or _events_split(body, events[0], joined, [titled[0], *places])
                or _events_each_placed(body, events, joined, places)):
            # one ranking per heat of each round: the events as one column, shown 'R1 / H2'
            lists = tuple(labels[j] for j in events)
            body = np.column_stack([body, joined])
            labels = [*labels, " / ".join(lists)]
            events = [body.shape[1] - 1]
    if not lists and len(events) == 1 and counted:
        lists = (labels[events[0]],)  # named, as the 'Games' counted beside it is no event
    if len(events) > 1:
        named = tuple(labels[j] for j in events)
        worst = len(measures) == 1 and kinds[measures[0]] == "higher"
        raise PreferenceFormatError(
            f"This looks like a results table (competitors in '{labels[titled[0]]}'), but the "
            f"columns {quote_list(named)} each name an event, and nothing in the rows shows "
            "whether they split the rankings together or one of them only describes the "
            "competitors.", row=int(lines[0]),
            fix=f"If they together name one event (a heat of a round), "
                f"{long_choice(file, labels[titled[0]], measure, worst, lists=named)}. If "
                "one "
                "only describes the competitors, delete it and load the file again.")
    event = events[0]
    if not pd.Series(body[:, event], dtype=object).duplicated().any():
        raise PreferenceFormatError(
            f"This looks like a results table ('{labels[event]}', '{labels[titled[0]]}' and "
            f"numbers), but every '{labels[event]}' has one row, so nothing is ranked within "
            "one.", row=int(lines[0]), column=None if lists else labels[event],
            fix=f"A results table needs two or more rows per '{labels[event]}', one per "
                "competitor. If these rows hold each competitor's overall result (a true "
                "order), load the file as the ground truth instead.")
    item = _competitor_column(body, event, titled, keys, labels, lines, measure)
    ranker = "" if "ranker" in roles and roles["ranker"] != item else None
    count = roles.get("weight")
    where = f"one ranking per '{labels[event]}' of the '{labels[item]}' in it"
    agreeing, conflict = [], ""
    if len(directed) > 1 and measures:
        best, conflict = _agreeing_measure(body, event, measures, directed, kinds, labels,
                                           lines)
        if not conflict:
            agreeing = [j for j in directed if j != best]
            measures = [best]
    if len(measures) == 1 and (len(directed) == 1 or agreeing):
        _refuse_signed_score(body[:, measures[0]], kinds[measures[0]], labels[measures[0]],
                             where, list(lines))
        if kinds[measures[0]] == "lower":
            _refuse_out_rows_among_finishers(
                body, agreeing, labels, measures[0], where, list(lines),
                functools.partial(long_choice, file, labels[item], worst=False, ranker=ranker,
                                  lists=lists))
            _refuse_fewer_laps(body, event, [j for j in numbers if keys[j] in _LAP_COUNTS],
                               labels, measures[0], where, list(lines))
        no_count = count is not None and count not in (item, measures[0])
        gaps = any(not readable[j].all() for j in agreeing)
        return _plan(labels, event, item, measures[0],
                     kinds[measures[0]] or "", where, file, ranker, no_count,
                     [labels[j] for j in agreeing], gaps, lists)
    no_count = count is not None and count != item and (not measures or count != measures[0])
    choice = functools.partial(long_choice, file, labels[item], ranker=ranker,
                               no_count=no_count, lists=lists)
    if len(directed) > 1 and measures:
        first, kind = labels[measures[0]], kinds[measures[0]]
        how = _how(kind)
        raise PreferenceFormatError(
            f"This looks like a results table, {where}, but the columns "
            f"{quote_list(labels[j] for j in directed)} each say how the items are ordered"
            + (f", {conflict}" if conflict else
               ", so which one orders them cannot be told") + ".", row=int(lines[0]),
            fix=f"To order them by '{first}' ({how}), {choice(first, kind == 'higher')}. For "
                f"another column, put its title in place of '{first}' (with --one-is-worst "
                "only where a higher number is better); the other columns are then left out.")
    if unsaid and not directed:
        # the example column of the fix: a points column ('Pts', which way up depends on the
        # sport) before the first (a league table's 'Pld')
        pick = next((j for j in unsaid if normalise(header[j]) in ("pts", "pt", "pnts")),
                    unsaid[0])
        first = labels[pick]
        cells = body[:, pick]  # places from 1, or numbers the long reader reads as such
        plain = bool((rank_values(cells) >= 1).all() or np.isfinite(parse_numbers(cells)).all())
        smaller = (f"If a smaller number is better, {choice(first, False)}; "
                   if plain else
                   f"If a smaller number is better, give '{first}' a title that says so "
                   f"('time', 'strokes', 'errors', or '{first} (lower is better)'); ")
        if len(unsaid) > 1:
            reason = (f"the columns {quote_list(labels[j] for j in unsaid)} all hold numbers "
                      "and no title says which one orders them or which way up (a place, a "
                      "time, points)")
            other = (f" For another column, put its title in place of '{first}'; the other "
                     "columns are then left out.")
        else:
            reason = (f"its title does not say whether a higher or a lower number in '{first}' "
                      "is better")
            other = ""
        raise PreferenceFormatError(
            f"This looks like a results table, {where}, but {reason}.", row=int(lines[0]),
            column=first if len(unsaid) == 1 else None,
            fix=f"{smaller}if a higher number is better, {choice(first, True)}.{other}")
    j = directed[0] if directed else broken[0]  # a title says which way, not its cells
    bad = int(np.flatnonzero(~readable[j])[0])
    value = body[bad, j]
    clock = ":" in value and bool(np.isfinite(parse_numbers(
        np.asarray(value.replace(":", ""), dtype=object))))
    timed = kinds[j] == "lower"
    if timed and bool(is_gap(np.asarray([value], dtype=object))[0]):
        raise PreferenceFormatError(
            f"This looks like a results table, {where}, ordered by '{labels[j]}', but this "
            f"row holds {shown_cell(value)}, a gap behind the leader rather than a time of "
            "its own, so it cannot be ordered against the leader's time.",
            row=int(lines[1 + bad]), column=labels[j],
            fix="Write each competitor's own time (the leader's time plus the gap), or "
                "order the rankings by a column of places, then load the file again.")
    why = (f"{shown_cell(value)}, which is not a time on a clock (minutes:seconds with the "
           "seconds below 60, or hours:minutes:seconds)" if clock and timed else
           f"{shown_cell(value)}, written with a colon, which is not read as a number"
           if clock else f"{shown_cell(value)}, not a number")
    fix = ("Write every time as minutes:seconds (such as 1:02.35) or as one number of "
           "seconds (62.35), then load the file again." if clock and timed else
           "Write one number on every row (a time as seconds, such as 62.35 for 1:02.35; "
           "a match score as this competitor's own points), then load the file again."
           if clock else
           "Write a number on every row, or delete the rows without one (a competitor who "
           "did not start or finish is then left out of that event's ranking).")
    raise PreferenceFormatError(
        f"This looks like a results table, {where}, ordered by '{labels[j]}', but this row "
        f"holds {why}.", row=int(lines[1 + bad]), column=labels[j], fix=fix)


def _refuse_out_rows_among_finishers(body: np.ndarray, agreeing: list[int],
                                     labels: list[str], measure: int, where: str,
                                     lines: list[int], choice: Callable[[str], str]
                                     ) -> None:
    """Refuse rows that a place column left out of the ordering marks as out of the event
    (``CUT``, ``WD``, ``DNF``: :data:`~coarsenrank_core.io.long.OUT_MARKS`) while
    ``measure``, a smaller number better, holds a number for them: a golfer who missed the
    cut has a score to par over fewer rounds, which would rank them among those who
    finished. (Points leave such a row last on their own.)"""
    timed = (body[:, measure] != "") & ~is_event_mark(body[:, measure])
    for j in agreeing:
        out = np.flatnonzero(is_event_mark(body[:, j]) & timed)
        if out.size:
            i = int(out[0])
            raise PreferenceFormatError(
                f"This looks like a results table, {where}, ordered by '{labels[measure]}', "
                f"but '{labels[j]}' marks this row {shown_cell(body[i, j])} (not started, or "
                f"out of the event before its end) and '{labels[measure]}' would still rank it "
                "among those who finished.", row=int(lines[1 + i]), column=labels[j],
                fix=f"To order the rankings by '{labels[j]}', which places those out of the "
                    f"event below every finisher and leaves non-starters out, "
                    f"{choice(labels[j])}. Or delete the rows marked out of the event (they "
                    "are then left out of its ranking) and load the file again.")


def _refuse_signed_score(cells: np.ndarray, kind: str | None, title: str, where: str,
                         lines: list[int]) -> None:
    """Refuse a score column (higher better by its title alone) written with signs both
    ways (``+1`` and ``-12``): a difference from a mark, such as golf's score to par, where
    a lower number is better, or a goal difference, where a higher one is."""
    if kind != "higher" or lower_is_better_words(title):
        return
    text = pd.Series(cells, dtype=object).str.strip()
    plus = text.str.match(r"^\+\s*\d").to_numpy(dtype=bool)
    minus = text.str.match(r"^[-−]\s*\d").to_numpy(dtype=bool)
    if plus.any() and minus.any():
        i, k = int(np.flatnonzero(plus)[0]), int(np.flatnonzero(minus)[0])
        raise PreferenceFormatError(
            f"This looks like a results table, {where}, but '{title}' is written with signs "
            f"both ways ({shown_cell(cells[i])} and {shown_cell(cells[k])}): "
            "a difference from a mark, such as a score to par in golf (lower is better) or a "
            "goal difference (higher is better), whose title does not say which way up.",
            row=int(lines[1 + i]), column=title,
            fix=f"Give '{title}' a title that says which way up ('To Par' in golf, or "
                f"'{title} (lower is better)'; 'goal difference' or '{title} (higher is "
                "better)' otherwise), then load the file again.")


def _refuse_fewer_laps(body: np.ndarray, event: int, laps: list[int], labels: list[str],
                       measure: int, where: str, lines: Sequence[int]) -> None:
    """Refuse a race ordered by its total time where a competitor who completed fewer laps
    than another of the same event has the shorter time: fewer laps finish behind more
    whatever the time, so the time cannot order them. A best or fastest lap (qualifying,
    practice) is a time per lap, which fewer laps do not make shorter."""
    if not laps or set(title_words(labels[measure])) & _PER_LAP_WORDS:
        return
    events = pd.Series(body[:, event], dtype=object)
    times = pd.Series(-_goodness(body[:, measure], "lower", labels[measure]))
    for j in laps:
        counts = pd.Series(parse_numbers(body[:, j]))
        table = pd.DataFrame({"event": events, "laps": counts, "time": times})
        levels = (table.groupby(["event", "laps"], sort=True)["time"].max().reset_index()
                  .sort_values(["event", "laps"], ascending=[True, False]))
        # the longest time of those who completed more laps in the same event
        levels["more"] = levels.groupby("event")["time"].cummax().groupby(
            levels["event"]).shift()
        beside = table.merge(levels[["event", "laps", "more"]], on=["event", "laps"],
                             how="left")
        ahead = np.flatnonzero((beside["time"] < beside["more"]).to_numpy())
        if ahead.size:
            row = int(ahead[0])
            raise PreferenceFormatError(
                f"This looks like a results table, {where}, ordered by '{labels[measure]}', "
                f"but this competitor completed fewer '{labels[j]}' ({body[row, j]}) than "
                f"others in the same '{labels[event]}' and has a shorter time than some of "
                "them: fewer laps finish behind more whatever the time, so the time alone "
                "cannot order them.", row=int(lines[1 + row]), column=labels[j],
                fix="Add a column of places (1 for the most laps, equal laps by the shorter "
                    "time) and load the file again, or delete the rows of competitors who "
                    "did not complete the distance (they are then left out of that "
                    "ranking).")


#: Words of a time's title that make it a time per lap, not the time of the whole race.
_PER_LAP_WORDS = frozenset({"best", "fastest", "lap", "split", "average", "avg", "quali",
                            "qualifying", "practice"})


#: Titles of a column naming whom a competitor played in that row's game.
_OPPONENT_TITLES = frozenset({"opponent", "opponents", "opp", "opponentname", "opponentteam",
                              "opponentid", "vs", "versus", "against", "opposition", "rival"})


def _refuse_opponents(body: np.ndarray, labels: list[str], keys: list[str],
                      filled: list[int], competitor: int, lines: np.ndarray) -> None:
    """Refuse a log of games, one row per competitor and game with the opponent named: its
    numbers say who won each game, not how a round's competitors rank against each other."""
    for j in filled:
        if keys[j] in _OPPONENT_TITLES and bool(
                np.isin(body[:, j], body[:, competitor]).mean() >= 0.5):
            raise PreferenceFormatError(
                f"This looks like a log of games: each row names a '{labels[competitor]}' and "
                f"the '{labels[j]}' they played, so its numbers say who won each game, not how "
                "the competitors of one round rank against each other.", row=int(lines[0]),
                column=labels[j],
                fix="Keep one row per game with its two sides and who won ('winner,loser', "
                    "or 'left,right' with the outcome: 1, 0 or 0.5 for a draw) and load it as "
                    "pairwise comparisons; a game written twice, once from each side, is "
                    "then counted twice.")


def _runs_with_rows(cells: np.ndarray, events: np.ndarray) -> bool:
    """Whether the numbers of ``cells`` rise, or fall, down the rows of each event (ties
    aside): the rows stand in the order they measure, so a row's number is its place."""
    numbers = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce")
    if numbers.isna().any():
        return False
    frame = pd.DataFrame({"event": events, "step": numbers.groupby(pd.Series(events)).diff()})
    frame = frame.dropna()
    if not len(frame):
        return False
    by_event = frame.groupby("event")["step"]
    return bool(((by_event.min() >= 0) | (by_event.max() <= 0)).all())


def _places_in_each(cells: np.ndarray, events: np.ndarray) -> bool:
    """Whether ``cells`` number the rows of every event 1, 2, 3 … in the order they stand
    (a place), not once through the file (a row's number) or at random (a car's)."""
    numbers = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce")
    if numbers.isna().any():
        return False
    counted = pd.Series(1, index=numbers.index).groupby(pd.Series(events)).cumsum()
    return bool((numbers == counted).all()) and bool(pd.Series(events).duplicated().any())


def _joined(cells: np.ndarray) -> np.ndarray:
    """Each row's cells of several columns as one, ``R1 / H2``."""
    joined = cells[:, 0].astype(object)
    for j in range(1, cells.shape[1]):
        joined = joined + " / " + cells[:, j]
    return joined


def _events_split(body: np.ndarray, first_event: int, joined: np.ndarray,
                  columns: list[int]) -> bool:
    """Whether the first event column alone cannot hold one ranking per value while all the
    event columns together (``joined``) can: a competitor, or a place (``columns``: the
    competitor's, then any places), repeats within a value of the first, and never within
    one of all. Both heats of a round have a 1st place; an athlete's category repeats
    nothing."""
    first = body[:, first_event].astype(object)
    return any(not pd.Series(first + "\x00" + body[:, j]).is_unique
               and pd.Series(joined + "\x00" + body[:, j]).is_unique for j in columns)


def _events_each_placed(body: np.ndarray, events: list[int], joined: np.ndarray,
                        places: list[int]) -> bool:
    """Whether some event column alone repeats a place (``places``: the place columns)
    that all of them together (``joined``) never repeat, and every joined event has a 1st
    place: a race held in two years, a round of two seasons. A category of athletes within
    a race repeats places too, but its athletes' best place is rarely 1st in every race."""
    for j in places:
        ranks = rank_values(body[:, j])
        firsts = pd.Series(ranks == 1).groupby(pd.Series(joined)).any()
        if not (bool(firsts.all()) and pd.Series(joined + "\x00" + body[:, j]).is_unique):
            continue
        if any(not pd.Series(body[:, e].astype(object) + "\x00" + body[:, j]).is_unique
               for e in events):
            return True
    return False


def _joined_apart(cells: np.ndarray, joined: np.ndarray) -> bool:
    """Whether ``joined`` (:func:`_joined` of ``cells``) keeps apart every two rows whose
    cells differ (a cell holding the separator could make two events look alike)."""
    return bool(len(pd.DataFrame(cells).drop_duplicates()) == pd.Series(joined).nunique())


def _goodness(cells: np.ndarray, kind: str | None, title: str) -> np.ndarray:
    """The cells of a number column of ``kind`` as one number per row, higher the better."""
    if kind == "lower":
        return -smaller_better_numbers(cells, title)
    values = parse_numbers(cells)
    if kind == "rank":
        values = np.where(np.isfinite(values), values, tied_rank_values(cells))
        values = np.where(values > 0, values, np.nan)  # a blank place (a DNF's) places none
    return values if kind == "higher" else -values


def _agreeing_measure(body: np.ndarray, event: int, measures: list[int],
                      directed: list[int], kinds: dict[int, str | None], labels: list[str],
                      lines: np.ndarray) -> tuple[int, str]:
    """Of number columns that each say which way up they go (a place beside points), the
    one among the fully filled ``measures`` that tells most competitors apart within an
    event (a place before a score, then the first), and ``""`` when no other of the
    ``directed`` columns orders two competitors of one event the other way, on the rows
    where it holds a number (points left blank outside the scorers); else the first such
    pair, as the message says it."""
    events = pd.factorize(pd.Series(body[:, event], dtype=object))[0]
    good = {j: _goodness(body[:, j], kinds[j], labels[j]) for j in directed}
    distinct = {j: _distinct_pairs(events, good[j]) for j in measures}
    chosen = min(measures, key=lambda j: (-distinct[j], kinds[j] != "rank", j))
    for other in (j for j in directed if j != chosen):
        filled = np.isfinite(good[other])
        rows = np.flatnonzero(filled)
        if not rows.size:
            continue
        if (_distinct_pairs(events[rows], good[other][rows])
                > _distinct_pairs(events[rows], good[chosen][rows])):
            blank = int(np.flatnonzero(~filled)[0])
            return chosen, (
                f"and '{labels[other]}' tells apart competitors that '{labels[chosen]}' ties, "
                f"but not on every row (row {lines[1 + blank]} holds "
                f"{shown_cell(body[blank, other])})")
        pair = _first_disagreement(events[rows], good[chosen][rows], good[other][rows])
        if pair is not None:
            better, worse = rows[pair[0]], rows[pair[1]]
            return chosen, (
                f"and they disagree: where '{labels[event]}' is '{body[better, event]}', "
                f"'{labels[chosen]}' puts "
                f"'{body[better, chosen]}' (row {lines[1 + better]}) ahead of "
                f"'{body[worse, chosen]}' (row {lines[1 + worse]}), and '{labels[other]}' "
                f"the other way ('{body[better, other]}' against '{body[worse, other]}')")
    return chosen, ""


def _distinct_pairs(events: np.ndarray, values: np.ndarray) -> int:
    """How many distinct (event, value) pairs the rows hold."""
    codes = pd.factorize(values)[0].astype(np.int64)
    return int(np.unique(events.astype(np.int64) * (int(codes.max()) + 1) + codes).size)


def _first_disagreement(events: np.ndarray, first: np.ndarray,
                        second: np.ndarray) -> tuple[int, int] | None:
    """Rows ``(i, k)`` of one event that ``first`` puts strictly ahead (higher) and
    ``second`` strictly behind, or None. Rows are grouped by event and ``first``; with the
    groups of an event in order, ``second`` agrees exactly when each group's lowest value is
    at least the next group's highest."""
    order = np.lexsort((-first, events))
    e, f, s = events[order], first[order], second[order]
    starts = np.flatnonzero(np.r_[True, (e[1:] != e[:-1]) | (f[1:] != f[:-1])])
    low = np.minimum.reduceat(s, starts)
    high = np.maximum.reduceat(s, starts)
    same_event = e[starts[1:]] == e[starts[:-1]]
    bad = np.flatnonzero(same_event & (low[:-1] < high[1:]))
    if not bad.size:
        return None
    g = int(bad[0])
    ahead = order[starts[g] + int(np.argmin(s[starts[g]:starts[g + 1]]))]
    end = starts[g + 2] if g + 2 < starts.size else s.size
    behind = order[starts[g + 1] + int(np.argmax(s[starts[g + 1]:end]))]
    return int(ahead), int(behind)


def _refuse_untitled_competitor(body: np.ndarray, header: list[str], labels: list[str],
                                filled: list[int], events: list[int], file: str,
                                lines: np.ndarray) -> None:
    """Refuse an event, one column of names under a title not known as competitors
    (``Club``, ``Nom``) and one number column whose title says which way up it goes: a
    results table whose competitor column is not read on its title alone."""
    if len(events) != 1 or len(filled) != 3:
        return
    event = events[0]
    text, number = (j for j in filled if j != event)
    kinds = {j: _measure_kind(header[j]) for j in (text, number)}
    if _readable(body[:, text], kinds[text], header[text]).all():
        text, number = number, text
    if (kinds[number] not in _DIRECTED
            or not _readable(body[:, number], kinds[number], header[number]).all()
            or _readable(body[:, text], None, header[text]).any()):
        return
    events_ = pd.Series(body[:, event], dtype=object)
    joined = events_ + "\x00" + pd.Series(body[:, text], dtype=object)
    if not events_.duplicated().any() or joined.duplicated().any():
        return
    name, by, worst = labels[text], labels[number], kinds[number] == "higher"
    how = _how(kinds[number])
    raise PreferenceFormatError(
        f"This looks like a results table, one ranking per '{labels[event]}' of the "
        f"'{name}' in it, ordered by '{by}' ({how}), but '{name}' is not a title known to "
        "name who competed (player, athlete, runner, team, competitor ...), so the file was "
        "not read on its titles alone.", row=int(lines[0]), column=name,
        fix=f"If '{name}' names who competed, "
            f"{long_choice(file, name, by, worst)}; or title it 'competitor'.")


def _competitor_column(body: np.ndarray, event: int, titled: list[int], keys: list[str],
                       labels: list[str], lines: np.ndarray, measure: str) -> int:
    """The column naming the competitors: of the titled ones, those holding each name once
    per event, a name before a plain title before an id; refused when two differ."""
    repeats = {j: first_repeat(body[:, event] + "\x00" + body[:, j]) for j in titled}
    once = [j for j in titled if repeats[j] is None]
    if not once:
        j = titled[0]
        repeat = repeats[j]
        assert repeat is not None
        first, second = repeat
        raise PreferenceFormatError(
            f"This looks like a results table, one ranking per '{labels[event]}', but "
            f"'{body[second, j]}' has two rows where '{labels[event]}' is "
            f"'{body[second, event]}' (rows "
            f"{lines[1 + first]} and {lines[1 + second]}), so the rows of one "
            f"'{labels[event]}' are not one ranking.", row=int(lines[1 + second]),
            column=labels[j],
            fix="Give each competitor one row per event (add up the parts of one result, "
                "such as holes or laps). If another column splits the event into rankings (a "
                "heat), choose the layout 'long rankings' with the item columns, and that "
                "column and the event as 'Columns that together tell one ranking from "
                "another' (in the command line: --format long --items COMPETITOR NUMBER "
                "--lists EVENT COLUMN), or title it as an event ('heat').")
    found = {j: role_base(keys[j], COMPETITOR_WORDS) for j in once}
    bases = {b[0] for b in found.values() if b is not None}
    if len(bases - _SIDE_OF_COMPETITOR) == 1 and bases - _SIDE_OF_COMPETITOR <= _RACERS:
        # a rider beside the team they ride for
        once = [j for j in once if (found[j] or ("",))[0] not in _SIDE_OF_COMPETITOR]
        bases -= _SIDE_OF_COMPETITOR
    if len(bases) > 1:
        raise PreferenceFormatError(
            f"This looks like a results table, one ranking per '{labels[event]}', but the "
            f"columns {quote_list(labels[j] for j in once)} could each name what is ranked.",
            row=int(lines[0]),
            fix=f"Choose the layout 'long rankings' with the item columns: the one naming "
                f"what is ranked, then the number column that orders it (--format long "
                f"--items {shlex.quote(labels[once[0]])} {shlex.quote(measure)}, with "
                f"--one-is-worst if a higher number is better; for another column, put its "
                f"title in place of '{labels[once[0]]}').")
    return min(once, key=lambda j: (found[j] or ("", 1))[1])


def _plan(labels: list[str], event: int, item: int, measure: int,
          kind: str, where: str, file: str, ranker: str | None,
          no_count: bool, agreeing: list[str], gaps: bool = False,
          lists: tuple[str, ...] = ()) -> ResultsPlan:
    """The plan and its note for the one ``measure`` column of ``kind`` (the columns
    ``agreeing`` with it left out; ``gaps``: some of them not filled in on every row;
    ``lists``: the event columns that together name one event, when there are several)."""
    name, by = labels[item], labels[measure]
    ties = f"; equal numbers within one '{labels[event]}' are ties"
    how = _how(kind)
    if kind == "lower":  # the long reader's note says how clock times and even par read
        said = lower_is_better_words(by)
        how += (f" (the title says {quote_list(said)})" if said else
                " (golf: a score counts strokes, the fewest win)")
    if kind in ("lower", "rank"):
        flip = (f"If a higher number is better, "
                f"{long_choice(file, name, by, True, ranker, no_count, lists)}")
    else:
        flip = ("If a lower number is better, "
                + long_choice(file, name, by, False, ranker, no_count, lists))
    agree = (f" {quote_list(agreeing)} order{'s' if len(agreeing) == 1 else ''} every "
             f"'{labels[event]}' the same way, ties aside"
             + (" (where filled in)" if gaps else "")
             + f", and {'is' if len(agreeing) == 1 else 'are'} left out." if agreeing else "")
    together = (f" The columns {quote_list(lists)} together name one event: each of their "
                "combinations (a heat of a round) is one ranking." if len(lists) > 1 else "")
    note = (f"Read as a results table: {where}, ordered by '{by}', {how}{ties}.{together}"
            f"{agree} {flip}")
    return ResultsPlan(labels[event], name, by, kind == "higher", no_count, note, lists)
