"""Long grades: which way up a number goes, read from its column title's words."""

from __future__ import annotations

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file
from coarsenrank_core.io.columns import lower_is_better_words, title_words
from tests.helpers import note_command, rank_on_the_command_line


def _rows(header: str, rows: list[tuple], sep: str = ",") -> bytes:
    return (header + "\n" + "\n".join(sep.join(map(str, r)) for r in rows) + "\n").encode()


# Each rater's numbers: small is s1 < s3 < s2 for r1, s3 < s1 for r2, s2 < s1 < s3 for r3
NUMBERS = [("r1", "s1", 3), ("r1", "s2", 9), ("r1", "s3", 6), ("r2", "s1", 7), ("r2", "s3", 4),
           ("r3", "s2", 2), ("r3", "s3", 10), ("r3", "s1", 5)]
SMALL_FIRST = [["s1", "s3", "s2"], ["s3", "s1"], ["s2", "s1", "s3"]]
LARGE_FIRST = [list(reversed(order)) for order in SMALL_FIRST]


def _notes(result) -> str:
    return " ".join(result.report.notes)


@pytest.mark.parametrize("title, words", [
    ("strokes", ("strokes",)), ("Time (sec)", ("time", "sec")), ("time_s", ("time",)),
    ("finish_time", ("time",)), ("FinishTime", ("time",)), ("error_count", ("error",)),
    ("errorCount", ("error",)), ("Mistakes", ("mistakes",)), ("penaltypoints", ("penalty",)),
    ("Penalty Points", ("penalty",)), ("golf_score", ("golf",)), ("Score to par", ("par",)),
    ("Points deducted", ("deducted",)), ("Duration (min)", ("duration",)),
    ("Score (lower is better)", ("lower",)),
    # higher-is-better and moments in time: none
    ("score", ()), ("Points", ()), ("rating", ()), ("Grade (out of 10)", ()), ("stars", ()),
    ("Timeliness", ()), ("Time bonus", ()), ("Score (higher is better)", ()),
    ("timestamp", ()), ("Submit time", ()), ("Start Time", ()), ("place", ()), ("rank", ()),
])
def test_the_words_of_a_title_that_say_lower_is_better(title, words):
    assert lower_is_better_words(title) == words


def test_title_words_split_separators_capitals_and_glued_endings():
    assert title_words("Finish Time (sec)") == ["finish", "time", "sec"]
    assert title_words("errorCount") == ["error", "count"]
    assert title_words("penaltypoints") == ["penalty", "points"]
    assert title_words("AssignmentDurationInSeconds") == ["assignment", "duration", "in",
                                                          "seconds"]


@pytest.mark.parametrize("header, said", [
    ("Scorer,Player,Strokes", "'strokes'"),                   # a golf scorecard
    ("scorer,golfer,golf_score", "'golf'"),
    ("Judge,Runner,Time (sec)", "'time', 'sec'"),            # race times
    ("Referee Name,athlete,finish_time", "'time'"),
    ("Judge,Gymnast,Deductions", "'deductions'"),
    ("Referee,Team,error_count", "'error'"),                  # error counts
    ("Grader,Essay,Mistakes", "'mistakes'"),
    ("judge,horse,Penalty Points", "'penalty'"),              # show jumping: faults
    ("reviewer,submission,Points deducted", "'deducted'"),
])
def test_titles_that_say_lower_is_better_read_lower_first_saying_how_to_flip(header, said):
    result = read_file(_rows(header, NUMBERS))
    assert result.preferences.to_lists(names=True) == SMALL_FIRST
    assert result.report.layout == "long"
    notes = _notes(result)
    item, grade = header.split(",")[1:]
    assert f"a lower number better (the title says {said})" in notes
    assert "--one-is-worst" in notes and f"--items {item}" in notes
    assert "higher grade better" not in notes


@pytest.mark.parametrize("header", ["reviewer,submission,score", "Judge,Team,Points",
                                    "rater,item,rating", "Grader,Essay,Score (higher is better)",
                                    "judge,team,Score (time bonus)"])
def test_plain_scores_and_points_are_still_higher_is_better(header):
    result = read_file(_rows(header, NUMBERS))
    assert result.preferences.to_lists(names=True) == LARGE_FIRST
    assert "a higher grade better" in _notes(result)


