"""Reader defects found by probing real export layouts (eleventh batch)."""

import json

import numpy as np
import pytest

from coarsenrank_core.io import read_file
from tests.test_reader_defects_8 import orders, refused


def pairs(data: bytes, **options) -> list[tuple[str, str]]:
    """Each comparison as (winner, loser), ties left out."""
    prefs = read_file(data, **options).preferences
    return sorted((prefs.item_names[a], prefs.item_names[b]) for a, b in (
        ranking for ranking in prefs.to_lists()
        if len(ranking) == 2 and not any(isinstance(i, frozenset) for i in ranking)))


def notes(data: bytes) -> str:
    return " ".join(read_file(data).report.notes)


# ------------------------------------------------------------ a score is a score, not a side
@pytest.mark.parametrize("sides", ["Player 1,Player 2", "Team A,Team B", "team1,team2"])
def test_a_two_nil_score_is_a_win_for_the_left_side(sides):
    data = (f"Round,{sides},Score\n1,Ann,Bob,2-0\n1,Cid,Dee,1-5\n2,Bob,Cid,2 - 0\n"
            "2,Dee,Ann,1-0\n").encode()
    assert pairs(data) == [("Ann", "Bob"), ("Bob", "Cid"), ("Dee", "Ann"), ("Dee", "Cid")]


def test_a_preference_of_two_still_names_the_second_output():
    data = (b"prompt,output_1,output_2,preference\np1,x,y,2.0\np2,y,z,1.0\np3,x,z,2\n"
            b"p4,z,y,1\n")
    assert pairs(data) == [("y", "x"), ("y", "z"), ("z", "x"), ("z", "y")]


# ------------------------------------------------------------ match lists in other languages
def test_a_german_match_list_is_read_as_matches_with_its_scores():
    data = ("\ufeff\"Datum\";\"Heim\";\"Gast\";\"Ergebnis\";\"Bemerkung\"\n"
            "\"01.10.2023\";\"Alba Berlin\";\"Bayern\";\"81:88\";\"\"\n"
            "\"08.10.2023\";\"Ulm\";\"Bayern\";\"77:90\";\"\"\n"
            "\"15.10.2023\";\"Ulm\";\"Alba Berlin\";\"79:84 n.V.\";\"\"\n"
            "\"22.10.2023\";\"Alba Berlin\";\"Ulm\";\"n.a.\";\"abgesagt\"\n").encode()
    read = read_file(data)
    assert read.report.layout == "pairwise"
    assert pairs(data) == [("Alba Berlin", "Ulm"), ("Bayern", "Alba Berlin"),
                           ("Bayern", "Ulm")]
    assert "row 5" in " ".join(read.report.notes)


@pytest.mark.parametrize("home,away,result", [("Local", "Visitante", "Resultado"),
                                              ("Thuis", "Uit", "Uitslag"),
                                              ("Casa", "Trasferta", "Risultato")])
def test_home_and_away_titles_in_other_languages_name_the_sides(home, away, result):
    data = f"{home},{away},{result}\nA,B,2-1\nB,C,0-3\nC,A,1-1\nA,C,0-2\n".encode()
    assert pairs(data) == [("A", "B"), ("C", "A"), ("C", "B")]


# ------------------------------------------------------------ a status saying no game
def test_a_status_column_skips_abandoned_and_postponed_matches_once_each():
    data = (b"date,home_team,away_team,home_score,away_score,status\n"
            b"2024-02-01,Lions,Tigers,2,1,FT\n2024-02-02,Bears,Lions,,,Postponed\n"
            b"2024-02-03,Tigers,Bears,3,3,FT\n2024-02-04,Lions,Bears,1,0,Abandoned\n"
            b"2024-02-05,Tigers,Lions,0,1,FT\n2024-02-06,Bears,Tigers,2,0,AET\n")
    read = read_file(data)
    assert float(np.sum(read.preferences.weights)) == 4
    said = " ".join(read.report.notes)
    assert "rows 3, 5" in said and "with no score" not in said


