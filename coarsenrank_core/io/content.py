"""What a column holds, judged by its title words and its cells: people, ids, metadata, prose."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .distinct import per_distinct

__all__ = ["person_title", "metadata_title", "metadata_content", "BALLOT_MARKS",
           "is_ballot_mark", "title_words", "DATE", "EMAIL", "IP", "counter_title",
           "SAMPLE_ROWS", "comment_title", "count_title", "id_title", "recurring_share",
           "prose", "rank_title", "rank_title_blocks", "position_ranks"]

SAMPLE_ROWS = 2000
"""Data rows looked at to judge a column by its content."""

# ---------------------------------------------------------------------------- titles
_NAME_WORDS = frozenset({
    "name", "names", "fullname", "username", "nickname", "surname", "firstname", "lastname",
    "forename", "nom", "prenom", "prénom", "nombre", "apellido", "apellidos", "nome",
    "cognome", "naam", "voornaam", "achternaam", "vorname", "nachname", "namn", "navn",
    "nimi", "isim", "imie", "imię", "nazwisko", "jméno", "név", "имя", "фамилия", "ім'я",
    "όνομα", "tên", "اسم", "الاسم", "שם", "नाम"})
_NAME_SCRIPTS = ("姓名", "名前", "名字", "氏名", "이름", "お名前")
_EMAIL_WORDS = frozenset({"email", "emailaddress", "mail", "courriel", "correo",
                          "correoelectronico", "posta", "epost", "sähköposti", "почта"})
_PERSON_WORDS = frozenset({"respondent", "participant", "voter", "rater", "annotator",
                           "worker", "student", "judge", "grader", "ranker", "user"})
# words that make a "name" title name a thing ranked, not a person
_THING_WORDS = frozenset({"item", "items", "candidate", "option", "choice", "product", "team",
                          "player", "model", "winner", "loser", "left", "right", "white",
                          "black", "home", "away", "file", "alternative", "entry", "project",
                          "company", "brand", "dish", "movie", "film", "book", "song",
                          "course", "city", "country", "school", "event", "tournament",
                          "tourney", "venue", "opening", "league", "survey", "form",
                          "question", "collector", "campaign", "referee", "program",
                          "referrer", "referer", "url", "page", "site", "website", "domain",
                          "host", "link", "browser", "device"})
_ID_SUFFIXES = ("id", "code", "no", "number", "num", "key", "uuid", "#")

# survey, web and device metadata named by their title words
_METADATA_PHRASES = (
    "user agent", "useragent", "browser", "referer", "referrer", "http referer", "ip",
    "ip address", "ipaddress", "remote addr", "latitude", "longitude", "lat", "lon", "lng",
    "geo", "geolocation", "location", "duration", "time taken", "time spent",
    "response time", "completion time", "language", "locale", "device", "device type",
    "operating system", "os", "screen resolution", "resolution", "status",
    "url", "page url", "landing page", "utm source", "utm medium", "utm campaign",
    "session", "session id", "sessionid", "token", "timezone", "time zone", "country",
    "city", "region", "state region", "postal", "postal code", "zip", "zip code",
    "created at", "updated at", "submitted at", "submission date", "submission time",
    "date submitted", "time started", "date", "time", "timestamp", "start", "end",
    "started", "finished", "completed", "tags", "consent", "valid", "flagged", "hash",
    "checksum", "version", "attention check", "user id", "contact id", "external reference",
    # crowdsourcing and annotation platforms' API records (MTurk, Label Studio, Qualtrics)
    "assignment id", "assignmentid", "hit id", "hitid", "hit type id", "hittypeid",
    "assignment status", "assignmentstatus", "inner id", "innerid", "displayed fields",
    "displayedfields", "displayed values", "displayedvalues",
    # the fixed columns of an MTurk batch results file, beside its Input. and Answer. ones
    "requester annotation", "lifetime approval rate", "last 30 days approval rate",
    "last 7 days approval rate", "requester feedback", "work time in seconds",
    "assignment duration in seconds", "auto approval delay in seconds",
    "number of similar hits", "lifetime in seconds", "max assignments", "creation time",
    "accept time", "submit time", "auto approval time", "approval time", "rejection time",
    "expiration", "reward", "keywords")
# free-text questions asked beside the ranking: their answers are never items
_COMMENT_WORDS = frozenset({"comment", "comments", "remark", "remarks", "feedback", "notes",
                            "note", "suggestion", "suggestions", "anything", "explain", "why",
                            "reason", "commentaires", "kommentar", "comentarios",
                            # the same in French, German, Spanish, Italian, Portuguese, Dutch
                            "commentaire", "remarque", "remarques", "kommentare", "anmerkung",
                            "anmerkungen", "bemerkung", "bemerkungen", "notiz", "notizen",
                            "comentario", "observaciones", "observacion", "nota", "notas",
                            "commento", "commenti", "osservazioni", "observacoes",
                            "opmerking", "opmerkingen"})
_METADATA_TITLES = frozenset(re.sub(r"\s+", "", p) for p in _METADATA_PHRASES)
# PsychoPy, jsPsych and similar experiment logs: loop counters, key presses, response times
_COUNTER = re.compile(
    r"(?:.*\.)?(?:this(?:repn|trialn|n|index)|thisrow\.t|(?:trial|block|loop|rep)"
    r"(?:s)?(?:_?(?:index|num|number|n|count|counter))|trialindex|trialnum|internalnodeid|"
    r"timeelapsed|rt|\w*\.(?:rt|keys|corr|started|stopped|ran|duration))", re.IGNORECASE)


def title_words(text: str) -> list[str]:
    """The lower-case words of a column title (letters and digits; other marks split)."""
    return re.findall(r"[^\W_]+(?:'[^\W_]+)?", text.lower())


def _squashed(text: str) -> str:
    return "".join(title_words(text))


def person_title(text: str) -> str | None:
    """``"name"`` or ``"e-mail"`` when a title asks who answered, in any common language.

    ``What is your name?``, ``Your name``, ``Nom et prénom``, ``Ihr Name``, ``E-mail address``
    ... name a person; ``Item name``, ``winner_name``, ``Team name`` name a thing ranked.
    """
    words = title_words(text)
    if not words:
        return None
    squashed = "".join(words)
    things = _THING_WORDS.intersection(words)
    if squashed in _EMAIL_WORDS or _EMAIL_WORDS.intersection(words) or "e" in words and \
            "mail" in words:
        return "e-mail"
    if things:
        return None
    if _NAME_WORDS.intersection(words) or any(s in text for s in _NAME_SCRIPTS):
        return "name"
    if squashed in _PERSON_WORDS:
        return "name"
    return None


def id_title(text: str) -> bool:
    """Whether a title names an id or code (``Response ID``, ``record_no``, ``uuid``)."""
    words = title_words(text)
    return bool(words) and (words[-1] in _ID_SUFFIXES or _squashed(text) in _ID_SUFFIXES
                            or text.strip() == "#")


def metadata_title(text: str) -> bool:
    """Whether a title names web, device or survey metadata (user agent, referer, IP ...)."""
    squashed = _squashed(text)
    if squashed in _METADATA_TITLES:
        return True
    words = title_words(text)
    return len(words) >= 2 and " ".join(words[:2]) in _METADATA_PHRASES and len(words) <= 4


_COUNT_WORDS = frozenset({"count", "counts", "copies", "copy", "times", "weight", "weights",
                          "votes", "n", "freq", "frequency", "multiplicity", "repeat",
                          "repeats", "quantity", "qty", "ballots", "voters", "number",
                          "occurrences", "tally"})


def count_title(text: str) -> bool:
    """Whether a title means a count, a weight or a number of votes."""
    return bool(_COUNT_WORDS.intersection(title_words(text)))


def comment_title(text: str) -> bool:
    """Whether a title asks for free text beside the ranking (comments, feedback, why ...)."""
    return bool(_COMMENT_WORDS.intersection(title_words(text)))


def counter_title(text: str) -> bool:
    """Whether a title names an experiment log's loop counter or timing (``trials.thisN``)."""
    return bool(_COUNTER.fullmatch(text.strip().replace(" ", "")))


