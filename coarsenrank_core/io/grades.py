"""Long grades: one row per grade (a rater, an item, a number), read without a format.

A teacher's or a conference's export often has one row per review: who graded
(``reviewerid``, ``grader``), what was graded (``groupid``, ``submission``), the grade
(``grade``, ``score``, ``points``) and perhaps an id of the task. Each rater's grades of one
task are one ranking with equal grades tied (the peer-grading study, Section 6 of the paper,
ranks them so). The layout is the long one (:mod:`~coarsenrank_core.io.long`) with the
number column read as a grade; this module only recognises it and decides which way up the
numbers go, or refuses, naming the columns and the exact choice that reads the file, where
the titles and cells cannot say so safely.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import PreferenceFormatError
from .columns import (
    PREFERENCE_ROLES,
    column_label,
    find_roles,
    is_school_task,
    lower_is_better_words,
    normalise,
    quote_list,
)
from .content import metadata_content
from .long import long_roles
from .options import ReadOptions
from .tables import Table

__all__ = ["GradesPlan", "long_grades", "column_kind", "is_judge", "long_choice"]

#: Titles of a number column where a higher number is better, whatever the scale.
_HIGHER_WORDS = ("score", "scores", "points", "point", "rating", "ratings", "stars", "percent",
                 "percentage")
#: Titles of a rubric's total beside its criteria (``Total``, ``Total (100)``).
_TOTAL_TITLES = frozenset({"total", "grandtotal", "totalmarks", "totalpoints"})
#: A criterion's maximum in its title: ``(out of 10)``, ``(30)``, ``/20``, ``[max 5]``.
_MAXIMUM = re.compile(r"[(\[]\s*(?:out\s*of\s*|max\.?\s*|/\s*)?\d+(?:\s*(?:pts|points|marks))?"
                      r"\s*[)\]]|/\s*\d+\s*$|out\s*of\s*\d+", re.IGNORECASE)
#: Titles of a grade whose direction depends on the school: some scales give 1 to the best
#: work (German, Czech), others to the worst (Swiss, Danish); a scale from 0 is a points scale.
_GRADE_WORDS = ("grade", "grades", "mark", "marks", "note")
#: Titles of a column of ranks: 1 is the best.
_RANK_WORDS = PREFERENCE_ROLES["rank"]
#: Titles of the person who grades, preferred over other people's columns (``student``).
_JUDGES = ("grader", "marker", "reviewer", "rater", "judge", "assessor", "evaluator",
           "examiner", "juror", "panelist", "panellist", "annotator", "taster", "scorer",
           "referee", "corrector")
_ENDS = ("", "id", "name", "email")
_JUDGE_TITLES = frozenset(w + end for w in _JUDGES for end in _ENDS)
#: Titles naming who graded by the act (``Rated by``, ``Marked by``: WebPA, gradebooks).
_DONE_BY = frozenset(f"{act}by" for act in ("rated", "reviewed", "graded", "assessed",
                                             "marked", "scored", "judged", "evaluated",
                                             "ranked"))


def _number_kind(key: str) -> str | None:
    """``"higher"``, ``"grade"`` or ``"rank"`` for a number column's normalised title."""
    for kind, words in (("rank", tuple(_RANK_WORDS)), ("higher", _HIGHER_WORDS),
                        ("grade", _GRADE_WORDS)):
        if any(key == w or (key.endswith(w) and len(key) > len(w) and kind != "rank")
               or (key.startswith(w) and (key[len(w):] in ("value", "given", "awarded")
                                          or key[len(w):].startswith(("for", "of"))))
               for w in words):
            return kind
    return None


_SCALE = re.compile(r"(?:\bout\s*of|/)\s*\d+(?:[.,]\d+)?\s*$", re.IGNORECASE)
_BRACKETS = re.compile(r"[(\[][^)\]]*[)\]]")


def _title_key(title: str) -> tuple[str, bool]:
    """A number column's title without its brackets or scale (``Grade (out of 10)``,
    ``Score [0-5]``, ``Points/20``), and whether it gave a maximum (``out of 10``,
    ``/20``: points, so a higher number is better)."""
    bare = _BRACKETS.sub(" ", title)
    scaled = _SCALE.search(bare) is not None or re.search(
        r"\(\s*(?:out\s*of|/)\s*\d", title, re.IGNORECASE) is not None
    return normalise(_SCALE.sub("", bare)), scaled


