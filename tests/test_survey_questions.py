"""Survey exports with several questions: which one is the ranking, and what its items are."""

import csv
import io
import json

import pytest

from coarsenrank_core import PreferenceFormatError, read_file
from coarsenrank_core.io import ReadOptions

FRUITS = ("Apple", "Banana", "Cherry", "Durian")
# each respondent's ranks of FRUITS, and the importance (1 to 5) they gave each beforehand
RANKS = [(1, 3, 2, 4), (2, 1, 4, 3), (4, 2, 1, 3), (3, 4, 2, 1)]
IMPORTANCE = [(5, 3, 4, 3), (4, 5, 2, 3), (2, 4, 5, 3), (3, 2, 4, 5)]
BEST_FIRST = [["Apple", "Cherry", "Banana", "Durian"], ["Banana", "Apple", "Durian", "Cherry"],
              ["Cherry", "Banana", "Durian", "Apple"], ["Durian", "Cherry", "Apple", "Banana"]]


def qualtrics(questions: list[tuple[str, str, tuple[str, ...]]],
              answers: list[tuple[int, ...]]) -> bytes:
    """A Qualtrics export: tags, texts and import ids over the rows; each question is its
    tag, its text and its choices (columns ``<tag>_1``, ``<tag>_2`` ...)."""
    columns = [("StartDate", "Start Date", "startDate"), ("ResponseId", "Response ID",
                                                          "_recordId")]
    for tag, text, choices in questions:
        columns += [(f"{tag}_{k}", f"{text} - {choice}", f"QID{tag[1:]}_{k}")
                    for k, choice in enumerate(choices, 1)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c[0] for c in columns])
    writer.writerow([c[1] for c in columns])
    writer.writerow([json.dumps({"ImportId": c[2]}) for c in columns])
    for i, row in enumerate(answers):
        writer.writerow([f"2024-05-01 10:0{i}:00", f"R_{i}", *row])
    return out.getvalue().encode()


def surveymonkey(questions: list[tuple[str, tuple[str, ...]]],
                 answers: list[tuple[int, ...]]) -> bytes:
    """A SurveyMonkey export: each question's text over its first column, items below."""
    top = ["Respondent ID", "Collector ID", "Start Date", "End Date", "IP Address",
           "Email Address", "First Name", "Last Name", "Custom Data 1"]
    below = [""] * len(top)
    for text, choices in questions:
        top += [text] + [""] * (len(choices) - 1)
        below += list(choices)
    rows = [",".join(f'"{c}"' for c in top), ",".join(below)]
    rows += [",".join(map(str, (1140 + i, 4321, "05/01/2024 10:00:00 AM", "05/01/2024 10:05:00 AM",
                                f"192.0.2.{i}", "", "", "", "", *answer)))
             for i, answer in enumerate(answers)]
    return ("\n".join(rows) + "\n").encode()


def google(questions: list[tuple[str, tuple[str, ...]]], answers: list[tuple[object, ...]]
           ) -> bytes:
    """A Google Forms export: a timestamp, then ``<question> [<item>]`` for every grid."""
    titles = ["Timestamp"] + [f"{text} [{item}]" for text, items in questions for item in items]
    rows = [",".join(titles)]
    rows += [",".join(map(str, (f"5/1/2024 10:0{i}:00", *answer)))
             for i, answer in enumerate(answers)]
    return ("\n".join(rows) + "\n").encode()


IMPORTANCE_FIRST = [a + r for a, r in zip(IMPORTANCE, RANKS)]
RATING = "How important is each fruit to you? (1 = not important, 5 = very important)"


@pytest.mark.parametrize("ranking", [
    "Please rank the fruits from most (1) to least (4) preferred",
    "Order the fruits by preference", "Put the fruits in order of preference",
    "Arrange the fruits, your favourite first", "Prioritise the fruits",
    "Prioritize these fruits", "Which fruit do you like most? From best to worst",
    "Your fruits, most to least liked"])
def test_a_rating_question_before_the_ranking_is_skipped_in_a_qualtrics_export(ranking):
    result = read_file(qualtrics([("Q2", RATING, FRUITS), ("Q3", ranking, FRUITS)],
                                 IMPORTANCE_FIRST))
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert result.report.item_columns == FRUITS
    note = " ".join(result.report.lines())
    assert "How important is each fruit to you?" in note and "another question" in note


@pytest.mark.parametrize("rating", [
    RATING, "How satisfied are you with each fruit?", "Rate each fruit",
    "On a scale of 1 to 5, how much do you like each fruit?"])
def test_a_rating_question_before_the_ranking_is_skipped_in_a_surveymonkey_export(rating):
    text = surveymonkey([(rating, FRUITS), ("Please rank the following fruits.", FRUITS)],
                        IMPORTANCE_FIRST)
    result = read_file(text)
    assert result.report.platform == "SurveyMonkey"
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert rating in " ".join(result.report.lines())


def test_google_forms_grids_sharing_item_names_read_the_ranking_and_name_the_other():
    text = google([("How satisfied are you with", FRUITS), ("Rank the fruits", FRUITS)],
                  IMPORTANCE_FIRST)
    result = read_file(text)
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert result.report.item_columns == FRUITS
    lines = " ".join(result.report.lines())
    assert "How satisfied are you with" in lines and "Rank the fruits" in lines
    # the items, chosen by name, are the ranking's: the other grid's columns keep their titles
    chosen = read_file(text, options=ReadOptions(item_columns=FRUITS))
    assert chosen.preferences.to_lists(names=True) == BEST_FIRST
    other = read_file(text, options=ReadOptions(item_columns=tuple(
        f"How satisfied are you with [{f}]" for f in FRUITS), one_is_best=False))
    assert other.preferences.to_lists(names=True)[1][0] == "How satisfied are you with [Banana]"


def test_of_two_ranking_questions_the_first_is_read_and_the_other_named():
    second = [tuple(5 - r for r in ranks) for ranks in RANKS]
    text = qualtrics([("Q2", "Rank the fruits by taste", FRUITS),
                      ("Q3", "Rank the fruits by price", FRUITS)],
                     [a + b for a, b in zip(RANKS, second)])
    result = read_file(text)
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert "Rank the fruits by price" in " ".join(result.report.lines())


def test_a_ranking_with_a_wrong_cell_is_refused_rather_than_the_rating_read():
    answers = [list(a) for a in IMPORTANCE_FIRST]
    answers[2][5] = "lots"
    text = qualtrics([("Q2", RATING, FRUITS), ("Q3", "Rank the fruits", FRUITS)],
                     [tuple(a) for a in answers])
    with pytest.raises(PreferenceFormatError) as refused:
        read_file(text)
    assert refused.value.column == "Banana" and refused.value.row == 6


def test_a_rating_question_after_the_ranking_is_still_skipped():
    text = qualtrics([("Q2", "Rank the fruits", FRUITS), ("Q3", RATING, FRUITS)],
                     [r + a for r, a in zip(RANKS, IMPORTANCE)])
    assert read_file(text).preferences.to_lists(names=True) == BEST_FIRST