def test_a_forfeit_flag_column_skips_the_sets_given_without_playing():
    data = (b"Set ID,Entrant 1,Entrant 1 Score,Entrant 2,Entrant 2 Score,Winner,Forfeit\n"
            b"1,Tweek,3,Sparg0,1,Tweek,False\n2,Light,-1,Zomba,0,Zomba,True\n"
            b"3,MkLeo,3,Zomba,2,MkLeo,False\n")
    assert pairs(data) == [("MkLeo", "Zomba"), ("Tweek", "Sparg0")]
    assert "Forfeit: True" in notes(data)


def test_a_win_by_disqualification_is_a_bout_fought():
    data = b"Winner,Loser,DQ\nAli,Frazier,False\nFrazier,Norton,True\nNorton,Ali,False\n"
    assert len(pairs(data)) == 3


def test_a_flag_column_holding_more_than_flags_is_no_forfeit_flag():
    data = (b"winner,loser,FF\nA,B,yes\nB,C,maybe\nA,C,no\n")
    assert len(pairs(data)) == 3


def test_a_blank_result_with_a_drawn_status_is_a_draw():
    data = (b"white,black,winner,status\nAnn,Bob,white,mate\nBob,Cid,,draw\n"
            b"Cid,Ann,,aborted\nAnn,Cid,black,resign\n")
    read = read_file(data)
    assert float(np.sum(read.preferences.weights)) == 3
    assert pairs(data) == [("Ann", "Bob"), ("Cid", "Ann")]


# ------------------------------------------------------------ JSON objects inside records
def test_objects_naming_the_sides_give_their_names():
    data = json.dumps({"data": {"games": [
        {"winner": {"id": 1, "name": "Ann"}, "loser": {"id": 2, "name": "Bob"}},
        {"winner": {"id": 3, "name": "Cid"}, "loser": {"id": 1, "name": "Ann"}},
        {"winner": {"id": 3, "name": "Cid"}, "loser": {"id": 2, "name": "Bob"}}]}}).encode()
    assert pairs(data) == [("Ann", "Bob"), ("Cid", "Ann"), ("Cid", "Bob")]


def lichess_games() -> list[dict]:
    def game(white, black, status, winner=None):
        record = {"id": f"{white}{black}", "rated": True, "status": status, "players": {
            "white": {"user": {"name": white, "id": white.lower()}, "rating": 2800},
            "black": {"user": {"name": black, "id": black.lower()}, "rating": 2700}}}
        return record | ({"winner": winner} if winner else {})
    return [game("Ann", "Bob", "mate", "white"), game("Bob", "Cid", "draw"),
            game("Cid", "Ann", "aborted"), game("Ann", "Cid", "outoftime", "black"),
            game("Bob", "Ann", "stalemate")]


@pytest.mark.parametrize("lines", [False, True])
def test_a_lichess_export_reads_its_players_draws_and_aborted_games(lines):
    games = lichess_games()
    data = ("\n".join(json.dumps(g) for g in games) if lines else json.dumps(games)).encode()
    read = read_file(data)
    assert float(np.sum(read.preferences.weights)) == 4
    assert pairs(data) == [("Ann", "Bob"), ("Cid", "Ann")]
    assert "aborted" in " ".join(read.report.notes)


def test_a_field_inside_an_object_is_titled_by_its_own_name():
    tasks = [{"task_id": f"t{k}", "type": "comparison",
              "metadata": {"model_a": a, "model_b": b, "prompt_id": k},
              "response": {"preference": p, "strength": "much"}, "attempted_by": f"w{k % 3}"}
             for k, (a, b, p) in enumerate([("x", "y", "A"), ("y", "z", "B"), ("x", "z", "A"),
                                            ("z", "x", "Tie")])]
    data = json.dumps(tasks).encode()
    assert read_file(data).report.layout == "pairwise"
    assert pairs(data) == [("x", "y"), ("x", "z"), ("z", "y")]


def test_an_object_of_numbers_stays_a_ranking():
    data = json.dumps([{"judge": "a", "ranks": {"x": 1, "y": 2, "z": 3}},
                       {"judge": "b", "ranks": {"x": 2, "y": 1, "z": 3}}]).encode()
    assert orders(data) == [["x", "y", "z"], ["y", "x", "z"]]


