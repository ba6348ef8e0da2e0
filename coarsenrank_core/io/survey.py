"""Survey exports: metadata columns, wrapped headers, platform fingerprints and rank cells."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from .assembly import parse_numbers
from .columns import (
    INTEGER,
    MTURK_PREFIX,
    ORDINALS,
    PREFERENCE_ROLES,
    RANK_LABEL,
    find_roles,
    normalise,
    plural,
)
from .content import (
    SAMPLE_ROWS,
    comment_title,
    count_title,
    counter_title,
    id_title,
    metadata_content,
    metadata_title,
    person_title,
    position_ranks,
    rank_title_blocks,
)
from .notation import name_without_rank
from .tables import Table

__all__ = ["Prepared", "prepare", "rank_values", "places_once", "tied_rank_values",
           "score_values",
           "is_plain_number", "looks_like_rank", "platform_fix",
           "metadata_name", "without_title_rows", "without_summary_rows", "questions_note",
           "summary_label",
           "one_is_worst_by_words"]

# Metadata columns written by survey platforms (normalised names): skipped, never items.
_METADATA = re.compile(
    r"(timestamp|starttime|completiontime|lastmodifiedtime|startdate|enddate|recordeddate|"
    r"submitdate|submittedat|datestamp|createdat|updatedat|date|time|ipaddress|ipaddr|ip|"
    r"progress|duration|duration\(inseconds\)|finished|(response)?status|completed?\??|"
    r"userlanguage|surveyidentifier|surveytimestamp|poll|"
    r"startlanguage|language|distributionchannel|collectorid|customdata\d*|lastpage|seed|"
    r"networkid|responsetype|externalreference|externaldatareference|locationlatitude|"
    r"locationlongitude|recipientlastname|recipientfirstname|firstname|lastname|refurl|"
    r"token|tags|endingdisplayed|userid\(optional\)|totalscore|quizfeedback|start|end|"
    r"today|deviceid|subscriberid|simserial|phonenumber|uuid|submissiontime|validationstatus|"
    r"version|submittedby|meta/instanceid|notes|geolocation|lastmodified|modified|"
    r"via|receivedat|"  # Poll Everywhere: how and when an answer came in
    r".*displayorder.*|q(id)?\d+do\d*)"  # Qualtrics' order choices were shown (Q1_DO_2)
    r"(\((utc|gmt)\))?")
#: LimeSurvey's "question code and text" titles: ``lastpage. Last page``, ``Q1[2]. Rank …``.
_CODE_AND_TEXT = re.compile(r"(?P<code>[A-Za-z][\w\[\]]+)\.\s+(?P<text>\S.*)")
#: Fields a survey tool writes of its own, never an item even beside items' ranks.
_TOOL_FIELDS = re.compile(
    # Qualtrics' timing question: 'Q2_First Click', 'Timing - Click Count'
    r"(q(id)?\d+|timing)?(firstclick|lastclick|pagesubmit|clickcount)|"
    # Cognito Forms' fields of an entry: 'Entry_Status', 'Entry_DateSubmitted'
    r"entry(number|status|date[a-z]*|publicid|internallink|adminlink|version|origin[a-z]*|"
    r"user[a-z]*|action|role)")
# REDCap's own fields: its survey identifier and timestamp, and each form's status
# (``<form>_complete``: 0 incomplete, 1 unverified, 2 complete)
_REDCAP_FIELDS = re.compile(r"redcap_\w+|\w+_complete|\w+_timestamp")
# Per-row ids of games, battles, questions or ballots (a cast vote record's): skipped, never
# the ranker; and a bare row number ('No.', 'S.No.').
_ROW_IDS = re.compile(r"(battle|game|match|question|conversation|row|record|entry|pair|"
                      r"comparison|cvr|castvoterecord)(id|no|number|#)?|ballot(id|no|number|#)|"
                      r"index|tstamp")
# Titles of a column that is a per-row id when it numbers the rows ('No.', a bare 'Ballot');
# else it holds ballots, or is an item ('No' beside 'Yes').
_ROW_NUMBERS = frozenset({"ballot", "no", "nr", "number", "serial", "serialno",
                          "serialnumber", "sno", "slno"})
# Who judged, in words that also name things ranked (a career, a pen): the ranker only where
# the column does not hold ranks beside the items' columns.
_RANKER_UNLESS_RANKS = frozenset({"marker", "teacher", "moderator", "tutor", "instructor",
                                  "adjudicator"})
# Titles of what a survey asks about who answered (not ranks: such a column holding ranks
# beside the items' is an item).
_ABOUT_RESPONDENT = frozenset({"age", "agegroup", "gender", "sex", "city", "country", "region",
                               "state", "zip", "zipcode", "postcode", "postalcode",
                               "occupation", "income", "education", "yearofbirth",
                               "birthyear", "nationality", "nation", "federation", "fed",
                               "dateofbirth", "birthdate", "dob"})
# Ranker columns by priority: explicit ranker words, respondent ids, e-mails, names.
_RANKER_PRIORITY = (
    frozenset({"ranker", "rankerid", "voter", "voterid", "rater", "raterid", "annotator",
               "annotatorid", "worker", "workerid", "judge", "grader", "student", "studentid",
               "user", "userid", "participant", "participantid", "respondent", "who",
               "pupil", "reviewer", "juror", "panelist", "panellist", "assessor", "examiner",
               "taster", "evaluator"}),
    frozenset({"respondentid", "responseid", "id", "#", "responsenumber"}),
    frozenset({"email", "emailaddress", "recipientemail", "e-mail"}),
    frozenset({"name", "fullname", "username", "rankername", "votername", "ratername"}),
)
_COUNT = PREFERENCE_ROLES["weight"]
_NOT_RANKED = frozenset({"", "-", "–", "—", "n/a", "na", "nan", "none", "null", "noopinion",
                         "notranked", "unranked", "notapplicable", "skip", "skipped", "0"})
#: Codes survey tools write for a question seen but not answered (Qualtrics, SPSS): not ranked.
_MISSING_CODES = frozenset({"-99"})
_ORDINAL_WORDS = ORDINALS.split("|")[:-1]
_RANK_CELL = re.compile(
    # Google Forms names a grid's answer columns 'Column 1', 'Column 2' ... unless told
    r"(?:rank(?:ed)?|choice|place|position|preference|pref|no|nr|number|column|col|\#)?"
    r"[\s_.#:-]*"
    rf"(?:(?P<number>\d+)(?:st|nd|rd|th|er|re|ère|e|ème|eme|\.?[ºª°]|\.)?|(?P<word>{ORDINALS}))"
    # a scale's anchor beside its number: '1 (most important)', '5 = least preferred'
    r"(?:[\s_.()=-]*(?:choice|place|rank(?:ed)?|preference|pref|pick|best|worst|highest|"
    r"lowest|top|bottom|(?:least|most)(?:\s+(?:important|preferred|wanted|useful|relevant))?|"
    r"(?:least\s+|most\s+)?favou?rite|least\s+liked|most\s+liked|"
    # the same in French, German, Spanish, Italian, Portuguese and Dutch survey forms
    r"choix|place|rang|wahl|platz|opci[oó]n|lugar|puesto|scelta|posto|op[cç][aã]o|keuze|"
    r"plaats)\)?)?",
    re.IGNORECASE | re.ASCII)

_PLATFORM_FIX = {
    "Qualtrics": "In Qualtrics, export the responses as CSV with 'Use numeric values' and keep "
                 "its three header rows; the ranking question's columns must hold each "
                 "item's rank.",
    "SurveyMonkey": "In SurveyMonkey, export 'All individual responses' as CSV (expanded "
                    "view, actual answer text) and upload the file as it is, with its two "
                    "header rows.",
    "Google Forms": "In Google Forms, open Responses, choose 'Download responses (.csv)' and "
                    "upload that file; the ranking grid's columns are read as items.",
    "Microsoft Forms": "In Microsoft Forms, choose 'Open results in Excel' and upload the "
                       ".xlsx file as it is; the ranking column holds 'A;B;C;'.",
    "LimeSurvey": "In LimeSurvey, export the responses as CSV with 'Full question text' "
                  "headings and 'Full answers'.",
    "Typeform": "In Typeform, download the responses as CSV or .xlsx and upload the file as "
                "it is.",
}


_METADATA_TITLES = frozenset({
    "timestamp", "email", "emailaddress", "starttime", "completiontime", "startdate", "enddate",
    "recordeddate", "submitdate", "ipaddress", "responseid", "respondentid", "collectorid",
    "networkid", "submitdate(utc)", "startdate(utc)", "lastpage", "startlanguage",
    "distributionchannel", "userlanguage", "duration(inseconds)", "lastmodifiedtime"})


def metadata_name(text: str) -> bool:
    """Whether ``text`` is the title of a survey platform's metadata column."""
    return normalise(text) in _METADATA_TITLES


