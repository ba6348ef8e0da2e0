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


# item names that, as a column's own title, name survey metadata or who answered
TITLE_WORDS = ("Time", "Date", "Status", "Language", "Version", "Progress", "Start", "End",
               "Notes", "Tags", "Teacher", "Student", "Parent", "User", "Email")
GRID_RANKS = [(1, 2, 3, 4), (2, 1, 4, 3), (3, 4, 1, 2), (4, 3, 2, 1), (1, 3, 2, 4)]


def best_first(items: tuple[str, ...]) -> list[list[str]]:
    return [[items[k] for k in sorted(range(len(items)), key=ranks.__getitem__)]
            for ranks in GRID_RANKS]


@pytest.mark.parametrize("word", TITLE_WORDS)
def test_a_grid_item_named_like_metadata_or_a_person_is_an_item_in_google_forms(word):
    items = ("Cost", word, "Quality", "Safety")
    result = read_file(google([("Rank the project constraints", items)], GRID_RANKS))
    assert result.preferences.item_names == items
    assert result.preferences.to_lists(names=True) == best_first(items)
    assert result.report.ranker_column is None


@pytest.mark.parametrize("word", TITLE_WORDS)
def test_a_choice_named_like_metadata_or_a_person_is_an_item_in_qualtrics(word):
    items = ("Customer", word, "Developer", "Manager")
    result = read_file(qualtrics([("Q1", "Rank the stakeholders by priority", items)],
                                 GRID_RANKS))
    assert result.preferences.item_names == items
    assert result.preferences.to_lists(names=True) == best_first(items)
    assert result.report.ranker_column == "Response ID"


@pytest.mark.parametrize("word", TITLE_WORDS)
def test_an_item_named_like_metadata_or_a_person_is_an_item_in_surveymonkey(word):
    items = (word, "Cost", "Quality", "Safety")
    result = read_file(surveymonkey([("Please rank the constraints", items)], GRID_RANKS))
    assert result.preferences.item_names == items
    assert result.preferences.to_lists(names=True) == best_first(items)
    assert result.report.ranker_column == "Respondent ID"


def test_top_two_picks_of_a_grid_keep_an_item_called_time():
    text = (b"Timestamp,Email Address,Pick your top 2 priorities [Cost],"
            b"Pick your top 2 priorities [Time],Pick your top 2 priorities [Quality],"
            b"Pick your top 2 priorities [Safety]\n"
            b"5/1/2024 10:00:00,a@x.org,1st,2nd,,\n5/1/2024 10:05:12,b@x.org,,1st,2nd,\n"
            b"5/2/2024 9:01:44,c@x.org,2nd,,1st,\n5/2/2024 9:03:44,d@x.org,,,2nd,1st\n")
    result = read_file(text)
    assert result.preferences.to_lists(names=True) == [
        ["Cost", "Time"], ["Time", "Quality"], ["Quality", "Cost"], ["Safety", "Quality"]]
    assert result.report.ranker_column == "Email Address"


def test_stand_alone_titles_are_still_metadata_and_who_answered():
    text = google([("Rank the constraints", ("Cost", "Time", "Quality", "Safety"))], GRID_RANKS)
    lines = text.decode().splitlines()
    lines[0] = lines[0].replace("Timestamp,", "Timestamp,Student,Time,")
    lines[1:] = [f"{row.split(',', 1)[0]},pupil{i},10:0{i},{row.split(',', 1)[1]}"
                 for i, row in enumerate(lines[1:])]
    result = read_file(("\n".join(lines) + "\n").encode())
    assert result.report.ranker_column == "Student"
    assert "Time (survey metadata)" in result.report.skipped_columns
    assert result.preferences.item_names == ("Cost", "Time", "Quality", "Safety")


@pytest.mark.parametrize("choices", [
    ("Bus - local", "Bus - express", "Train", "Bike", "Car"),
    ("Apple - Granny Smith", "Apple - Fuji", "Banana", "Cherry", "Durian"),
    ("Train", "Bus - local", "Bike", "Bus - express", "Car - shared - electric")])
@pytest.mark.parametrize("question", ["Rank these commuting options",
                                      "Travel - rank these options", "Q1 - Rank these options"])
def test_a_qualtrics_choice_holding_a_dash_keeps_its_whole_name(choices, question):
    answers = [(1, 2, 3, 4, 5), (5, 4, 3, 2, 1), (2, 4, 1, 3, 5), (3, 1, 5, 4, 2)]
    result = read_file(qualtrics([("Q1", question, choices)], answers))
    assert result.preferences.item_names == choices
    assert result.preferences.to_lists(names=True)[2] == [
        choices[2], choices[0], choices[3], choices[1], choices[4]]
    worst = read_file(qualtrics([("Q1", question, choices)], answers),
                      options=ReadOptions(one_is_best=False))
    assert worst.preferences.to_lists(names=True)[0] == list(reversed(choices))


def test_dashed_choices_of_a_rating_and_a_ranking_are_told_apart_by_their_questions():
    choices = ("Bus - local", "Bus - express", "Train", "Bike")
    result = read_file(qualtrics([("Q2", "How often do you use each? (1 = never, 5 = daily)",
                                   choices), ("Q3", "Rank the options", choices)],
                                 [(5, 3, 4, 3, *r) for r in RANKS]))
    assert result.preferences.item_names == choices
    assert result.preferences.to_lists(names=True)[0] == [
        "Bus - local", "Train", "Bus - express", "Bike"]
    assert "Read the question 'Rank the options'; skipped the other question 'How often " \
           "do you use each? (1 = never, 5 = daily)' (4 columns)" in result.report.lines()[-1]


def test_an_other_choice_keeps_its_name_and_its_typed_text_is_skipped():
    text = qualtrics([("Q1", "Rank the fruits", ("Apple", "Banana", "Other (please specify)"))],
                     [(1, 2, 3), (3, 1, 2), (2, 3, 1)]).decode().splitlines()
    typed = [',"Q1_3_TEXT"', ',Rank the fruits - Other (please specify) - Text',
             ',"{""ImportId"": ""QID1_3_TEXT""}"', ",Mango", ",", ",Kiwi"]
    text = [row + extra for row, extra in zip(text, typed)]
    result = read_file(("\n".join(text) + "\n").encode())
    assert result.preferences.item_names == ("Apple", "Banana", "Other (please specify)")
    assert any("Other (please specify) - Text" in c for c in result.report.skipped_columns)


def test_two_qualtrics_questions_with_one_text_are_told_apart_by_their_tags():
    later = [tuple(5 - r for r in ranks) for ranks in RANKS]
    result = read_file(qualtrics([("Q2", "Rank the fruits", FRUITS),
                                  ("Q3", "Rank the fruits", FRUITS)],
                                 [a + b for a, b in zip(RANKS, later)]))
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert result.report.item_columns == FRUITS