# ---------------------------------------------------------------------------- content
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
DATE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}([ T_]\d{1,2}[:h]\d{2}.*)?|"
                  r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}([ T,]+\d{1,2}:\d{2}.*)?|"
                  r"\d{1,2}:\d{2}(:\d{2})?(\s*[AaPp][Mm])?|1(\d{9}|\d{12})(\.\d+)?|"
                  r"\d+(\.\d+)?[eE]\+\d+|"
                  # a moment with its month by name: 01-Mar-2024 10:00:00, Mar 1, 2024 9:30
                  # (a day alone, '4 March 2024', may be an item: a date to choose)
                  rf"\d{{1,2}}[-/ ]{_MONTH}[-/ ,]+\d{{2,4}}[ T,]+\d{{1,2}}:\d{{2}}.*|"
                  rf"{_MONTH}[ -]\d{{1,2}},?[ -]\d{{4}}[ T,]+\d{{1,2}}:\d{{2}}.*",
                  re.IGNORECASE)
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
IP = re.compile(r"\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}")
_USER_AGENT = re.compile(r"(Mozilla|Opera|Dalvik|curl|python-requests|okhttp)/\d|"
                         r"AppleWebKit|Gecko/|\((Windows NT|Macintosh|iPhone|iPad|Linux|X11)",
                         re.IGNORECASE)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+|www\.\S+", re.IGNORECASE)