def platform_fix(platform: str | None) -> str | None:
    """What to change in an export of ``platform`` so that it reads."""
    return _PLATFORM_FIX.get(platform) if platform else None


#: A number with a scale's anchor saying which end it is: '5 - Most preferred', '1 (least
#: important)', '1 = worst'.
_ANCHORED = re.compile(
    r"\s*(?P<number>\d+)(?:st|nd|rd|th)?\s*[\s_.()=:-]*\s*(?:(?P<top>most(?:\s+\w+)?|best|"
    r"highest|top|(?:most\s+)?favou?rite)|(?P<bottom>least(?:\s+\w+)?|worst|lowest|bottom))"
    r"\)?\s*",
    re.IGNORECASE)


#: A question's words on which end is best: ``4 = favourite``, ``1 = least favourite``,
#: ``Give 4 points to your favourite``, ``5 is the best``.
_DIRECTION_SAID = re.compile(
    r"(?:\bgive\s+)?(?P<number>\d+)\s*(?:=|\bis\b|\bmeans\b|\bbeing\b|\bequals\b|"
    r"\bpoints?\s+(?:to|for)\b)\s*(?:the|your|my|a)?\s*"
    r"(?:(?P<top>most|best|favou?rite|top|highest)|(?P<bottom>least|worst|lowest|bottom))"
    # 'most important first' says the order of answering, not which number is best
    r"(?!\w*(?:\s+\w+)?\s+first\b)", re.IGNORECASE)


def one_is_worst_by_words(texts: Sequence[str]) -> str | None:
    """The words of a question or title that say 1 is the worst end (``4 = favourite``,
    ``1 = least favourite``), when none says it is the best; None otherwise."""
    worst, best = None, False
    for text in texts:
        for found in _DIRECTION_SAID.finditer(text):
            first = int(found["number"]) == 1
            if (first and found["bottom"]) or (not first and found["top"]):
                worst = worst or found.group(0)
            else:
                best = True
    return None if best else worst


def one_is_worst_by_labels(cells: np.ndarray) -> str | None:
    """The first cell whose scale anchor says that 1 is the worst end: ``1 (least
    important)``, or a larger number labelled as the best end (``5 - Most preferred``); None
    when no anchor says so.

    Parameters
    ----------
    cells : numpy.ndarray of str

    Returns
    -------
    str or None
    """
    for cell in pd.unique(np.asarray(cells, dtype=object).ravel()):
        found = _ANCHORED.fullmatch(str(cell))
        if found is None:
            continue
        first = int(found["number"]) == 1
        if (first and found["bottom"]) or (not first and found["top"]):
            return str(cell)
    return None


def rank_values(cells: np.ndarray) -> np.ndarray:
    """Ranks written in cells as float: ``1``, ``1st``, ``First choice``, ``Rank 1``, ...

    Blank, ``-``, ``N/A``, ``No opinion``, ``0`` and the missing-value code ``-99`` give 0
    (not ranked); a cell that is not a rank (``-3``, ``2.5``) gives NaN.
    """
    cells = np.asarray(cells, dtype=object)
    codes, unique = pd.factorize(cells.ravel())
    parsed = np.array([_rank_value(str(u)) for u in unique] or [np.nan], dtype=float)
    out: np.ndarray = parsed[codes].reshape(cells.shape)
    return out


def places_once(ranks: np.ndarray) -> np.ndarray:
    """Per row of :func:`rank_values`, whether its places above 0 are 1, 2, 3 ... once each
    (a ranking of the columns; blank or unranked cells aside)."""
    given = np.sort(np.where(ranks > 0, ranks, np.inf), axis=1)
    places = np.arange(1, ranks.shape[1] + 1, dtype=float)
    return np.asarray(((given == places) | ~np.isfinite(given)).all(axis=1), dtype=bool)


#: A number as a spreadsheet writes it: ``8``, ``8.5`` or ``8,5`` (a decimal comma), ``-3``.
#: A comma before exactly three digits (``1,000``) may group thousands, so it is not one.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*|,(?!\d{3}$)\d+)?|[.,]\d+)")


def is_plain_number(cells: object) -> np.ndarray:
    """Whether each cell is a number as written in a spreadsheet (see :data:`_PLAIN_NUMBER`)."""
    cells = np.asarray(cells, dtype=object)
    codes, unique = pd.factorize(cells.ravel())
    matched = np.array([bool(_PLAIN_NUMBER.fullmatch(str(u).strip())) for u in unique] or
                       [False], dtype=bool)
    out: np.ndarray = matched[codes].reshape(cells.shape)
    return out


#: A shared place as results tables write it: ``=1``, ``1=``, ``T2``, ``T-2``, ``Tied 2nd``,
#: ``Joint 3rd``, ``Jt 3rd``. ``tied`` is tried before ``t``, which would leave ``ied 2nd``.
_TIED_PLACE = re.compile(r"(?:=|tied\s*|t-?|joint\s*|jt\.?\s*)(?P<after>\w.*)|(?P<before>.*\w)\s*=",
                         re.IGNORECASE)
#: :data:`_TIED_PLACE` over a whole cell, as ``fullmatch`` reads it (for ``str.extract``).
_TIED_PLACE_WHOLE = re.compile(rf"^(?:{_TIED_PLACE.pattern})\Z", re.IGNORECASE)


def tied_rank_values(cells: np.ndarray) -> np.ndarray:
    """Cells as :func:`rank_values` reads them, and shared places written as in results
    tables (see :data:`_TIED_PLACE`): ``=1`` and ``T2`` give 1 and 2.

    Only for cells under item columns: as an item's own name, ``T2`` is no rank.
    """
    cells = np.asarray(cells, dtype=object)
    codes, unique = pd.factorize(cells.ravel())
    ranks = rank_values(unique)
    other = np.flatnonzero(~np.isfinite(ranks))
    if other.size:  # the distinct cells that are no plain rank, matched all at once
        found = pd.Series(unique[other], dtype=object).astype(str).str.strip() \
            .str.extract(_TIED_PLACE_WHOLE)
        matched = found["after"].notna().to_numpy() | found["before"].notna().to_numpy()
        places = rank_values(found["after"].fillna(found["before"])[matched].to_numpy())
        ranks[other[matched]] = np.where(places >= 1, places, np.nan)
    out: np.ndarray = ranks[codes].reshape(cells.shape) if codes.size else \
        np.full(cells.shape, np.nan)
    return out


def score_values(cells: np.ndarray) -> np.ndarray:
    """Cells as :func:`tied_rank_values` reads them, and positive numbers that are not whole
    ranks as scores: ``8.5`` and ``8,5`` give 8.5. Negative numbers give NaN (0 means not
    ranked, so they could not be told from it)."""
    cells = np.asarray(cells, dtype=object)
    codes, unique = pd.factorize(cells.ravel())
    ranks = tied_rank_values(unique)
    for i in np.flatnonzero(~np.isfinite(ranks)):
        text = str(unique[i]).strip()
        if _PLAIN_NUMBER.fullmatch(text) and not text.startswith("-"):
            ranks[i] = float(text.replace(",", "."))
    out: np.ndarray = ranks[codes].reshape(cells.shape)
    return out