# ------------------------------------------------------------ rows summing up the others
def test_average_rows_between_the_judges_rows_are_no_judge():
    rows = ["Judge,Athlete,Score"]
    for athlete, scores in (("Mia", (8.3, 8.7, 9.0)), ("Noah", (8.5, 8.2, 8.3)),
                            ("Olga", (7.7, 7.2, 7.8))):
        rows += [f"Judge {j},{athlete},{s}" for j, s in zip("ABC", scores)]
        rows.append(f"Average,{athlete},{np.mean(scores):.2f}")
    read = read_file(("\n".join(rows) + "\n").encode())
    assert read.preferences.n_preferences == 3
    assert "'Average'" in " ".join(read.report.notes)


@pytest.mark.parametrize("label", ["Rank sum", "Jury rank", "Overall ranking"])
def test_a_summary_row_at_the_end_is_no_ranking(label):
    data = (f"Juror,Sweden,Finland,Israel,Italy\nJuror A,1,3,2,4\nJuror B,1,2,3,4\n"
            f"Juror C,2,1,3,4\n{label},1,2,3,4\n").encode()
    read = read_file(data)
    assert read.preferences.n_preferences == 3
    assert label in " ".join(read.report.notes)


def test_a_juror_named_like_no_summary_is_kept():
    data = (b"Juror,Sweden,Finland,Israel\nJuror A,1,3,2\nJuror B,1,2,3\nRank,2,1,3\n")
    assert read_file(data).preferences.n_preferences == 3


# ------------------------------------------------------------ annotation tools
@pytest.mark.parametrize("choice,left,right", [("pw", "left", "right"),
                                               ("comparison", '"{""selected"": ""left""}"',
                                                '"{""selected"": ""right""}"')])
def test_label_studios_pairwise_template_names_the_chosen_text(choice, left, right):
    data = (f"annotation_id,annotator,{choice},id,text1,text2\n1,11,{left},1,B,C\n"
            f"2,12,{right},2,D,A\n3,11,{right},3,B,A\n4,12,{left},4,C,D\n").encode()
    assert pairs(data) == [("A", "B"), ("A", "D"), ("B", "C"), ("C", "D")]


def test_mturk_slots_with_their_ranks_beside_are_refused_naming_both():
    data = (b"HITId,WorkerId,Input.item_1,Input.item_2,Input.item_3,Answer.rank_item_1,"
            b"Answer.rank_item_2,Answer.rank_item_3\nh1,w1,Logo 3,Logo 1,Logo 2,3,1,2\n"
            b"h2,w2,Logo 1,Logo 2,Logo 3,1,2,3\nh3,w3,Logo 2,Logo 3,Logo 1,2,3,1\n")
    error = refused(data)
    assert "Answer.rank_item_1" in str(error) and "Input.item_1" in str(error)


def test_rows_of_one_off_answers_are_refused():
    data = ("prompt,response-1,response-2,response-3\n" + "".join(
        f"prompt {k},text a{k},text b{k},text c{k}\n" for k in range(5))).encode()
    assert "No item is in two of the 5 rankings" in str(refused(data))


# ------------------------------------------------------------ very wide forms
def test_more_than_999_rank_columns_are_one_question():
    n = 1200
    rng = np.random.default_rng(0)
    names = np.array([f"item{k}" for k in range(n)])
    rows = ["rater," + ",".join(f"Rank {k + 1}" for k in range(n))]
    rows += [f"r{r}," + ",".join(names[rng.permutation(n)]) for r in range(3)]
    read = read_file(("\n".join(rows) + "\n").encode())
    assert read.preferences.n_items == n
    assert not any("another question" in s for s in read.report.skipped_columns)


def test_a_very_wide_file_of_ranks_under_names_is_refused_as_a_narrow_one_is():
    rng = np.random.default_rng(1)
    for n in (8, 1500):
        rows = ["rater," + ",".join(f"item{k}" for k in range(n))]
        rows += [f"r{r}," + ",".join(map(str, rng.permutation(n) + 1)) for r in range(5)]
        assert "bare numbers" in str(refused(("\n".join(rows) + "\n").encode()))


