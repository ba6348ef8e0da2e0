"""Column titles and their roles, and the words that name columns, rows and counts in messages."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


# ---------------------------------------------------------------------------- column names
def _synonyms(*words: str, suffixes: Sequence[str] = ()) -> frozenset[str]:
    return frozenset(w + s for w in words for s in ("", *suffixes))


def _sides(side: str, letter: str) -> frozenset[str]:
    """A comparative judgement's side titles: ``left_candidate``, ``Script A``, ``essay_left``."""
    things = ("candidate", "script", "essay", "item", "option", "image", "object", "work",
              "submission")  # not a 'response' or 'text': a one-off answer beside its model
    return frozenset(t for thing in things for t in (side + thing, thing + side, thing + letter))


_RANKER_WORDS = ("ranker", "voter", "user", "id", "name", "respondent", "worker", "annotator",
                 "student", "rater", "judge", "grader", "participant", "email", "emailaddress",
                 "#", "who", "pupil", "reviewer", "juror", "panelist", "panellist", "assessor",
                 "examiner", "taster", "evaluator", "customer", "client", "viewer", "buyer",
                 "shopper", "consumer", "subscriber", "listener", "marker", "teacher",
                 "moderator", "tutor", "instructor", "adjudicator")
#: Titles of a column naming what a ranker did several times, each time one ranking: a
#: school's assignment, exam, quiz, homework, problem or exercise (with an id, name, number
#: or title: ``Assignment ID``, ``exam_name``), as ``task``, ``question`` and ``round`` are.
TASK_WORDS = ("assignment", "exam", "examination", "quiz", "homework", "problem", "exercise")
TASK_ENDS = ("id", "name", "no", "number", "title")
_TASK_TITLES = _synonyms(*TASK_WORDS, suffixes=TASK_ENDS)
PREFERENCE_ROLES: dict[str, frozenset[str]] = {
    "ranker": _synonyms(*_RANKER_WORDS, suffixes=("id", "name", "hash")) | frozenset(
        {"responseid", "respondentid", "recipientemail", "fullname", "username",
         "prolificpid", "prolificid"}),
    "list": _synonyms("preference", "list", "ballot", "query", "task", "question", "round",
                      "session", "prompt", suffixes=("id",)) | _TASK_TITLES
    # a cast vote record's number: one ballot, its rankings one per contest
    | _synonyms("cvr", "castvoterecord", "ballot", suffixes=("id", "number", "no", "#")),
    "weight": frozenset({"weight", "weights", "count", "counts", "votes", "n", "freq",
                         "frequency", "numberofvoters", "multiplicity"}),
    "item": frozenset({"item", "items", "itemid", "itemname", "alternative", "candidate",
                       "choice", "option", "model", "modelname"}),
    "rank": frozenset({"rank", "rnk", "position", "place"}),
    "winner": frozenset({"winner", "winnerid", "winneritem", "chosen", "preferred",
                         "sieger", "gewinner", "ganador", "vainqueur", "gagnant", "vincitore",
                         "winnaar",
                         "selected", "picked", "winnermodel", "modelwinner", "better",
                         "modelchosen"}),
    "loser": frozenset({"loser", "loserid", "loseritem", "losermodel", "modelloser",
                        "verlierer", "perdedor", "perdant", "perdente", "verliezer",
                        "rejected", "dispreferred", "worse", "modelrejected"}),
    "left": frozenset({"left", "leftitem", "itemleft", "itema", "modela", "white", "home",
                       "hometeam", "player1", "playera", "team1", "teama", "competitor1",
                       "stimleft", "leftstim", "leftoption", "optionleft", "optiona",
                       "generator1", "generator", "systema", "aff", "affteam", "affirmative",
                       "affirmativeteam", "gov", "government", "proposition",
                       # home in German, Spanish, French, Italian and Dutch match lists
                       "heim", "heimmannschaft", "heimteam", "local", "equipolocal",
                       "domicile", "équipedomicile", "casa", "squadracasa", "thuis",
                       "thuisploeg", "thuisteam", *_sides("left", "a")}),
    "right": frozenset({"right", "rightitem", "itemright", "itemb", "modelb", "black", "away",
                        "awayteam", "player2", "playerb", "team2", "teamb", "competitor2",
                        "stimright", "rightstim", "rightoption", "optionright", "optionb",
                        "generator2", "systemb", "visitorteam", "visitingteam", "guestteam",
                        "roadteam", "neg", "negteam", "negative", "negativeteam",
                        "opposition", "gast", "gastmannschaft", "gastteam", "visitante",
                        "equipovisitante", "extérieur", "exterieur", "équipeextérieur",
                        "trasferta", "ospite", "ospiti", "squadraospite", "uit", "uitploeg",
                        *_sides("right", "b")}),
    "label": frozenset({"label", "result", "outcome", "ftr", "res", "fulltimeresult",
                        "decision", "verdict", "won", "ergebnis", "endstand", "resultado",
                        "marcador", "résultat", "resultat", "risultato", "uitslag"}),
    "score": frozenset({"score", "value", "level", "grade", "truth", "worth", "quality",
                        "rating"}),
}
TRUTH_ROLES: dict[str, frozenset[str]] = {
    "item": frozenset({"item", "items", "itemid", "itemname", "name", "id", "alternative",
                       "candidate", "object", "doc", "document", "option"}),
    "score": PREFERENCE_ROLES["score"] | frozenset({"scores", "groundtruth", "truescore"}),
    "rank": frozenset({"rank", "rnk", "position", "place"}),
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


_SPACING = re.compile(r"[\s_\-.]+")


def is_float_text(text: str) -> bool:
    """Whether Python reads ``text`` as a number (``8``, ``-2.5``, ``1e3``, ``nan``)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1 << 16)
def normalise(cell: str) -> str:
    return _SPACING.sub("", cell.strip().lower())


def is_school_task(title: str) -> bool:
    """Whether a column title names a school's task (:data:`TASK_WORDS`: ``assignment``,
    ``Exam ID``, ``quiz_name``). Such a column splits a ranker's rows into one ranking per
    task only where some ranker has two rows within one task; elsewhere it splits nothing.
    """
    return normalise(title) in _TASK_TITLES


#: Titles of a column naming the event in which items were ranked against each other (a
#: results table: ``heat``, ``Race No``, ``game_id``, ``Event Name``), each event one ranking.
EVENT_WORDS = ("round", "heat", "race", "game", "match", "event", "stage", "leg", "contest",
               "competition", "tournament", "tourney", "week", "day", "matchday", "gameweek",
               "gameday", "raceday", "session", "meet", "regatta", "fixture", "grandprix",
               "year", "season", "month", "games", "edition", "olympics", "championship",
               "apparatus", "discipline", "segment",  # Strava's leaderboard of a climb
               "championships")
EVENT_ENDS = ("id", "no", "nr", "number", "num", "name", "code", "title", "#")
_EVENT_TITLES = _synonyms(*EVENT_WORDS, suffixes=EVENT_ENDS)
#: Event titles that split rankings only where no other event title does (a monthly rating
#: list's 'Month'; beside 'Race' it says when the race was held).
WEAK_EVENT_TITLES = frozenset({"month"})


def without_weak_events(events: list[int], keys: Sequence[str]) -> list[int]:
    """The event columns ``events`` (by their normalised titles ``keys``) without the weak
    ones (:data:`WEAK_EVENT_TITLES`) where another splits the rankings; all of them else."""
    if len(events) < 2:
        return events
    return [j for j in events if keys[j] not in WEAK_EVENT_TITLES] or events
#: Titles of a column naming who or what competed in a results table (with ``id`` or
#: ``name`` endings: ``player_name``, ``Driver ID``), besides the item titles of a long file.
COMPETITOR_WORDS = frozenset({
    "player", "athlete", "runner", "team", "contestant", "competitor", "horse", "driver",
    "rider", "entrant", "entry", "swimmer", "golfer", "cyclist", "skater", "gymnast", "boxer",
    "fighter", "wrestler", "racer", "jockey", "sailor", "crew", "boat", "car", "dog", "skier",
    "jumper", "thrower", "lifter", "archer", "shooter", "finalist", "contender", "performer",
    "act", "song", "band", "bot", "agent", "engine", "program", "solver", "model", "system",
    "method", "algorithm", "submission", "quizteam", "pair", "squad", "duo", "couple",
    "robot", "chef", "baker", "singer", "artist", "climber", "pilot", "bowler",
    "batter", "fencer", "dancer", "diver", "rower", "constructor", "manufacturer", "helm",
    "helmsman", "helmsperson", "skipper", "yacht"}) \
    | PREFERENCE_ROLES["item"]


# a results list or a leaderboard is a ground truth too: its competitor and its place
TRUTH_ROLES["item"] = TRUTH_ROLES["item"] | COMPETITOR_WORDS
TRUTH_ROLES["rank"] = TRUTH_ROLES["rank"] | frozenset(
    {"pos", "posn", "rk", "rnk", "plc", "placing", "placement", "standing", "finish",
     "finishposition", "finalposition", "finalrank", "overallrank", "overallplace"})


def is_event_title(title: str) -> bool:
    """Whether a column title names an event in which items were ranked (:data:`EVENT_WORDS`,
    also with an id, number or name ending: ``heat``, ``Race No.``, ``game_id``, ``Round #``).

    Parameters
    ----------
    title : str
        A column title as written.

    Returns
    -------
    bool
        True for ``round``, ``Heat``, ``race_id``, ``Event Name``, ``week``; False for
        ``rounds``, ``player`` or ``Time (sec)``.
    """
    key = normalise(title)
    return key in _EVENT_TITLES


#: Words of a number column's title saying that a smaller number is better: a time, a count
#: of strokes, errors or faults, a penalty or deduction, a golf score (to par), a loss or cost.
LOWER_WORDS = frozenset({
    "time", "times", "timing", "seconds", "secs", "sec", "ms", "msec", "milliseconds",
    "minutes", "mins", "hours", "hrs", "duration", "elapsed", "latency", "runtime", "laptime",
    "racetime", "strokes", "stroke", "putts", "error", "errors", "mistake", "mistakes",
    "fault", "faults", "penalty", "penalties", "deduction", "deductions", "deducted",
    "golf", "par", "topar", "overpar", "loss", "cost", "lower"})
#: Words of a title saying the numbers count up as they get better (``Time bonus``,
#: ``Time (higher is better)``), or that a time is a moment, not a duration (``Submit time``,
#: ``timestamp``): the title is then not read as lower-is-better.
NOT_LOWER_WORDS = frozenset({
    "higher", "bonus", "saved", "start", "started", "end", "ended", "submit", "submitted",
    "creation", "created", "accept", "accepted", "approval", "approved", "rejection",
    "modified", "updated", "date", "day", "stamp", "utc", "local", "clock", "zone",
    "survived", "survival", "survive", "alive", "lasted", "uptime", "possession"})
#: Words that end a title glued onto a word before it (``penaltypoints``, ``errorcount``).
_GLUED_ENDS = ("points", "point", "score", "scores", "count", "total", "grade", "rating")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_]+")


def title_words(title: str) -> list[str]:
    """The lower-case words of a column title: split at anything not a letter and where a
    capital follows a small letter; a word glued onto a known ending is split from it.

    ``Time (sec)`` gives ``time, sec``; ``finish_time`` ``finish, time``; ``errorCount``
    ``error, count``; ``penaltypoints`` ``penalty, points``.
    """
    words: list[str] = []
    for word in _WORD.findall(_CAMEL.sub(" ", title)):
        word = word.lower()
        for end in _GLUED_ENDS:
            if word.endswith(end) and word[:-len(end)] in LOWER_WORDS:
                words += [word[:-len(end)], end]
                break
        else:
            words.append(word)
    return words


def lower_is_better_words(title: str) -> tuple[str, ...]:
    """The words of ``title`` saying a smaller number is better, or () when none do.

    The rule: a word of the title (:func:`title_words`, case-insensitive) is in
    :data:`LOWER_WORDS` (``time``, ``seconds``, ``strokes``, ``errors``, ``penalty``, ``par``
    ...), and none is in :data:`NOT_LOWER_WORDS` (``higher``, ``bonus``, or a moment:
    ``start``, ``submit``, ``date``). So ``strokes``,
    ``Time (sec)``, ``finish_time``, ``error_count``, ``penalty points`` and ``golf_score``
    are lower-is-better, while ``score``, ``points`` and ``rating`` are not. Places and
    ranks (1 the best) are told apart by their own words (``rank``, ``place``).
    """
    words = title_words(title)
    if NOT_LOWER_WORDS.intersection(words):
        return ()
    return tuple(dict.fromkeys(w for w in words if w in LOWER_WORDS))


ID_ENDS = ("id", "code", "no", "number", "num", "key")
NAME_ENDS = ("name", "text", "label", "title")
#: Words of preference data for language models whose column holds an answer's text while
#: ``<word>_model`` names the model that wrote it (``chosen`` and ``chosen_model``): the
#: model is the item, as a name beats the plain column.
ANSWER_WORDS = frozenset({"chosen", "rejected", "better", "worse", "preferred",
                           "dispreferred"})
#: Starts of titles naming what is shown side by side for a judgement (two answers of a
#: language model, two summaries), not who wrote them: ``response_1``, ``output_a``.
ANSWER_STEMS = ("response", "output", "completion", "generation", "reply", "summary")
SIBLING_ROLES = frozenset({"winner", "loser", "left", "right", "item"})
#: Sides of a comparison whose ``<side>_model`` names the model shown there (``left_model``
#: beside the answer ``left_response``).
_SIDE_WORDS = frozenset({"left", "right"})


def role_base(key: str, names: frozenset[str]) -> tuple[str, int] | None:
    """A normalised title's role word and kind: 0 a name, 1 plain, 2 an id; None if none.

    ``winner_name``/``Winner Text`` are names, ``winner``/``white`` plain, ``winner_id``,
    ``white_id``/``Winner ID`` ids (of the role words in ``names``); ``chosen_model`` is a
    name beside the answer ``chosen`` holds (:data:`ANSWER_WORDS`), and so is
    ``left_model`` beside the side's answer.
    """
    for kind, ends in ((0, NAME_ENDS), (2, ID_ENDS)):
        for end in ends:
            if key.endswith(end) and key[:-len(end)] in names and key[:-len(end)]:
                return key[:-len(end)], kind
    if key.endswith("model") and key[:-5] in names and key[:-5] in ANSWER_WORDS | _SIDE_WORDS:
        return key[:-5], 0
    return (key, 1) if key in names else None


#: Mechanical Turk batch results prefix the task's fields: ``Input.item_a``, ``Answer.choice``
MTURK_PREFIX = re.compile(r"^\s*(?:input|answer)\.", re.IGNORECASE)


def _ranker_kind(key: str) -> int:
    """Ranker titles by priority: ranker words, then ids, then e-mails, then names."""
    if "name" in key:
        return 4
    if "mail" in key:
        return 3
    return 2 if key in ("id", "#", "responseid", "respondentid") else 1


def find_roles(cells: Sequence[str], table: dict[str, frozenset[str]]) -> dict[str, int]:
    """Role -> index of the first header cell that names it.

    For the item roles (winner, loser, left, right, item), a name column beats its id
    sibling: ``winner_id, winner_name`` gives the names, an id only when no name is there.
    For the ranker, ranker words beat ids, which beat e-mails, which beat names.
    """
    found: dict[str, int] = {}
    kinds: dict[str, int] = {}
    roles = tuple(table.items())
    for j, cell in enumerate(cells):
        hit = _role_of(cell, roles)
        if hit is not None and (hit[0] not in found or hit[1] < kinds[hit[0]]):
            found[hit[0]], kinds[hit[0]] = j, hit[1]
    return found


def title_key(cell: str) -> str:
    """A column title as its role is looked up: normalised, without MTurk's ``Input.``, and
    a JSON field's path by its first and last field (``white.user.name``: ``whitename``),
    after the objects that only hold the sides (``players.white.user.name`` from
    ``pandas.json_normalize``: ``whitename``)."""
    bare = MTURK_PREFIX.sub("", cell)
    if _FIELD_PATH.fullmatch(bare):
        parts = bare.split(".")
        while len(parts) > 2 and normalise(parts[0]) in _HOLDERS:
            parts = parts[1:]
        return normalise(parts[0]) + normalise(parts[-1])
    return normalise(bare)


#: Fields of a JSON record that hold its sides or its fields rather than name one
#: (lichess' ``players``, ``data``, ``metadata``).
_HOLDERS = frozenset({"players", "teams", "sides", "participants", "competitors",
                      "opponents", "contestants", "entrants", "data", "metadata", "fields",
                      "attributes", "properties", "payload", "source", "record"})


#: A field's path inside a JSON record's objects, three fields or more.
_FIELD_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}")


@functools.lru_cache(maxsize=1 << 16)
def _role_of(cell: str, roles: tuple[tuple[str, frozenset[str]], ...]) -> tuple[str, int] | None:
    """The first role a header cell names, with its kind (see :func:`find_roles`)."""
    key = title_key(cell)
    for role, names in roles:
        if role in SIBLING_ROLES:
            base = role_base(key, names)
            if base is not None:
                return role, base[1]
        elif key in names:
            return role, (_ranker_kind(key) if role == "ranker" else 1)
    return None


def column_label(header: Sequence[str] | None, j: int) -> str:
    """A column as the user sees it: its header text, else its 1-based position."""
    if header is not None and j < len(header) and header[j]:
        return header[j]
    return str(j + 1)


def quote_list(values: Iterable[Any], limit: int = 5) -> str:
    shown = list(values)
    text = ", ".join(f"'{v}'" for v in shown[:limit])
    return text + (f" (and {len(shown) - limit} more)" if len(shown) > limit else "")


def shown_cell(value: str) -> str:
    """A cell as a message names it: ``'8,5'`` in quotes, or "a blank cell"."""
    return f"'{value}'" if value else "a blank cell"


def plural(n: int, noun: str, number: bool = True) -> str:
    word = noun if n == 1 else noun + "s"
    return f"{n} {word}" if number else word


def skipped_note(lines: Sequence[Any] | np.ndarray, unit: str, reason: str) -> str:
    """``Skipped 2 rows comparing an item with itself: rows 4, 9`` for the user."""
    n = len(lines)
    return f"Skipped {plural(n, unit)} {reason}: {plural(n, 'row', number=False)} " \
           f"{rows_text(lines)}"


def rows_text(lines: Iterable[Any], limit: int = 10) -> str:
    numbers = [int(x) for x in lines]
    text = ", ".join(map(str, numbers[:limit]))
    return text + (f", ... ({len(numbers) - limit} more)" if len(numbers) > limit else "")



def ignored_note(header: Sequence[str], used: set[int]) -> list[str]:
    ignored = [c or str(j + 1) for j, c in enumerate(header) if j not in used]
    return [f"Ignored the columns {quote_list(ignored, 10)}"] if ignored else []