_JSON = re.compile(r"\s*(\{.*\}|\[.*\])\s*", re.S)
#: XML or HTML markup in a cell (MTurk's ``Answer``: ``<?xml ...><QuestionFormAnswers>``).
_MARKUP = re.compile(r"\s*<(?:\?xml|!DOCTYPE|[A-Za-z][\w:.-]*(?:\s[^<>]*)?>).*</?[A-Za-z][^<>]*>"
                     r"\s*", re.DOTALL)
_CONTENT_KINDS = (("browser user agents", _USER_AGENT, "search"),
                  ("web addresses", _URL, "fullmatch"),
                  ("JSON data", _JSON, "fullmatch"),
                  ("XML or HTML markup", _MARKUP, "fullmatch"),
                  ("e-mail addresses", EMAIL, "fullmatch"),
                  ("dates or times", DATE, "fullmatch"),
                  ("IP addresses", IP, "fullmatch"))
BALLOT_MARKS = frozenset({"undervote", "overvote", "skipped", "writein", "write-in",
                          "blank", "exhausted", "under vote", "over vote",
                          # ES&S and Hart: an unqualified (unresolved) write-in, no mark
                          "unqualified write-in", "unresolved write-in",
                          "no selection", "(blank)"})

_MARK_KEYS = frozenset(re.sub(r"[\s_.-]+", "", m) for m in BALLOT_MARKS)


def is_ballot_mark(values: np.ndarray) -> np.ndarray:
    """Whether each cell is a ballot mark (``undervote``, ``overvote``, ``write-in`` ...)."""
    values = np.asarray(values, dtype=object).ravel()
    out = np.zeros(values.size, dtype=bool)
    lengths = np.fromiter(map(len, map(str, values)), dtype=np.int64, count=values.size)
    near = np.flatnonzero((lengths >= 3) & (lengths <= 22))  # only these can be marks
    if near.size:
        keys = pd.Series(values[near], dtype=object).astype(str).str.lower().str.replace(
            r"[\s_.-]+", "", regex=True)
        out[near] = keys.isin(_MARK_KEYS).to_numpy(dtype=bool)
    return out