# ------------------------------------------------------------ out of the event, notes under
def test_no_mark_and_a_missed_control_place_below_the_finishers():
    data = (b"Meet,Place,Athlete,Result\nRome,1,Barshim,2.37\nRome,2,Tamberi,2.35\n"
            b"Rome,,Harrison,NM\nOslo,1,Harrison,2.33\nOslo,2,Barshim,2.31\n"
            b"Oslo,mp,Tamberi,\n")
    read = read_file(data)
    assert orders(data) == [["Barshim", "Tamberi", "Harrison"],
                            ["Harrison", "Barshim", "Tamberi"]]
    assert "marked out of the event" in " ".join(read.report.notes)


@pytest.mark.parametrize("note", ["Notes: R2 shortened due to rain",
                                  "* Race 2 was stopped after 40 laps",
                                  "Results are provisional until confirmed by the jury"])
def test_a_note_under_a_results_table_is_no_ranking(note):
    data = (f"Race,Position,Driver,Points\nR1,1,Ann,25\nR1,2,Bob,18\nR1,3,Cid,15\n"
            f"R2,1,Bob,25\nR2,2,Cid,18\nR2,3,Ann,15\n,,,\n{note},,,\n").encode()
    read = read_file(data)
    assert read.preferences.n_preferences == 2
    assert "as a note under it" in " ".join(read.report.notes)


def test_a_short_last_row_naming_an_item_is_no_note():
    data = b"first,second,third\nA,B,C\nB,A,C\nC,B,A\nA\n"
    said = " ".join(read_file(data).report.notes)
    assert "fewer than 2 items: row 5" in said and "note under it" not in said


def test_heats_of_different_runners_are_read_not_refused():
    data = b"heat,1st,2nd,3rd\nH1,Ann,Bob,Cid\nH2,Dee,Eve,Fay\nH3,Gus,Hal,Ivy\n"
    assert read_file(data).preferences.n_preferences == 3


# ------------------------------------------------------------ an API's races with results
def ergast(races: list[list[str]], status: dict[str, str] | None = None) -> bytes:
    status = status or {}
    return json.dumps({"MRData": {"RaceTable": {"season": "2023", "Races": [{
        "season": "2023", "round": str(k + 1), "raceName": f"GP {k + 1}",
        "Circuit": {"circuitId": f"c{k}", "Location": {"lat": "1.0", "country": "X"}},
        "Results": [{"number": str(10 + p), "position": str(p + 1), "positionText": str(p + 1),
                     "points": str(25 - 7 * p), "Driver": {"driverId": code.lower(),
                                                          "code": code, "nationality": "X"},
                     "Constructor": {"constructorId": "c", "name": "Team"},
                     "status": status.get(code, "Finished")}
                    for p, code in enumerate(order)]}
        for k, order in enumerate(races)]}}}).encode()


def test_an_api_list_of_races_each_with_its_results_is_one_ranking_a_race():
    data = ergast([["VER", "PER", "ALO"], ["PER", "ALO", "VER"], ["VER", "ALO", "PER"]],
                  {"ALO": "Disqualified"})
    assert orders(data) == [["VER", "PER", "ALO"], ["PER", "VER", "ALO"],
                            ["VER", "PER", "ALO"]]


def test_a_single_race_of_an_api_is_its_one_ranking():
    assert orders(ergast([["VER", "PER", "ALO", "HAM"]])) == [["VER", "PER", "ALO", "HAM"]]


# ------------------------------------------------------------ a column of places per event
def test_a_season_table_of_places_per_race_is_one_ranking_a_race():
    data = (b"Driver,Team,Race 1,Race 2,Race 3,Pts\nVerstappen,Red Bull,1,2,1,69\n"
            b"Perez,Red Bull,2,1,DNF,43\nAlonso,Aston Martin,3,3,2,48\n"
            b"Hamilton,Mercedes,4,DNS,3,27\nSainz,Ferrari,5,4,4,34\n")
    read = read_file(data)
    assert orders(data) == [["Verstappen", "Perez", "Alonso", "Hamilton", "Sainz"],
                            ["Perez", "Verstappen", "Alonso", "Sainz"],
                            ["Verstappen", "Alonso", "Hamilton", "Sainz", "Perez"]]
    assert "'Race 1', 'Race 2', 'Race 3'" in " ".join(read.report.notes)