def column_kind(title: str) -> str | None:
    """``"higher"``, ``"grade"``, ``"rank"`` or ``"lower"`` for a number column's title, or
    None when it names no grade.

    ``"lower"``: the title says a smaller number is better
    (:func:`~coarsenrank_core.io.columns.lower_is_better_words`: ``strokes``, ``Time (sec)``,
    ``error_count``, ``penalty_points``, ``golf_score``), even beside ``score`` or ``points``;
    a rank title (``rank``, ``place``, ``position``) stays ``"rank"``.

    Parameters
    ----------
    title : str
        The column's title as the file writes it.

    Returns
    -------
    str or None
    """
    kind = _number_kind(_title_key(title)[0])
    if kind != "rank" and lower_is_better_words(title):
        return "lower"
    return kind


def _numeric(cells: np.ndarray) -> np.ndarray | None:
    """The cells as numbers (NaN where blank), or None when a filled cell is not a number
    or no cell is filled."""
    series = pd.Series(cells, dtype=object)
    blank = (series.str.strip() == "").to_numpy(dtype=bool)
    values: np.ndarray = pd.to_numeric(series.where(~blank, np.nan),
                                       errors="coerce").to_numpy(dtype=float)
    if blank.all() or np.isnan(values[~blank]).any():
        return None
    return values


#: Titles that name a side or an outcome of a comparison only beside the other side
#: (AlpacaEval's ``generator`` beside ``generator_2``; ``won`` and ``verdict`` beside the
#: sides): alone, a model's name and a flag of a graded file.
_PAIR_ONLY = frozenset({"generator", "won", "verdict"})


def is_judge(key: str) -> bool:
    """Whether a column title names a judge (a grader, marker, reviewer ...).

    Parameters
    ----------
    key : str
        The title normalised (:func:`~coarsenrank_core.io.columns.normalise`).

    Returns
    -------
    bool
    """
    return key in _JUDGE_TITLES or key in _DONE_BY


@dataclass(frozen=True)
class GradesPlan:
    """How a long-grades file is read: its columns and the direction of its numbers.

    Attributes
    ----------
    ranker, item, grade : str
        The titles of the rater's, the item's and the grade's columns.
    higher_is_better : bool
        Whether a higher number is better (False: 1 is the best, as ranks).
    note : str
        What was read, and the choice that reads the file the other way up.
    """

    ranker: str
    item: str
    grade: str
    higher_is_better: bool
    note: str

    def options(self, options: ReadOptions) -> ReadOptions:
        """``options`` with this plan's columns and direction."""
        return replace(options, item_columns=(self.item, self.grade),
                       ranker_column=self.ranker, one_is_best=not self.higher_is_better)


def command_file(file_name: str | None, sheet: str | int | None = None) -> str:
    """The file as a command line names it: its name quoted (``FILE`` when unknown), then
    ``--sheet`` and the workbook sheet read, when one was chosen."""
    name = shlex.quote(file_name) if file_name else "FILE"
    return name if sheet is None else f"{name} --sheet {shlex.quote(str(sheet))}"


def _command(file: str, item: str, measure: str, worst: bool,
             ranker: str | None = None, no_count: bool = False,
             lists: tuple[str, ...] = ()) -> str:
    return (f"coarsenrank rank {file} --format long --items {shlex.quote(item)} "
            f"{shlex.quote(measure)}"
            + (f" --ranker {shlex.quote(ranker)}" if ranker is not None else "")
            + (" --count ''" if no_count else "")
            + (" --lists " + " ".join(map(shlex.quote, lists)) if lists else "")
            + (" --one-is-worst" if worst else ""))


def _ui_choice(item: str, measure: str, worst: bool, ranker: str | None = None,
               lists: tuple[str, ...] = ()) -> str:
    return (f"choose the layout 'long rankings' with the item columns '{item}' then "
            f"'{measure}'" + ("" if ranker is None else
                              f", 'Column naming who ranked': {_shown_ranker(ranker)}")
            + (f", 'Columns that together tell one ranking from another': {quote_list(lists)}"
               if lists else "")
            + (" and 'Rank numbers mean: 1 is the worst'" if worst else ""))


