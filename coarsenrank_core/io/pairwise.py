"""Pairwise comparisons: winner/loser, left/right with an outcome, 0/1 flags or score pairs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from ..preferences import ID_DTYPE, Preferences
from .assembly import (
    check_items,
    factorize,
    header_only_error,
    parse_numbers,
    parse_weights,
    ranker_ids,
    unify_names,
    without_unpaired_names,
)
from .columns import (
    ANSWER_STEMS,
    ANSWER_WORDS,
    MTURK_PREFIX,
    PREFERENCE_ROLES,
    column_label,
    find_roles,
    ignored_note,
    normalise,
    plural,
    quote_list,
    role_base,
    shown_cell,
    skipped_note,
    title_key,
)
from .options import ReadOptions, override_roles
from .tables import Table, multiline_error, padded

__all__ = ["read_pairwise", "pairwise_columns", "chosen_coding", "pair_preferences",
           "one_side_win_error", "label_outcomes", "walkover_marks", "not_played_rows",
           "shown_walkover"]

_LEFT_WORDS = {"left", "a", "modela", "itema", "10", "1:0", "aff", "affirmative", "gov",
               "government", "prop", "proposition"}
_RIGHT_WORDS = {"right", "b", "modelb", "itemb", "01", "0:1", "neg", "negative", "opp",
                "opposition"}
_TIE_WORDS = {"tie", "draw", "equal", "tied", "both", "bothbad", "bothgood", "tie(bothbad)",
              "tie(inconsistent)",
              "same", "1/21/2", "½½", "0505", "=", "½:½", "1/2:1/2", "drawn"}
_TIE_FLAGS = {"tie", "draw", "tied", "istie", "isdraw", "drawn", "winnertie", "winnerdraw",
              "winnertie(bothbad)"}
_TRUE = {"1", "true", "yes", "y", "t", "x"}
_FALSE = {"0", "false", "no", "n", "f", ""}
_ANSWERS = {"choice", "answerchoice", "answer", "preference", "preferred", "vote", "selected",
            "selection", "response", "answerpreference", "answerwinner",
            # Label Studio's pairwise template names its choice 'pw' (or 'pairwise')
            "pw", "pairwise", "comparison"}
_UNFINISHED = {"*", "unfinished", "abandoned", "void", "cancelled", "canceled", "w/o", "wo",
               "walkover", "postponed", "p-p", "p - p", "pp", "n.a.", "n/a", "abgesagt",
               "tbd", "tba",
               # a chess forfeit (Swiss-Manager's '+ - -', '- - +'): no game was played
               "+ - -", "- - +", "- - -", "+--", "--+", "---", "+ -", "- +", "+:-", "-:+",
               "+/-", "-/+"}
#: Of those, a game decided without being played: a forfeit or a walkover.
_NOT_PLAYED = frozenset(_UNFINISHED - {"*", "unfinished", "abandoned", "void", "cancelled",
                                      "canceled", "postponed", "p-p", "p - p", "pp", "n.a.",
                                      "n/a", "abgesagt", "tbd", "tba"})
#: Titles of a column saying what became of a match (``Status``); a note beside a score
#: ('Postponed' above the score of the game played later) is not one.
_STATUS_TITLES = frozenset({"status", "matchstatus", "gamestatus", "fixturestatus", "state",
                            "statut", "estado", "stato"})
#: A status saying the match was not played to its end: postponed, abandoned, cancelled,
#: not played yet or still being played, given by walkover (English, German, Spanish,
#: French, Italian, Dutch, and the feeds' codes ``PST``, ``ABD``, ``CANC``).
_VOID_STATUS = frozenset({
    "abandoned", "abd", "postponed", "pst", "pp", "p-p", "p - p", "cancelled", "canceled",
    "canc", "void", "suspended", "susp", "walkover", "w/o", "wo", "forfeit",
    "forfeited", "not played", "unplayed", "abgesagt", "ausgefallen", "abgebrochen",
    "verlegt", "aplazado", "suspendido", "cancelado", "reporté", "annulé", "rinviata",
    "sospesa", "annullata", "afgelast", "gestaakt", "aborted", "nostart", "no start",
    # not played yet, or still being played: no result to read
    "scheduled", "timed", "not started", "notstarted", "upcoming", "fixture", "in_play",
    "in play", "inplay", "paused", "live"})
#: Titles of a column flagging a match given without being played (a bout won by
#: disqualification was fought: ``DQ`` is no such flag).
_FORFEIT_FLAGS = frozenset({"forfeit", "forfeited", "isforfeit", "walkover", "iswalkover",
                            "wo", "ff"})
_FLAG_MARKS = frozenset({"1", "true", "yes", "y", "t", "x"})
#: A side's score saying it forfeited (start.gg's ``DQ`` beside the other side's ``W``).
_SIDE_FORFEITS = frozenset({"dq", "ff", "forfeit", "forfeited", "dns"})
#: A draw written as half a point each (chess): beside it, 0-0 is a double forfeit.
_HALF_POINT_DRAWS = {"1/21/2", "½½", "0505", "½:½", "1/2:1/2"}
#: Titles of a column holding a match's score in one cell, the left side's first: ``2-1``.
_SCORE_TITLES = {"score", "finalscore", "matchscore", "scoreline", "fulltimescore"}
_SCORE_CELL = re.compile(r"\s*(\d{1,4})\s*[-–—:]\s*(\d{1,4})\s*")


def walkover_marks(header: Sequence[str], sides: tuple[int, int] | None = None
                   ) -> dict[int, frozenset[str]]:
    """The score columns that can say a match was not played, each with the marks that say
    so: the match's one score column (``W/O``) and, beside two sides, each side's own score
    (start.gg's ``DQ`` beside the other's ``W``)."""
    keys = [normalise(t) for t in header]
    marks = {j: _NOT_PLAYED for j, k in enumerate(keys) if k in _SCORE_TITLES}
    marks = dict(list(marks.items())[:1])
    # a match's status or note ('Abandoned', 'abgesagt') and a forfeit's own flag ('DQ': True)
    marks.update({j: _VOID_STATUS for j, k in enumerate(keys) if k in _STATUS_TITLES})
    marks.update({j: _FLAG_MARKS for j, k in enumerate(keys) if k in _FORFEIT_FLAGS})
    if sides is not None:
        per_side = _score_columns(keys, keys[sides[0]], keys[sides[1]])
        if per_side is not None:
            marks.update({per_side[k]: _NOT_PLAYED | _SIDE_FORFEITS
                          for k in ("score_a", "score_b")})
    return marks


def not_played_rows(said_of: dict[int, np.ndarray], marks: dict[int, frozenset[str]],
                    n: int) -> tuple[np.ndarray, tuple[int, int] | None]:
    """Which rows' scores say no match was played, from each mark column's lowered cells
    (``said_of``, as :func:`walkover_marks` names the columns), and the (column, row) of the
    first such cell. A side's ``DQ`` counts only beside the other side's ``W`` (start.gg's
    set given without playing); beside a number the bout was fought and lost."""
    walkover = np.zeros(n, dtype=bool)
    first: tuple[int, int] | None = None
    sides = [j for j, m in marks.items() if _SIDE_FORFEITS <= m]  # each side's own score
    for j in marks:
        if marks[j] is _FLAG_MARKS and not np.isin(said_of[j], list(_TRUE | _FALSE)).all():
            continue  # a flag column holds flags only
        own = marks[j] - _SIDE_FORFEITS if j in sides else marks[j]
        found = np.isin(said_of[j], list(own))
        for other in (k for k in sides if k != j and j in sides):
            found |= np.isin(said_of[j], list(_SIDE_FORFEITS)) & np.isin(
                said_of[other], ["w", "win", "won"])
        if found.any() and first is None:
            first = (j, int(np.flatnonzero(found)[0]))
        walkover |= found
    return walkover, first


#: A status saying a game was drawn (lichess' ``draw`` and ``stalemate``).
_DRAWN_STATUS = frozenset({"draw", "drawn", "stalemate", "tie", "tied"})


def _after_extra_time(written: pd.Series) -> np.ndarray:
    """Results with the mark of extra time taken off a score that decides (``2-1 AET``);
    a score level after extra time (``2-2 aet``: penalties decided) is kept as written, to
    be refused as not final."""
    final = written.str.replace(_AFTER_EXTRA_TIME, "", regex=True)
    parts = final.str.extract(f"^{_SCORE_CELL.pattern}$")
    level = parts[0].notna() & (parts[0].astype(float) == parts[1].astype(float))
    return np.asarray(final.where(~level, written).to_numpy(dtype=object), dtype=object)


def status_column(header: Sequence[str]) -> int | None:
    """The column saying what became of each match (``Status``), if the header has one."""
    return next((j for j, t in enumerate(header) if normalise(t) in _STATUS_TITLES), None)


def shown_walkover(header: Sequence[str], marks: dict[int, frozenset[str]], column: int,
                   cell: str) -> str:
    """How a note shows the cell that said a match was not played: a flag with its title
    (``DQ: True``), any other cell as written (``W/O``)."""
    return f"{column_label(header, column)}: {cell}" if marks[column] is _FLAG_MARKS else cell


def _walkovers(cells: np.ndarray, first: list[str], line: np.ndarray, notes: list[str],
               sides: tuple[int, int] | None = None, result: int | None = None) -> np.ndarray:
    """Rows whose score says no match was played (``W/O``, or a side's score ``DQ`` beside
    the other's ``W`` as start.gg writes a disqualification), noted as skipped: the winner
    or result beside them was decided without a game. The ``result`` column, read for its
    own marks, is left out."""
    marks = {j: m for j, m in walkover_marks(first, sides).items() if j != result}
    said_of = {j: np.char.lower(np.char.strip(cells[:, j].astype(str))) for j in marks}
    walkover, at = not_played_rows(said_of, marks, len(cells))
    shown = "" if at is None else shown_walkover(first, marks, at[0], str(cells[at[1], at[0]]))
    if walkover.any():
        notes.append(skipped_note(line[walkover], "row", f"with no match played ('{shown}')"))
    return walkover


#: A pairwise file's coding: ``mode`` and the columns of its roles (``a``, ``b``, ``tie`` ...)
Coding = dict[str, Any]


#: Titles of the other side of one competitor's games (``Opponent``), and of the competitor.
_OPPONENTS = frozenset({"opponent", "opponentname", "opponentteam", "opponentplayer",
                        "opp", "vs", "versus", "against"})
_COLOURS = frozenset({"colour", "color", "side", "colourplayed", "colorplayed", "pieces"})
_OWN_SIDES = frozenset({"player", "playername", "team", "teamname", "name", "competitor",
                        "club", "school"})


def pairwise_columns(header: list[str]) -> Coding | None:
    """The pairwise coding a header names, as role -> column, or None."""
    roles = find_roles(header, PREFERENCE_ROLES)
    keys = [normalise(c) for c in header]
    tie = next((j for j, k in enumerate(keys) if k in _TIE_FLAGS), None)
    opponent = [j for j, k in enumerate(keys) if k in _OPPONENTS]
    if "left" not in roles and "right" not in roles and len(opponent) == 1:
        # one player's games: 'Player' (or 'Team', 'Name') against 'Opponent', the result
        # from the player's side
        own = [j for j, k in enumerate(keys) if k in _OWN_SIDES]
        if len(own) == 1:
            roles = {**roles, "left": own[0], "right": opponent[0]}
    if "winner" in roles and "loser" in roles and "item" not in roles:
        # a model beside one side's answer and none beside the other's: no pair of items
        if keys[roles["winner"]].endswith("model") != keys[roles["loser"]].endswith("model"):
            return None
        return {"mode": "winner", "a": roles["winner"], "b": roles["loser"], "tie": tie}
    if not ("left" in roles and "right" in roles):
        siblings = _numbered_pair(keys)
        answer = next((j for j, k in enumerate(keys) if k in _ANSWERS), None)
        label = roles.get("winner", roles.get("label", answer))
        if label is None and siblings is not None:  # better_response_id: 0 or 1
            label = next((j for j, k in enumerate(keys) if k.startswith(_WINNER_STARTS)
                          and j not in siblings), None)
        if label is None and siblings is not None:  # MT-Bench's g1_winner (of two games)
            label = next((j for j, k in enumerate(keys) if k.endswith("winner")
                          and j not in siblings), None)
        if siblings is not None and label is None:  # MTurk's 'Answer.preferred.photo_a'
            bare = [normalise(MTURK_PREFIX.sub("", c)) for c in header]
            flags = _flag_columns(bare, bare[siblings[0]], bare[siblings[1]], chosen=True)
            if flags is not None and flags["flag_b"] is not None:
                return {"mode": "flags", "a": siblings[0], "b": siblings[1], **flags,
                        "tie": tie}
        if siblings is not None and label is not None and label not in siblings:
            # MT-Bench's second game of a pair, the answers' order swapped: 'g2_winner'
            again = (keys.index("g2" + keys[label][2:]) if keys[label].startswith("g1")
                     and "g2" + keys[label][2:] in keys else None)
            return {"mode": "label", "a": siblings[0], "b": siblings[1], "label": label,
                    "tie": tie, **({"label2": again} if again is not None else {})}
    if "left" in roles and "right" in roles:
        a, b = roles["left"], roles["right"]
        for role in ("winner", "label"):
            if role in roles:
                return {"mode": "label", "a": a, "b": b, "label": roles[role], "tie": tie}
        answer = next((j for j, k in enumerate(keys) if k in _ANSWERS), None)
        if answer is not None:  # a choice between the two: MTurk's Answer.choice, preference
            return {"mode": "label", "a": a, "b": b, "label": answer, "tie": tie}
        flags = _flag_columns(keys, keys[a], keys[b])
        if flags is not None:
            return {"mode": "flags", "a": a, "b": b, **flags, "tie": tie}
        scores = _score_columns(keys, keys[a], keys[b])
        if scores is not None:
            return {"mode": "scores", "a": a, "b": b, **scores}
        score = next((j for j, k in enumerate(keys) if k in _SCORE_TITLES), None)
        if score is not None:  # the match's score in one cell: '2-1'
            return {"mode": "label", "a": a, "b": b, "label": score, "tie": tie}
    return None


#: A title saying whether one side won (``radiant_win``, ``blue_won``, ``HomeWin``).
_ONE_SIDE_WIN = re.compile(r"(?P<side>[^\W_]{2,}?)(?:win|wins|won|victory)")
#: Ends of the titles that name a side's competitor (``radiant_name``, ``blue_team``).
_SIDE_NAME_ENDS = ("name", "team", "teamname", "player", "playername", "id", "teamid",
                   "tag", "teamtag")


def one_side_win_error(table: Table) -> PreferenceFormatError | None:
    """The refusal for games whose only result is one side's true/false win flag
    (OpenDota's ``radiant_win`` beside ``radiant_name`` and ``dire_name``): a false reads
    the same whether the other side won or the game was drawn. None if the header names
    no such flag beside the two sides' names, or names a winner, a result or a draw."""
    if len(table) < 2:
        return None
    header = table.row(0)
    keys = [normalise(c) for c in header]
    roles = find_roles(header, PREFERENCE_ROLES)
    if {"winner", "loser", "label"} & set(roles) or any(k in _TIE_FLAGS for k in keys):
        return None
    for j, key in enumerate(keys):
        found = _ONE_SIDE_WIN.fullmatch(key)
        if found is None:
            continue
        side = found["side"]
        end = next((e for e in _SIDE_NAME_ENDS if f"{side}{e}" in keys), None)
        if end is None:
            continue
        # the other side: of the titles ending as the side's name does, the one whose stem
        # shares most of the side's titles (dire_name beside dire_score, not league_name)
        own = {k[len(side):] for k in keys if k.startswith(side) and k != key}
        stems = {k[:-len(end)]: i for i, k in enumerate(keys)
                 if k.endswith(end) and len(k) > len(end) and not k.startswith(side)}
        if not stems:
            continue
        other = stems[max(stems, key=lambda stem: sum(f"{stem}{e}" in keys for e in own))]
        written = {str(c).strip().lower() for c in table.column(j, 1)}
        if not written <= (_TRUE | _FALSE) - {""} or len(written) < 2:
            continue
        return PreferenceFormatError(
            f"Column '{header[j]}' says only whether {side} won each game (true or false), "
            "and no column names the winner: a false reads the same whether the other side "
            "won or the game was drawn.",
            row=int(table.lines[0]), column=header[j],
            fix=f"Add a 'winner' and a 'loser' column naming the two sides of each game (where "
                f"a game cannot be drawn: the winner is the {header[keys.index(side + end)]} "
                f"where {header[j]} is true, else the {header[other]}), and a 'draw' column, "
                "true or false, if a game can be drawn.")
    return None


_NUMBERED = re.compile(r"(?P<stem>[^\W\d_]+?)(?P<mark>0|1|2|a|b)")
#: Ends of a side's title naming what wrote its answer: ``response_0_source``.
_WRITER_ENDS = ("source", "model", "name", "generator", "system", "author")
#: A side's mark inside a title, before a word naming what wrote it: ``response_0_source``.
_MARKED = re.compile(rf"(?P<stem>[^\W\d_]+?)(?P<mark>[012])(?P<end>{'|'.join(_WRITER_ENDS)})")
#: Starts of a title naming the preferred side by its mark (``better_response_id``).
_WINNER_STARTS = ("better", "preferred", "chosen", "winner")


def _numbered_pair(keys: list[str]) -> tuple[int, int] | None:
    """Two columns that name the two sides by a number or letter after one word
    (``item1``/``item2``, ``model_a``/``model_b``), or before a word naming what wrote
    them (``response_0_source``/``response_1_source``, which win over the sides' own
    ``response_0``/``response_1``): the first such pair, or None."""
    for pattern in (_MARKED, _NUMBERED):
        sides: dict[tuple[str, str], dict[str, int]] = {}
        for j, key in enumerate(keys):
            found = pattern.fullmatch(key)
            if found is not None:
                mark = "1" if found["mark"] in ("1", "a") else found["mark"]
                end = found.groupdict().get("end") or ""
                sides.setdefault((found["stem"], end), {}).setdefault(mark, j)
        for (stem, end), marks in sides.items():
            # a third option of the same stem ('Answer 3', 'option_c'): choices, not two sides
            more = re.compile(rf"{re.escape(stem)}(?:[3-9]|c|d){re.escape(end)}")
            if len(marks) == 2 and not any(more.fullmatch(k) for k in keys):
                first, second = sorted(marks)  # 0 before 1, 1 before 2 (b reads as 2)
                return marks[first], marks[second]
    return None


#: A side's count in a title beside its side word (``PTS_home``, ``home_pts``).
_STAT_WORDS = ("pts", "points", "score", "goals", "runs")
#: A side's score in other languages' titles (``Tore Heim``, ``Goles Local``, ``Buts``).
_SCORE_WORDS = ("tore", "punkte", "goles", "puntos", "buts", "gol", "reti", "punti",
                "doelpunten", "punten", "score", "goals", "points")
_HOME_WORDS = ("home",)
_AWAY_WORDS = ("away", "visitor", "visitors", "road", "guest")


def _flag_columns(keys: list[str], left: str, right: str, chosen: bool = False
                  ) -> dict[str, int | None] | None:
    """``winner_model_a``/``winner_model_b`` 0/1 columns (arena style); with ``chosen``
    also a verb beside each side (MTurk's ``Answer.preferred.photo_a``)."""
    def find(names: set[str]) -> int | None:
        return next((j for j, k in enumerate(keys) if k in names), None)

    def chose(side: str) -> set[str]:
        return ({f"{verb}{side}" for verb in _CHOSE} | {f"{side}{verb}" for verb in _CHOSE}
                if chosen else set())
    a = find({f"winner{left}", "winnera", "winnermodela", "awins", "leftwins", "winnerleft",
              f"{left}wins", *chose(left)})
    b = find({f"winner{right}", "winnerb", "winnermodelb", "bwins", "rightwins", "winnerright",
              f"{right}wins", *chose(right)})
    if a is None and b is None and "left" in left and "right" in right:
        # comparative judgement's one flag, 'Left Won': 1 the left script, 0 the right (a
        # judge must choose; a home win flag is not this, a draw would read as an away win)
        a = find({f"{side}{verb}" for side in ("left", left) for verb in _CHOSE})
        return None if a is None else {"flag_a": a, "flag_b": None}
    return None if a is None or b is None else {"flag_a": a, "flag_b": b}


#: Verbs of a side's one flag saying it was chosen (``Left Won``, ``left_chosen``).
_CHOSE = ("won", "wins", "chosen", "selected", "preferred", "better", "picked")


def _score_columns(keys: list[str], left: str, right: str) -> dict[str, int] | None:
    """Score pairs such as ``home_score``/``away_score`` or ``PTS_home``/``PTS_away``: the
    higher score wins."""
    def find(side: str, extra: set[str]) -> int | None:
        names = {f"{side}score", f"score{side}", f"{side}goals", f"{side}points", *extra,
                 *(f"{w}{side}" for w in _SCORE_WORDS), *(f"{side}{w}" for w in _SCORE_WORDS)}
        return next((j for j, k in enumerate(keys) if k in names), None)

    def per_side(words: tuple[str, ...]) -> set[str]:
        return {f"{stat}{word}" for stat in _STAT_WORDS for word in words} | {
            f"{word}{stat}" for stat in _STAT_WORDS for word in words}
    a = find(left, {"homescore", "hometeamscore", "homegoals", "scorea", "score1", "leftscore",
                    "ascore", "whitescore", "fthg", "hg", "fthomegoals"})
    b = find(right, {"awayscore", "awayteamscore", "awaygoals", "scoreb", "score2",
                     "rightscore", "bscore", "blackscore", "ftag", "ag", "ftawaygoals"})
    if left.startswith(_HOME_WORDS) and right.startswith(_AWAY_WORDS):
        a = find(left, per_side(_HOME_WORDS)) if a is None else a
        b = find(right, per_side(_AWAY_WORDS)) if b is None else b
    return None if a is None or b is None else {"score_a": a, "score_b": b}


def chosen_coding(header: list[str], options: ReadOptions) -> Coding:
    """The coding of the item columns chosen by hand: the winner then the loser, or the
    left item, the right item and the column naming the winner."""
    chosen = tuple(options.item_columns or ())
    labels = [column_label(header, j) for j in range(len(header))]
    if len(chosen) not in (2, 3):
        raise PreferenceFormatError(
            f"A pairwise file reads two item columns (the winner, then the loser) or three "
            f"(the left item, the right item, then the column naming the winner); "
            f"{len(chosen)} were chosen ({quote_list(chosen)}).",
            fix="Choose two or three item columns.")
    missing = [c for c in chosen if c not in labels]
    if missing:
        raise PreferenceFormatError(f"There is no column called '{missing[0]}'.",
                                    fix=f"Choose columns of the file: {quote_list(labels, 8)}.")
    columns = [labels.index(c) for c in chosen]
    found = pairwise_columns(header)
    if len(columns) == 2 and found is not None and found["mode"] != "winner" and set(
            columns) == {found["a"], found["b"]}:
        outcome = f"'{labels[found['label']]}'" if "label" in found else "other columns"
        raise PreferenceFormatError(
            f"Two item columns are read as the winner then the loser, but this file names the "
            f"winner of each row in {outcome}: '{chosen[0]}' would win every comparison.",
            fix="Choose the two items and then the column naming the winner, or let the "
                "layout be detected.")
    keys = [normalise(c) for c in header]
    tie = next((j for j, k in enumerate(keys) if k in _TIE_FLAGS and j not in columns), None)
    if len(columns) == 2:
        return {"mode": "winner", "a": columns[0], "b": columns[1], "tie": tie}
    return {"mode": "label", "a": columns[0], "b": columns[1], "label": columns[2], "tie": tie}


def read_pairwise(table: Table, options: ReadOptions, explicit: bool = False,
                  skipped: dict[int, str] | None = None) -> Preferences:
    """Read one comparison per row; ``skipped`` columns (per-row ids) are never the ranker."""
    lines = table.lines
    first = table.row(0)
    coding = chosen_coding(first, options) if options.item_columns else pairwise_columns(first)
    roles = override_roles(find_roles(first, PREFERENCE_ROLES), first, options)
    for j in skipped or {}:
        if roles.get("ranker") == j:
            del roles["ranker"]
    if "ranker" in roles and options.ranker_column is None and _per_row_id(
            table, roles["ranker"], first):
        del roles["ranker"]
    if coding is None:
        if explicit and not find_roles(first, PREFERENCE_ROLES) and table.width <= 2:
            return _pairs_headerless(table)
        raise PreferenceFormatError(
            "A pairwise file needs a first row naming its columns: 'winner' and 'loser', or "
            "'left', 'right' and 'winner' (or a result, 0/1 winner flags, or two scores); the "
            f"first row here is {quote_list(c for c in first if c)}.", row=lines[0],
            fix="Add such a header row, or choose another format.")
    if len(table) == 1:
        raise header_only_error(lines[0])
    cells = padded(table, first, 1)
    line = np.asarray(lines[1:], dtype=np.intp)
    a_col, b_col = coding["a"], coding["b"]
    a, b = cells[:, a_col], cells[:, b_col]
    if _answer_sides(first, a_col, b_col):  # whole transcripts: one-off before multi-line
        refuse_one_off_items(a, b, line, first, a_col, b_col)
    for col, values in ((a_col, a), (b_col, b)):
        _refuse_blank_or_broken(values, line, column_label(first, col),
                                "This cell is blank; every comparison needs two items.")
    used = {j for key, j in coding.items() if key != "mode" and j is not None}
    keep = np.ones(len(a), dtype=bool)
    notes: list[str] = []
    mode = coding["mode"]
    b_won = np.zeros(len(a), dtype=bool)
    if mode == "winner":
        tied = (np.zeros(len(a), dtype=bool) if coding["tie"] is None else
                _flags(cells[:, coding["tie"]], line, first, coding["tie"]))
        keep &= ~_walkovers(cells, first, line, notes, (a_col, b_col))
    elif mode == "label" and (share := _second_share(cells[:, coding["label"]], first, a_col,
                                                     b_col)) is not None:
        # every comparison counted for both sides by its share: two rows, weighted
        twice = np.repeat(np.arange(len(a)), 2)
        b_won = np.tile([False, True], len(a))
        counted = np.where(b_won, share[twice], 1.0 - share[twice])
        if "weight" in roles:
            counted = counted * parse_weights(cells[twice, roles["weight"]], line[twice],
                                              column_label(first, roles["weight"]))
        a, b, line, keep = a[twice], b[twice], line[twice], keep[twice] & (counted > 0)
        cells = np.column_stack([cells[twice], counted.astype(str)])
        first = [*first, "share of the comparison"]
        roles = {**roles, "weight": cells.shape[1] - 1}
        tied = np.zeros(len(a), dtype=bool)
        notes.append(f"Read '{column_label(first, coding['label'])}' as the second side's share "
                     "of each comparison (1: the first side won, 2: the second, 1.5: even); "
                     "each comparison counts for both sides by their shares")
    elif mode == "label":
        drawn = (np.zeros(len(a), dtype=bool) if coding.get("tie") is None else
                 _flags(cells[:, coding["tie"]], line, first, coding["tie"]))
        if coding.get("label2") is not None:
            cells, note = _both_games(cells, coding["label"], coding["label2"], first)
            notes.append(note)
        # a status saying the game was not played leaves its result unread; one saying it was
        # drawn ('draw', 'stalemate') is the result where the winner is left blank
        void = _walkovers(cells, first, line, notes, (a_col, b_col), coding["label"])
        status = status_column(first)
        b_won, tied, unfinished = label_outcomes(
            a, b, np.where(void, a, cells[:, coding["label"]]), drawn, line, first,
            coding["label"], a_col, b_col, None if status is None else cells[:, status])
        unfinished &= ~void
        keep &= ~void
        if unfinished.any():
            keep &= ~unfinished
            said = pd.Series(cells[:, coding["label"]], dtype=object).astype(str).str.strip(
                ).str.lower().to_numpy(dtype=object)
            forfeit = unfinished & np.isin(said, list(_NOT_PLAYED))
            if (unfinished & ~forfeit).any():
                notes.append(skipped_note(line[unfinished & ~forfeit], "row",
                                          "with no result (unfinished)"))
            if forfeit.any():
                notes.append(skipped_note(line[forfeit], "row", "decided without a game (a "
                                          "forfeit or walkover)"))
    elif mode == "flags":
        b_won, tied = _resolve_flags(a, b, cells, line, first, coding)
    else:
        scores = [coding["score_a"], coding["score_b"]]
        unplayed = (np.char.strip(cells[:, scores].astype(str)) == "").all(axis=1)
        void = _walkovers(cells, first, line, notes, (a_col, b_col))
        if (unplayed & ~void).any():  # a fixture list's games not yet played
            notes.append(skipped_note(line[unplayed & ~void], "row",
                                      "with no score (not played)"))
        unplayed |= void
        if unplayed.any():
            keep &= ~unplayed
            cells = cells.copy()
            cells[np.ix_(unplayed, scores)] = "0"
        b_won, tied = _resolve_scores(a, b, cells, line, first, coding)
    byes = _is_bye(a) | _is_bye(b)
    if byes.any():  # a round without an opponent: nothing was compared
        keep &= ~byes
        notes.append(skipped_note(line[byes], "row", "with a bye (no opponent)"))
    if mode == "winner":
        _refuse_flag_sides(a, b, line, first, a_col, b_col)
    if _answer_sides(first, a_col, b_col):
        refuse_one_off_items(a[keep], b[keep], line[keep], first, a_col, b_col)
    for role in ("ranker", "weight"):
        if role in roles:
            used.add(roles[role])
    notes = ignored_note(first, used) + notes
    if normalise(first[b_col]) in _OPPONENTS:
        dated = [j for j, t in enumerate(first) if normalise(t) in _WHEN]
        once = _listed_from_both_sides(a, b, b_won, tied, keep,
                                       cells[:, dated[0]] if dated else None)
        if once is not None:
            notes.append(f"Each game is listed twice, once from each side's games "
                         f"({plural(int(keep.sum() - once.sum()), 'row')} repeat another from "
                         "the other side): each is counted once")
            keep = once
    if not keep.all():
        a, b, b_won, tied, line, cells = (x[keep] for x in (a, b, b_won, tied, line, cells))
    return _pairs(a, b, b_won, tied, line, cells, roles, first, notes)


#: Titles of when a game was played: two rows of one game share it.
_WHEN = frozenset({"date", "day", "time", "datetime", "round", "rd", "week", "gamedate",
                   "matchdate", "played"})


def _listed_from_both_sides(a: np.ndarray, b: np.ndarray, b_won: np.ndarray, tied: np.ndarray,
                            keep: np.ndarray, when: np.ndarray | None = None
                            ) -> np.ndarray | None:
    """Where one player's games are listed for every player (each game once under each
    side: ``Ann, Bob, W`` and ``Bob, Ann, L``, on the same ``when`` where a date or round is
    given), the rows to keep so that each counts once; None unless every game has its
    mirror, as often as it is listed."""
    winner = np.where(b_won, b, a).astype(object)
    loser = np.where(b_won, a, b).astype(object)
    swap = tied & (winner > loser)  # a draw under its two names in one order
    first, second = np.where(swap, loser, winner), np.where(swap, winner, loser)
    game = pd.Series(first, dtype=object) + "\x00" + pd.Series(second, dtype=object) + \
        "\x00" + pd.Series(tied.astype(int).astype(str), dtype=object)
    if when is not None:
        game = game + "\x00" + pd.Series(when, dtype=object).astype(str)
    own = np.asarray(a, dtype=object) == first  # listed under the winner (a draw: the first)
    frame = pd.DataFrame({"game": game, "own": own})[keep]
    if frame.empty:
        return None
    counts = frame.groupby(["game", "own"]).size().unstack(fill_value=0)
    if counts.shape[1] != 2 or not (counts[True] == counts[False]).all():
        return None
    once: np.ndarray = keep & own
    return once


#: How tournament tables write the missing opponent of a round without a game.
_BYES = frozenset({"bye", "(bye)", "-bye-", "--bye--", "spielfrei"})


def _is_bye(values: np.ndarray) -> np.ndarray:
    """Whether each cell names no opponent but a bye (``BYE``, ``(bye)``): each distinct
    cell looked at once."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    bye = np.fromiter((str(u).strip().lower() in _BYES for u in uniques), dtype=bool,
                      count=len(uniques))
    return np.asarray(bye[codes], dtype=bool) if len(uniques) else np.zeros(len(codes), bool)


#: Titles of a column that is a game's id, not the ranker, when it differs on every row.
ROW_ID_TITLES = ("id", "#", "gameid", "key")


def _per_row_id(table: Table, j: int, header: list[str]) -> bool:
    """A column titled only 'id' (or '#') whose value differs on every row: the game's id."""
    if j >= len(header) or normalise(header[j]) not in ROW_ID_TITLES:
        return False
    values = table.column(j, 1)
    return len(values) >= 1 and bool(pd.Series(values, dtype=object).is_unique)


def _flags(values: np.ndarray, line: np.ndarray, header: Sequence[str] | None, col: int
           ) -> np.ndarray:
    """0/1, true/false or yes/no cells as booleans."""
    words = np.char.lower(np.char.strip(values.astype(str)))
    words = np.where(np.char.endswith(words, ".0"), np.char.replace(words, ".0", ""), words)
    true, false = np.isin(words, list(_TRUE)), np.isin(words, list(_FALSE))
    bad = np.flatnonzero(~(true | false))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"'{values[i]}' is not a yes/no flag.", row=int(line[i]),
            column=column_label(header, col), fix="Write 1 or 0 (or true/false, yes/no).")
    return true


def _second_share(labels: np.ndarray, header: Sequence[str], a_col: int,
                  b_col: int) -> np.ndarray | None:
    """The second side's share of each comparison when the sides are numbered 1 and 2
    (``output_1``/``output_2``) and the preference is a number from 1 to 2 that is not
    always 1, 1.5 or 2 (AlpacaEval's weighted annotators: ``preference − 1`` is the
    chance that the second output is the better); None otherwise."""
    if not _one_and_two(normalise(header[a_col]), normalise(header[b_col])):
        return None
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    values = parse_numbers(np.asarray(uniques, dtype=object))  # each distinct cell once
    if not (codes.min(initial=0) >= 0 and np.isfinite(values).all()
            and ((values >= 1) & (values <= 2)).all()):
        return None
    if np.isin(values, [1.0, 1.5, 2.0]).all():
        return None  # plain winners and ties: read as such
    return np.asarray(values[codes] - 1.0, dtype=float)


def _both_games(cells: np.ndarray, label: int, again: int, header: Sequence[str]
                ) -> tuple[np.ndarray, str]:
    """The cells with the winner of the pair's two games (MT-Bench's ``g1_winner`` and
    ``g2_winner``, the answers' order swapped in the second) in the first's column: the
    winner both name, else a tie, as FastChat counts a judge who changes its mind."""
    first, second = cells[:, label], cells[:, again]
    agree = np.array([normalise(str(x)) == normalise(str(y)) for x, y in zip(first, second)],
                     dtype=bool)
    cells = cells.copy()
    cells[:, label] = np.where(agree, first, "tie")
    names = (column_label(header, label), column_label(header, again))
    return cells, (f"Read '{names[0]}' and '{names[1]}' (the pair judged twice, the answers' "
                   f"order swapped) together: a tie where they disagree "
                   f"({int((~agree).sum())} of {len(agree)} rows)")


def _one_and_two(left_key: str, right_key: str) -> bool:
    """Whether two sides' normalised titles end in 1 and 2 (or a and b): ``output_1``,
    ``output_2``, whose winner may be written 1 or 2; or the first side's title is the
    second's without its 2 (AlpacaEval's ``generator`` and ``generator_2``)."""
    return (left_key.endswith(("1", "a")) and right_key.endswith(("2", "b"))
            or right_key == left_key + "2")


def _refuse_flag_sides(a: np.ndarray, b: np.ndarray, line: np.ndarray,
                       header: Sequence[str], a_col: int, b_col: int) -> None:
    """Refuse winner and loser columns that hold only yes/no flags (``selected``,
    ``rejected`` as 1 and 0): they say whether a row's item was chosen, they name no items."""
    words = np.char.lower(np.char.strip(np.concatenate([a, b]).astype(str)))
    if not np.isin(words, ["0", "1", "0.0", "1.0", "true", "false", "yes", "no"]).all():
        return
    names = (column_label(header, a_col), column_label(header, b_col))
    raise PreferenceFormatError(
        f"The columns '{names[0]}' and '{names[1]}' hold only yes/no flags (such as "
        f"{shown_cell(str(a[0]))}), not the items that won and lost.", row=int(line[0]),
        column=names[0],
        fix="If each row is one item and these flags say whether it was chosen, this is not "
            "a file of comparisons: give each comparison one row naming its winner and its "
            "loser (columns 'winner' and 'loser'), then load the file again.")


def _answer_sides(header: Sequence[str], a_col: int, b_col: int) -> bool:
    """Whether the two sides are titled as answers (``chosen``, ``rejected``), not as what
    wrote them."""
    sides = {normalise(header[a_col]), normalise(header[b_col])}
    return sides <= ANSWER_WORDS or all(k.startswith(ANSWER_STEMS)
                                        and not k.endswith(_WRITER_ENDS) for k in sides)


def refuse_one_off_items(a: np.ndarray, b: np.ndarray, line: np.ndarray,
                          header: Sequence[str], a_col: int, b_col: int) -> None:
    """Refuse answers under ``chosen`` and ``rejected`` (:data:`~.columns.ANSWER_WORDS`) of
    which none comes twice: they are one-off texts, each compared once, not items."""
    if len(a) < 2 or pd.Series(np.concatenate([a, b]), dtype=object).duplicated().any():
        return
    names = (column_label(header, a_col), column_label(header, b_col))
    raise PreferenceFormatError(
        f"No item in '{names[0]}' or '{names[1]}' comes up in more than one comparison (such "
        f"as {shown_cell(' '.join(str(a[0]).split()))}), so there is nothing to rank them "
        "by: these look like one-off answers, not items compared again and again.",
        row=int(line[0]), column=names[0],
        fix="If another column names what wrote each answer (a model, a system, a person), "
            "make those the winner and loser columns ('chosen_model' and 'rejected_model', "
            "or 'winner' and 'loser'), then load the file again.")


def _resolve_flags(left: np.ndarray, right: np.ndarray, cells: np.ndarray, line: np.ndarray,
                   header: Sequence[str] | None, coding: Coding) -> tuple[np.ndarray, np.ndarray]:
    """One 0/1 flag column per outcome: exactly one flag is set on each row."""
    a_won = _flags(cells[:, coding["flag_a"]], line, header, coding["flag_a"])
    tie = (np.zeros(len(left), dtype=bool) if coding["tie"] is None else
           _flags(cells[:, coding["tie"]], line, header, coding["tie"]))
    if coding["flag_b"] is None:  # the left side's one flag: else the right won
        return ~a_won & ~tie, tie
    b_won = _flags(cells[:, coding["flag_b"]], line, header, coding["flag_b"])
    bad = np.flatnonzero(a_won.astype(int) + b_won + tie != 1)
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            "Exactly one of the outcome flags must be set on each row, but this row sets "
            f"{int(a_won[i]) + int(b_won[i]) + int(tie[i])}.", row=int(line[i]),
            column=column_label(header, coding["flag_a"]),
            fix="Put 1 in the column of the winner (or of the tie) and 0 in the others.")
    return b_won, tie