def test_a_sailing_series_reads_discards_and_codes_as_the_races_results():
    data = (b"Sailwave results\n\nRank,SailNo,HelmName,R1,R2,R3,Total,Nett\n"
            b"1st,201,Tom,1.0,(4.0),1.0,6.0,2.0\n2nd,202,Ann,2.0,1.0,(5.0 DNF),8.0,3.0\n"
            b"3rd,203,Bob,3.0,2.0,2.0,7.0,7.0\n4th,204,Eve,(5.0 OCS),3.0,3.0,11.0,6.0\n")
    assert orders(data) == [["Tom", "Ann", "Bob", "Eve"], ["Ann", "Bob", "Eve", "Tom"],
                            ["Tom", "Bob", "Eve", "Ann"]]


def test_tasters_ranks_down_columns_are_one_ranking_a_taster():
    data = (b"Wine,Taster 1,Taster 2,Taster 3\nRiesling,1,2,1\nMerlot,2,1,3\n"
            b"Syrah,3,3,2\nRose,4,4,4\n")
    assert orders(data) == [["Riesling", "Merlot", "Syrah", "Rose"],
                            ["Merlot", "Riesling", "Syrah", "Rose"],
                            ["Riesling", "Syrah", "Merlot", "Rose"]]


def test_rows_of_ranks_of_the_columns_stay_rankings_of_the_columns():
    data = b"voter,Apple,Pear,Plum\nann,1,2,3\nbob,2,1,3\ncid,3,1,2\ndee,1,3,2\n"
    assert orders(data)[0] == ["Apple", "Pear", "Plum"]


def test_points_per_race_are_not_read_as_places():
    data = (b"Driver,Race 1,Race 2,Race 3\nVerstappen,25,18,25\nPerez,18,25,0\n"
            b"Alonso,15,15,18\nHamilton,12,12,15\n")
    assert "places of the" not in str(refused(data))


# ------------------------------------------------------------ match APIs
def test_a_match_api_names_the_winning_side_and_skips_matches_not_played():
    def match(home, away, status, winner, goals):
        return {"status": status, "homeTeam": {"id": hash(home) % 97, "name": home},
                "awayTeam": {"id": hash(away) % 97, "name": away},
                "score": {"winner": winner, "fullTime": {"home": goals[0], "away": goals[1]}}}
    data = json.dumps({"matches": [
        match("Arsenal", "Chelsea", "FINISHED", "HOME_TEAM", (2, 1)),
        match("Liverpool", "Arsenal", "FINISHED", "DRAW", (1, 1)),
        match("Chelsea", "Liverpool", "FINISHED", "AWAY_TEAM", (0, 3)),
        match("Arsenal", "Liverpool", "SCHEDULED", None, (None, None)),
        match("Chelsea", "Arsenal", "POSTPONED", None, (None, None))]}).encode()
    read = read_file(data)
    assert pairs(data) == [("Arsenal", "Chelsea"), ("Liverpool", "Chelsea")]
    assert float(np.sum(read.preferences.weights)) == 3
    assert "rows 4, 5" in " ".join(read.report.notes)  # records 4 and 5


def test_a_forfeit_beside_a_win_in_two_score_columns_is_no_match():
    data = (b"Date,Team A,Score A,Score B,Team B\n2024-03-01,Spirit,2,1,Gladiators\n"
            b"2024-03-02,Falcons,FF,W,Spirit\n2024-03-03,Falcons,2,0,Gladiators\n")
    assert pairs(data) == [("Falcons", "Gladiators"), ("Spirit", "Gladiators")]


# ------------------------------------------------------------ reviewed: what must stay as it was
def test_players_named_like_a_postponement_keep_their_wins():
    data = b"Player A,Player B,Winner\nPP,JL,PP\nTBD,PP,PP\nJL,TBD,TBD\n"
    assert pairs(data) == [("PP", "JL"), ("PP", "TBD"), ("TBD", "JL")]


def test_judges_named_by_initials_like_a_summary_stay_judges():
    data = (b"Judge,Item,Rank\nAB,Soup,1\nAB,Stew,2\nSD,Soup,2\nSD,Stew,1\nN,Soup,1\n"
            b"N,Stew,2\n")
    assert read_file(data).preferences.n_preferences == 3