def long_choice(file: str, item: str, measure: str, worst: bool,
                ranker: str | None = None, no_count: bool = False,
                lists: tuple[str, ...] = ()) -> str:
    """The choice that reads a long file by hand, in the app and on the command line.

    Parameters
    ----------
    file : str
        The file as the command names it (:func:`command_file`).
    item, measure : str
        The item column's and the number column's titles.
    worst : bool
        Whether 1 (the smallest number) is the worst (``--one-is-worst``).
    ranker : str, optional
        The ranker column, when the long reader would not take it as one (``--ranker``);
        ``""`` sets aside a column it would wrongly take (``--ranker ''``).
    no_count : bool
        Whether a column the long reader would take as the count is set aside
        (``--count ''``).
    lists : tuple of str
        The columns that together tell one ranking from another, when the long reader
        would not find them (``--lists``).

    Returns
    -------
    str
        ``choose the layout ... (in the command line: coarsenrank rank ...)``.
    """
    return (f"{_ui_choice(item, measure, worst, ranker, lists)} (in the command line: "
            f"{_command(file, item, measure, worst, ranker, no_count, lists)})")


def _shown_ranker(ranker: str) -> str:
    return f"'{ranker}'" if ranker else "(none)"


def _unfound_ranker(header: Sequence[str], labels: Sequence[str], item: int, grade: int,
                    ranker: int) -> str | None:
    """The rater column's title, for the command to name (``--ranker``), where the long
    reader told only the item and grade columns would not find it; else None."""
    found = long_roles(header, ReadOptions(item_columns=(labels[item], labels[grade])))
    return None if found.get("ranker") == ranker else labels[ranker]


