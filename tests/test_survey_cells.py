"""A survey's ranking written in one cell, beside its other answers."""

from __future__ import annotations

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file

TYPEFORM = (b"#,Please rank these fruits,How old are you?,Start Date (UTC),Submit Date (UTC),"
            b"Network ID\n"
            b'a1b2,"Apple,Cherry,Banana,Durian",34,2024-05-01 10:00:00,2024-05-01 10:05:00,1a2b\n'
            b'f6g7,"Durian,Banana,Cherry,Apple",28,2024-05-01 11:00:00,2024-05-01 11:05:00,6f7g\n'
            b'k1l2,"Banana,Apple,Durian,Cherry",41,2024-05-01 12:00:00,2024-05-01 12:05:00,1k2l\n')


def test_a_comma_list_beside_a_number_question_is_the_ranking_and_the_number_skipped():
    result = read_file(TYPEFORM)
    assert result.report.layout == "cell"
    assert result.preferences.to_lists(names=True)[0] == ["Apple", "Cherry", "Banana", "Durian"]
    assert "How old are you?" in result.report.skipped_columns


def test_two_comma_lists_are_still_not_guessed_between():
    text = TYPEFORM.replace(b",34,", b',"x,y",').replace(b",28,", b',"y,x",').replace(
        b",41,", b',"x,y",')
    try:
        layout = read_file(text).report.layout
    except PreferenceFormatError:
        layout = None
    assert layout != "cell"


def test_a_ranking_beside_a_multi_select_answer_is_the_column_whose_question_says_rank():
    text = (b"ID,Start time,Completion time,Email,Name,Favourite colours,Rank these fruits\n"
            b"1,5/1/24 10:00,5/1/24 10:03,anonymous,,Red;Blue;,Apple;Cherry;Banana;Durian;\n"
            b"2,5/1/24 10:00,5/1/24 10:04,anonymous,,Blue;,Durian;Banana;Cherry;Apple;\n"
            b"3,5/1/24 10:00,5/1/24 10:05,anonymous,,Green;Red;,Banana;Apple;Durian;Cherry;\n")
    result = read_file(text)
    assert result.preferences.to_lists(names=True)[1] == ["Durian", "Banana", "Cherry", "Apple"]
    assert "Favourite colours" in " ".join(result.report.skipped_columns)