def _rank_value(cell: str) -> float:
    text = cell.strip()
    key = normalise(text).replace("/", "/")
    if key in _NOT_RANKED or key.replace("/", "") in _NOT_RANKED or text in _MISSING_CODES:
        return 0.0
    if _PLAIN_NUMBER.fullmatch(text):  # a number: a sign or a decimal point is not a prefix
        return _decimal_rank(text)
    match = _RANK_CELL.fullmatch(text)
    if match is None:
        return np.nan
    if match["number"] is not None:
        return float(int(match["number"]))
    return float(_ORDINAL_WORDS.index(match["word"].lower()) + 1) if \
        match["word"].lower() in _ORDINAL_WORDS else np.nan


def _decimal_rank(text: str) -> float:
    """``2.0`` (or ``2,0``) as written by spreadsheets is the rank 2 and ``0.0`` not ranked;
    other numbers are not ranks."""
    if not _PLAIN_NUMBER.fullmatch(text):
        return np.nan
    value = float(text.replace(",", "."))
    if value == 0:
        return 0.0
    if not (1 <= value < 2 ** 53 and value == int(value)):
        return np.nan
    return value


def looks_like_rank(cell: str) -> bool:
    """Whether one cell reads as a rank (not blank)."""
    return bool(np.isfinite(v := _rank_value(cell)) and v >= 1)


@dataclass(frozen=True)
class Prepared:
    """A table with its header understood: display names and what each column is for.

    Attributes
    ----------
    table : Table
        All records of the file (header rows included).
    header : list of str or None
        The column titles as shown to the user (wrappers stripped), None without a header.
    start : int
        Index in ``table.rows`` of the first data row.
    platform : str or None
        The survey platform whose export this looks like.
    question : str or None
        The question text stripped from wrapped item headers.
    skipped : dict
        Column index -> why it is skipped (survey metadata, a per-row id).
    ranker, count : int or None
        The ranker and the count column.
    blocks : tuple of tuple of int
        Groups of columns that answer one question (a grid, a rank-order question).
    questions : dict
        Column index -> the text of the question its block answers, for the columns of
        blocks whose question the header names (``Rank the fruits [Apple]``).
    """

    table: Table
    header: list[str] | None
    start: int
    platform: str | None = None
    question: str | None = None
    skipped: dict[int, str] = field(default_factory=dict)
    ranker: int | None = None
    count: int | None = None
    blocks: tuple[tuple[int, ...], ...] = ()
    questions: dict[int, str] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return max(self.table.width, len(self.header or ()))

    @cached_property
    def wide_header(self) -> bool:
        """Whether the first row holds titles when the rows are read as rankings."""
        return is_wide_header(self)

    @property
    def n_rows(self) -> int:
        """The number of data rows."""
        return max(len(self.table) - self.start, 0)

    @property
    def lines(self) -> np.ndarray:
        return self.table.lines[self.start:]

    def label(self, j: int) -> str:
        """A column as the user sees it: its title, else its 1-based position."""
        if self.header is not None and j < len(self.header) and self.header[j]:
            return self.header[j]
        return str(j + 1)

    @cached_property
    def found(self) -> dict[object, object]:
        """What a reader has worked out about this table once, by its own key (the column of
        whole rankings under each :class:`ReadOptions`), for the readers that ask again."""
        return {}

    @cached_property
    def empty(self) -> frozenset[int]:
        """Columns with no title and no cell (those of trailing separators: ``a,b,``)."""
        blank = np.ones(self.width, dtype=bool)
        blank[:self.table.width] = (self.table.cells == "").all(axis=0)
        return frozenset(j for j in np.flatnonzero(blank).tolist()
                         if not (self.header is not None and j < len(self.header)
                                 and self.header[j]))

    @property
    def free(self) -> list[int]:
        """Columns that are not skipped, not the ranker, not the count and not empty."""
        used = {self.ranker, self.count, *self.skipped, *self.empty}
        return [j for j in range(self.width) if j not in used]


def prepare(table: Table) -> Prepared:
    """Understand the header of a survey export or a plain table."""
    rows = [table.row(i) for i in range(min(len(table), 3))]
    if len(rows) >= 3 and _is_import_id_row(rows[2]):
        return _qualtrics(table, rows[0], rows[1], 3)
    if len(rows) >= 3 and (_platform(rows[0]) == "Qualtrics" and _names_metadata(rows[1])
                           or _legacy_qualtrics(rows[0], rows[1])):
        return _qualtrics(table, rows[0], rows[1], 2)  # the older export: no ImportId row
    if len(rows) >= 3 and _is_two_row_header(rows[0], rows[1]):
        top, below = rows[0], rows[1]
        header, question, owners, owner = [], None, [], None
        for j in range(max(len(top), len(below))):
            name = below[j] if j < len(below) else ""
            above = top[j] if j < len(top) else ""
            if normalise(name) in ("", "response", "openendedresponse", "other(pleasespecify)"):
                header.append(above)
                owner = None
            else:
                header.append(name)
                question = question or (above or None)
                owner = j if above else owner
            owners.append(owner)
        blocks = _groups(owners)
        asked = [top[o] if o is not None else None for o in owners]
        prepared = Prepared(table, header, 2, platform=_platform(top) or "SurveyMonkey",
                            question=question, blocks=blocks,
                            questions=_block_questions(blocks, asked))
        return _classify(prepared, top)
    header, question = _unwrap_brackets(rows[0]) if rows else ([], None)
    questions = [_without_code(m["question"]) if (m := _BRACKETED.fullmatch(c)) else None
                 for c in (rows[0] if rows else [])]
    # Alchemer's ``Question:Item``, SoGoSurvey's ``Question (Item)``, Zoho's ``Question-Item``
    for wrapper in (_COLON, _COLON_AFTER, _PARENTHESISED, _DASHED):
        if not rows or _groups(questions):
            break
        header, question = _unwrap_brackets(rows[0], wrapper)
        questions = [m["question"] if question is not None and (m := wrapper.fullmatch(c))
                     else None for c in rows[0]]
    blocks = _groups(questions)
    prepared = Prepared(table, header, 1, platform=_platform(rows[0]) if rows else None,
                        question=question, blocks=blocks or tuple(rank_title_blocks(header)),
                        questions=_block_questions(blocks, questions))
    return _classify(prepared, rows[0] if rows else [])


#: Qualtrics' export tag of a choice's column: its question's tag, ``_`` and the choice's
#: number (``Q3_1``); a choice's typed text (``Q3_5_TEXT``) and display order (``Q3_DO``)
#: are no choices.
_CHOICE_TAG = re.compile(r"(?P<question>.+)_\d+")
#: The end of the tag of a question's display order columns (``Q3_DO_1`` ...).
_DISPLAY_ORDER = re.compile(r"_DO$", re.IGNORECASE)


def _qualtrics(table: Table, tags: Sequence[str], texts: Sequence[str], start: int
               ) -> Prepared:
    """A Qualtrics export: export tags over ``<question text> - <choice text>``.

    A question's choices are the columns tagged ``<question tag>_<number>``; their
    question text is the longest start their texts share that ends in `` - ``, so that a
    choice holding `` - `` itself (``Bus - local``) keeps its whole name.
    """
    texts = [texts[j] if j < len(texts) else "" for j in range(len(tags))]
    stems = [m["question"] if (m := _CHOICE_TAG.fullmatch(t)) and not _DISPLAY_ORDER.search(
        m["question"]) else None for t in tags]
    header, asked = list(texts), [""] * len(texts)
    blocks = []
    for block in _groups(stems):
        prefix = _question_prefix([texts[j] for j in block])
        if not prefix:
            continue  # no question text shared: not the choices of one question
        blocks.append(block)
        for j in block:
            header[j], asked[j] = texts[j][len(prefix):].strip(), prefix[:-3].strip()
    prepared = Prepared(table, header, start, platform="Qualtrics", blocks=tuple(blocks),
                        questions=_block_questions(blocks, asked))
    return _classify(prepared, tags)