def _aliases(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two columns name the same things (an author and their document): each value
    of one goes with one value of the other."""
    pairs = pd.Series(first, dtype=object) + "\x00" + pd.Series(second, dtype=object)
    return bool(pairs.nunique() == pd.Series(first).nunique() == pd.Series(second).nunique())


def _several_columns(table: Table, file: str, read: str, columns: list[str],
                     role: str, item: str, grade: str, worst: bool,
                     after: str, lists: tuple[str, ...] = (),
                     ranker: str | None = None) -> PreferenceFormatError:
    """The refusal of a file in which ``columns`` could each be ``role`` (what is graded,
    or the grade): it says what was ``read``, and gives the choice that reads the file with
    ``item`` and ``grade`` (the first of the columns in its role; ``lists``, the columns
    that then split a rater's grades into rankings; ``ranker``, the rater's column where the
    long reader would not find it), then ``after``."""
    first = grade if role == "the grade" else item
    choice = long_choice(file, item, grade, worst, ranker=ranker, lists=lists)
    return PreferenceFormatError(
        f"This looks like one row per grade: {read}, but the columns {quote_list(columns)} "
        f"could each be {role}.", row=int(table.lines[0]),
        fix=f"If '{first}' is {role}, {choice}; for "
            f"another column, put its title in place of '{first}'{after}")


def long_grades(table: Table, file_name: str | None = None,
                options: ReadOptions | None = None) -> GradesPlan | None:
    """The plan to read ``table`` as long grades, or None when it is not that layout.

    The rule, on the first row's titles and the cells below:

    - a number column titled as a grade, score or rank (``grade``, ``score``,
      ``points``, ``rating``, ``mark``, ``rank``, ``final_grade``, ``Grade (out of 10)``
      ...), every filled cell a number (two such columns are refused, naming them); else
      one titled only as a time, a count of strokes or errors, a penalty (``strokes``,
      ``Time (sec)``, ``error_count``; a time of 10^9 or more is a Unix moment, not one);
    - which way up: a title whose words say a smaller number is better
      (:func:`~coarsenrank_core.io.columns.lower_is_better_words`: ``time``, ``seconds``,
      ``strokes``, ``errors``, ``penalty``, ``golf``, ``par`` ..., so also ``penalty_points``
      and ``golf_score``) is read lower-is-better, any numbers; ranks 1 the best; other
      scores and points higher-is-better; a grade scale from 1 is refused (below). The note
      says what was read and the choice that reads it the other way up;
    - one rater column titled as a person (``reviewer``, ``grader``, ``rater``, ``user``
      ...; a grader beats a student when both are there), whose names repeat;
    - one item column: the one titled as an item, else the one column left once task
      columns (``task``, ``taskid``, ``round``, ``question``, ``assignment``, ``exam``,
      ``quiz``, ``homework``, ``problem`` ..., also with an id, name or number: each rater's
      grades of one task are one ranking), a count and per-row ids are set aside; its names
      repeat. A school's task column (``assignment`` ...) that leaves no other column is
      what is graded.

    Raises
    ------
    PreferenceFormatError
        When the rule finds the layout but cannot tell which remaining column holds the
        items, which number column holds the grade, or which way up a grade goes (a grade
        scale from 1 with no 0: some schools give 1 to the best work); the message names
        the columns and gives the choice that reads the file either way.
    """
    options = options or ReadOptions()
    if len(table) < 3 or options.item_columns is not None or options.ranker_column is not None:
        return None  # the user's own choice of columns is read as they chose
    file = command_file(file_name, options.sheet)
    header = table.row(0)
    keys = [normalise(c) for c in header]
    width = len(header)
    if width < 3 or len(set(keys)) < width or not all(keys):
        return None
    labels = [column_label(header, j) for j in range(width)]
    # a comparison's columns; 'generator', 'won' and 'verdict' only beside their pair
    roles = find_roles([c if normalise(c) not in _PAIR_ONLY else "" for c in header],
                       PREFERENCE_ROLES)
    if {"winner", "loser", "left", "right", "label"} & set(roles):
        return None
    body = table.cells[1:, :width]
    filled = [j for j in range(width) if (body[:, j] != "").any()]
    titles = [_title_key(c) for c in header]
    kinds = [column_kind(c) for c in header]
    numeric = {j: v for j in filled if kinds[j] is not None
               and (v := _numeric(body[:, j])) is not None}
    numbers = list(numeric)
    # a column titled as a grade, score or rank is the grade before a bare time or count,
    # and a bare time of Unix seconds (10^9 and more) is a moment, not a duration
    titled_numbers = [j for j in numbers if _number_kind(titles[j][0]) is not None]
    criteria: list[int] = []
    if not titled_numbers:  # a rubric's criteria and their total: the total is the grade
        totals = {j: v for j in filled if titles[j][0] in _TOTAL_TITLES and kinds[j] is None
                  and (v := _numeric(body[:, j])) is not None and not np.isnan(v).all()}
        # criteria out of a maximum ('Q1 (out of 10)', 'Creativity (30)'): a rubric's marks
        marked = [j for j in filled if j not in totals and _MAXIMUM.search(header[j])
                  and _numeric(body[:, j]) is not None]
        if len(totals) == 1 and marked:
            numeric = totals
            total = next(iter(totals))
            criteria = [j for j in filled if j != total and _numeric(body[:, j]) is not None]
            kinds[total] = "higher"
            numbers = titled_numbers = [total]
    numbers = titled_numbers or [j for j in numbers if np.nanmin(numeric[j]) < 1e9]
    bare = not titled_numbers  # weaker evidence: never refused for, only read when plain
    if not numbers:
        return None
    grade = numbers[0]
    values = numeric[grade]
    per_row = [j for j in filled if j not in numbers
               and pd.Series(body[:, j], dtype=object).is_unique]
    people = [j for j in filled if j not in (*numbers, *per_row) and (
        is_judge(keys[j]) or find_roles([header[j]], PREFERENCE_ROLES).get("ranker") == 0)]
    judges = [j for j in people if is_judge(keys[j])]
    if judges:  # several: the grader's name, e-mail, id: the first names the person
        ranker = judges[0]
    elif len(people) == 1:
        ranker = people[0]
    else:
        return None
    lists = [j for j in filled if j not in (ranker, *numbers)
             and find_roles([header[j]], PREFERENCE_ROLES).get("list") == 0]
    count = roles.get("weight")
    rest = [j for j in filled if j not in (ranker, *numbers, *lists, *judges, *criteria)
            and j != count and metadata_content(body[:, j]) is None]  # a date: nothing graded
    candidates = [j for j in rest if j not in per_row]

    def grades_twice(splits: list[int]) -> bool:
        """Whether some rater grades twice within one value of the ``splits`` columns."""
        rater_key = pd.Series(body[:, ranker], dtype=object)
        for j in splits:
            rater_key = rater_key + "\x00" + pd.Series(body[:, j], dtype=object)
        return bool(rater_key.duplicated().any())

    # a school's task column ('assignment', 'exam') is what is graded when no other column
    # is left for it, or when no rater grades twice within one of its values
    school = [j for j in lists if is_school_task(header[j])]
    if school and (not candidates or not grades_twice(lists)):
        lists = [j for j in lists if j not in school]
        candidates = sorted(candidates + [j for j in school if j not in per_row])
    titled = [j for j in candidates
              if find_roles([header[j]], PREFERENCE_ROLES).get("item") == 0]
    if not grades_twice(lists):
        return None  # no rater grades twice: nothing to rank
    kind = kinds[grade]
    if kind == "grade" and titles[grade][1]:
        kind = "higher"  # a grade out of a maximum: points
    # ranks and lower-is-better titles (times, strokes): as the user says
    higher = kind not in ("rank", "lower") or not options.one_is_best
    if not candidates:
        return None
    if len(titled) == 1:
        item = titled[0]
    elif len(candidates) == 1:
        item = candidates[0]
    elif bare:
        return None
    else:  # the choice offered: the first column that no rater grades twice in one ranking,
        # else the first with the other candidates as the columns that split the rankings
        offered = next((j for j in candidates if not grades_twice([*lists, j])), None)
        splits: tuple[str, ...] = ()
        if offered is None:
            offered = candidates[0]
            others = [j for j in candidates if j != offered
                      and not _aliases(body[:, j], body[:, offered])]
            if not grades_twice([*lists, *others, offered]):
                splits = tuple(labels[j] for j in (*lists, *others))
        raise _several_columns(
            table, file, f"'{labels[ranker]}' grades something with '{labels[grade]}'",
            [labels[j] for j in candidates], "what is graded", labels[offered],
            labels[grade], higher,
            ". The other columns are then left out; a column that splits a rater's grades "
            "into several rankings is used when titled as one: 'task', 'assignment', "
            "'exam', 'quiz', 'homework', 'problem', 'question' or 'round'.", splits,
            _unfound_ranker(header, labels, offered, grade, ranker))
    if not pd.Series(body[:, item], dtype=object).duplicated().any():
        return None  # every row grades another item: no two raters compare anything
    if len(numbers) > 1 and bare:
        return None
    if len(numbers) > 1:
        worst = kinds[grade] not in ("rank", "lower")
        raise _several_columns(
            table, file, f"'{labels[ranker]}' grades '{labels[item]}'",
            [labels[j] for j in numbers], "the grade", labels[item], labels[grade], worst,
            ("" if worst else ", and add --one-is-worst if a higher number is better") + ".")
    by = f" and '{labels[lists[0]]}'" if len(lists) == 1 else (
        f" and {quote_list(labels[j] for j in lists)}" if lists else "")
    where = f"one ranking per '{labels[ranker]}'{by}"
    choice = functools.partial(long_choice, file, labels[item], labels[grade],
                               ranker=_unfound_ranker(header, labels, item, grade, ranker))
    if kind == "grade" and not (values <= 0).any() and options.one_is_best:
        low, high = np.nanmin(values), np.nanmax(values)
        raise PreferenceFormatError(
            f"This looks like one row per grade: '{labels[ranker]}' grades "
            f"'{labels[item]}' with '{labels[grade]}' ({low:g} to {high:g}), "
            f"{where}. Whether a higher grade is better cannot be told from the file: some "
            "schools give 1 to the best work, others to the worst.",
            row=int(table.lines[0]), column=labels[grade],
            fix=f"If a higher grade is better, {choice(True)}; if 1 is the best, "
                f"{choice(False)}.")
    if kind == "lower" and not higher:
        said = quote_list(lower_is_better_words(header[grade]))
        note = (f"Read one row per grade: '{labels[ranker]}' grades '{labels[item]}' with "
                f"'{labels[grade]}', a lower number better (the title says {said}), {where}. "
                f"If a higher number is better, {choice(True)}")
    elif higher:
        note = (f"Read one row per grade: '{labels[ranker]}' grades '{labels[item]}' with "
                f"'{labels[grade]}', a higher grade better, {where}. If a lower grade is "
                f"better, {choice(False)}")
    else:
        note = (f"Read one row per rank: '{labels[ranker]}' ranks '{labels[item]}' with "
                f"'{labels[grade]}', 1 the best, {where}. If a higher number is better, "
                f"{choice(True)}")
    return GradesPlan(labels[ranker], labels[item], labels[grade], higher, note)
