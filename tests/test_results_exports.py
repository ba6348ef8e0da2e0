"""Results tables as sports sites and data sets export them: seasons, gaps, places by other
names, deductions and game logs, read right or refused with a reason."""

from __future__ import annotations

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file


def _csv(header: str, rows: list[tuple]) -> bytes:
    return (header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n").encode()


def _refusal(data: bytes) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(data)
    return caught.value


# the same race in two years: each year's 1st, 2nd and 3rd
TWO_YEARS = [("Monaco", "Prost", 1), ("Monaco", "Berger", 2), ("Monaco", "Alboreto", 3),
             ("Monaco", "Verstappen", 1), ("Monaco", "Alonso", 2), ("Monaco", "Ocon", 3)]


@pytest.mark.parametrize("first, values", [("year", (1988, 2023)), ("season", (1988, 2023)),
                                           ("Games", ("Seoul 1988", "Tokyo 2020")),
                                           ("Edition", ("1st", "36th"))])
def test_a_race_held_in_two_years_is_two_rankings_not_one_of_made_up_ties(first, values):
    rows = [(values[k // 3], *row) for k, row in enumerate(TWO_YEARS)]
    result = read_file(_csv(f"{first},race,driver,position", rows))
    assert result.preferences.to_lists(names=True) == [["Prost", "Berger", "Alboreto"],
                                                       ["Verstappen", "Alonso", "Ocon"]]


def test_a_round_of_two_seasons_is_split_by_the_season():
    rows = [(1988, 1, "prost", 1, 9), (1988, 1, "berger", 2, 6), (1988, 2, "berger", 1, 9),
            (1988, 2, "prost", 2, 6), (2023, 1, "max", 1, 25), (2023, 1, "alonso", 2, 18)]
    lists = read_file(_csv("season,round,driverId,position,points", rows)).preferences
    assert lists.to_lists(names=True) == [["prost", "berger"], ["berger", "prost"],
                                          ["max", "alonso"]]


def test_a_category_of_athletes_with_no_winner_of_its_own_still_splits_nothing():
    # within each race the 'event' column repeats places, but a category has no 1st place
    rows = [(1, "a", 1, "sprint"), (1, "b", 2, "dist"), (1, "c", 3, "sprint"),
            (2, "a", 2, "sprint"), (2, "b", 1, "dist"), (2, "c", 3, "sprint")]
    assert "each name an event" in _refusal(_csv("round,athlete,place,event", rows)).reason


@pytest.mark.parametrize("time", ["+5.478", "+1:03.512", "+1 Lap"])
def test_a_gap_behind_the_leader_is_refused_not_read_as_a_time(time):
    rows = [(18, "Hamilton", "1:34:50.616"), (18, "Heidfeld", time), (18, "Rosberg", "+8.163"),
            (19, "Hamilton", "1:31:18.555"), (19, "Rosberg", "+5.478")]
    error = _refusal(_csv("raceId,driver,time", rows))
    assert (error.row, error.column) == (3, "time") and "a gap behind the leader" in error.reason


def test_a_score_over_par_keeps_its_plus_sign():
    rows = [(1, "Ann", "-2"), (1, "Bob", "+1"), (1, "Cy", "+3"), (2, "Ann", "+1"),
            (2, "Bob", "-1")]
    lists = read_file(_csv("Round,Player,To Par", rows)).preferences.to_lists(names=True)
    assert lists == [["Ann", "Bob", "Cy"], ["Bob", "Ann"]]


@pytest.mark.parametrize("title", ["Finish", "Fin", "Posn", "Rk", "positionOrder",
                                   "Classification"])
def test_a_place_under_another_name_is_checked_against_the_points(title):
    rows = [("R1", "A", 1, 25), ("R1", "B", 2, 18), ("R1", "C", 3, 20), ("R2", "A", 2, 18),
            ("R2", "B", 1, 25), ("R2", "C", 3, 15)]
    error = _refusal(_csv(f"Race,Driver,{title},Points", rows))
    assert "they disagree" in error.reason  # C's fastest-lap bonus: points are not the order
    agreeing = [r[:3] + (max(0, 30 - 10 * r[2]),) for r in rows]
    result = read_file(_csv(f"Race,Driver,{title},Points", agreeing))
    assert result.preferences.to_lists(names=True) == [["A", "B", "C"], ["B", "A", "C"]]


@pytest.mark.parametrize("title", ["Time Survived", "Survival Time", "Time Alive"])
def test_a_time_survived_is_not_read_as_smaller_is_better(title):
    rows = [(1, "Ann", 1520), (1, "Bob", 300), (1, "Cat", 910), (2, "Ann", 200),
            (2, "Bob", 700)]
    error = _refusal(_csv(f"Match,Player,{title}", rows))
    assert "does not say whether a higher or a lower number" in error.reason


def test_a_total_beside_its_deductions_is_not_ordered_by_the_deductions():
    rows = [("SP", "Hanyu", 111.82, 0), ("SP", "Chen", 107.40, 0), ("SP", "Uno", 94.71, 1),
            ("FS", "Hanyu", 206.67, 0), ("FS", "Chen", 215.08, 1), ("FS", "Uno", 182.26, 2)]
    error = _refusal(_csv("Event,Skater,TSS,Deductions", rows))
    assert "'TSS', 'Deductions' all hold numbers" in error.reason
    alone = read_file(_csv("Event,Gymnast,Deductions", [r[:2] + r[3:] for r in rows]))
    assert alone.preferences.to_lists(names=True)[1] == ["Hanyu", "Chen", "Uno"]


@pytest.mark.parametrize("opponent", ["Opponent", "vs", "Opp"])
def test_a_log_of_games_with_the_opponent_named_is_refused_as_games(opponent):
    rows = [(1, "Carlsen", "Nakamura", 1), (1, "Nakamura", "Carlsen", 0),
            (1, "Caruana", "Ding", 0.5), (1, "Ding", "Caruana", 0.5),
            (2, "Nakamura", "Caruana", 0), (2, "Caruana", "Nakamura", 1)]
    error = _refusal(_csv(f"Round,Player,{opponent},Points", rows))
    assert error.column == opponent and "a log of games" in error.reason
    assert "pairwise" in error.fix


def test_a_constructors_results_table_is_one_ranking_per_race():
    rows = [(1, 18, 1, 14, r"\N"), (2, 18, 2, 8, r"\N"), (3, 18, 3, 9, r"\N"),
            (4, 19, 1, 4, r"\N"), (5, 19, 2, 10, r"\N"), (6, 19, 3, 0, r"\N")]
    result = read_file(_csv("constructorResultsId,raceId,constructorId,points,status", rows))
    assert result.preferences.to_lists(names=True) == [["1", "3", "2"], ["2", "1", "3"]]


def test_a_customers_ratings_with_their_dates_are_grades_of_the_movies():
    rows = [(1488844, 1, 3, "2005-09-06"), (1488844, 8, 5, "2005-09-07"),
            (822109, 1, 5, "2005-05-13"), (822109, 8, 2, "2005-05-14")]
    result = read_file(_csv("CustomerID,MovieID,Rating,Date", rows))
    assert result.preferences.to_lists(names=True) == [["8", "1"], ["1", "8"]]
    assert "'CustomerID' grades 'MovieID' with 'Rating'" in " ".join(result.report.notes)


@pytest.mark.parametrize("header, rows", [
    ("Round,Golfer,Score", [(1, "Woods", 68), (1, "Els", 72), (2, "Woods", 71), (2, "Els", 69)]),
    ("Round,Player,Score,To Par", [(1, "Woods", 68, -4), (1, "Els", 72, 0), (2, "Woods", 71, -1),
                                   (2, "Els", 69, -3)]),
])
def test_a_golf_score_counts_strokes_the_fewest_first(header, rows):
    result = read_file(_csv(header, rows))
    assert result.preferences.to_lists(names=True) == [["Woods", "Els"], ["Els", "Woods"]]
    assert "the fewest win" in " ".join(result.report.notes)


def test_golfers_stableford_points_stay_higher_is_better():
    rows = [(1, "Woods", 38), (1, "Els", 31), (2, "Woods", 30), (2, "Els", 36)]
    lists = read_file(_csv("Round,Golfer,Points", rows)).preferences.to_lists(names=True)
    assert lists == [["Woods", "Els"], ["Els", "Woods"]]


@pytest.mark.parametrize("laps", ["Laps", "Laps completed"])
def test_a_race_by_time_where_someone_completed_fewer_laps_is_refused(laps):
    # Cat retired after 12 laps: the shortest time, but last
    rows = [("Heat 1", "Ann", 20, "15:02.331"), ("Heat 1", "Bob", 20, "15:05.100"),
            ("Heat 1", "Cat", 12, "9:10.500"), ("Heat 2", "Ann", 20, "15:00.000"),
            ("Heat 2", "Cat", 20, "15:01.000")]
    error = _refusal(_csv(f"Race,Driver,{laps},Total Time", rows))
    assert (error.row, error.column) == (4, laps) and "fewer laps" in error.reason


def test_a_race_by_time_where_everyone_completed_the_laps_is_read_by_time():
    rows = [("Heat 1", "Ann", 20, "15:02.331"), ("Heat 1", "Bob", 20, "15:05.100"),
            ("Heat 2", "Bob", 18, "15:00.000"), ("Heat 2", "Ann", 18, "15:01.000")]
    lists = read_file(_csv("Race,Driver,Laps,Total Time", rows)).preferences.to_lists(
        names=True)
    assert lists == [["Ann", "Bob"], ["Bob", "Ann"]]


@pytest.mark.parametrize("title, rows, order", [
    # qualifying: fewer laps, yet the best lap decides
    ("Best Time", [("Q1", "Bob", 8, "1:03.1"), ("Q1", "Ann", 12, "1:03.5"),
                   ("Q2", "Bob", 10, "1:02.0"), ("Q2", "Ann", 9, "1:02.9")],
     [["Bob", "Ann"], ["Bob", "Ann"]]),
    ("Fastest Lap Time", [("Q1", "Bob", 8, "1:03.1"), ("Q1", "Ann", 12, "1:03.5"),
                          ("Q2", "Bob", 10, "1:02.0"), ("Q2", "Ann", 9, "1:02.9")],
     [["Bob", "Ann"], ["Bob", "Ann"]]),
    # a lapped finisher whose time already puts them last
    ("Time", [("Q1", "Ann", 20, "15:02.3"), ("Q1", "Bob", 20, "15:05.1"),
              ("Q1", "Cat", 19, "15:20.5"), ("Q2", "Ann", 20, "15:00.0"),
              ("Q2", "Cat", 20, "15:01.0")],
     [["Ann", "Bob", "Cat"], ["Ann", "Cat"]]),
])
def test_fewer_laps_are_read_where_the_time_does_not_put_them_ahead(title, rows, order):
    lists = read_file(_csv(f"Session,Driver,Laps,{title}", rows)).preferences.to_lists(
        names=True)
    assert lists == order


def test_a_car_number_under_hash_belongs_to_its_driver_and_is_no_rater():
    rows = [("Daytona 500", 1, 47, "Stenhouse", 212), ("Daytona 500", 2, 45, "Reddick", 212),
            ("Daytona 500", 3, 11, "Hamlin", 212), ("Atlanta", 1, 4, "Harvick", 260),
            ("Atlanta", 2, 11, "Hamlin", 260), ("Atlanta", 3, 45, "Reddick", 259)]
    prefs = read_file(_csv("Race,Pos,#,Driver,Laps", rows)).preferences
    assert prefs.to_lists(names=True) == [["Stenhouse", "Reddick", "Hamlin"],
                                          ["Harvick", "Hamlin", "Reddick"]]
    assert prefs.ranker_names is None or len(set(prefs.ranker_names)) == 2


def test_a_judge_who_scores_several_competitors_of_a_round_is_still_a_rater():
    rows = [(1, "J1", "Ann", 7), (1, "J1", "Bob", 5), (1, "J2", "Ann", 6), (1, "J2", "Bob", 8)]
    prefs = read_file(_csv("Round,Judge,Diver,Score", rows)).preferences
    assert prefs.ranker_names == ("J1", "J2")
