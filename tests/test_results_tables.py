"""Results tables (an event, who competed, one number): one ranking per event, or a refusal."""

from __future__ import annotations

import io
import shlex

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file, read_preferences
from coarsenrank_core.io.columns import is_event_title
from tests.helpers import note_command, rank_on_the_command_line


def _csv(header: str, rows: list[tuple]) -> bytes:
    return (header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


def _notes(result) -> str:
    return " ".join(result.report.notes)


def _refusal(data: bytes) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(data)
    return caught.value


HEATS = [("H1", "Ann", 12.3), ("H1", "Bob", 11.9), ("H2", "Ann", 12.0), ("H2", "Bob", 12.4)]


# -- the layouts of the defect report -------------------------------------------------------
def test_heat_times_read_one_ranking_per_heat_smallest_time_first():
    result = read_file(_csv("heat,athlete,Time (sec)", HEATS))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    report = result.report
    assert report.layout == "long" and report.item_columns == ("athlete", "Time (sec)")
    assert report.ranker_column is None and report.smaller_is_better
    notes = _notes(result)
    assert "one ranking per 'heat'" in notes and "ordered by 'Time (sec)'" in notes
    assert "a lower number better (the title says 'time', 'sec')" in notes
    assert "--one-is-worst" in notes and "1 is the worst" in notes
    assert "Ranker column: none (each ranking is its own ranker)." in report.lines()


def test_the_title_row_and_the_numbers_never_become_items():
    prefs = read_preferences(_csv("heat,athlete,Time (sec)", HEATS))
    assert set(prefs.item_names) == {"Ann", "Bob"}


def test_rounds_of_golf_read_fewer_strokes_first():
    rows = [(1, "Ann", 72), (1, "Bob", 70), (2, "Ann", 69), (2, "Bob", 71)]
    result = read_file(_csv("round,player,strokes", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert "(the title says 'strokes')" in _notes(result)


def test_race_times_read_one_ranking_per_race():
    rows = [(r.replace("H", "R"), n, t) for r, n, t in HEATS]
    result = read_file(_csv("race,runner,time", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert "one ranking per 'race'" in _notes(result)


def test_scores_per_round_read_higher_first_not_as_a_ground_truth():
    rows = [(1, "Ann", 10), (1, "Bob", 12), (2, "Ann", 9), (2, "Bob", 8)]
    result = read_file(_csv("round,player,score", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert result.report.one_is_best is False
    notes = _notes(result)
    assert "ordered by 'score', a higher number better" in notes
    assert "ground truth" not in notes
    # whole scores from 1: the flip is the long reader's 1-is-best choice
    assert "--items player score)" in notes and "--one-is-worst" not in notes


def test_round_item_rank_still_reads_as_long_rankings_without_a_results_note():
    result = read_file(_csv("round,item,rank", [(1, "A", 1), (1, "B", 2), (2, "A", 2),
                                                (2, "B", 1)]))
    assert result.preferences.to_lists(names=True) == [["A", "B"], ["B", "A"]]
    assert "results table" not in _notes(result)


# -- more real-looking results tables ---------------------------------------------------------
def test_golf_rounds_with_capitals_and_tied_strokes():
    rows = [("R1", "Ann", 70), ("R1", "Bob", 72), ("R1", "Cy", 70), ("R2", "Ann", 68),
            ("R2", "Bob", 71), ("R2", "Cy", 69)]
    prefs = read_preferences(_csv("Round,Player,Strokes", rows))
    assert prefs.to_lists(names=True) == [[frozenset({"Ann", "Cy"}), "Bob"],
                                          ["Ann", "Cy", "Bob"]]


def test_quiz_night_points_per_week_with_ties():
    rows = [(1, "Owls", 40), (1, "Cats", 35), (1, "Dogs", 40), (2, "Owls", 30),
            (2, "Cats", 45), (2, "Dogs", 33)]
    result = read_file(_csv("week,team,points", rows))
    assert result.preferences.to_lists(names=True) == [[frozenset({"Owls", "Dogs"}), "Cats"],
                                                       ["Cats", "Dogs", "Owls"]]
    assert "one ranking per 'week'" in _notes(result)


def test_chess_places_per_round_read_one_as_the_best():
    rows = [(1, "Ann", 1), (1, "Bob", 2), (1, "Cy", 3), (2, "Ann", 2), (2, "Bob", 1),
            (2, "Cy", 3)]
    result = read_file(_csv("round,player,place", rows))
    assert result.preferences.to_lists(names=True) == [["Ann", "Bob", "Cy"],
                                                       ["Bob", "Ann", "Cy"]]
    assert result.report.one_is_best is True
    assert "ordered by 'place', 1 the best" in _notes(result)


def test_event_competitor_score_with_decimal_scores_and_ties():
    rows = [("E1", "Ann", 9.5), ("E1", "Bob", 9.5), ("E1", "Cy", 8.0), ("E2", "Ann", 7),
            ("E2", "Bob", 8), ("E2", "Cy", 8)]
    result = read_file(_csv("Event,Competitor,Score", rows))
    assert result.preferences.to_lists(names=True) == [[frozenset({"Ann", "Bob"}), "Cy"],
                                                       [frozenset({"Bob", "Cy"}), "Ann"]]
    # the flip reads the decimals smaller-first: 'Score' promises no whole places
    flip = read_file(_csv("Event,Competitor,Score", rows), "long",
                     options=ReadOptions(item_columns=("Competitor", "Score")))
    assert "--format long --items Competitor Score)" in _notes(result)
    assert flip.preferences.to_lists(names=True) == [["Cy", frozenset({"Ann", "Bob"})],
                                                     ["Ann", frozenset({"Bob", "Cy"})]]


def test_other_number_columns_and_a_per_row_id_are_left_out():
    rows = [(1, "H1", 4, "Ann", 12.3), (2, "H1", 5, "Bob", 11.9), (3, "H2", 4, "Ann", 12.0),
            (4, "H2", 5, "Bob", 12.4)]
    result = read_file(_csv("id,Heat No.,lane,athlete,finish_time", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert "'lane'" in _notes(result)  # ignored, and said so
    assert "--ranker ''" in _notes(result)  # the id would be the long reader's ranker


def test_a_player_column_beside_a_team_column_is_the_one_named_once_per_match():
    rows = [("M1", "Red", "Ann", 2), ("M1", "Red", "Bob", 0), ("M1", "Blue", "Cy", 1),
            ("M2", "Red", "Ann", 1), ("M2", "Blue", "Cy", 3)]
    prefs = read_preferences(_csv("match,team,player,goals", rows))
    assert prefs.to_lists(names=True) == [["Ann", "Cy", "Bob"], ["Cy", "Ann"]]


def test_the_command_in_the_note_reads_the_same_and_the_other_way_up(tmp_path):
    path = tmp_path / "heats.csv"
    path.write_bytes(_csv("heat,athlete,Time (sec)", HEATS))
    command = note_command(_notes(read_file(path)))
    assert command == ("coarsenrank rank heats.csv --format long --items athlete "
                       "'Time (sec)' --one-is-worst")
    flipped = ReadOptions(item_columns=("athlete", "Time (sec)"), one_is_best=False)
    assert read_preferences(path, "long", options=flipped).to_lists(names=True) == [
        ["Ann", "Bob"], ["Bob", "Ann"]]
    same = ReadOptions(item_columns=("athlete", "Time (sec)"))
    assert read_preferences(path, "long", options=same).to_lists(names=True) == [
        ["Bob", "Ann"], ["Ann", "Bob"]]
    out = rank_on_the_command_line(path, *shlex.split(command)[3:])
    assert out.returncode == 0, out.stderr


# -- results tables that cannot be read: refused with the right reason ---------------------------
def test_swimming_times_in_minutes_and_seconds_are_read_in_seconds_beside_plain_seconds():
    rows = [(1, "Ann", "1:02.35"), (1, "Bob", "1:01.90"), (1, "Eve", "1:01.90"),
            (2, "Cy", "59.80"), (2, "Dee", "1:00.10")]
    result = read_file(_csv("Heat,Swimmer,Time", rows))
    assert result.preferences.to_lists(names=True) == [[frozenset({"Bob", "Eve"}), "Ann"],
                                                       ["Cy", "Dee"]]
    assert "'1:02.35' is 62.35 s" in _notes(result)


def test_marathon_times_in_hours_minutes_and_seconds_read_in_seconds():
    rows = [("M1", "Ann", "2:05:30"), ("M1", "Bob", "2:04:59"), ("M1", "Cy", "59:59"),
            ("M2", "Ann", "2:10:00"), ("M2", "Bob", "1:09:00.5")]
    result = read_file(_csv("race,runner,finish time", rows))
    assert result.preferences.to_lists(names=True) == [["Cy", "Bob", "Ann"], ["Bob", "Ann"]]


@pytest.mark.parametrize("cell", ["1:75.35", "1:60", "2:75:00", "1:2.35"])
def test_a_clock_time_that_is_no_time_is_refused_saying_why(cell):
    rows = [(1, "Ann", cell), (1, "Bob", "1:01.90"), (2, "Cy", "59.80"), (2, "Dee", "1:00.10")]
    error = _refusal(_csv("Heat,Swimmer,Time", rows))
    assert error.row == 2 and error.column == "Time"
    assert f"'{cell}', which is not a time on a clock" in error.reason
    assert "1:02.35" in error.fix


def test_a_match_score_with_a_colon_is_not_read_as_a_time():
    rows = [("G1", "Ann", "2:1"), ("G1", "Bob", "1:2"), ("G2", "Ann", "0:0"), ("G2", "Bob", "0:0")]
    error = _refusal(_csv("game,player,score", rows))
    assert error.column == "score" and "written with a colon" in error.reason
    assert "own points" in error.fix


def test_clock_times_read_the_same_through_the_long_layout_chosen_by_hand():
    from coarsenrank_core.io import ReadOptions

    rows = [(1, "Ann", "1:02.35"), (1, "Bob", "1:01.90"), (2, "Cy", "59.80"),
            (2, "Dee", "1:00.10")]
    by_hand = read_file(_csv("Heat,Swimmer,Time", rows), format="long",
                        options=ReadOptions(item_columns=("Swimmer", "Time"), ranker_column=""))
    assert by_hand.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Cy", "Dee"]]
    assert "In 'Time', times on a clock are read in seconds ('1:02.35' is 62.35 s)." \
        in by_hand.report.lines()


def test_a_did_not_finish_cell_places_its_row_below_every_finisher():
    rows = [("R1", "Ann", 12.3), ("R1", "Bob", "DNF"), ("R1", "Cy", 12.5), ("R2", "Ann", 12.0),
            ("R2", "Bob", 12.4)]
    prefs = read_preferences(_csv("race,runner,time", rows))
    assert prefs.to_lists(names=True) == [["Ann", "Cy", "Bob"], ["Ann", "Bob"]]
    assert any("1 row marked out of the event ('DNF')" in note for note in prefs.notes)
    # a cell that is neither a time nor such a mark is still refused, naming its row
    rows[1] = ("R1", "Bob", "fell")
    error = _refusal(_csv("race,runner,time", rows))
    assert error.row == 3 and error.column == "time" and "'fell'" in error.reason
    assert "delete the rows" in error.fix


def test_two_untitled_number_columns_are_refused_naming_both_and_the_choice():
    rows = [("R1", "Ann", 12, 13), ("R1", "Bob", 11, 12), ("R2", "Ann", 10, 11),
            ("R2", "Bob", 14, 14)]
    error = _refusal(_csv("race,runner,lap1,lap2", rows))
    assert "results table" in error.reason and "'lap1', 'lap2'" in error.reason
    assert "--format long --items runner lap1" in error.fix
    assert "--one-is-worst" in error.fix and "title" not in error.reason.split("but")[0]
    assert "place" not in error.fix.split("If")[0]  # not the wide layout's hint


def test_two_direction_titled_columns_are_refused_with_the_first_ones_own_direction():
    # they disagree in R2 (place and points that agree are read: see the tests at the end)
    rows = [("R1", "Ann", 2, 18), ("R1", "Bob", 1, 25), ("R2", "Ann", 1, 18),
            ("R2", "Bob", 2, 25)]
    error = _refusal(_csv("race,driver,place,points", rows))
    assert "'place', 'points'" in error.reason
    assert "To order them by 'place' (1 the best)" in error.fix
    assert "--items driver place)" in error.fix


def test_one_number_column_whose_title_says_no_direction_is_refused_with_both_choices():
    error = _refusal(_csv("heat,athlete,result", HEATS))
    assert error.column == "result"
    assert "--items athlete result);" in error.fix and "--one-is-worst" in error.fix
    flip = read_file(_csv("heat,athlete,result", HEATS), "long",
                     options=ReadOptions(item_columns=("athlete", "result")))
    assert flip.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]


def test_the_retitle_the_refusal_suggests_then_reads_lower_first():
    prefs = read_preferences(_csv("heat,athlete,result (lower is better)", HEATS))
    assert prefs.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]


def test_a_competitor_twice_in_one_event_is_refused_naming_the_rows():
    rows = [(1, "Ann", 1, 4), (1, "Ann", 2, 5), (1, "Bob", 1, 3), (1, "Bob", 2, 4)]
    error = _refusal(_csv("round,player,hole,strokes", rows))
    assert error.row == 3 and error.column == "player"
    assert "'Ann' has two rows where 'round' is '1' (rows 2 and 3)" in error.reason


ROUND_HEATS = [(1, 1, "Ann", 1), (1, 1, "Bob", 2), (1, 2, "Cy", 1), (1, 2, "Dee", 2),
               (2, 1, "Ann", 2), (2, 1, "Cy", 1)]


@pytest.mark.parametrize("header", ["round,heat,athlete,place", "race,heat,athlete,place",
                                    "meet,event,swimmer,place"])
def test_two_event_columns_read_one_ranking_per_heat_of_each_round(header):
    # both heats of round 1 have a 1st place: read per round they would be ties
    result = read_file(_csv(header, ROUND_HEATS))
    assert result.preferences.to_lists(names=True) == [["Ann", "Bob"], ["Cy", "Dee"],
                                                       ["Cy", "Ann"]]
    first, second = header.split(",")[:2]
    notes = _notes(result)
    assert f"one ranking per '{first} / {second}' of the" in notes
    assert f"The columns '{first}', '{second}' together name one event" in notes
    assert f"--lists {first} {second} --one-is-worst" in notes
    assert result.report.skipped_columns == ()
    assert f"Ranking columns: '{first}', '{second}'." in result.report.lines()


def test_the_ranking_columns_in_the_note_read_the_file_by_hand_and_on_the_command_line(tmp_path):
    path = tmp_path / "heats.csv"
    path.write_bytes(_csv("round,heat,athlete,place", ROUND_HEATS))
    flipped = ReadOptions(item_columns=("athlete", "place"), list_columns=("round", "heat"),
                          one_is_best=False)
    assert read_preferences(path, "long", options=flipped).to_lists(names=True) == [
        ["Bob", "Ann"], ["Dee", "Cy"], ["Ann", "Cy"]]
    args = shlex.split(note_command(read_file(path).report.notes[0]))
    out = rank_on_the_command_line(path, *args[3:])
    assert out.returncode == 0, out.stderr
    assert "3 preferences over 4 items" in out.stderr + out.stdout


def test_event_cells_that_join_alike_are_refused_rather_than_merged():
    # '1 / 2' and '3' joins as '1' and '2 / 3' does: two events would become one
    rows = [("1 / 2", "3", "Ann", 1), ("1 / 2", "3", "Bob", 2), ("1", "2 / 3", "Cy", 1),
            ("1", "2 / 3", "Dee", 2)]
    error = _refusal(_csv("round,heat,athlete,place", rows))
    assert "'round', 'heat' each name an event" in error.reason


def test_an_event_titled_column_beside_a_ranking_column_still_only_describes_the_items():
    rows = [(1, "a", 1, "sprint"), (1, "b", 2, "distance"), (1, "c", 3, "sprint"),
            (2, "a", 2, "sprint"), (2, "b", 1, "distance"), (2, "c", 3, "sprint")]
    result = read_file(_csv("round,item,rank,event", rows))
    assert result.preferences.to_lists(names=True) == [["a", "b", "c"], ["b", "a", "c"]]
    assert "Ignored the columns 'event'" in _notes(result)


def test_ranking_columns_chosen_by_hand_split_long_rankings_and_are_checked():
    data = _csv("round,heat,item,rank", [(1, 1, "a", 1), (1, 1, "b", 2), (1, 2, "c", 1),
                                         (1, 2, "d", 2)])
    chosen = read_file(data, "long", options=ReadOptions(list_columns=("round", "heat")))
    assert chosen.preferences.to_lists(names=True) == [["a", "b"], ["c", "d"]]
    with pytest.raises(PreferenceFormatError, match="There is no column called 'lane'"):
        read_file(data, "long", options=ReadOptions(list_columns=("round", "lane")))
    with pytest.raises(PreferenceFormatError, match="'item' was chosen as a ranking column but "
                                                    "is read as the item"):
        read_file(data, "long", options=ReadOptions(item_columns=("item", "rank"),
                                                    list_columns=("round", "item")))
    with pytest.raises(PreferenceFormatError, match="A ranking column was chosen twice"):
        read_file(data, "long", options=ReadOptions(list_columns=("round", "round")))
    # a column the long reader does not read (a label, a score) may be a ranking column
    labelled = _csv("round,label,item,rank", [(1, "x", "a", 1), (1, "x", "b", 2),
                                              (1, "y", "c", 1), (1, "y", "d", 2)])
    assert read_file(labelled, "long", options=ReadOptions(list_columns=("round", "label"))) \
        .preferences.to_lists(names=True) == [["a", "b"], ["c", "d"]]


def test_a_ranking_column_that_is_the_ranker_is_refused_naming_the_role_and_the_way_out():
    data = _csv("voter,round,item,rank", [("v1", 1, "a", 1), ("v1", 1, "b", 2),
                                          ("v2", 1, "a", 2), ("v2", 1, "b", 1)])
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(data, "long", options=ReadOptions(list_columns=("voter",)))
    assert "read as the ranker" in caught.value.reason and "--ranker ''" in caught.value.fix


def test_an_event_titled_column_that_only_describes_the_athletes_is_refused_not_split():
    # no athlete and no place repeats within a round: nothing shows that 'event' splits it
    rows = [(1, "a", 1, "sprint"), (1, "b", 2, "dist"), (1, "c", 3, "sprint"),
            (2, "a", 2, "sprint"), (2, "b", 1, "dist"), (2, "c", 3, "sprint")]
    error = _refusal(_csv("round,athlete,place,event", rows))
    assert "'round', 'event' each name an event" in error.reason
    assert "--items athlete place --lists round event" in error.fix
    assert "delete it" in error.fix


def test_a_player_twice_in_one_day_splits_the_day_by_its_session():
    rows = [("d1", "am", "Ann", 10), ("d1", "am", "Bob", 12), ("d1", "pm", "Ann", 9),
            ("d1", "pm", "Bob", 8)]
    result = read_file(_csv("day,session,player,score", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    assert "'day', 'session' together name one event" in _notes(result)


def test_two_columns_that_could_each_be_the_competitor_are_refused():
    rows = [("R1", "Ann", "Red", 12.3), ("R1", "Bob", "Blue", 11.9), ("R2", "Ann", "Red", 12.0),
            ("R2", "Bob", "Blue", 12.4)]
    error = _refusal(_csv("race,rider,horse,time", rows))
    assert "'rider', 'horse' could each name what is ranked" in error.reason
    assert "--items rider time" in error.fix


def test_the_competitor_beside_the_team_they_race_for_is_ranked():
    rows = [("R1", "Ann", "Red", 12.3), ("R1", "Bob", "Blue", 11.9), ("R2", "Ann", "Red", 12.0),
            ("R2", "Bob", "Blue", 12.4)]
    prefs = read_preferences(_csv("race,athlete,team,time", rows))
    assert prefs.to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]


# -- the silent misread without titles ---------------------------------------------------------
def test_rows_of_names_and_times_without_titles_are_refused_not_read_as_rankings():
    data = b"H1,Ann,12.3\nH1,Bob,11.9\nH2,Ann,12.0\nH2,Bob,12.4\n"
    error = _refusal(data)
    assert "column 3 holds only numbers" in error.reason and error.column == "3"
    assert "'heat,athlete,time'" in error.fix


def test_unknown_titles_over_names_and_times_are_refused_saying_they_look_like_titles():
    error = _refusal("Lauf,Läufer,Zeit\nL1,Ann,12.3\nL1,Bob,11.9\nL2,Ann,12.0\n".encode())
    assert "below the first row" in error.reason and "looks like column titles" in error.reason


def test_a_trailing_count_without_titles_is_refused_not_ranked_as_an_item():
    error = _refusal(b"apple,banana,cherry,2\nbanana,apple,cherry,3\ncherry,apple,banana,1\n")
    assert "column 4" in error.reason and "'1st,2nd,3rd,count'" in error.fix


def test_a_leading_count_without_titles_is_refused_and_the_titles_it_suggests_read():
    rows = "3,a,b,c\n2,b,a,c\n1,c,b,a\n"
    error = _refusal(rows.encode())
    assert "column 1 holds only numbers" in error.reason
    titles = error.fix.split("titles: '")[1].split("'")[0]
    assert titles == "count,1st,2nd,3rd"
    result = read_file((titles + "\n" + rows).encode())
    assert result.report.count_column == "count"
    assert result.preferences.to_lists(names=True) == [["a", "b", "c"], ["b", "a", "c"],
                                                       ["c", "b", "a"]]


@pytest.mark.parametrize("text, lists", [
    ("a,b,c\nb,a,c\nc,b,a\n", [["a", "b", "c"], ["b", "a", "c"], ["c", "b", "a"]]),
    ("1,2,3\n3,1,2\n2,3,1\n", [["1", "2", "3"], ["3", "1", "2"], ["2", "3", "1"]]),
    ("a,7,b\n7,a,b\nb,a,7\n", [["a", "7", "b"], ["7", "a", "b"], ["b", "a", "7"]]),
])
def test_wide_rankings_without_titles_still_read(text, lists):
    assert read_preferences(text.encode()).to_lists(names=True) == lists


# -- layouts that are not results tables -----------------------------------------------------------
def test_a_ground_truth_with_each_item_once_is_still_refused_as_one():
    error = _refusal(_csv("item,score", [("A", 3.2), ("B", 1.5), ("C", 2.2)]))
    assert "ground truth" in error.reason and "results table" not in str(error)


def test_long_rankings_per_voter_are_not_results():
    result = read_file(_csv("voter,item,rank", [("v1", "A", 1), ("v1", "B", 2), ("v2", "A", 2),
                                                ("v2", "B", 1)]))
    assert result.preferences.to_lists(names=True) == [["A", "B"], ["B", "A"]]
    assert result.report.ranker_column == "voter" and "results table" not in _notes(result)


def test_a_grades_file_is_read_by_the_grade_reader_not_as_results():
    error = _refusal(_csv("grader,student,grade", [("g1", "s1", 3), ("g1", "s2", 5),
                                                   ("g2", "s1", 4), ("g2", "s2", 2)]))
    assert "one row per grade" in error.reason and "results table" not in str(error)


def test_a_judge_per_round_stays_the_grade_readers_ranking_per_judge_and_round():
    rows = [("j1", 1, "Ann", 9), ("j1", 1, "Bob", 7), ("j2", 1, "Ann", 6), ("j2", 1, "Bob", 8),
            ("j1", 2, "Ann", 5), ("j1", 2, "Bob", 6)]
    result = read_file(_csv("judge,round,gymnast,score", rows))
    assert result.report.ranker_column == "judge"
    assert "Read one row per grade" in _notes(result) and "results table" not in _notes(result)
    assert len(result.preferences) == 3


def test_the_long_reader_takes_an_event_column_only_when_nothing_else_splits_rankings():
    rows = [("v1", "H1", "Ann", 1), ("v1", "H1", "Bob", 2), ("v1", "H2", "Ann", 2),
            ("v1", "H2", "Bob", 1)]
    options = ReadOptions(item_columns=("athlete", "place"))
    # the ranker's column alone keys the rankings, as before: the heat splits nothing
    with pytest.raises(PreferenceFormatError, match="twice in the same ranking"):
        read_preferences(_csv("voter,heat,athlete,place", rows), "long", options=options)
    without = [r[1:] for r in rows]
    prefs = read_preferences(_csv("heat,athlete,place", without), "long", options=options)
    assert prefs.to_lists(names=True) == [["Ann", "Bob"], ["Bob", "Ann"]]


@pytest.mark.parametrize("title, expected", [
    ("round", True), ("Heat", True), ("race_id", True), ("Race No.", True),
    ("Event Name", True), ("game", True), ("Match #", True), ("week", True), ("stage", True),
    ("rounds", False), ("player", False), ("Time (sec)", False), ("racetrack", False),
    ("weekday", False),
])
def test_event_titles(title, expected):
    assert is_event_title(title) is expected


# -- leaderboards as sites and APIs export them ---------------------------------------------------
def test_a_golf_leaderboard_reads_pos_with_shared_places_written_t2():
    rows = [("Open", "Ann", "1", 270), ("Open", "Bob", "T2", 272), ("Open", "Cy", "T2", 272),
            ("Masters", "Ann", "2", 280), ("Masters", "Bob", "1", 279)]
    result = read_file(_csv("Tournament,Player,Pos,Total", rows))
    assert result.preferences.to_lists(names=True) == [["Ann", frozenset({"Bob", "Cy"})],
                                                       ["Bob", "Ann"]]
    assert "ordered by 'Pos', 1 the best" in _notes(result)


def test_a_missed_cut_in_the_place_column_is_placed_below_every_finisher():
    rows = [("Open", "Ann", "1"), ("Open", "Bob", "2"), ("Open", "Cy", "CUT"),
            ("Masters", "Ann", "2"), ("Masters", "Bob", "1")]
    prefs = read_preferences(_csv("Tournament,Player,Pos", rows))
    assert prefs.to_lists(names=True) == [["Ann", "Bob", "Cy"], ["Bob", "Ann"]]


def test_a_place_column_with_gaps_that_tells_more_apart_than_the_points_is_refused():
    # drivers 3 and 4 both score 0 but finished 3rd and 4th: reading the points loses that
    rows = [(1, 1, 1, 25), (1, 2, 2, 18), (1, 3, 3, 0), (1, 4, 4, 0), (1, 5, r"\N", 0),
            (2, 1, 2, 18), (2, 2, 1, 25)]
    error = _refusal(_csv("raceId,driverId,position,points", rows))
    assert "'position', 'points' each say how the items are ordered, and 'position' tells " \
        "apart competitors that 'points' ties, but not on every row (row 6 holds" in error.reason
    assert "--items driverId points --one-is-worst" in error.fix


def test_a_place_column_with_gaps_that_points_order_just_as_well_is_read_by_the_points():
    rows = [(1, 1, 1, 25), (1, 2, 2, 18), (1, 3, r"\N", 0), (2, 1, 2, 18), (2, 2, 1, 25)]
    result = read_file(_csv("raceId,driverId,position,points", rows))
    assert result.preferences.to_lists(names=True) == [["1", "2", "3"], ["2", "1"]]
    assert "ordered by 'points'" in _notes(result)
    assert "'position' orders every 'raceId' the same way, ties aside (where filled in), " \
        "and is left out." in _notes(result)


def test_votes_per_round_read_higher_first_though_votes_may_title_a_count():
    rows = [(1, "A", 120), (1, "B", 80), (2, "A", 60), (2, "B", 90)]
    assert read_preferences(_csv("round,song,votes", rows)).to_lists(names=True) == [
        ["A", "B"], ["B", "A"]]


def test_a_results_table_in_json_and_in_tsv_reads_as_in_csv():
    json = (b'[{"game": 1, "player": "Ann", "score": 10}, {"game": 1, "player": "Bob", '
            b'"score": 12}, {"game": 2, "player": "Ann", "score": 9}, '
            b'{"game": 2, "player": "Bob", "score": 8}]')
    assert read_preferences(json).to_lists(names=True) == [["Bob", "Ann"], ["Ann", "Bob"]]
    tsv = (b"Race No.\tDriver Name\tFinish Position\n"
           b"R1\tAnn\t1\nR1\tBob\t2\nR2\tAnn\t2\nR2\tBob\t1\n")
    assert read_preferences(tsv).to_lists(names=True) == [["Ann", "Bob"], ["Bob", "Ann"]]


def test_an_unknown_competitor_title_is_refused_with_the_choice_that_reads_it(tmp_path):
    data = _csv("Event,Club,Points", [("E1", "Reds", 10), ("E1", "Blues", 12),
                                      ("E2", "Reds", 9), ("E2", "Blues", 8)])
    error = _refusal(data)
    assert error.column == "Club" and "'Club' is not a title known" in error.reason
    assert "--format long --items Club Points --one-is-worst" in error.fix
    options = ReadOptions(item_columns=("Club", "Points"), one_is_best=False)
    assert read_preferences(data, "long", options=options).to_lists(names=True) == [
        ["Blues", "Reds"], ["Reds", "Blues"]]
    retitled = data.replace(b"Club", b"competitor")
    assert read_preferences(retitled).to_lists(names=True) == [["Blues", "Reds"],
                                                               ["Reds", "Blues"]]


def test_the_ranker_flag_in_a_note_reads_a_file_with_a_per_row_id_through_the_cli(tmp_path):
    path = tmp_path / "ids.csv"
    path.write_bytes(_csv("id,heat,athlete,time", [(1, "H1", "Ann", 12.3), (2, "H1", "Bob", 11.9),
                                                   (3, "H2", "Ann", 12.0), (4, "H2", "Bob", 12.4)]))
    args = shlex.split(note_command(read_file(path).report.notes[0]))
    assert args[:3] == ["coarsenrank", "rank", "ids.csv"] and "--ranker" in args
    out = rank_on_the_command_line(path, *args[3:])
    assert out.returncode == 0, out.stderr
    assert "2 preferences over 2 items" in out.stderr + out.stdout


def test_a_first_row_shorter_than_the_rest_is_refused_without_an_unexpected_error():
    error = _refusal(b"1\n2,1,{2,3}\nmargherita,1\n")
    assert "Unexpected" not in error.reason and "column 2 holds only numbers" in error.reason


def test_a_results_table_with_one_row_per_event_is_refused_saying_so():
    error = _refusal(_csv("race,runner,time", [("R1", "Ann", 12.3), ("R2", "Bob", 11.9),
                                               ("R3", "Cy", 12.0)]))
    assert "every 'race' has one row" in error.reason and error.column == "race"


@pytest.mark.parametrize("text, expected", [
    ("heat,name,time\nH1,Ann,12.3\nH1,Bob,11.9\nH2,Ann,12.0\nH2,Bob,12.4\n",
     [["Bob", "Ann"], ["Ann", "Bob"]]),
    ("Round,Name,Score\n1,Ann,7\n1,Bob,9\n2,Ann,8\n2,Bob,6\n", [["Bob", "Ann"], ["Ann", "Bob"]]),
    ("Race,Full Name,Place\nR1,Ann,2\nR1,Bob,1\nR2,Ann,1\nR2,Bob,2\n",
     [["Bob", "Ann"], ["Ann", "Bob"]]),
    # a lane beside the name: the grade reader would refuse it as two things graded
    ("heat,name,lane,points\nH1,Ann,1,10\nH1,Bob,2,12\nH2,Ann,1,9\nH2,Bob,2,7\n",
     [["Bob", "Ann"], ["Ann", "Bob"]]),
])
def test_a_plain_name_beside_an_event_and_a_result_is_the_competitor_not_a_grader(text,
                                                                                  expected):
    prefs = read_preferences(io.StringIO(text))
    assert prefs.to_lists(names=True) == expected
    assert not prefs.has_rankers


def test_a_plain_name_beside_a_rating_still_grades_what_it_rates():
    prefs = read_preferences(io.StringIO("name,game,rating\nAnn,Chess,5\nAnn,Go,3\n"
                                         "Bob,Chess,2\nBob,Go,4\n"))
    assert prefs.has_rankers
    assert prefs.to_lists(names=True) == [["Chess", "Go"], ["Go", "Chess"]]


# -- a place beside points: read when they agree ---------------------------------------------
def test_places_beside_points_that_agree_read_by_the_places_and_the_note_says_so():
    # Formula 1: points by finishing place, drivers outside the points all score 0
    rows = [(1, "HAM", 1, 25), (1, "VER", 2, 18), (1, "NOR", 3, 0), (1, "ALO", 4, 0),
            (2, "VER", 1, 25), (2, "NOR", 2, 18), (2, "ALO", 3, 0), (2, "HAM", 4, 0)]
    result = read_file(_csv("race,driver,position,points", rows))
    assert result.preferences.to_lists(names=True) == [["HAM", "VER", "NOR", "ALO"],
                                                       ["VER", "NOR", "ALO", "HAM"]]
    notes = _notes(result)
    assert "ordered by 'position', 1 the best" in notes
    assert "'points' orders every 'race' the same way, ties aside, and is left out." in notes


def test_times_beside_points_that_agree_read_by_the_times():
    rows = [("H1", "Ann", "12.3", 1), ("H1", "Bob", "11.9", 2), ("H1", "Cy", "12.9", 0),
            ("H2", "Ann", "1:01.5", 2), ("H2", "Bob", "1:02.0", 1), ("H2", "Cy", "1:02.0", 1)]
    result = read_file(_csv("heat,athlete,time,points", rows))
    assert result.preferences.to_lists(names=True) == [["Bob", "Ann", "Cy"],
                                                       ["Ann", frozenset({"Bob", "Cy"})]]
    assert "ordered by 'time'" in _notes(result) and "'points' orders" in _notes(result)


def test_a_place_and_points_that_disagree_are_refused_naming_the_two_rows():
    rows = [(1, "HAM", 1, 25), (1, "VER", 2, 18), (2, "VER", 1, 18), (2, "HAM", 2, 25)]
    error = _refusal(_csv("race,driver,position,points", rows))
    assert "'position', 'points' each say how the items are ordered, and they disagree" \
        in error.reason
    assert "where 'race' is '2', 'position' puts '1' (row 4) ahead of '2' (row 5), and " \
        "'points' the other way ('18' against '25')" in error.reason
    assert "--items driver position" in error.fix


def test_the_first_disagreement_is_a_pair_the_brute_force_finds_and_none_when_it_finds_none():
    import numpy as np

    from coarsenrank_core.io.results import _first_disagreement

    rng = np.random.default_rng(0)
    for _ in range(400):
        n = int(rng.integers(1, 12))
        events = rng.integers(0, 3, n)
        first = rng.integers(0, 4, n).astype(float)
        second = first * rng.integers(0, 2) + rng.integers(0, 3, n) * rng.integers(0, 2)
        pairs = {(i, k) for i in range(n) for k in range(n) if events[i] == events[k]
                 and first[i] > first[k] and second[i] < second[k]}
        found = _first_disagreement(events, first, second)
        assert (found is None) == (not pairs)
        assert found is None or found in pairs


# -- golf scores to par --------------------------------------------------------------------
@pytest.mark.parametrize("even", ["E", "e", "Even", "even par"])
def test_scores_to_par_read_even_par_as_zero_and_say_so(even):
    rows = [(1, "Ann", -2), (1, "Bob", even), (1, "Cy", "+3"), (2, "Ann", "+1"), (2, "Bob", -1),
            (2, "Cy", even)]
    result = read_file(_csv("Round,Player,To Par", rows))
    assert result.preferences.to_lists(names=True) == [["Ann", "Bob", "Cy"],
                                                       ["Bob", "Cy", "Ann"]]
    assert f"'{even}' is even par, 0" in _notes(result)


def test_even_par_is_read_only_under_a_title_that_names_par():
    rows = [(1, "Ann", 12.3), (1, "Bob", "E"), (2, "Ann", 12.0), (2, "Bob", 12.4)]
    error = _refusal(_csv("heat,athlete,time", rows))
    assert error.row == 3 and error.column == "time" and "'E'" in error.reason


def test_even_par_reads_the_same_through_the_long_layout_chosen_by_hand_and_says_so():
    rows = [("Ann", 1, -2), ("Bob", 1, "E"), ("Ann", 2, "E"), ("Bob", 2, -1)]
    options = ReadOptions(item_columns=("golfer", "score to par"))
    result = read_file(_csv("golfer,round,score to par", rows), "long", options=options)
    assert result.preferences.to_lists(names=True) == [["Ann", "Bob"], ["Bob", "Ann"]]
    assert "In 'score to par', 'E' is even par, 0." in result.report.lines()


def test_points_left_blank_outside_the_scorers_beside_places_read_by_the_places():
    rows = [("R1", "HAM", 1, 25), ("R1", "VER", 2, 18), ("R1", "NOR", 3, ""), ("R1", "ALO", 4, ""),
            ("R2", "VER", 1, 25), ("R2", "NOR", 2, 18), ("R2", "ALO", 3, ""), ("R2", "HAM", 4, "")]
    result = read_file(_csv("race,driver,position,points", rows))
    assert result.preferences.to_lists(names=True) == [["HAM", "VER", "NOR", "ALO"],
                                                       ["VER", "NOR", "ALO", "HAM"]]
    assert "'points' orders every 'race' the same way, ties aside (where filled in), and is " \
        "left out." in _notes(result)


def test_points_left_blank_that_disagree_with_the_places_are_refused_naming_the_rows():
    rows = [("R1", "HAM", 1, 18), ("R1", "VER", 2, 25), ("R1", "NOR", 3, "")]
    error = _refusal(_csv("race,driver,position,points", rows))
    assert "and they disagree: where 'race' is 'R1', 'position' puts '1' (row 2) ahead of '2' " \
        "(row 3), and 'points' the other way ('18' against '25')" in error.reason


def test_ranking_columns_given_without_the_layout_are_the_results_tables_events(tmp_path):
    # times repeat nothing, so the heats are not joined unless the user says so
    rows = [(1, 1, "Ann", 12.3), (1, 1, "Bob", 11.9), (1, 2, "Cy", 12.0), (1, 2, "Dee", 12.4),
            (2, 1, "Ann", 12.0), (2, 1, "Cy", 12.5)]
    data = _csv("round,heat,athlete,time", rows)
    assert "each name an event" in _refusal(data).reason
    told = read_file(data, options=ReadOptions(list_columns=("round", "heat")))
    assert told.preferences.to_lists(names=True) == [["Bob", "Ann"], ["Cy", "Dee"],
                                                     ["Ann", "Cy"]]
    path = tmp_path / "heats.csv"
    path.write_bytes(data)
    out = rank_on_the_command_line(path, "--lists", "round", "heat")
    assert out.returncode == 0, out.stderr
    assert "3 preferences over 4 items" in out.stderr + out.stdout


def test_event_columns_chosen_together_with_one_row_each_are_refused_naming_no_made_up_column():
    rows = [(1, 1, "Ann", 1), (1, 2, "Bob", 1), (2, 1, "Ann", 1), (2, 2, "Bob", 1)]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_csv("round,heat,athlete,place", rows),
                  options=ReadOptions(list_columns=("round", "heat")))
    assert "every 'round / heat' has one row" in caught.value.reason
    assert caught.value.column is None
