"""Reader defects, third round: memory of long files, peer-grading exports read without a
format, and rater names that look alike."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file
from coarsenrank_core.io.assembly import ranker_ids
from coarsenrank_core.io.streaming import stream_pairwise

# ------------------------------------------------------------- rater names that look alike
LOOK_ALIKE = ["Ann  Lee", "Ann\u00a0Lee", "Ann Lee\u200b", "Ann\u202fLee", "Ann\tLee"]

RATER_FILES = {
    "pairwise": "rater,winner,loser\nAnn Lee,a,b\n{other},b,c\nBo,c,a\n",
    "long": "rater,item,rank\nAnn Lee,a,1\nAnn Lee,b,2\n{other},c,1\n{other},d,2\nBo,a,1\n"
            "Bo,c,2\n",
    "wide": "voter,first,second\nAnn Lee,a,b\n{other},b,c\nBo,c,a\n",
    "ranks": "judge,a,b,c\nAnn Lee,1,2,3\n{other},3,2,1\nBo,2,1,3\n",
}


@pytest.mark.parametrize("layout", sorted(RATER_FILES))
@pytest.mark.parametrize("other", LOOK_ALIKE)
def test_rater_names_that_look_alike_are_one_rater_with_a_note(layout, other):
    text = RATER_FILES[layout].format(other=other)
    result = read_file(text.encode())
    prefs = result.preferences
    assert prefs.ranker_names is not None
    assert sorted(set(prefs.ranker_names)) == ["Ann Lee", "Bo"], prefs.ranker_names
    assert len(prefs.ranker_names) == 2
    notes = " ".join(result.report.notes)
    assert "ranker name" in notes and "Ann Lee" in notes, notes


def test_long_rows_of_look_alike_raters_join_one_ranking():
    text = "rater,item,rank\nAnn Lee,a,1\nAnn  Lee,b,2\nBo,a,2\nBo,b,1\n"
    prefs = read_file(text.encode()).preferences
    assert prefs.to_lists(names=True) == [["a", "b"], ["b", "a"]]
    assert prefs.ranker_names == ("Ann Lee", "Bo")


def test_look_alike_rater_writing_an_item_twice_is_refused_naming_the_row():
    text = "rater,item,rank\nAnn Lee,a,1\nAnn  Lee,a,2\nAnn Lee,b,3\nBo,a,1\nBo,b,2\n"
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(text.encode())
    assert caught.value.row is not None


def test_streamed_pairwise_merges_look_alike_raters_with_the_same_note(tmp_path):
    path = tmp_path / "rated.csv"
    path.write_text("rater,winner,loser\nAnn Lee,a,b\nAnn  Lee,b,c\nBo,c,a\n")
    streamed = stream_pairwise(path)
    whole = read_file(path)
    assert streamed.preferences.ranker_names == ("Ann Lee", "Bo")
    assert whole.preferences.ranker_names == ("Ann Lee", "Bo")
    assert any("Merged 1 ranker name" in n for n in streamed.report.notes)
    assert any("Merged 1 ranker name" in n for n in whole.report.notes)


def test_ranker_ids_note_names_the_merged_spellings():
    notes: list[str] = []
    codes, names = ranker_ids(np.array(["Ann Lee", "Ann  Lee", "Bo"], dtype=object),
                              np.arange(3), "rater", notes=notes)
    assert codes.tolist() == [0, 0, 1] and names == ("Ann Lee", "Bo")
    assert len(notes) == 1 and "Merged 1 ranker name" in notes[0]
    assert "'Ann  Lee'" in notes[0] and "'Ann Lee'" in notes[0]


def test_a_session_of_look_alike_raters_round_trips():
    pytest.importorskip("streamlit")
    from ui import share
    from ui.state import Dataset

    text = "rater,winner,loser\nAnn Lee,a,b\nAnn\u00a0Lee,b,c\nBo,c,a\n"
    prefs = read_file(text.encode()).preferences
    dataset = Dataset(name="peers.csv", preferences=prefs, origin="upload")
    back, _ = share.read_session_file(share._document(dataset, None, []))
    assert back.preferences == prefs and back.preferences.ranker_names == ("Ann Lee", "Bo")


def test_a_session_naming_look_alike_raters_is_refused_naming_the_field():
    pytest.importorskip("streamlit")
    from ui import share
    from ui.state import Dataset

    prefs = read_file(b"rater,winner,loser\nAnn Lee,a,b\nBo,b,c\n").preferences
    dataset = Dataset(name="peers.csv", preferences=prefs, origin="upload")
    document = json.loads(share._document(dataset, None, []))
    document["preferences"]["ranker_names"] = ["Ann Lee", "Ann  Lee"]
    with pytest.raises(share.SessionFileError, match="ranker_names"):
        share.read_session_file(json.dumps(document).encode())


# ------------------------------------------------------------- peer grades, one row per grade
def _peer_file() -> Path:
    import os

    root = os.environ.get("COARSENRANK_DATA")
    path = Path(root or "/nonexistent") / "peergrading" / "read_data" / "peer.csv"
    if not path.is_file():
        pytest.skip("the paper's peer-grading data are not here (COARSENRANK_DATA)")
    return path


def test_the_papers_peer_grades_read_as_grades_per_reviewer_and_task():
    path = _peer_file()
    auto = read_file(path)
    chosen = read_file(path, "long", options=ReadOptions(item_columns=("groupid", "grade"),
                                                         one_is_best=False))
    assert auto.report.layout == "long"
    assert auto.preferences == chosen.preferences
    assert auto.report.item_columns == ("groupid", "grade")
    assert auto.report.ranker_column == "reviewerid" and auto.report.one_is_best is False
    assert "taskid" not in auto.report.skipped_columns  # it splits the rankings
    notes = " ".join(auto.report.notes)
    assert "higher grade" in notes and "--format long --items groupid grade" in notes


def _rows(header: str, rows: list[tuple]) -> bytes:
    return (header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


GRADES = [("r1", "s1", 9), ("r1", "s2", 3), ("r1", "s3", 6), ("r2", "s1", 7), ("r2", "s3", 8),
          ("r3", "s2", 2), ("r3", "s3", 10), ("r3", "s1", 0)]
BEST_FIRST = [["s1", "s3", "s2"], ["s3", "s1"], ["s3", "s2", "s1"]]


@pytest.mark.parametrize("header, order", [
    ("reviewer,submission,score", (0, 1, 2)),
    ("Score,Item,Rater", (2, 1, 0)),
    ("grader_id,essay,points", (0, 1, 2)),
    ("points,Student,Grader", (2, 1, 0)),        # 'Student' is graded: the grader grades
    ("Marker,Candidate,Mark", (0, 1, 2)),         # a mark scale from 0: higher is better
    ("judge;team;rating", (0, 1, 2)),
])
def test_long_grades_in_several_layouts_read_higher_as_better(header, order):
    sep = ";" if ";" in header else ","
    rows = [tuple(r[k] for k in order) for r in GRADES]
    text = (header + "\n" + "\n".join(sep.join(map(str, r)) for r in rows) + "\n").encode()
    result = read_file(text)
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert result.preferences.ranker_names == ("r1", "r2", "r3")
    assert result.report.layout == "long" and result.report.one_is_best is False
    assert any("higher" in n for n in result.report.notes)


def test_long_grades_with_a_task_column_rank_per_rater_and_task():
    rows = [(1, *r) for r in GRADES] + [(2, "r1", "s1", 1), (2, "r1", "s2", 5)]
    result = read_file(_rows("task,reviewer,group,score", rows))
    assert result.preferences.to_lists(names=True) == [*BEST_FIRST, ["s2", "s1"]]
    assert result.preferences.ranker_names == ("r1", "r2", "r3")


def test_long_grades_skip_a_per_row_review_id():
    rows = [(100 + k, *r) for k, r in enumerate(GRADES)]
    result = read_file(_rows("review_id,reviewer,submission,score", rows))
    assert result.preferences.to_lists(names=True) == BEST_FIRST


def test_long_ranks_without_an_item_title_read_one_as_best():
    rows = [("r1", "g1", 1), ("r1", "g2", 2), ("r2", "g2", 1), ("r2", "g1", 2)]
    result = read_file(_rows("reviewer,group,rank", rows))
    assert result.preferences.to_lists(names=True) == [["g1", "g2"], ["g2", "g1"]]
    assert result.report.one_is_best is True


def test_grades_from_one_without_a_zero_are_refused_asking_which_way_is_better():
    rows = [(11, 7, 18, 4), (11, 7, 35, 2), (11, 8, 18, 1), (11, 8, 35, 5), (12, 7, 18, 3),
            (12, 7, 35, 3)]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_rows("taskid,reviewerid,groupid,grade", rows))
    message = str(caught.value)
    for column in ("'reviewerid'", "'groupid'", "'grade'", "'taskid'"):
        assert column in message
    assert "--format long --items groupid grade --one-is-worst" in message
    assert "--format long --items groupid grade" in message.replace(
        "--format long --items groupid grade --one-is-worst", "")


def test_long_grades_with_two_possible_item_columns_are_refused_naming_them():
    rows = [(r, f"team{k % 2}", f"hw{k % 3}", g) for k, (r, _, g) in enumerate(GRADES)]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_rows("reviewer,team,assignment,score", rows))
    message = str(caught.value)
    assert "'team'" in message and "'assignment'" in message
    # offered: the column no reviewer grades twice (r0 grades team0 in hw0 and in hw2)
    assert "--format long --items assignment score --one-is-worst" in message
    offered = ReadOptions(item_columns=("assignment", "score"), one_is_best=False)
    assert len(read_file(_rows("reviewer,team,assignment,score", rows), "long",
                         options=offered).preferences) == 3


@pytest.mark.parametrize("text", [
    b"item,score\na,3\nb,5\nc,1\n",                  # a ground truth: items with scores
    b"id,name,score\n1,a,3\n2,b,5\n3,c,1\n",         # the same, with ids
    b"judge,a,b,c\nj1,1,2,3\nj2,3,2,1\n",            # item columns holding ranks
])
def test_other_layouts_are_not_taken_for_long_grades(text):
    try:
        result = read_file(text)
    except PreferenceFormatError as error:
        assert "--format long" not in str(error)
    else:
        assert result.report.layout != "long"


def test_long_grades_with_a_scale_in_the_title_and_two_grader_columns():
    rows = [(r, f"{r}@school.org", s, g + 1) for r, s, g in GRADES]  # 1 to 11, no 0
    result = read_file(_rows("Reviewer Name,Reviewer Email,Submission,Grade (out of 11)", rows))
    assert result.preferences.to_lists(names=True) == BEST_FIRST
    assert result.report.ranker_column == "Reviewer Name"
    assert "Reviewer Email" in " ".join(result.report.notes + result.report.skipped_columns)


# ------------------------------------------------------------- memory: the command line's pool
@pytest.mark.parametrize("chosen, expected", [(None, "system"), ("mimalloc", "mimalloc")])
def test_the_command_line_reads_with_the_system_arrow_pool_unless_told(chosen, expected):
    import os
    import subprocess
    import sys

    code = ("import sys; from coarsenrank_core import cli; cli._system_arrow_pool(); "
            "import pyarrow; print(pyarrow.default_memory_pool().backend_name)")
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.strip() == expected


def test_long_grades_with_two_grade_columns_are_refused_naming_them():
    text = (b"Reviewer,Submission,Grade for submission,Grade for assessment\n"
            b"r1,s1,80,9\nr1,s2,60,8\nr2,s1,70,10\nr2,s2,90,7\n")
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(text)
    message = str(caught.value)
    assert "'Grade for submission'" in message and "'Grade for assessment'" in message
    assert "--format long --items Submission 'Grade for submission' --one-is-worst" in message


def test_long_grades_of_numbered_reviewees_and_questions():
    canvas = read_file(b"reviewer_id,reviewee_id,score\n1,2,9\n1,3,4\n2,1,8\n2,3,6\n3,1,5\n"
                       b"3,2,7\n")
    assert canvas.preferences.to_lists(names=True) == [["2", "3"], ["1", "3"], ["2", "1"]]
    per_question = read_file(b"Grader,Student,Question,Score\ng1,s1,q1,3\ng1,s2,q1,2\n"
                             b"g1,s1,q2,1\ng1,s2,q2,4\ng2,s1,q1,0\ng2,s2,q1,5\n")
    assert per_question.preferences.to_lists(names=True) == [["s1", "s2"], ["s2", "s1"],
                                                              ["s2", "s1"]]
    assert per_question.preferences.ranker_names == ("g1", "g2")


def test_a_blank_grade_is_refused_saying_how_the_file_was_read():
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(b"reviewer,submission,score\nr1,s1,9\nr1,s2,\nr1,s3,4\nr2,s1,3\nr2,s3,5\n")
    assert caught.value.row == 3 and caught.value.column == "score"
    assert "one row per grade" in caught.value.reason
