"""Long grades: a school's assignment, exam, quiz or problem column splits the rankings."""

from __future__ import annotations

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file
from tests.helpers import note_command, rank_on_the_command_line

GRADES = [("r1", "s1", 9), ("r1", "s2", 3), ("r1", "s3", 6), ("r2", "s1", 7), ("r2", "s3", 8),
          ("r3", "s2", 2), ("r3", "s3", 10), ("r3", "s1", 0)]
BEST_FIRST = [["s1", "s3", "s2"], ["s3", "s1"], ["s3", "s2", "s1"]]
# the second task: r1 grades s1 and s2 again, the other way round
SECOND = [("r1", "s1", 1), ("r1", "s2", 5)]


def _rows(header: str, rows: list[tuple], sep: str = ",") -> bytes:
    return (header + "\n" + "\n".join(sep.join(map(str, r)) for r in rows) + "\n").encode()


def _two_tasks(order: tuple[int, ...], first: str = "A1", second: str = "A2") -> list[tuple]:
    rows = [(first, *g) for g in GRADES] + [(second, *g) for g in SECOND]
    return [tuple(r[k] for k in order) for r in rows]


@pytest.mark.parametrize("header, order", [
    ("assignment,reviewer,group,score", (0, 1, 2, 3)),
    ("Assignment ID,Reviewer,Submission,Points", (0, 1, 2, 3)),
    ("grader,student,exam,grade_awarded", (1, 2, 0, 3)),
    ("Exam Name,Marker,Candidate,Mark (out of 20)", (0, 1, 2, 3)),
    ("quiz_id,rater,essay,rating", (0, 1, 2, 3)),
    ("Homework,Grader Email,Student,Score", (0, 1, 2, 3)),
    ("judge,team,problem,points", (1, 2, 0, 3)),
    ("Problem Number,Judge,Team,Score", (0, 1, 2, 3)),
    ("exercise,reviewer,group,score", (0, 1, 2, 3)),
    ("round,judge,team,score", (0, 1, 2, 3)),                 # as before: a task word
    ("question,reviewer,group,score", (0, 1, 2, 3)),
])
def test_a_school_task_column_gives_each_rater_one_ranking_per_task(header, order):
    result = read_file(_rows(header, _two_tasks(order)))
    assert result.preferences.to_lists(names=True) == [*BEST_FIRST, ["s2", "s1"]]
    assert result.preferences.ranker_names == ("r1", "r2", "r3")
    task = header.split(",")[order.index(0)]
    assert f"and '{task}'" in result.report.notes[0]
    assert task not in result.report.skipped_columns


def test_one_task_is_still_read_by_task_and_the_semicolon_layout_too():
    rows = [("Quiz 1", *g) for g in GRADES]
    result = read_file(_rows("Quiz;Reviewer;Submission;Score", rows, ";"))
    assert result.preferences.to_lists(names=True) == BEST_FIRST


def test_the_command_in_the_note_splits_by_the_task_as_the_automatic_read(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_bytes(_rows("assignment,reviewer,group,score", _two_tasks((0, 1, 2, 3))))
    command = note_command(read_file(path).report.notes[0])
    assert command == "coarsenrank rank grades.csv --format long --items group score"
    # the layout chosen by hand splits by assignment too (grade 0: with --one-is-worst)
    chosen = read_file(path, "long", options=ReadOptions(item_columns=("group", "score"),
                                                         one_is_best=False))
    assert chosen.preferences.to_lists(names=True) == [*BEST_FIRST, ["s2", "s1"]]
    out = rank_on_the_command_line(path, "--format", "long", "--items", "group", "score",
                                   "--one-is-worst")
    assert out.returncode == 0, out.stderr


def test_an_assignment_column_that_is_the_only_other_column_is_what_is_graded():
    rows = [(r, s.replace("s", "a"), g) for r, s, g in GRADES]
    result = read_file(_rows("reviewer,assignment,score", rows))
    assert result.preferences.to_lists(names=True) == [[n.replace("s", "a") for n in order]
                                                       for order in BEST_FIRST]
    assert "grades 'assignment'" in result.report.notes[0]


def test_a_long_rankings_file_with_an_exam_column_ranks_per_exam():
    text = b"ranker,item,rank,exam\nu,a,1,e1\nu,b,2,e1\nu,a,2,e2\nu,b,1,e2\n"
    assert read_file(text).preferences.to_lists(names=True) == [["a", "b"], ["b", "a"]]


@pytest.mark.parametrize("text", [
    # one row per student and assignment, a grade per assignment: wide grades, not long
    b"student,Assignment 1,Assignment 2,Exam\nann,1,2,3\nbob,3,2,1\ncy,2,1,3\n",
    # pairwise games with a round column stay pairwise
    b"winner,loser,round\na,b,1\nb,c,1\nc,a,2\n",
    # wide ballots with an exam column beside the places
    b"voter,exam,1st,2nd\nann,e1,a,b\nbob,e1,b,a\n",
])
def test_layouts_that_are_not_grades_are_not_taken_for_grades(text):
    try:
        result = read_file(text)
    except PreferenceFormatError as error:
        assert "one row per grade" not in str(error)
        return
    assert not any("one row per grade" in n for n in result.report.notes)
    assert result.report.layout != "long"


def test_a_submissions_log_without_a_grade_is_not_taken_for_grades():
    text = b"student,assignment,submitted\nann,a1,yes\nann,a2,no\nbob,a1,yes\nbob,a2,yes\n"
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(text)
    assert "one row per grade" not in str(caught.value)


# each reviewer grades one submission per assignment: the assignment splits nothing
ONE_PER_TASK = [("A1", "r1", "s1", 9), ("A2", "r1", "s2", 3), ("A3", "r1", "s3", 6),
                ("A1", "r2", "s1", 7), ("A2", "r2", "s3", 8), ("A1", "r3", "s2", 2),
                ("A2", "r3", "s3", 10), ("A3", "r3", "s1", 0)]


def test_an_assignment_in_which_no_rater_grades_twice_splits_nothing_read_either_way():
    titled = read_file(_rows("Assignment,Reviewer,item,Score", ONE_PER_TASK))
    assert titled.preferences.to_lists(names=True) == BEST_FIRST
    assert "Assignment" in titled.report.skipped_columns
    text = _rows("Assignment,Reviewer,Submission,Score", ONE_PER_TASK)
    with pytest.raises(PreferenceFormatError) as caught:  # which column is graded?
        read_file(text)
    assert "'Assignment', 'Submission' could each be what is graded" in caught.value.reason
    # the choice the refusal gives, with the other column, reads one ranking per reviewer
    chosen = read_file(text, "long", options=ReadOptions(item_columns=("Submission", "Score"),
                                                         one_is_best=False))
    assert chosen.preferences.to_lists(names=True) == BEST_FIRST
