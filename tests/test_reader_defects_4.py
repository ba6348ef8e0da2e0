"""Reader defects found by probing real export layouts (fourth batch)."""

import numpy as np
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import UNEXPECTED as _UNEXPECTED
from coarsenrank_core.io import ReadOptions, read_file, read_preferences
from coarsenrank_core.io.ranks import ranking_shaped


def refusal(data: bytes, fmt: str = "auto", **options: object) -> PreferenceFormatError:
    """The PreferenceFormatError for ``data`` (which must not be the safety net's)."""
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data, fmt, options=ReadOptions(**options))  # type: ignore[arg-type]
    assert not info.value.reason.startswith(_UNEXPECTED), info.value
    return info.value


# ------------------------------------------------- a table of numbers that are not ranks
def test_rows_written_as_ranks_with_ties_are_told_from_ratings():
    rows = np.array([[1, 2, 3, 4], [1, 1, 3, 4], [2, 1, 2, 4], [1.5, 1.5, 3, 4],
                     [1, 1, 2, 3], [np.nan, 1, 1, 2], [3, 3, 4, 4], [0, 1, 3, 3], [2, 4, 4, 0]])
    assert ranking_shaped(rows).tolist() == [True] * 6 + [False] * 3


# per-answer attribute scores 0-4 (a HelpSteer file): five attributes are not ranked
ATTRIBUTE_SCORES = (b"prompt,response,helpfulness,correctness,coherence,complexity,verbosity\n"
                    + b"".join(
    f"Capital of country {i // 3}?,It is city {i}.,{row}\n".encode() for i, row in enumerate(
        ["4,0,3,3,4", "0,1,3,3,2", "1,0,4,3,2", "0,1,4,2,0", "3,1,4,2,3", "3,2,4,2,3",
         "1,2,4,2,1", "3,1,3,3,0", "2,4,4,1,2"])))


def test_a_table_of_scores_with_ties_not_written_as_ranks_is_refused():
    error = refusal(ATTRIBUTE_SCORES)
    assert "look like ratings or scores" in error.reason and error.row == 2
    # chosen by hand, the same numbers are read as they stand
    prefs = read_preferences(ATTRIBUTE_SCORES, "ranks")
    assert len(prefs) == 9


def test_hand_written_ranks_may_tie_in_most_rows():
    data = b"Judge,Anna,Ben,Carla,Dev\nJ1,1,1,3,4\nJ2,2,1,2,4\nJ3,1,2,3,3\nJ4,1,2,2,4\n"
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True)[0] == [frozenset({"Anna", "Ben"}), "Carla", "Dev"]


def test_a_grid_of_approvals_is_refused_not_read_as_ties_at_the_top():
    data = b"voter,Alice,Bob,Carol,Dan\nv1,1,1,0,0\nv2,0,1,0,1\nv3,1,0,1,0\nv4,0,0,1,1\n"
    error = refusal(data)
    assert "approvals" in error.reason and error.row == 2 and error.column == "Alice"


def test_points_given_on_a_scale_with_gaps_are_refused_and_read_with_one_the_worst():
    data = (b"Voting country,Sweden,Finland,Israel,Italy,Norway\n"
            b"Sweden,,12,10,8,7\nFinland,12,,10,7,8\nIsrael,10,12,,8,7\nItaly,12,10,7,,8\n"
            b"Norway,12,10,8,7,\n")
    error = refusal(data)
    assert "points awarded on a scale" in error.reason and "12, 10, 8, 7" in error.reason
    prefs = read_preferences(data, options=ReadOptions(one_is_best=False))
    assert prefs.to_lists(names=True)[0] == ["Finland", "Israel", "Italy", "Norway"]


def test_ranks_that_every_row_writes_in_full_are_no_points_scale():
    data = b"judge,A,B,C,D\nj1,1,2,3,4\nj2,1,2,3,4\nj3,2,1,3,4\n"
    assert len(read_preferences(data)) == 3


# ------------------------------------------------- a score chosen by hand as the rank column
def test_a_score_chosen_as_the_rank_column_says_why_smaller_is_better_and_how_to_turn_it():
    data = (b"taster,title,points\nRoger,Margaux,97\nRoger,Yellow Tail,85\nKerin,Margaux,95\n"
            b"Kerin,Yellow Tail,84\n")
    result = read_file(data, "long", options=ReadOptions(item_columns=("title", "points")))
    lines = result.report.lines()
    assert any("'points' was chosen as the rank column" in line and "--one-is-worst" in line
               for line in lines)
    assert not any("titled as a time" in line for line in lines)
    assert result.preferences.to_lists(names=True)[0] == ["Yellow Tail", "Margaux"]