def metadata_content(values: Sequence[str] | np.ndarray) -> str | None:
    """What a column's cells are when they are metadata rather than items, else None.

    Most of the non-blank cells must be browser user agents, web addresses, JSON, e-mail
    addresses, dates or times, or IP addresses; or prose (a free-text comment: cells of
    five or more words, or sentences).
    """
    cells = pd.Series(np.asarray(values, dtype=object)[:SAMPLE_ROWS], dtype=object).astype(str)
    cells = cells[cells.str.strip() != ""]
    series = pd.Series(pd.unique(cells.to_numpy()), dtype=object).astype(str)
    if series.empty:
        return None
    for kind, pattern, how in _CONTENT_KINDS:
        hits = series.map(lambda s, p=pattern, h=how: bool(getattr(p, h)(s.strip())))
        if hits.mean() >= 0.8:
            return kind
    if len(series) >= 3 and prose(series).mean() >= 0.5 and recurring_share(cells) < 0.5:
        return "free-text comments"
    return None


#: A cell of form choice names one space apart (letters, digits, ``_``, ``.``, ``-``).
_CHOICE_NAMES = r"[A-Za-z0-9_.-]+(?:\s[A-Za-z0-9_.-]+)+"


def _choice_names(text: pd.Series) -> bool:
    """Whether every cell is a form's choice names one space apart (:data:`_CHOICE_NAMES`),
    none twice in a cell, each in two cells or more, from a set of at most twice as many as
    the longest cell holds: one question's choices, where the words of comments keep
    growing from row to row."""
    cells = text.str.strip()
    if len(cells) < 3 or not bool(cells.str.fullmatch(_CHOICE_NAMES).all()):
        return False
    tokens = cells.str.split()
    longest = int(tokens.map(len).max())
    if any(len(set(t)) < len(t) for t in tokens):
        return False
    counts = tokens.explode().value_counts()
    return len(counts) <= 2 * longest and bool((counts >= 2).all())


def recurring_share(cells: pd.Series) -> float:
    """The share of the parts of cells (split at ``; , > = |``) that recur in another cell.

    Rankings written in cells reuse the same item names from row to row; comments, user
    agents and other free text do not.
    """
    text = cells.astype(str).str.replace(r"\s*[*^]\s*\d+\s*$", "", regex=True)  # counts
    text = text.str.replace(r"(?:^|\s)\d{1,3}[.)]\s+", ";", regex=True)  # numbered lists
    # choice names of a form's rank or select-multiple question (KoboToolbox, ODK), one
    # space apart: 'clean_water road_maintenance market_stalls'
    spaced = _choice_names(text)
    parts = text.str.split(r"\s+" if spaced else r"[;,>=|]", regex=True).explode().str.strip()
    parts = parts[parts != ""].str.lower()
    if parts.empty:
        return 0.0
    frame = pd.DataFrame({"row": parts.index, "part": parts.to_numpy()}).drop_duplicates()
    rows = frame["part"].map(frame["part"].value_counts())
    return float((rows >= 2).mean())


#: A ranking written as a numbered list in one cell: ``1. Rome 2. Paris 3. London``, or
#: ``1: Apple`` lines.
NUMBERED_LIST = re.compile(r"\s*1[.):]\s+\S.*?\s2[.):]\s+\S.*", re.S)


def prose(series: pd.Series) -> pd.Series:
    """Whether each cell reads as prose: five or more words, or a sentence mark inside."""
    return pd.Series(per_distinct(series.to_numpy(), _reads_as_prose, bool), index=series.index)


def _reads_as_prose(text: str) -> bool:
    if _RANKING_SIGN.search(text) or NUMBERED_LIST.fullmatch(text):
        return False  # 'A > B > C' is no prose
    words = len(_WORD.findall(text))
    return words >= 5 or (words >= 3 and _SENTENCE_MARK.search(text) is not None)


_WORD = re.compile(r"[^\W\d_]{2,}")
_SENTENCE_MARK = re.compile(r"[.!?]\s+[A-Za-z]|[.!?]$")
_RANKING_SIGN = re.compile(r"\S\s*>\s*\S")