def test_race_times_with_decimals_and_error_counts_from_zero_are_read_as_numbers():
    times = [("t1", "ann", 12.31), ("t1", "bo", 11.9), ("t1", "cy", 12.05),
             ("t2", "ann", 12.2), ("t2", "bo", 12.4)]
    result = read_file(_rows("judge,runner,Time (sec)", times))
    assert result.preferences.to_lists(names=True) == [["bo", "cy", "ann"], ["ann", "bo"]]
    errors = [("r1", "a", 0), ("r1", "b", 2), ("r1", "c", 0), ("r2", "a", 1), ("r2", "b", 0)]
    result = read_file(_rows("referee,team,errors", errors))
    prefs = result.preferences
    assert prefs.to_lists(names=True) == [[frozenset({"a", "c"}), "b"], ["b", "a"]]  # 0, 0: tied


def test_a_lower_title_beside_a_score_column_leaves_the_score_the_grade():
    rows = [(r, s, g, 60 + g) for r, s, g in NUMBERS]
    result = read_file(_rows("reviewer,submission,score,Time taken (min)", rows))
    assert result.preferences.to_lists(names=True) == LARGE_FIRST
    assert "Time taken (min)" in " ".join(result.report.notes + result.report.skipped_columns)


def test_a_bare_time_of_unix_seconds_is_a_moment_not_a_grade():
    rows = [(r, s, 1_700_000_000 + g) for r, s, g in NUMBERS]
    with pytest.raises(PreferenceFormatError) as caught:  # as before: no rank column
        read_file(_rows("userId,itemId,time", rows))
    assert "no 'rank' column" in caught.value.reason
    small = read_file(_rows("userId,itemId,time", NUMBERS))  # seconds taken: a duration
    assert small.preferences.to_lists(names=True) == SMALL_FIRST


def test_the_flip_reads_a_lower_titled_column_higher_is_better():
    text = _rows("Judge,Runner,Time (sec)", NUMBERS)
    flipped = read_file(text, "long", options=ReadOptions(item_columns=("Runner", "Time (sec)"),
                                                          one_is_best=False))
    assert flipped.preferences.to_lists(names=True) == LARGE_FIRST
    chosen = read_file(text, "long", options=ReadOptions(item_columns=("Runner", "Time (sec)")))
    assert chosen.preferences.to_lists(names=True) == SMALL_FIRST


def test_the_command_in_the_note_reads_the_file_the_other_way_up(tmp_path):
    path = tmp_path / "race.csv"
    path.write_bytes(_rows("Judge,Runner,Time (sec)", NUMBERS))
    command = note_command(_notes(read_file(path)))
    assert command == ("coarsenrank rank race.csv --format long --items Runner 'Time (sec)' "
                       "--one-is-worst")
    out = rank_on_the_command_line(path, "--format", "long", "--items", "Runner",
                                   "Time (sec)", "--one-is-worst")
    assert out.returncode == 0, out.stderr


def test_the_report_says_smaller_numbers_are_better_not_that_rank_1_is_best():
    result = read_file(_rows("Judge,Runner,Time (sec)", NUMBERS))
    assert result.report.smaller_is_better and result.report.one_is_best
    lines = result.report.lines()
    assert any(line.startswith("Smaller numbers are better") for line in lines)
    assert "Rank 1 means the best." not in lines
    ranks = read_file(b"ranker,item,rank\nu,a,1\nu,b,2\nv,a,2\nv,b,1\n").report
    assert not ranks.smaller_is_better and "Rank 1 means the best." in ranks.lines()


@pytest.mark.parametrize("header, rows", [
    ("reviewer,essay,grade", [(r, s, g - 2) for r, s, g in NUMBERS]),  # a scale from 0
    ("Reviewer,Essay,Mark", [(r, s, {3: 0, 9: 9.5}.get(g, g)) for r, s, g in NUMBERS]),
])
def test_the_notes_other_way_up_reads_any_numbers_of_a_grade_smaller_first(tmp_path, header,
                                                                            rows):
    path = tmp_path / "marks.csv"
    path.write_bytes(_rows(header, rows))
    command = note_command(_notes(read_file(path))).split()
    assert command[3:] == ["--format", "long", "--items", *header.split(",")[1:]]
    flipped = read_file(path, "long", options=ReadOptions(item_columns=tuple(command[6:8])))
    assert flipped.preferences.to_lists(names=True) == SMALL_FIRST
    assert flipped.report.smaller_is_better
    assert rank_on_the_command_line(path, *command[3:]).returncode == 0


@pytest.mark.parametrize("title", ["rank", "Final place", "Pos", "Ranking"])
def test_a_column_titled_as_ranks_still_refuses_numbers_that_are_no_ranks(title):
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(f"ranker,item,{title}\nu,a,0\nu,b,1.5\n".encode(), "long",
                  options=ReadOptions(item_columns=("item", title)))
    assert "whole number, 1 or more" in caught.value.reason
