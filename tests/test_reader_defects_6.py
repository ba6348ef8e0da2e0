"""Reader defects found by probing real export layouts (sixth batch)."""

from coarsenrank_core.io import read_file, read_preferences
from tests.test_reader_defects_5 import refusal

# ------------------------------------------------------------- places named by their ends
# A grid whose answers number the middle places and name the two ends
END_WORD_GRID = (
    b"Respondent,Pizza,Sushi,Tacos,Curry\n"
    b"1,Most preferred,Second,Third,Least preferred\n"
    b"2,Second,Most preferred,Least preferred,Third\n"
    b"3,Third,Second,Most preferred,Least preferred\n")
END_WORD_ORDERS = [["Pizza", "Sushi", "Tacos", "Curry"], ["Sushi", "Pizza", "Curry", "Tacos"],
                   ["Tacos", "Sushi", "Pizza", "Curry"]]


def test_answers_naming_the_ends_beside_numbered_places_are_ranks():
    result = read_file(END_WORD_GRID)
    assert result.report.layout == "ranks"
    assert result.preferences.to_lists(names=True) == END_WORD_ORDERS


def test_a_google_forms_grid_answered_with_end_words_is_read_as_ranks():
    data = (b"Timestamp,Rank the dishes [Pizza],Rank the dishes [Sushi],"
            b"Rank the dishes [Tacos],Rank the dishes [Curry]\n"
            b"2024/03/01 10:00:00,Most preferred,Second,Third,Least preferred\n"
            b"2024/03/01 10:01:00,Second,Most preferred,Least preferred,Third\n"
            b"2024/03/01 10:02:00,Third,Second,Most preferred,Least preferred\n")
    assert read_preferences(data).to_lists(names=True) == END_WORD_ORDERS


def test_the_bottom_word_of_a_partial_row_is_its_last_ranked_place():
    data = (b"Respondent,Pizza,Sushi,Tacos,Curry\n"
            b"1,Best,2nd,,Worst\n"
            b"2,2nd,Best,Worst,3rd\n")
    assert read_preferences(data).to_lists(names=True) == [
        ["Pizza", "Sushi", "Curry"], ["Sushi", "Pizza", "Curry", "Tacos"]]


def test_a_best_worst_choice_is_refused_not_ranked_as_two_items():
    # MaxDiff: each row marks only the best and the worst; its labels were read as two items
    error = refusal(b"Respondent,Pizza,Sushi,Tacos,Curry\n"
                    b"1,Most preferred,,,Least preferred\n"
                    b"2,,Most preferred,Least preferred,\n"
                    b"3,Least preferred,,Most preferred,\n")
    assert "best-worst" in error.reason
    assert "2 for every other item" in error.fix


def test_a_top_word_beside_a_first_place_is_no_rank():
    error = refusal(b"Respondent,Pizza,Sushi,Tacos\n1,Best,1,2\n2,1,2,3\n", "ranks")
    assert "'Best' is not a rank" in error.reason
    assert error.row == 2


def test_items_worded_like_a_scale_under_place_titles_stay_wide_rankings():
    # as many distinct answers as columns: a row of places, not a scale reused under items
    data = (b"Voter,Most,Middle,Least\nv1,Very hot,Mild,Not spicy\n"
            b"v2,Mild,Very hot,Not spicy\nv3,Very hot,Not spicy,Mild\n")
    assert read_preferences(data).to_lists(names=True)[1] == ["Mild", "Very hot", "Not spicy"]