# ---------------------------------------------------------------------------- rank titles
_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth", "eleventh", "twelfth")
_LONGEST_RANK_TITLE = 120
_RANK_TOKEN = re.compile(
    r"(?P<stem>.*?)[\s_.:#(\[-]*"
    r"(?:(?:rank(?:ed|ing)?|choice|pref(?:erence)?|position|pos|place|vote|top|no|nr|"
    r"number|\#)[\s_.#:-]*)?"
    r"(?:(?P<number>\d{1,5})(?:st|nd|rd|th)?|(?P<word>" + "|".join(_ORDINAL_WORDS) + r"))"
    r"(?:[\s_.-]*(?:choice|place|preference|pref|rank(?:ed)?|pick|vote|favou?rite))?"
    r"[)\]]?(?:\s*of\s*\d+)?\s*", re.IGNORECASE)


#: A rank named as one, anywhere in a title: ``1st Choice``, ``Second preference``,
#: ``Choice 1 of 5``, ``rank_2``; the words around it are the title's stem.
_NAMED_RANK = re.compile(
    r"(?<![^\W_])(?:(?:(?P<number>\d{1,5})(?:st|nd|rd|th)|(?P<word>"
    + "|".join(_ORDINAL_WORDS) + r"))[\s_.-]*(?:choice|pref(?:erence)?|place|rank(?:ed)?)"
    r"|(?:choice|rank(?:ed|ing)?|pref(?:erence)?)[\s_.#:-]*(?P<after>\d{1,5}))"
    r"(?:\s*of\s*\d+)?(?![^\W_])", re.IGNORECASE)


#: The titles of a podium's places: a medal table's ``Gold, Silver, Bronze``, a list of
#: finals' ``Winner, Runner-up``.
_PODIUM_PLACES = {"gold": ("", 1), "silver": ("", 2), "bronze": ("", 3),
                  "winner": ("", 1), "champion": ("", 1), "champions": ("", 1),
                  "runnerup": ("", 2), "runnersup": ("", 2),
                  "finalist": ("", 2)}


def _podium_place(label: str) -> tuple[str, int] | None:
    """The (stem, rank) of a podium's title (``Runner-up`` -> ``("", 2)``), or None."""
    return _PODIUM_PLACES.get(re.sub(r"[\s_.-]+", "", label.lower()))


def podium_title(label: str) -> bool:
    """Whether ``label`` titles a podium's place (``Gold``, ``Runner-up``)."""
    return _podium_place(label) is not None


def month_title(label: str) -> bool:
    """Whether ``label`` names a month (``Jan``, ``March 2024``)."""
    return bool(re.fullmatch(rf"{_MONTH}(?:\s*\d{{2,4}})?", label.strip(), re.IGNORECASE))


def rank_title(label: str) -> tuple[str, int] | None:
    """A title that names a rank after a shared stem: ``Mayor 1st Choice`` -> ``("mayor", 1)``.

    Also ``Rank the pizzas (2)``, ``Choice 3``, ``pref_4``, ``Second choice of 5``; and a
    rank named as one inside the title, the words around it the stem, as election records
    write them: ``Rep. to Congress 1st Choice District 2``, ``1ST CHOICE MAYOR``,
    ``DEM Mayor Choice 1 of 5 Citywide (026916)`` (a contest's code in brackets is no
    part of the stem).
    """
    podium = _podium_place(label)
    if podium is not None:  # a podium's titles, one stem: 'Gold, Silver, Bronze'
        return podium
    named = list(_NAMED_RANK.finditer(label))
    if len(named) == 1:
        found = named[0]
        stem = re.sub(r"\(\d+\)", " ", label[:found.start()] + " " + label[found.end():])
        return (re.sub(r"[\s_.:#()\[\]-]+", " ", stem.lower()).strip(),
                _rank_of(found["number"] or found["after"], found["word"]))
    # a rank's title is short; a long one is none, and never reaches a backtracking match
    match = _RANK_TOKEN.fullmatch(label.strip()) if len(label) <= _LONGEST_RANK_TITLE else None
    if match is None:
        return None
    return (re.sub(r"[\s_.:#(\[-]+", " ", match["stem"].lower()).strip(),
            _rank_of(match["number"], match["word"]))


def _rank_of(number: str | None, word: str | None) -> int:
    """The rank a title names, by its digits (``2nd``, ``Choice 2``) or its word
    (``second``)."""
    return int(number) if number is not None else _ORDINAL_WORDS.index(str(word).lower()) + 1