def _question_prefix(texts: Sequence[str]) -> str:
    """The longest start of ``texts`` that all share and that ends in `` - `` (or ``-``, as
    the legacy export writes it), else ''."""
    shared = os.path.commonprefix(list(texts))
    if " - " in shared:
        return shared[:shared.rfind(" - ") + 3]
    return shared[:shared.rfind("-") + 1] if "-" in shared else ""


def _legacy_qualtrics(tags: Sequence[str], texts: Sequence[str]) -> bool:
    """Qualtrics' legacy export: ``V1, V2, V3 ...`` over ``ResponseID, ResponseSet ...``,
    then the questions' tags over their texts."""
    run = [c.strip() for c in tags[:3]]
    return (len(run) == 3 and run == ["V1", "V2", "V3"]
            and "ResponseID" in [c.strip() for c in texts])


def _groups(keys: Sequence[object]) -> tuple[tuple[int, ...], ...]:
    """Columns sharing a (non-empty) key, for every key shared by two or more columns."""
    columns: dict[object, list[int]] = {}
    for j, key in enumerate(keys):
        if key:
            columns.setdefault(key, []).append(j)
    return tuple(tuple(c) for c in columns.values() if len(c) >= 2)


def _block_questions(blocks: Sequence[Sequence[int]], asked: Sequence[object]
                     ) -> dict[int, str]:
    """Each column of a block -> the question it answers (``asked`` by column)."""
    return {j: str(asked[j]) for block in blocks for j in block}


def _names_metadata(row: Sequence[str]) -> bool:
    """Whether ``row`` titles a metadata column (``Start Date``, ``Response ID``) and holds
    no number or date: a row of titles, not an answer that holds ``Completed``."""
    filled = [c for c in row if c]
    return (any(_METADATA.fullmatch(normalise(c)) or normalise(c) in _RANKER_PRIORITY[1]
                for c in filled)
            and not any(_NUMBER_OR_DATE.fullmatch(c.strip()) for c in filled))


_NUMBER_OR_DATE = re.compile(r"[-+]?[\d.,:/ -]*\d[\d.,:/ -]*")