def test_a_note_saying_postponed_beside_a_played_score_keeps_the_game():
    data = (b"Home,Away,Home Score,Away Score,Notes\nA,B,2,1,Postponed from May\n"
            b"B,C,0,0,Postponed\nC,A,1,3,\n")
    assert float(np.sum(read_file(data).preferences.weights)) == 3


def test_a_forfeit_status_skips_the_match():
    data = (b"Home,Away,Home Score,Away Score,Status\nA,B,3,0,Forfeit\nB,C,2,1,FT\n"
            b"C,A,1,1,FT\n")
    assert float(np.sum(read_file(data).preferences.weights)) == 2


def test_an_mturk_winner_label_names_the_winner():
    data = (b"HITId,WorkerId,Input.item_a,Input.item_b,Answer.winner.label\n"
            b"h1,w1,A,B,A\nh2,w2,B,C,B\nh3,w1,A,C,A\n")
    assert pairs(data) == [("A", "B"), ("A", "C"), ("B", "C")]


def test_an_object_naming_the_item_keeps_its_name_field():
    data = json.dumps([{"voter": v, "item": {"id": k, "name": n}, "rank": r}
                       for v, order in (("a", "xyz"), ("b", "yxz"))
                       for r, (k, n) in enumerate(((ord(c), c) for c in order), 1)]).encode()
    assert orders(data) == [["x", "y", "z"], ["y", "x", "z"]]


@pytest.mark.parametrize("result", ["3-2 SO", "2-1 ET", "2-1 (a.e.t.)"])
def test_a_score_after_extra_time_or_a_shootout_is_final(result):
    data = f"Home,Away,Score\nA,B,{result}\nB,C,1-0\n".encode()
    assert pairs(data) == [("A", "B"), ("B", "C")]


def test_a_note_under_a_summary_row_leaves_both_out():
    data = (b"Juror,Sweden,Finland,Israel\nJuror A,1,3,2\nJuror B,1,2,3\nJuror C,2,1,3\n"
            b"Jury rank,1,2,3\nNotes: juror D withdrew before the final,,,\n")
    read = read_file(data)
    said = " ".join(read.report.notes)
    assert read.preferences.n_preferences == 3 and "Jury rank" in said and "note under" in said


def label_studio_pairwise_task(task: int, left: str, right: str, choices: list) -> dict:
    """A task of Label Studio's pairwise template in its full JSON export: one annotation
    per (annotator, selected side); ``None`` for a side is an annotation left blank."""
    annotations = [{"id": 10 * task + k, "completed_by": annotator, "was_cancelled": False,
                    "result": [] if side is None else [
                        {"value": {"selected": side}, "id": f"p{task}{k}", "from_name": "pw",
                         "to_name": "text1", "type": "pairwise", "origin": "manual"}]}
                   for k, (annotator, side) in enumerate(choices)]
    return {"id": task, "annotations": annotations, "predictions": [],
            "data": {"text1": left, "text2": right}, "meta": {}, "project": 2}


def test_label_studios_full_export_of_the_pairwise_template_reads_the_chosen_side():
    tasks = [label_studio_pairwise_task(1, "B", "C", [(11, "left"), (12, "right")]),
             label_studio_pairwise_task(2, "D", "A", [(12, "right"), (13, None)]),
             label_studio_pairwise_task(3, "B", "A", [(11, "right")])]
    read = read_file(json.dumps(tasks).encode())
    assert pairs(json.dumps(tasks).encode()) == [("A", "B"), ("A", "D"), ("B", "C"),
                                                 ("C", "B")]
    assert sorted(read.preferences.ranker_names) == ["11", "12"]


def test_a_json_normalized_lichess_export_reads_the_players_under_players():
    data = (b"id,status,winner,players.white.user.name,players.white.rating,"
            b"players.black.user.name,players.black.rating\n"
            b"g1,mate,white,Ann,1500,Bob,1490\ng2,resign,black,Cid,1600,Ann,1510\n"
            b"g3,draw,,Bob,1480,Cid,1610\ng4,aborted,,Bob,1480,Ann,1510\n")
    read = read_file(data)
    assert pairs(data) == [("Ann", "Bob"), ("Ann", "Cid")]
    assert len(read.preferences) == 3  # the draw is a tie; the aborted game is no game
    assert any("aborted" in note for note in read.report.notes)