#: First words of a title naming the best place or the worst (``Most preferred``,
#: ``Least important``, ``Top choice``, ``Bottom``).
_TOP_WORDS = frozenset({"most", "top", "best", "highest", "favourite", "favorite"})
_BOTTOM_WORDS = frozenset({"least", "bottom", "worst", "lowest", "last"})


def position_ranks(labels: Sequence[str]) -> list[int] | None:
    """The place each title names, when together they name the places 1 to k once each
    (in order, from the left or the right, where an end is named by a word).

    A title names a place by a rank word (:func:`rank_title`: ``1st choice``, ``Choice 3``,
    ``Mayor 2nd Choice``) or by a bare rank (``Second``, ``3``), or by a first word naming
    the best place (``Most preferred``: 1) or the worst (``Least preferred``, ``Bottom``:
    k). Beside a worst end on the left, bare numbers count from that end
    (``Least preferred, 2, 3, Most preferred``). None when some title names no place (``Week
    3``, ``Voted off 3rd``), the stems differ, or the places do not run 1 to k one way.
    """
    k = len(labels)
    ranks: list[int] = []
    stems: set[str] = set()
    counted: list[bool] = []  # whether the place is counted by a number, not an end word
    for label in labels:
        found = rank_title(label)
        words = title_words(label)
        if found is not None and (not found[0] or _NAMED_RANK.search(label)):
            stems.add(found[0])
            ranks.append(found[1])
            counted.append(True)
        elif words and words[0] in _TOP_WORDS:
            ranks.append(1)
            counted.append(False)
        elif words and words[0] in _BOTTOM_WORDS:
            ranks.append(k)
            counted.append(False)
        else:
            return None
    if len(stems) > 1:
        return None
    places = list(range(1, k + 1))
    if all(counted):  # every place by its number: any order ('Rank 1, Rank 10, Rank 2')
        return ranks if sorted(ranks) == places else None
    for read in (ranks, [k + 1 - r if c else r for r, c in zip(ranks, counted)]):
        if read in (places, places[::-1]):  # an end word beside numbers: one way or the other
            return read
    return None


def rank_title_blocks(labels: Sequence[str]) -> list[tuple[int, ...]]:
    """Groups of columns titled by one stem and the ranks 1, 2, 3 ... (two or more)."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for j, label in enumerate(labels):
        found = rank_title(label) if label else None
        if found is not None:
            groups.setdefault(found[0], []).append((found[1], j))
    blocks = []
    for members in groups.values():
        if len({r for r, _ in members}) < len(members):  # '1st' beside 'Winner': places win
            members = [(r, j) for r, j in members if not podium_title(labels[j])]
        ranks = sorted(r for r, _ in members)
        if len(members) >= 2 and ranks == list(range(1, len(ranks) + 1)):
            podium = any(podium_title(labels[j]) for _, j in members)
            if podium and (len(members) < 3 or sorted(members, key=lambda m: m[1])
                           != sorted(members)):
                continue  # a podium is three places left to right ('Bronze, Silver, Gold': tiers)
            blocks.append(tuple(sorted(j for _, j in members)))
    return blocks


#: Words of a column title naming who judged: columns so titled are judges, not items.
_JUDGE_WORDS = frozenset({"judge", "rater", "marker", "reviewer", "examiner", "assessor",
                          "grader", "annotator", "juror", "panelist", "panellist", "evaluator",
                          "critic", "voter"})
#: A judge's column titled by a letter and a number, as skating and dance sheets write it.
_NUMBERED_JUDGE = re.compile(r"J\s*\d{1,2}", re.IGNORECASE)


def judge_title(title: str) -> bool:
    """Whether a column title names a judge: a word such as ``Judge``, ``Juror``,
    ``Panelist`` (:data:`_JUDGE_WORDS`), or a letter and a number (``J3``)."""
    return bool(_JUDGE_WORDS & set(title_words(title)) or _NUMBERED_JUDGE.fullmatch(title.strip()))