def _is_import_id_row(row: Sequence[str]) -> bool:
    cells = [c for c in row if c]
    return bool(cells) and sum('"importid"' in c.lower().replace(" ", "") for c in cells) \
        >= max(1, len(cells) // 2)


def _is_two_row_header(top: Sequence[str], below: Sequence[str]) -> bool:
    """SurveyMonkey: question text over the first column of a block, item names below."""
    width = max(len(top), len(below))
    top = list(top) + [""] * (width - len(top))
    below = list(below) + [""] * (width - len(below))
    filled_by_below = sum(1 for t, b in zip(top, below) if not t and b)
    metadata_over_blank = all(not b for t, b in zip(top, below)
                              if _METADATA.fullmatch(normalise(t)) or normalise(t) in
                              _RANKER_PRIORITY[1])
    names_metadata = any(_METADATA.fullmatch(normalise(t)) or normalise(t) in
                         _RANKER_PRIORITY[1] for t in top if t)
    return filled_by_below >= 1 and metadata_over_blank and names_metadata


def _platform(header: Sequence[str]) -> str | None:
    names = {normalise(c) for c in header if c}
    if {"respondentid", "collectorid"} & names:
        return "SurveyMonkey"
    # LimeSurvey's code or full headings ('Date submitted', 'Start language') before
    # Qualtrics', since both can title the answer's id 'Response ID'
    if ({"submitdate", "lastpage"} <= names or {"datesubmitted", "lastpage"} <= names
            or "startlanguage" in names):
        return "LimeSurvey"
    # 'Response ID' alone is written by many platforms (Zoho, SoGoSurvey): Qualtrics' own
    # titles, or its export tag for it
    if ({"recordeddate", "distributionchannel"} & names
            or {"ResponseId", "ResponseID", "_recordId"} & {c.strip() for c in header}):
        return "Qualtrics"
    if {"starttime", "completiontime"} <= names:
        return "Microsoft Forms"
    if "networkid" in names or "submitdate(utc)" in names:
        return "Typeform"
    if header and normalise(header[0]) == "timestamp":
        return "Google Forms"
    return None


#: ``Question [Item]``; the item may hold brackets of its own: ``Rank [Mrs. Lee [PE]]``.
_BRACKETED = re.compile(r"(?P<question>.*?)\s*\[(?P<inner>(?:[^\[\]]|\[[^\[\]]*\])+)\]\s*")
_COLON = re.compile(r"(?P<question>[^:\[\]]{3,}?)\s*:\s*(?P<inner>[^:\[\]]+?)\s*")
#: A question (a phrase: it holds a space, after a dash three words) and an item in
#: brackets or after a dash.
_PARENTHESISED = re.compile(r"(?P<question>[^()]*\S\s+\S[^()]*?)\s*\((?P<inner>[^()]+)\)\s*")
_DASHED = re.compile(r"(?P<question>[^-–]*\S\s+\S+\s+\S[^-–]*?)\s*[-–]\s*(?P<inner>[^-–]+?)\s*")


#: Alchemer's (SurveyGizmo's) ``Item:Question``, the item first.
_COLON_AFTER = re.compile(r"(?P<inner>[^:\[\]]+?)\s*:\s*(?P<question>[^:\[\]]{3,}?)\s*")
_NUMBERED_QUESTION = re.compile(r"\s*Q\d+\b", re.IGNORECASE)


def _is_question(text: str) -> bool:
    """Whether a title's start reads as a question: it asks for a ranking, ends in '?', or
    is numbered (``Q1. ...``)."""
    return (asks_for_ranking(text) or text.rstrip().endswith("?")
            or bool(_NUMBERED_QUESTION.match(text)))


def _unwrap_brackets(cells: Sequence[str], wrapper: re.Pattern[str] = _BRACKETED
                     ) -> tuple[list[str], str | None]:
    """Google's ``Question [Item]`` and LimeSurvey's ``Question [Ranking 1]`` to the inner name.

    Only columns whose question text is shared with another column are unwrapped.
    """
    matches = [wrapper.fullmatch(c) if c else None for c in cells]
    questions = pd.Series([_without_code(m["question"]) if m else None for m in matches],
                          dtype=object)
    shared = questions.duplicated(keep=False) & questions.notna()
    if wrapper in (_PARENTHESISED, _DASHED, _COLON_AFTER) and (pd.Series(
            [c for c, s in zip(cells, shared) if s], dtype=object).duplicated().any()
            or not all(_is_question(q) for q in questions[shared])):
        # one title twice ('Your e-mail address'), or names sharing a start ('New York
        # (JFK)', 'Star Wars - A New Hope'): no question over a grid of items
        return list(cells), None
    header = [m["inner"].strip() if m and shared[j] else c
              for j, (c, m) in enumerate(zip(cells, matches))]
    question = next((questions[j] for j, m in enumerate(matches) if m and shared[j]), None)
    return header, question or None


def _without_code(question: str) -> str:
    """A question without LimeSurvey's code of its column (``Q1[2]. Rank the fruits``):
    the code differs from column to column of one question."""
    coded = _CODE_AND_TEXT.fullmatch(question)
    return coded["text"] if coded is not None and "[" in coded["code"] else question


#: A ticked box's cell: 1 or 0, true or false (KoboToolbox and ODK write 1 and 0).
_TICKS = frozenset({"", "0", "1", "true", "false"})


def _ticked_options(prepared: Prepared) -> dict[int, str]:
    """A multiple-choice question exported as KoboToolbox and ODK write it: its column of
    the options ticked (``favs``: ``pizza pasta``) beside one column per option titled
    ``favs/pizza`` holding 1 or 0, its answers made of those options' names and the ticks
    both set and not. Both say which options each person chose, not in what order: each
    such column with why it is skipped."""
    if prepared.header is None:
        return {}
    titles = [prepared.label(j) for j in range(prepared.width)]
    where = {t: j for j, t in enumerate(titles) if t}
    options: dict[int, list[int]] = {}
    marks: dict[int, set[str]] = {}  # each tick column's distinct cells
    for j, title in enumerate(titles):
        question, slash, option = title.rpartition("/")
        if slash and option.strip() and question in where:
            marks[j] = {str(c).strip().lower()
                        for c in pd.unique(prepared.table.column(j)[prepared.start:])}
            if marks[j] <= _TICKS:
                options.setdefault(where[question], []).append(j)
    found: dict[int, str] = {}
    for asked, ticks in options.items():
        names = {titles[j].rpartition("/")[2].strip() for j in ticks}
        chosen = {str(c).strip() for c in prepared.table.column(asked)[prepared.start:]}
        ticked = set().union(*(marks[j] for j in ticks))
        if len(ticks) >= 2 and ticked & {"1", "true"} and ticked & {"0", "false"} \
                and chosen - {""} and set(" ".join(chosen).split()) <= names:
            found[asked] = "a multiple-choice question (the options ticked), not an order"
            found.update({j: f"the ticks of the multiple-choice question '{titles[asked]}'"
                          for j in ticks})
    return found


def _classify(prepared: Prepared, names: Sequence[str]) -> Prepared:
    """Mark metadata and per-row id columns as skipped; find the ranker and the count.

    ``names`` are the columns' own titles (Qualtrics' export tags, Google's whole
    ``Question [Item]``). An item of a question's grid is judged by that title alone, never
    by its item's name: ``Rank the constraints [Time]`` and ``Rank ... - Student`` are items.
    """
    skipped: dict[int, str] = {}
    rankers: dict[int, int] = {}
    count = None
    width = prepared.width
    item_ranks = _rank_columns(prepared)
    # LimeSurvey writes every title as 'code. text'; one 'N. Jokic' among names does not
    coded_titles = sum(_CODE_AND_TEXT.fullmatch(prepared.label(j)) is not None
                       for j in range(width)) * 2 > width >= 4
    skipped.update(_ticked_options(prepared))
    for j in range(width):
        if j in skipped:
            continue
        own = normalise(names[j]) if j < len(names) else ""
        grid_item = j in prepared.questions  # ``Rank [Time]``: judged by its own title alone
        keys = {own} if grid_item else {own, normalise(prepared.label(j))}
        if coded_titles and (coded := _CODE_AND_TEXT.fullmatch(prepared.label(j))):
            keys.add(normalise(coded["code"]))  # LimeSurvey's 'lastpage. Last page'
        keys.discard("")
        rank = next((p for p, words in enumerate(_RANKER_PRIORITY) if keys & words), None)
        if rank is not None:
            rankers.setdefault(j, rank)
        elif count is None and keys & _COUNT:
            count = j
        elif any(_TOOL_FIELDS.fullmatch(k) for k in keys) or (
                (any(_METADATA.fullmatch(k) for k in keys)
                 or (j < len(names) and _REDCAP_FIELDS.fullmatch(names[j].strip())))
                and not (j in item_ranks and {j - 1, j + 1} & item_ranks
                         and not _constant_column(prepared, j))):
            # an item named like metadata ('Date', the fruit) holds ranks beside an item's
            # column, and not one number on every row (Qualtrics' 'Finished'); a tool's own
            # field (a click count) never is one
            skipped[j] = "survey metadata"
        elif any(_ROW_IDS.fullmatch(k) for k in keys) or (
                keys & _ROW_NUMBERS and _numbers_rows(prepared, j)):
            skipped[j] = "a per-row id, not a ranker"
        elif grid_item:
            continue  # an item of a question's grid, whatever the item's name
        elif keys & _ABOUT_RESPONDENT and (j not in item_ranks or prepared.blocks and not any(
                j in block for block in prepared.blocks)):
            # holding ranks, only outside the question's block (Qualtrics' coded 'Gender')
            skipped[j] = "about who answered, not an item"
        elif _SUMMARY_LABEL.fullmatch(prepared.label(j)) and (
                j not in item_ranks or _sums_up(prepared, j, item_ranks)):
            skipped[j] = "a summary of the other columns, not an item"
        elif counter_title(prepared.label(j)):
            skipped[j] = "a counter or timing of the experiment's trial loop, not an item"
        elif j in item_ranks:
            continue  # holds ranks like the item columns beside it: an item, whatever its title
        elif keys & _RANKER_UNLESS_RANKS:
            rankers[j] = 0
        elif ranked_in_objects(prepared, j):
            continue  # a ranking built from named objects ('players.name'), never who answered
        elif (person := person_title(prepared.label(j))) is not None:
            rankers[j] = 2 if person == "e-mail" else 3
        elif metadata_title(prepared.label(j)):
            skipped[j] = "metadata, by its title"
        elif id_title(prepared.label(j)):
            skipped[j] = "an id, not items"
        elif comment_title(prepared.label(j)):
            skipped[j] = "another question"
        elif not own and prepared.header is not None and _free_text(prepared, j):
            skipped[j] = "untitled notes, not an item"
    _skip_mturk_fields(names, skipped, rankers)
    _classify_by_content(prepared, skipped, rankers, count)
    for j in [j for j in rankers if len(rankers) > 1 and _blank_column(prepared, j)]:
        del rankers[j]  # an e-mail column nobody filled in names nobody
        skipped[j] = "blank"
    ranker = min(rankers, key=lambda j: (rankers[j], j)) if rankers else None
    for j in rankers:
        if j != ranker:
            skipped[j] = f"who answered, like '{prepared.label(ranker)}', not items" \
                if rankers[j] >= 2 and ranker is not None else "survey metadata"
    if count is None and prepared.header is not None and width >= 3:
        count = _trailing_count(prepared)
    if prepared.header is not None and width >= 3 and 0 not in skipped and _row_numbers(
            prepared):
        skipped[0] = "row numbers"
        if ranker == 0:
            ranker = None
    focus = _focus_block(prepared, {*skipped, ranker, count})
    if focus is None:
        return replace(prepared, skipped=skipped, ranker=ranker, count=count)
    focused = set(focus)
    for j in range(width):
        if j not in focused and j not in skipped and j not in (ranker, count) and not \
                count_title(prepared.label(j)):
            skipped[j] = "another question"
    return replace(prepared, header=_titled_apart(prepared, focus, skipped), skipped=skipped,
                   ranker=ranker, count=count,
                   question=prepared.questions.get(focus[0], prepared.question))


#: MTurk's batch results: the task's fields are ``Input.<name>`` and the answers
#: ``Answer.<name>``; every other column is MTurk's own (``Title``, ``Reward``,
#: ``RequesterAnnotation``, ``LifetimeApprovalRate`` ...), never an item.
_MTURK_KEYS = frozenset({"hitid", "assignmentid", "workerid"})


def _skip_mturk_fields(names: Sequence[str], skipped: dict[int, str],
                       rankers: dict[int, int]) -> None:
    """In an MTurk batch results file, mark every column but the task's and the worker's
    as MTurk's own."""
    if not _MTURK_KEYS <= {normalise(n) for n in names} or not any(
            MTURK_PREFIX.match(n) for n in names):
        return
    for j, name in enumerate(names):
        if normalise(name) == "workerid":
            rankers[j] = 0
        elif not MTURK_PREFIX.match(name) and j not in skipped:
            rankers.pop(j, None)
            skipped[j] = "MTurk's own field"


def questions_note(prepared: Prepared, columns: Sequence[int]) -> str | None:
    """``Read the question 'Rank ...'; skipped the other question 'Rate ...' (4 columns)``,
    when the item ``columns`` answer one question of several; None otherwise."""
    read = dict.fromkeys(prepared.questions[j] for j in columns if j in prepared.questions)
    others = pd.Series([q for j, q in prepared.questions.items() if q not in read and
                        j not in columns], dtype=object).value_counts(sort=False)
    if len(read) != 1 or others.empty:
        return None
    skipped = " and ".join(f"'{q}' ({plural(int(n), 'column')})" for q, n in others.items())
    return f"Read the question '{next(iter(read))}'; skipped the other " \
           f"{plural(len(others), 'question', number=False)} {skipped}"


def _titled_apart(prepared: Prepared, focus: tuple[int, ...], skipped: dict[int, str]
                  ) -> list[str] | None:
    """The header, where a skipped question's item shares its name with an item of the
    question read (two grids over the same items) titled ``<question> [<item>]``."""
    read = {prepared.label(j) for j in focus}
    apart = [j for j in skipped if j in prepared.questions and prepared.label(j) in read]
    if prepared.header is None or not apart:
        return prepared.header
    header = list(prepared.header)
    for j in apart:
        header[j] = f"{prepared.questions[j]} [{header[j]}]"
    return header


_WORDS = re.compile(r"\w\s+\w")


def _free_text(prepared: Prepared, column: int) -> bool:
    """Whether the filled cells of ``column`` (not the first) are notes: words with spaces,
    never a rank or a name with its rank (``Apple 2nd``) and never found in another column
    (as an item placed there would be)."""
    if column == 0 or column >= prepared.table.width:
        return False  # an untitled first column names the rows ('Ann Lee')
    body = prepared.table.cells[prepared.start:]
    at = np.flatnonzero(body[:, column] != "")
    if not len(at) or not _WORDS.search(body[at[0], column]):
        return False  # most columns fail at their first cell: no Series made for them
    cells = pd.Series(body[:, column], dtype=object)
    filled = cells[cells != ""]
    if not filled.str.contains(_WORDS.pattern).all() or any(
            looks_like_rank(c) or name_without_rank(c) is not None for c in filled):
        return False
    # the other columns copied only now: checked for every column, a copy each would take
    # time in the square of a wide file's width
    others = np.delete(body, column, axis=1)
    return not np.isin(filled.to_numpy(), others).any()


def _sums_up(prepared: Prepared, column: int, items: set[int] | frozenset[int]) -> bool:
    """Whether ``column`` holds, on every row, the sum or the mean of the other columns of
    ranks (a 'Mean rank' beside the ranks: a valid rank itself when the items are odd)."""
    others = [k for k in items if k != column and k < prepared.table.width]
    if len(others) < 2 or column >= prepared.table.width:
        return False
    values = parse_numbers(prepared.table.cells[prepared.start:, column])
    ranks = np.stack([parse_numbers(prepared.table.cells[prepared.start:, k]) for k in others],
                     axis=1)
    if not (np.isfinite(values).all() and np.isfinite(ranks).all()):
        return False
    total = ranks.sum(axis=1)
    return bool(np.allclose(values, total) or np.allclose(values, total / len(others),
                                                          atol=0.051))


def _numbers_rows(prepared: Prepared, column: int) -> bool:
    """Whether ``column`` numbers the rows below the titles: a whole number on each, rising
    from row to row (an item's ranks go up and down)."""
    cells = pd.Series(prepared.table.cells[prepared.start:, column], dtype=object) \
        if column < prepared.table.width else pd.Series([], dtype=object)
    if len(cells) < 2 or not cells.str.fullmatch(r"\d{1,15}").all():
        return False
    return bool((np.diff(cells.astype(np.int64).to_numpy()) > 0).all())


def _constant_column(prepared: Prepared, column: int) -> bool:
    """Whether ``column`` holds one value on every row below the titles."""
    codes, _ = prepared.table.factorized
    if column >= codes.shape[1]:
        return True
    return len(np.unique(codes[prepared.start:, column])) <= 1


def _blank_column(prepared: Prepared, column: int) -> bool:
    """Whether every cell of ``column`` below the titles is blank."""
    codes, uniques = prepared.table.factorized
    if column >= codes.shape[1]:
        return True
    return bool((uniques[codes[prepared.start:, column]] == "").all())


def _rank_columns(prepared: Prepared) -> set[int]:
    """Columns of ranks among two or more: each cell a rank (or blank) up to their number.

    Such a column is an item of a table of ranks even when its title reads like metadata
    (an item called 'Key' or 'Notes'); ids, durations and counts exceed the number of items.
    """
    table = prepared.table
    n = min(prepared.n_rows, SAMPLE_ROWS)
    if prepared.header is None or not n or table.width > 300:
        return set()
    codes, uniques = table.factorized
    sample = codes[prepared.start:prepared.start + n]
    present = np.unique(sample)
    values = np.full(len(uniques), np.nan)
    values[present] = rank_values(uniques[present])
    cells = values[sample]
    ranked = np.isfinite(cells).all(axis=0) & (cells > 0).any(axis=0)
    columns = np.flatnonzero(ranked)
    if columns.size < 2:
        return set()
    top = np.nanmax(cells[:, columns], axis=0)
    return {int(j) for j, t in zip(columns, top) if t <= columns.size}


def _classify_by_content(prepared: Prepared, skipped: dict[int, str], rankers: dict[int, int],
                         count: int | None) -> None:
    """Columns that hold metadata, record numbers or who answered, judged by their cells.

    Only for a table whose first row is titles (no title recurs in the rows below). A
    column is metadata when most of its cells are user agents, web addresses, JSON, dates,
    IP addresses or prose. A column whose values differ on (nearly) every row and never
    occur in the other columns, while those share their values, says who answered (or is
    a record number): it is never an item column. A ranker found by its title (a name or
    e-mail question) is dropped when its answers are among the items.
    """
    table = prepared.table
    start = prepared.start
    n = min(prepared.n_rows, SAMPLE_ROWS)
    if prepared.header is None or not n or table.width > 300:
        return
    codes, uniques = table.factorized
    sample = codes[start:start + n]
    title_codes = codes[0][uniques[codes[0]] != ""]
    if np.isin(sample, title_codes).any():
        return  # a title recurs below: the first row may be a ranking
    blank = np.flatnonzero(uniques == "")
    ranked = {j for block in rank_title_blocks([prepared.label(j) for j in range(table.width)])
              for j in block}
    ranked |= {j for j in range(table.width) if RANK_LABEL.fullmatch(prepared.label(j))
               or ranked_in_objects(prepared, j)}
    filled = np.isin(sample, blank, invert=True)
    free = [j for j in range(table.width) if j not in skipped and j != count]
    for j in free:  # metadata and e-mails by their cells
        if j in ranked or j in rankers or not filled[:, j].any():
            continue
        kind = metadata_content(uniques[sample[filled[:, j], j]])
        if kind == "e-mail addresses":
            rankers[j] = 2
        elif kind is not None:
            skipped[j] = f"{kind}, not items"
    free = [j for j in free if j not in skipped]
    columns = {j: np.setdiff1d(np.unique(sample[:, j]), blank) for j in free}
    items = [j for j in free if j not in rankers]  # the columns that may hold items
    if not items:
        return
    in_items = np.bincount(np.concatenate([columns[k] for k in items]).astype(np.int64),
                           minlength=len(uniques))
    occurrences = np.bincount(sample[:, items][filled[:, items]].astype(np.int64),
                              minlength=len(uniques))
    for j in free:
        values = columns[j]
        if not values.size or j in ranked:
            continue  # a column titled by a rank holds items
        others = np.concatenate([columns[k] for k in items if k != j] or [np.empty(0, int)])
        others_recur = bool(others.size and (occurrences[others] >= 2).any())
        elsewhere = in_items[values] - (1 if j in items else 0)
        if j in rankers:
            if rankers[j] >= 2 and (elsewhere > 0).any() and others_recur:
                del rankers[j]  # a "name" question whose answers are items
            continue
        if (elsewhere == 0).all() and others_recur and n >= 5 and \
                filled[:, j].sum() >= 0.9 * n and values.size >= 0.9 * filled[:, j].sum():
            if all(_whole(v) for v in uniques[values[:50]]):
                skipped[j] = "a different number on every row (record numbers), not items"
            elif pd.Series(uniques[values], dtype=object).astype(str).str.contains(
                    _ORDER_WRITTEN).mean() < 0.5:  # whole rankings differ row to row too
                rankers[j] = 4


def ranked_in_objects(prepared: Prepared, column: int) -> bool:
    """Whether ``column`` is a ranking the reader built from a field of JSON objects that
    each name their item and give it a rank or a score (Nectar's ``answers.rank``, titled
    by the field of objects beside it): the records' own ranking, whatever else they hold."""
    parent, dot, _ = prepared.label(column).rpartition(".")
    if not dot or prepared.header is None or parent not in prepared.header:
        return False
    objects = prepared.table.column(prepared.header.index(parent))[prepared.start:]
    objects = objects[objects != ""]
    return bool(objects.size) and all(str(c).startswith("[{") for c in objects)


#: Names written in order in one cell (``A > B``, ``A;B``): a ranking, never a name.
_ORDER_WRITTEN = re.compile(r"[^\s>;]\s*(?:>|;)\s*[^\s>;]")


def _whole(text: str) -> bool:
    return bool(re.fullmatch(r"[#]?\d+", str(text).strip()))


#: The label of a row that sums up the rows above it (``Total``, ``Average``, ``Median``,
#: ``No. of 1st places``, ``Overall``); given names (``Max``, ``Min``) are not among them.
_SUMMARY_LABEL = re.compile(
    r"\s*(?:(?:(?:grand\s+|sub)?totals?|sum|averages?|avg|mean|median|count|n|answered|skipped|"
    r"std|stdev|sd|standard\s+deviation|variance|overall|consensus)"
    # what is summed up, and the figure: 'Average rank', 'Total responses: 4', 'Mean (all)'
    r"(?:\s+(?:of\s+)?(?:ranks?|scores?|points|responses|respondents|votes|places|all))?"
    r"(?:\s*\([^)]*\))?\s*[:=]?\s*[\d.,%]*"
    r"|(?:no\.?|number|\#|count|share|%)\s*of\s+\S.*|%.*|percent(?:age)?\b.*"
    # a ranking test's 'Rank sum', a jury's combined 'Jury rank', a 'Final score'
    r"|(?:rank|score|point)s?\s*(?:sums?|totals?|means?|averages?)"
    r"|(?:jury|overall|combined|aggregate|panel)\s+(?:rank(?:ing)?|score|points|place)s?"
    r")\s*", re.IGNORECASE)


def summary_label(values: np.ndarray) -> np.ndarray:
    """Whether each cell labels a row summing up the rows around it (``Average``, ``Total``,
    ``Rank sum``, ``Jury rank``)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object).ravel())
    said = np.array([_SUMMARY_LABEL.fullmatch(str(u)) is not None and bool(str(u).strip())
                     for u in uniques] or [False])
    return np.asarray(said[codes], dtype=bool)


def without_summary_rows(table: Table) -> tuple[Table, str | None]:
    """The table without the rows at its end that sum up the rows above (``Total``,
    ``Average``, ``Median`` in the first filled column), and a note naming them.

    Such rows are cut only at the end, below at least two rows, and only when their column
    holds no such label above them.
    """
    if len(table) < 4:
        return table, None
    filled = table.cells != ""
    first = np.where(filled.any(axis=1), filled.argmax(axis=1), -1)
    table, footnotes = _without_footnotes(table, filled, first)
    end = len(table)
    first = first[:end]
    while end > 3 and first[end - 1] >= 0 and \
            _SUMMARY_LABEL.fullmatch(table.cells[end - 1, first[end - 1]]):
        end -= 1
    if end == len(table) or len(set(first[end:].tolist())) > 1:
        return table, footnotes
    # an item's name recurs in the rows above ('Sum 41' ranked by others); a label does not
    found = table.cells[np.arange(end, len(table)), first[end:]]
    column = table.cells[1:end, first[end]]  # below the header ('Name', 'No.')
    # a summary is given once: a label on two rows names a ranker ('SD', 'N': judges' initials)
    if any(_SUMMARY_LABEL.fullmatch(c) for c in pd.unique(column) if c) or \
            np.isin(found, table.cells[:end]).any() or len(set(found)) < len(found):
        return table, footnotes
    labels = [f"'{label}' (row {line})" for label, line in zip(found, table.lines[end:])]
    note = (f"Skipped {plural(len(labels), 'row')} at the end of the table as a summary of "
            f"the rows above, not a ranking: {', '.join(labels[:5])}"
            f"{' ...' if len(labels) > 5 else ''}")
    if footnotes:
        note = f"{note}. {footnotes}"
    return Table(table.cells[:end], table.lines[:end], table.delimiter,
                 table.head_widths[:end]), note


#: A note under a table: ``Notes: ...``, ``Source: ...``, ``* shortened race``, ``(1) ...``.
_FOOTNOTE = re.compile(r"\s*(?:notes?|n\.?b\.?|sources?|footnotes?|remarks?|\*+|†|‡|\(\d{1,2}\))"
                       r"(?:[\s:.\-–]|$).*", re.IGNORECASE | re.DOTALL)


def _clipped(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _without_footnotes(table: Table, filled: np.ndarray, first: np.ndarray
                       ) -> tuple[Table, str | None]:
    """The table without the rows at its end that hold one cell of a note (``Notes: R2
    shortened``, or a sentence of four words or more) under rows filling three cells or
    more, and a note naming them."""
    count = filled.sum(axis=1)
    end = len(table)
    while end > 3 and count[end - 1] == 1 and (
            _FOOTNOTE.fullmatch(cell := str(table.cells[end - 1, first[end - 1]]))
            or len(cell.split()) >= 4):
        end -= 1
    if end == len(table) or np.median(count[:end]) < 3:
        return table, None
    shown = [f"'{_clipped(str(table.cells[i, first[i]]))}' (row {table.lines[i]})"
             for i in range(end, len(table))]
    note = (f"Skipped {plural(len(shown), 'row')} at the end of the table as a note under it, "
            f"not a ranking: {', '.join(shown[:3])}{' ...' if len(shown) > 3 else ''}")
    return Table(table.cells[:end], table.lines[:end], table.delimiter,
                 table.head_widths[:end]), note


def without_title_rows(table: Table) -> tuple[Table, int]:
    """The table without the title rows above its header, and how many there were.

    Title rows hold one cell, or two where the rows below fill many more (``Election:``,
    ``General 2024``), above a row of several titles; their text never recurs below.
    A row of group titles (``Respondent``, ``Ranking``, ``Other``: merged cells spanning the
    columns below, so a blank cell stands before or between titles) filling fewer cells
    than the row under it is a title row too, when that row is a header (two titles or more
    that are not numbers, none recurring below it); the header then takes a group's title
    where its own cell is blank.
    """
    if len(table) < 3 or table.width < 2:
        return table, 0
    filled = (table.cells[:8] != "").sum(axis=1)
    below = (table.cells[:60] != "").sum(axis=1)
    # a title row fills at most one cell, or under half of what the rows below fill
    wide = max(2, int(np.median(below[min(len(below) - 1, 3):])) // 2 + 1)

    def title(i: int) -> bool:
        return bool(filled[i] <= 1 or filled[i] < wide and filled[i] <= 2)

    k = 0
    while k < len(filled) and title(k):
        k += 1

    def spans(i: int) -> bool:  # a title over several columns: a blank before or between
        at = np.flatnonzero(table.cells[i] != "")
        return bool(at.size and (at[0] > 0 or (np.diff(at) > 1).any()))

    g = k  # then rows of group titles, each filling fewer cells than the row under it
    while g + 1 < len(filled) and (title(g) or filled[g] < filled[g + 1] and spans(g)):
        g += 1
        if (grouped := _below_titles(table, g, groups=True)) is not None:
            return grouped, g
    stripped = _below_titles(table, k, groups=False)
    return (table, 0) if stripped is None else (stripped, k)


def _below_titles(table: Table, k: int, groups: bool) -> Table | None:
    """The table from its row ``k`` on, when rows ``0..k-1`` are titles over a header."""
    filled = (table.cells[:k + 1] != "").sum(axis=1)
    if k == 0 or k >= min(len(table) - 1, 8) or filled[k] < 2:
        return None
    codes, uniques = table.factorized
    titles = codes[:k][table.cells[:k] != ""]
    if np.isin(codes[k:], titles).any() or _ranked_names_recur(table, k):
        return None
    cells = table.cells[k:]
    if groups:
        header = codes[k][(table.cells[k] != "") & ~_integers(table.cells[k])]
        if header.size < 2 or np.isin(codes[k + 1:], header).any():
            return None  # the row under the titles is not a header
        cells = cells.copy()
        for i in reversed(range(k)):  # a blank header cell takes its group's title
            row = table.cells[i]
            start = np.maximum.accumulate(np.where(row != "", np.arange(row.size), -1))
            blank = (cells[0] == "") & (start >= 0)
            cells[0, blank] = row[start[blank]]
    return Table(cells, table.lines[k:], table.delimiter, table.head_widths[k:])


def _ranked_names_recur(table: Table, k: int, rows: int = 200) -> bool:
    """Whether a cell above row ``k`` names an item with its rank beside it (``x 1st``)
    whose name recurs in the rows below with another rank (``x 2nd``): a short first
    ranking, not a title."""
    above = {name_without_rank(c) for c in table.cells[:k].ravel() if c}
    above.discard(None)
    if not above:
        return False
    below = {name_without_rank(c) for c in table.cells[k:k + rows].ravel() if c}
    return bool(above & below)


def _integers(cells: np.ndarray) -> np.ndarray:
    return np.array([bool(INTEGER.fullmatch(str(c))) for c in cells], dtype=bool)


#: Words of a question asking for a ranking: rank, order (not "in order to"), arrange,
#: prioritise, "most ... to least", "from best".
_RANKING_QUESTION = re.compile(
    r"\b(?:rank(?:s|ed|ing)?|(?:re)?order(?:ed|ing)?(?!\s+to\b)|arrange|"
    r"prioriti[sz](?:e|ing)|most\b.*\bto\s+(?:the\s+)?least|from\s+(?:the\s+)?best)\b",
    re.IGNORECASE)
#: Words of a question asking for a rating: rate, "how satisfied", "on a scale", "1 = ...".
_RATING_QUESTION = re.compile(
    r"\b(?:rat(?:e|ing)|how\s+(?:satisfied|important|likely|much|often|well|good|strongly)|"
    r"on\s+a\s+scale|scale\s+(?:of|from)|(?:dis)?agree)\b|\d\s*=\s*\w", re.IGNORECASE)


def asks_for_ranking(question: str) -> bool:
    """Whether a question's text asks for a ranking (:data:`_RANKING_QUESTION`)."""
    return bool(_RANKING_QUESTION.search(question))


def _focus_block(prepared: Prepared, used: set[int | None]) -> tuple[int, ...] | None:
    """The question block holding the ranking, when a survey has several questions.

    A block titled by ranks (``[First choice]``) comes first. Then a block whose question
    asks for a ranking (:data:`_RANKING_QUESTION`), one whose cells are all ranks before
    one whose are not: beside it, a rating (1 to 5 under ``How important ...``) is another
    question, whatever its cells. Without one, of the blocks whose cells are all ranks (else
    of all), the first whose question asks for no rating (:data:`_RATING_QUESTION`), else
    the first. None when the file has no such blocks.
    """
    blocks = [tuple(j for j in block if j not in used) for block in prepared.blocks]
    blocks = [b for b in blocks if len(b) >= 2]
    if not blocks:
        return None
    titled = [b for b in blocks if all(RANK_LABEL.fullmatch(prepared.label(j)) for j in b)
              or rank_title_blocks([prepared.label(j) for j in b]) == [tuple(range(len(b)))]]
    if titled:
        return titled[0]
    asked = [b for b in blocks if _asks(prepared, b, _RANKING_QUESTION)]
    if asked:
        return next((b for b in asked if _all_ranks(prepared, b)), asked[0])
    readable = [b for b in blocks if _all_ranks(prepared, b)] or blocks
    return next((b for b in readable if not _asks(prepared, b, _RATING_QUESTION)), readable[0])


def _asks(prepared: Prepared, block: tuple[int, ...], words: re.Pattern[str]) -> bool:
    """Whether the question of ``block`` holds ``words``."""
    return bool(words.search(prepared.questions.get(block[0], "")))


def _all_ranks(prepared: Prepared, block: tuple[int, ...]) -> bool:
    """Whether every cell of the block's columns is a rank or blank, and one a rank."""
    ranks = rank_values(prepared.table.cells[prepared.start:, [
        j for j in block if j < prepared.table.width]])
    return bool(ranks.size and np.isfinite(ranks).all() and (ranks > 0).any())


def _row_numbers(prepared: Prepared) -> bool:
    """R's ``write.csv`` row names: an untitled first column holding 1, 2, 3 ..."""
    if prepared.header is None or prepared.header[0] or not prepared.n_rows:
        return False
    cells = prepared.table.column(0, prepared.start)
    return bool((cells == np.arange(1, cells.size + 1).astype(str).astype(object)).all())


def _trailing_count(prepared: Prepared) -> int | None:
    """pref_voting's unnamed last column of positive whole counts."""
    j = prepared.width - 1
    if prepared.label(j) != str(j + 1) or not prepared.n_rows:
        return None
    uniques = pd.unique(prepared.table.column(j, prepared.start))
    count = re.compile(r"0*[1-9]\d{0,14}")
    return j if all(isinstance(u, str) and count.fullmatch(u) for u in uniques) else None


def has_rank_header(prepared: Prepared) -> bool:
    """Whether the free columns are titled by rank (1st, Choice 1, [Ranking 1], a cast vote
    record's ``Mayor Choice 1 of 5`` ...)."""
    labels = [prepared.label(j) for j in prepared.free if prepared.header
              and j < len(prepared.header) and prepared.header[j]]
    return bool(labels) and (all(RANK_LABEL.fullmatch(c) for c in labels)
                             or position_ranks(labels) is not None) and not all(
        INTEGER.fullmatch(c) for c in labels)


def is_wide_header(prepared: Prepared) -> bool:
    """Whether the first row of a wide file holds column titles rather than a ranking.

    Titles are recognised by rank labels (``1st, 2nd``), by a shared stem numbered 1, 2, ...
    (``Candidate 1, Candidate 2``), by survey metadata, or by ranker and count words,
    unless some title also appears as an item in the rows below, which makes the first row
    a ranking.
    """
    table = prepared.table
    first = table.row(0)
    cells = [c for c in first if c]
    if not cells:
        return False
    if len(table) > 1:
        codes, uniques = table.factorized
        titles = codes[0][uniques[codes[0]] != ""]
        if np.isin(codes[1:], titles).any():
            return False  # a title that is also an item below: the first row is a ranking
    if has_rank_header(prepared):
        return True
    if sum(map(len, rank_title_blocks(cells))) == len(cells):
        return True  # a stem and the ranks 1, 2, ... ('Candidate 1', 'Candidate 2'), not below
    if prepared.skipped or prepared.ranker is not None or prepared.count is not None \
            or "weight" in find_roles(first, PREFERENCE_ROLES):
        return True
    if not all(RANK_LABEL.fullmatch(c) for c in cells):
        return False
    if not all(INTEGER.fullmatch(c) for c in cells):
        return True
    # plain numbers 1, 2, 3 ... are titles only when the rows below hold no plain numbers
    rest = pd.Series(table.cells[1:].ravel(), dtype=object)
    return ([int(c) for c in cells] == list(range(1, len(cells) + 1))
            and not rest.str.fullmatch(r"\d+").any())