def _resolve_scores(left: np.ndarray, right: np.ndarray, cells: np.ndarray, line: np.ndarray,
                    header: Sequence[str] | None, coding: Coding) -> tuple[np.ndarray, np.ndarray]:
    """Two score columns: the higher score wins; equal scores are a tie."""
    scores = []
    for key in ("score_a", "score_b"):
        values = cells[:, coding[key]]
        numbers = parse_numbers(values)
        bad = np.flatnonzero(~np.isfinite(numbers))
        if bad.size:
            i = int(bad[0])
            raise PreferenceFormatError(
                f"The score '{values[i]}' is not a number.", row=int(line[i]),
                column=column_label(header, coding[key]), fix="Write each score as a number.")
        scores.append(numbers)
    return scores[1] > scores[0], scores[1] == scores[0]


def label_outcomes(left: np.ndarray, right: np.ndarray, labels: np.ndarray, drawn: np.ndarray,
                   lines: np.ndarray, header: Sequence[str], label_col: int, left_col: int,
                   right_col: int, status: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of left/right items and a column naming the winner: whether the right item won,
    whether the row is a tie, and whether it has no result yet (``*``, unfinished, void).

    ``drawn`` is a separate draw flag (the winner cell may then be blank), and ``status``
    the cells of a match status column (:func:`status_column`): one saying the game was
    drawn (``draw``, ``stalemate``) is the result where the winner is left blank. The one
    rule of the table reader and the chunked reader; unfinished rows are the caller's to skip.
    """
    if status is not None:
        blank = np.char.strip(np.asarray(labels, dtype=object).astype(str)) == ""
        said = np.char.lower(np.char.strip(np.asarray(status, dtype=object).astype(str)))
        drawn = drawn | (blank & np.isin(said, list(_DRAWN_STATUS)))
    labels = np.where(drawn, left, labels)
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    words = [normalise(str(u)) for u in uniques]
    # chess results (1-0, 0-1, ½-½): 0-0 is a double forfeit, no game, not a draw
    void = _UNFINISHED | ({"00"} if _HALF_POINT_DRAWS & set(words) else set())
    unfinished = np.array([str(u).lower() in void or w in void
                           for u, w in zip(uniques, words)] or [False])[codes]
    unfinished &= (labels != left) & (labels != right)  # a player called 'PP' won
    if unfinished.any():
        labels = np.where(unfinished, left, labels)
    b_won, tied = _resolve_labels(left, right, labels, lines, header, label_col, left_col,
                                  right_col)
    return b_won & ~drawn, tied | drawn, unfinished


def _resolve_labels(left: np.ndarray, right: np.ndarray, label: np.ndarray, lines: np.ndarray,
                    header: Sequence[str], label_col: int, left_col: int, right_col: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Turn left/right/winner rows into winner, loser and tie flags."""
    # a score after extra time ('79:84 n.V.', '2-1 AET', '3-2 OT') is the final one, and a
    # choice kept as a JSON object of one field (Label Studio's {"selected": "left"}) its value
    label = _after_extra_time(pd.Series(label, dtype=object).astype(str).str.replace(
        _ONE_FIELD_OBJECT, r"\1", regex=True))
    codes, uniques = pd.factorize(np.asarray(label, dtype=object))
    # a signed number ('-2' on a scale from A's side to B's) is no side's number 2
    words = np.asarray([x.strip() if _SIGNED.match(x) else normalise(x) for x in uniques]
                       or [""], dtype=object)[codes]
    left_key, right_key = title_key(header[left_col]), title_key(header[right_col])
    left_own = {left_key, _base(left_key, "left")}
    right_own = {right_key, _base(right_key, "right")}
    # a side's own title beats the generic words: 'model_a' names that column wherever it is
    left_words = (_LEFT_WORDS - right_own) | left_own
    right_words = (_RIGHT_WORDS - left_own) | right_own
    tie_words = _TIE_WORDS
    if _one_and_two(left_key, right_key):
        # output_1/output_2, generator_1/generator_2: a preference of 1, 2 (1.5 a tie)
        left_words = left_words | {"1", "10"}
        right_words = right_words | {"2", "20"}
        tie_words = tie_words | {"15"}
    differ = [k for k in range(len(left_key))
              if len(left_key) == len(right_key) and left_key[k] != right_key[k]]
    if len(differ) == 1 and left_key[differ[0]] in "012" and right_key[differ[0]] in "012":
        # response_0/response_1, response_0_source: the winner named by its mark, 0 or 1
        left_words = left_words | {left_key[differ[0]]}
        right_words = right_words | {right_key[differ[0]]}
    if any(w in left_key for w in _HOME_SIDES) and any(w in right_key for w in _AWAY_SIDES):
        # football: H, D, A (or 1, X, 2)
        left_words = {"h", "home", "hometeam", "1", "10", "1:0"} | left_own
        right_words = {"a", "away", "awayteam", "2", "01", "0:1"} | right_own
        tie_words = _TIE_WORDS | {"d", "x", "n"}  # French 1 N 2
    if right_key in _OPPONENTS:  # one player's games: the result from the player's side
        colour = [normalise(t) for t in header if normalise(t) in _COLOURS]
        chess = np.isin(words, list(_HALF_POINT_DRAWS | {"10", "01"}))
        if colour and chess.any():
            i = int(np.flatnonzero(chess)[0])
            raise PreferenceFormatError(
                f"This game's result is {shown_cell(str(label[i]))} beside a '{header[left_col]}'"
                f", an '{header[right_col]}' and the colour played: a chess score counts from "
                "White's side, whichever side the player had, so who won cannot be told from "
                "the player's side here.", row=int(lines[i]), column=header[label_col],
                fix="Write each result from the player's side (W, D or L), or give columns "
                    "'white', 'black' and 'result'.")
        left_words = {"w", "win", "won", "1", left_key}
        right_words = {"l", "loss", "lost", "lose", "0", right_key}
        tie_words = _TIE_WORDS | {"d", "draw", "drew", "t", "tie", "tied", "½"}
        # 'W 3-1', 'L 0-2 (OT)': the outcome's letter before the score
        lead = pd.Series(label, dtype=object).astype(str).str.extract(
            r"^\s*([WwLlDdTt])\s+\d", expand=False)
        words = np.where(lead.notna().to_numpy(), lead.str.lower().to_numpy(dtype=object),
                         words)
    is_left = label == left
    is_right = ~is_left & (label == right)
    rest = ~(is_left | is_right)
    # a score ('2-0', '1-5') is read as one, never as the words it normalises to ('20': a
    # preference of 2.0 for output_2, '15' a tie at 1.5)
    scoreline = pd.Series(label, dtype=object).astype(str).str.fullmatch(
        _SCORE_CELL.pattern).to_numpy(dtype=bool)
    words = np.where(scoreline, "\x00", words)  # no side's word
    word_left = rest & np.isin(words, list(left_words))
    word_right = rest & ~word_left & np.isin(words, list(right_words))
    tie = rest & ~word_left & ~word_right & np.isin(words, list(tie_words))
    verdict = _verdicts(label, rest & ~word_left & ~word_right & ~tie, left_words, right_words)
    word_left |= verdict == -1
    word_right |= verdict == 1
    tie |= verdict == 0
    scored = rest & ~word_left & ~word_right & ~tie & (verdict == 2)
    score_left, score_right = _match_scores(label[scored])
    known = np.isfinite(score_left)
    word_right[np.flatnonzero(scored)[known]] = score_right[known] > score_left[known]
    tie[np.flatnonzero(scored)[known]] = score_right[known] == score_left[known]
    bad = np.flatnonzero(scored)[~known]
    if bad.size:
        i = int(bad[0])
        found = shown_cell(label[i])
        if _SIGNED.match(str(label[i])):
            raise PreferenceFormatError(
                f"The result is {found}, a number with a sign: a scale from one side to the "
                "other, and the file does not say which sign favours the left item "
                f"('{left[i]}').", row=int(lines[i]), column=column_label(header, label_col),
                fix=f"Replace each number by the winner: '{column_label(header, left_col)}', "
                    f"'{column_label(header, right_col)}' or 'tie' (0).")
        if _SCORE_CELL.match(str(label[i])) and re.search(r"[^\d\s:–—-]", str(label[i])):
            raise PreferenceFormatError(
                f"The result {found} adds to its score more than a half-time score (such as "
                "penalties, extra time or a retirement), and the file does not say which part "
                "decides the winner.", row=int(lines[i]), column=column_label(header, label_col),
                fix="Write the final result alone: the score with the left item's first, "
                    "such as '2-1', or the winner's name.")
        raise PreferenceFormatError(
            f"The winner is {found}, which is neither the left item ('{left[i]}') nor the right "
            f"item ('{right[i]}').", row=int(lines[i]),
            column=column_label(header, label_col),
            fix="Write the winning item's name, the word 'left' or 'right', 'tie' for a draw, "
                "or the score with the left item's first, such as '2-1'.")
    return is_right | word_right, tie


#: Words of a match list's home and away sides' titles (English, German, Spanish, French,
#: Italian, Dutch).
_HOME_SIDES = ("home", "heim", "local", "domicile", "casa", "thuis")
_AWAY_SIDES = ("away", "gast", "visit", "extérieur", "exterieur", "trasferta", "ospit", "uit")
#: A mark after a match's score that it was reached in extra time (English ``AET``,
#: ``OT``, German ``n.V.``, Italian ``d.t.s.``): the score is the final one.
_AFTER_EXTRA_TIME = re.compile(
    r"(?<=\d)\s*(?:\(\s*)?(?:a\.?\s?e\.?\s?t\.?|n\.?\s?v\.?|[2-9]?\s?ot|o\.t\.|d\.?t\.?s\.?|"
    r"e\.?t\.?|s\.?o\.?|shoot-?out|after extra time|overtime)(?:\s*\))?\s*$", re.IGNORECASE)
#: A JSON object of one field holding a text: ``{"selected": "left"}``.
_ONE_FIELD_OBJECT = re.compile(r'^\s*\{\s*"[^"\\]{1,40}"\s*:\s*"([^"\\]*)"\s*\}\s*$')
#: A cell that starts with a sign and a digit: a number on a scale with a direction.
_SIGNED = re.compile(r"\s*[+-]\s*\d")
#: A verdict naming both sides and how they compare: ``A>>B``, ``B>A``, ``A=B`` (Arena-Hard).
_VERDICT = re.compile(r"\s*(?P<first>[^\W_]+)\s*(?P<op>>>|>|=|<<|<|≫|≪)\s*(?P<second>[^\W_]+)\s*")


def _verdicts(label: np.ndarray, open_: np.ndarray, left_words: set[str],
              right_words: set[str]) -> np.ndarray:
    """For each row, -1 where a verdict naming both sides (``A>>B``) says the left won, 1
    the right, 0 a tie, and 2 where the cell (among ``open_``) is no such verdict."""
    out = np.full(len(label), 2, dtype=np.int8)
    rows = np.flatnonzero(open_)
    if not rows.size:
        return out
    codes, uniques = pd.factorize(np.asarray(label[rows], dtype=object))
    read = np.full(len(uniques), 2, dtype=np.int8)
    for k, cell in enumerate(uniques):
        found = _VERDICT.fullmatch(str(cell))
        if found is None:
            continue
        first, second = normalise(found["first"]), normalise(found["second"])
        sides = ((first in left_words) - (first in right_words),
                 (second in left_words) - (second in right_words))
        if sides not in ((1, -1), (-1, 1)):
            continue  # not one side against the other
        op = found["op"]
        better_first = op in (">", ">>", "≫")
        read[k] = 0 if op == "=" else (-1 if better_first == (sides[0] == 1) else 1)
    out[rows] = read[codes]
    return out


def _match_scores(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two sides' scores written in one cell (``2-1``, ``2:1``, ``1–1``); NaN where a
    cell is not a score."""
    parts = pd.Series(labels, dtype=object).astype(str).str.extract(
        f"^{_SCORE_CELL.pattern}(?:\\({_SCORE_CELL.pattern}\\)\\s*)?$")
    left, right, half_left, half_right = (
        np.array(pd.to_numeric(parts[k], errors="coerce"), dtype=float) for k in range(4))
    # a half-time score in brackets ('2-1 (0-0)') is on the way to the final one; penalties
    # or extra time ('1-1 (4-2)') decide what the score does not, and are not read
    after = np.isfinite(half_left) & ~((half_left <= left) & (half_right <= right))
    left[after] = np.nan
    sets = ~np.isfinite(left) & pd.Series(labels, dtype=object).astype(str).str.fullmatch(
        _SET_SCORES).to_numpy(dtype=bool)
    if sets.any():  # a tennis match's sets ('6-4 3-6 7-6(5)'): the sets won
        won = pd.Series(labels[sets], dtype=object).map(_sets_won)
        left[sets] = won.str[0].to_numpy(dtype=float)
        right[sets] = won.str[1].to_numpy(dtype=float)
    return left, right


#: A match's set scores, the left side's games first: ``6-4 3-6 7-6(5)`` (a tie-break's
#: points in brackets); two sets or more.
_SET = r"\d{1,2}\s*[-–]\s*\d{1,2}(?:\s*\(\d{1,2}\))?"
_SET_SCORES = re.compile(rf"\s*{_SET}(?:[\s,;]+{_SET})+\s*")


def _sets_won(cell: str) -> tuple[float, float]:
    """The sets each side won in a cell of set scores (``6-4 3-6 7-6(5)`` -> 2, 1); NaN
    for a set drawn, which no tennis score holds."""
    games = [(int(a), int(b)) for a, b in re.findall(r"(\d{1,2})\s*[-–]\s*(\d{1,2})",
                                                       re.sub(r"\(\d+\)", "", cell))]
    if any(a == b for a, b in games):
        return float("nan"), float("nan")
    return float(sum(a > b for a, b in games)), float(sum(b > a for a, b in games))


def _base(key: str, role: str) -> str:
    """``white_id`` -> ``white``: a side's title without its id or name ending."""
    found = role_base(key, PREFERENCE_ROLES[role])
    return found[0] if found else key


def _refuse_blank_or_broken(values: np.ndarray, line: np.ndarray, column: str,
                            blank_reason: str) -> None:
    """Refuse the first cell of an item column that is blank (``blank_reason``) or holds a
    line break (a list typed in one cell), whichever comes first."""
    blank = values == ""
    broken = pd.Series(values, dtype=object).str.contains(r"[\r\n]").to_numpy(dtype=bool)
    bad = np.flatnonzero(blank | broken)
    if not bad.size:
        return
    i = int(bad[0])
    if broken[i]:
        raise multiline_error(int(line[i]), column, True)
    raise PreferenceFormatError(blank_reason, row=int(line[i]), column=column,
                                fix="Fill in the item or delete the row.")


def _pairs_headerless(table: Table) -> Preferences:
    width = 2
    cells = padded(table, ["", ""], 0)
    line = np.asarray(table.lines, dtype=np.intp)
    for col in range(width):
        _refuse_blank_or_broken(cells[:, col], line, str(col + 1), "This cell is blank; every "
                                "comparison needs two items (winner first).")
    no = np.zeros(len(line), dtype=bool)
    return _pairs(cells[:, 0], cells[:, 1], no, no, line, cells, {}, None, [])


def pair_preferences(first: Sequence[str] | np.ndarray, second: Sequence[str] | np.ndarray,
                     second_wins: Sequence[bool] | np.ndarray, tied: Sequence[bool] | np.ndarray,
                     line: Sequence[int] | np.ndarray, notes: Sequence[str]) -> Preferences:
    """Comparisons of ``first`` and ``second`` items (names), as other readers give them."""
    line = np.asarray(line, dtype=np.intp)
    return _pairs(np.asarray(first, dtype=object), np.asarray(second, dtype=object),
                  np.asarray(second_wins, bool), np.asarray(tied, bool), line, None, {}, None,
                  notes)


def _pairs(first: np.ndarray, second: np.ndarray, second_wins: np.ndarray, tied: np.ndarray,
           line: np.ndarray, cells: np.ndarray | None, roles: dict[str, int],
           header: Sequence[str] | None, notes: Sequence[str]) -> Preferences:
    """Build pairwise Preferences from the file's two item columns, skipping self-pairs.

    Items are numbered in order of first appearance in the two columns, row by row;
    ``second_wins`` says where the second column holds the winner.
    """
    seen = np.column_stack([first, second]).ravel()
    codes, item_names = factorize(seen)
    del seen
    codes = codes.astype(ID_DTYPE)  # item ids: four bytes each, as Preferences keeps them
    codes, item_names, note = unify_names(codes, item_names)
    notes = list(notes) + ([note] if note else [])
    check_items(item_names)
    a_id, b_id = codes[0::2], codes[1::2]
    w_id, l_id = np.where(second_wins, b_id, a_id), np.where(second_wins, a_id, b_id)
    notes = list(notes)
    keep = w_id != l_id
    if not keep.all():
        notes.append(skipped_note(line[~keep], "row", "comparing an item with itself"))
    if not keep.any():
        raise PreferenceFormatError(
            "Every row compares an item with itself, so there is nothing to compare.",
            fix="Each row must name two different items.")
    weights = None
    if "weight" in roles and cells is not None:  # roles come with cells
        col = roles["weight"]
        weights = parse_weights(cells[:, col], line, column_label(header, col))[keep]
    rankers, ranker_names = None, None
    if "ranker" in roles and cells is not None:
        col = roles["ranker"]
        rankers, ranker_names = ranker_ids(cells[keep, col], line[keep],
                                           column_label(header, col), notes)
    (w_kept, l_kept), item_names, left_out = without_unpaired_names(
        [w_id[keep], l_id[keep]], item_names)
    if left_out:
        notes.append(left_out)
    return Preferences.from_pairs(w_kept, l_kept, n_items=len(item_names),
                                  tied=np.asarray(tied, bool)[keep], weights=weights,
                                  rankers=rankers, item_names=item_names,
                                  ranker_names=ranker_names, notes=tuple(notes))


