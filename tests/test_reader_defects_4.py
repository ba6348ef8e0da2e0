"""Reader defects found by probing real export layouts (fourth batch)."""

import itertools
import json

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
                     [1, 1, 2, 3], [np.nan, 1, 1, 2], [0, 1, 3, 3], [1, 2, 4, 4],
                     [3, 3, 4, 4], [2, 2, 3, 5], [2, 4, 4, 0]])
    assert ranking_shaped(rows).tolist() == [True] * 8 + [False] * 3


# per-answer attribute scores 0-4 (a HelpSteer file): five attributes are not ranked
ATTRIBUTE_SCORES = (b"prompt,response,helpfulness,correctness,coherence,complexity,verbosity\n"
                    + b"".join(
    f"Capital of country {i // 3}?,It is city {i}.,{row}\n".encode() for i, row in enumerate(
        ["4,0,3,3,4", "0,1,3,3,2", "1,0,4,3,2", "0,1,4,2,0", "3,1,4,2,3", "3,2,4,2,3",
         "1,2,4,2,1", "3,1,3,3,0", "2,4,4,1,2"])))


def test_a_table_of_scores_with_ties_not_written_as_ranks_is_refused():
    error = refusal(ATTRIBUTE_SCORES)
    assert "name criteria, not things ranked" in error.reason and error.row == 1
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


# ------------------------------------------------------------------ results tables: golf
GOLF_CUT = (b"Tournament,POS,PLAYER,TO PAR,R1,R2,R3,R4,TOT\n"
            b"Masters,1,Jon Rahm,-12,65,69,73,69,276\nMasters,2,Brooks Koepka,-8,65,67,73,75,280\n"
            b"Masters,3,Phil Mickelson,+5,71,69,75,78,293\nMasters,CUT,Tiger Woods,+3,74,73,,,147\n"
            b"PGA,1,Brooks Koepka,-9,72,66,66,67,271\nPGA,2,Tiger Woods,-7,68,67,71,67,273\n"
            b"PGA,3,Jon Rahm,+6,76,68,75,67,286\nPGA,WD,Phil Mickelson,-1,69,,,,69\n")


def test_a_golfer_marked_out_of_the_event_is_not_ranked_among_finishers_by_score():
    error = refusal(GOLF_CUT)
    assert error.row == 5 and error.column == "POS" and "'CUT'" in error.reason
    # with the marked rows deleted, the rest read by their score to par
    kept = b"\n".join(line for line in GOLF_CUT.split(b"\n")
                      if b",CUT," not in line and b",WD," not in line)
    prefs = read_preferences(kept)
    assert prefs.to_lists(names=True) == [["Jon Rahm", "Brooks Koepka", "Phil Mickelson"],
                                          ["Brooks Koepka", "Tiger Woods", "Jon Rahm"]]


def test_a_score_written_with_signs_both_ways_is_refused_until_its_title_says_which_way():
    data = (b"Tournament,PLAYER,SCORE,TOT\nMasters,Jon Rahm,-12,276\nMasters,Brooks Koepka,-8,280\n"
            b"Masters,Jordan Spieth,+1,289\nPGA,Brooks Koepka,-9,271\nPGA,Jon Rahm,-7,273\n"
            b"PGA,Jordan Spieth,+2,282\n")
    error = refusal(data)
    assert error.column == "SCORE" and "signs both ways" in error.reason and error.row == 4
    prefs = read_preferences(data.replace(b"SCORE", b"To Par"))
    assert prefs.to_lists(names=True)[0] == ["Jon Rahm", "Brooks Koepka", "Jordan Spieth"]
    # points with no plus sign stay a higher-is-better score
    unsigned = data.replace(b"+1", b"1").replace(b"+2", b"2")
    assert read_preferences(unsigned).to_lists(names=True)[0][0] == "Jordan Spieth"


# ------------------------------------------------------------------ survey platforms
FRUITS = ["Apple", "Banana", "Cherry", "Date", "Elderberry"]
ANSWERS = ["1,2,3,4,5", "1,3,2,4,5", "2,1,3,5,4", "1,2,4,3,5"]
FIRST_ORDERS = [["Apple", "Banana", "Cherry", "Date", "Elderberry"],
                ["Apple", "Cherry", "Banana", "Date", "Elderberry"]]


def test_qualtrics_display_order_columns_before_the_ranks_are_not_the_question():
    tags = ",".join([f"Q3_DO_{k}" for k in range(1, 6)] + [f"Q3_{k}" for k in range(1, 6)])
    texts = ",".join([f"Rank the fruits - Display Order - {f}" for f in FRUITS]
                     + [f"Rank the fruits - {f}" for f in FRUITS])
    ids = ",".join('"{""ImportId"":""QID3_DO""}"' for _ in range(5)) + "," + ",".join(
        f'"{{""ImportId"":""QID3_{k}""}}"' for k in range(1, 6))
    shown = ["2,1,3,5,4", "5,4,3,2,1", "1,2,3,4,5", "3,1,2,5,4"]
    rows = [f"R_{i},{shown[i]},{a}" for i, a in enumerate(ANSWERS)]
    data = (f"ResponseId,{tags}\nResponse ID,{texts}\n\"{{\"\"ImportId\"\":\"\"_recordId\"\"}}\","
            f"{ids}\n" + "\n".join(rows) + "\n").encode()
    result = read_file(data)
    assert result.preferences.item_names == tuple(FRUITS)
    assert result.preferences.to_lists(names=True)[:2] == FIRST_ORDERS


@pytest.mark.parametrize("title", ["Please rank the fruits-{}", "Q1. Please rank the fruits ({})"])
def test_an_answer_that_says_completed_is_no_title_row_and_the_question_is_unwrapped(title):
    head = "Response ID,Status,Start Date,Email," + ",".join(title.format(f) for f in FRUITS)
    rows = [f"{4000 + i},Completed,2024-03-0{i + 1},,{a}" for i, a in enumerate(ANSWERS)]
    result = read_file(("\n".join([head, *rows]) + "\n").encode())
    assert len(result.preferences) == 4 and result.report.header_rows == 1
    assert result.preferences.item_names == tuple(FRUITS)
    assert result.preferences.to_lists(names=True)[:2] == FIRST_ORDERS
    assert result.report.platform != "Qualtrics"


def test_redcap_fields_are_metadata_and_an_item_named_like_metadata_stays_an_item():
    raw = ("record_id,redcap_survey_identifier,fruit_survey_timestamp,"
           + ",".join(f"rank_{f.lower()}" for f in FRUITS) + ",fruit_survey_complete\n"
           + "".join(f"{i + 1},,2024-03-0{i + 1}10:10,{a},2\n" for i, a in enumerate(ANSWERS)))
    prefs = read_preferences(raw.encode())
    assert prefs.n_items == 5 and prefs.to_lists()[1] == [0, 2, 1, 3, 4]
    places = ["1st", "2nd", "3rd", "4th", "5th"]
    labelled = ("Record ID,Survey Identifier,Survey Timestamp," + ",".join(FRUITS)
                + ",Complete?\n" + "".join(
                    f"{i + 1},,2024-03-0{i + 1},"
                    + ",".join(places[int(r) - 1] for r in a.split(",")) + ",Complete\n"
                    for i, a in enumerate(ANSWERS)))
    prefs = read_preferences(labelled.encode())
    assert prefs.item_names == tuple(FRUITS)
    assert prefs.to_lists(names=True)[:2] == FIRST_ORDERS


@pytest.mark.parametrize("top, bottom", [("4 - Most preferred", "1 - Least preferred"),
                                         ("4 (most important)", "1 (least important)")])
def test_a_grid_whose_labels_say_the_largest_is_the_best_is_not_read_upside_down(top, bottom):
    head = "Timestamp," + ",".join(f"Rank the fruits [{f}]" for f in FRUITS[:4])
    rows = [f"3/{i + 1}/2024 10:10,{top},3,2,{bottom}" for i in range(2)]
    rows.append(f"3/3/2024 10:10,3,{top},2,{bottom}")
    data = ("\n".join([head, *rows]) + "\n").encode()
    error = refusal(data)
    assert "1 is the worst here" in error.reason and error.column == "Apple"
    prefs = read_preferences(data, options=ReadOptions(one_is_best=False))
    assert prefs.to_lists(names=True)[0] == ["Apple", "Banana", "Cherry", "Date"]


def test_labels_saying_one_is_the_best_read_as_they_stand():
    data = (b"Timestamp,Rank [Apple],Rank [Banana],Rank [Cherry]\n"
            b"3/1/2024,1 (most important),2,3 (least important)\n"
            b"3/2/2024,2,1 (most important),3 (least important)\n")
    assert read_preferences(data).to_lists(names=True)[0] == ["Apple", "Banana", "Cherry"]


def test_a_comma_list_that_asks_for_a_ranking_is_read_beside_a_text_answer():
    rows = [f"t{i},Person {i},\"{', '.join(order)}\",Cherry,completed"
            for i, order in enumerate(FIRST_ORDERS * 2)]
    data = ("#,What's your name?,Rank these fruits from favourite to least favourite,"
            "Which fruit did you eat today?,Response Type\n" + "\n".join(rows) + "\n").encode()
    result = read_file(data)
    assert result.report.layout == "cell"
    assert result.preferences.to_lists(names=True)[:2] == FIRST_ORDERS


def form(header: str, rows: list[str]) -> bytes:
    """A form's export: its title row, then one row per answer."""
    return ("\n".join([header, *rows]) + "\n").encode()


def test_places_written_before_each_item_of_a_cell_are_not_part_of_its_name():
    prefs = read_preferences(form("Full Name,Rank These Fruits,Which fruit is in season?", [
        f"Person {i},\"{', '.join(f'{k + 1}: {f}' for k, f in enumerate(order))}\",Banana"
        for i, order in enumerate(FIRST_ORDERS * 2)]))
    assert prefs.item_names == tuple(FRUITS)
    assert prefs.to_lists(names=True)[:2] == FIRST_ORDERS


def test_a_blank_e_mail_column_is_no_ranker_and_a_poll_title_no_item():
    result = read_file(form("Poll,Participant name,Participant email,Answer,Submitted at", [
        f"Rank the fruits,Person {i},,\"{', '.join(order)}\",2024-03-01 10:0{i}"
        for i, order in enumerate(FIRST_ORDERS * 2)]))
    assert result.report.ranker_column == "Participant name"
    assert result.preferences.to_lists(names=True)[:2] == FIRST_ORDERS


def test_two_columns_of_whole_lists_are_refused_and_one_chosen_by_hand_is_read():
    rows = [f"{i},2024-03-01,{';'.join(a)};,{';'.join(b)};"
            for i, (a, b) in enumerate(zip(FIRST_ORDERS * 2, FIRST_ORDERS[::-1] * 2))]
    data = ("ID,Start time,Rank by taste,Rank by price\n" + "\n".join(rows) + "\n").encode()
    error = refusal(data)
    assert "each hold whole rankings" in error.reason and "--format cell" in error.fix
    prefs = read_preferences(data, "cell", options=ReadOptions(item_columns=("Rank by price",)))
    assert prefs.to_lists(names=True)[:2] == FIRST_ORDERS[::-1]


# ------------------------------------------------------------------ records, not rankings
def test_a_search_engines_run_file_and_learning_to_rank_features_are_refused():
    run = "".join(f"401 Q0 DOC-{k} {k + 1} {12.5 - k / 10:.4f} BM25\n" for k in range(6))
    error = refusal(run.encode())
    assert "records" in error.reason and "'12.5000'" in error.reason and error.row == 1
    features = "".join(f"{k % 2} qid:1 1:0.{k}5 2:0.6{k} #docid = GX-{k}\n" for k in range(6))
    assert "records" in refusal(features.encode()).reason
    # a ranking of numbered items split by spaces is still read
    assert read_preferences(b"3 1 2\n1 2 3\n2 3 1\n").to_lists() == [[0, 1, 2], [1, 2, 0],
                                                                      [2, 0, 1]]


def test_one_sides_list_field_of_a_comparison_is_not_read_as_the_rankings():
    rows = [json.dumps({"question": {"dataset": "eli5", "id": f"q{i}", "full_text": "Why?"},
                        "quotes_0": {"title": ["Rayleigh"], "extract": ["..."]},
                        "answer_0": f"Because of Rayleigh scattering {i}", "tokens_0": [1, 2],
                        "score_0": s, "quotes_1": {"title": [], "extract": []},
                        "answer_1": f"Because of oceans {i}", "tokens_1": [3], "score_1": -s})
            for i, s in enumerate([0.5, -0.5, 1.0, 0.5, 0.0, -1.0])]
    with pytest.raises(PreferenceFormatError):
        read_preferences(("\n".join(rows) + "\n").encode())


def test_untitled_ratings_with_a_column_of_their_own_are_refused():
    ratings = "".join(f"{196 + 7 * i}\t{242 + i % 3}\t{1 + i % 5}\t{881250949 + 31 * i}\n"
                      for i in range(12))
    error = refusal(ratings.encode())
    assert "different value on every row" in error.reason and error.column == "1"
    # numbered items that share places across rows are read, and so are named top-3 lists
    # whose third places never come first or second
    ranks = "".join(",".join(map(str, order)) + "\n"
                    for order in list(itertools.permutations([1, 2, 3, 4]))[:12])
    assert len(read_preferences(ranks.encode())) == 12
    named = "".join(f"A,B,X{i}\n" if i % 2 else f"B,A,X{i}\n" for i in range(12))
    assert len(read_preferences(named.encode())) == 12


def test_letter_grades_under_item_columns_are_refused_but_items_named_by_letters_read():
    data = b"Student,HW1,HW2\nAlice,A+,A\nBob,B,C-\nCy,F,B+\n"
    error = refusal(data)
    assert "letter grades" in error.reason and error.column == "HW1"
    assert read_preferences(b"voter,1st,2nd,3rd\nv1,A,B,C\nv2,B,A,C\nv3,C,A,B\n").n_items == 3


def test_a_truth_file_with_a_row_of_empty_quotes_is_refused_not_crashed():
    prefs = read_preferences(b"1st,2nd\na,b\nb,a\n")
    from coarsenrank_core.io import read_truth
    with pytest.raises(PreferenceFormatError) as info:
        read_truth(b'1\n""', prefs)
    assert not info.value.reason.startswith(_UNEXPECTED)


def test_two_columns_with_one_hyphenated_title_are_not_unwrapped():
    data = (b"Your e-mail address,Your e-mail address,Apple,Banana\n"
            b"a@example.org,a@example.org,1,2\nb@example.org,b@example.org,2,1\n")
    result = read_file(data)
    assert result.preferences.item_names == ("Apple", "Banana")


def test_a_chess_double_forfeit_is_no_draw():
    data = (b"Round,White,Black,Result\n1,Carlsen,Nepo,1-0\n2,Nepo,Caruana,0-1\n"
            b"3,Carlsen,Caruana,\xc2\xbd-\xc2\xbd\n3,Ding,Nepo,0-0\n")
    prefs = read_preferences(data)
    assert len(prefs) == 3 and "Ding" not in prefs.item_names
    assert any("row 5" in note for note in prefs.notes)
    # a football score line keeps 0-0 as a draw
    football = (b"Date,HomeTeam,AwayTeam,Score\n1,Ajax,PSV,2-1\n2,PSV,Feyenoord,0-0\n"
                b"3,Feyenoord,Ajax,1-1\n")
    assert read_preferences(football).to_lists(names=True)[1] == [frozenset({"PSV",
                                                                             "Feyenoord"})]


def test_one_phrase_on_every_row_is_not_a_ranking_split_by_spaces():
    data = (b"Date,Start (ET),Visitor/Neutral,PTS,Home/Neutral,PTS.1,Unnamed: 6,Unnamed: 7,"
            b"Attend.,Arena,Notes\n"
            b'"Tue, Oct 24, 2023",7:30p,Lakers,107,Nuggets,119,Box Score,,19842,Ball Arena,\n'
            b'"Wed, Oct 25, 2023",7:30p,Celtics,108,Knicks,104,Box Score,,19812,MSG,\n'
            b'"Fri, Oct 27, 2023",7:30p,Heat,111,Celtics,119,Box Score,,19156,TD Garden,\n'
            b'"Sat, Oct 28, 2023",8:00p,Knicks,99,Heat,101,Box Score,,19600,Kaseya Center,\n')
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data)
    assert not info.value.reason.startswith(_UNEXPECTED)


# ------------------------------------------------ what the new rules must leave as it was
@pytest.mark.parametrize("data, names", [
    (b"voter,New York (JFK),New York (LGA),Los Angeles (LAX)\nv1,1,2,3\nv2,2,1,3\n",
     ("New York (JFK)", "New York (LGA)", "Los Angeles (LAX)")),
    (b"voter,Star Wars - A New Hope,Star Wars - Empire,Alien - Director's Cut\nv1,1,2,3\n"
     b"v2,3,1,2\n", ("Star Wars - A New Hope", "Star Wars - Empire", "Alien - Director's Cut")),
    (b"voter,Poll,Interview,Debate\nv1,1,2,3\nv2,2,1,3\n", ("Poll", "Interview", "Debate")),
    (b"voter,Complete,Basic,Premium\nv1,1,2,3\nv2,3,1,2\n", ("Complete", "Basic", "Premium")),
])
def test_items_named_like_questions_or_metadata_stay_items(data, names):
    assert read_preferences(data).item_names == names


@pytest.mark.parametrize("rows", [["1,2,5,5,5", "2,1,5,5,5", "1,3,2,5,5"],
                                  ["1,3,3,4", "3,1,3,4", "1,2,4,4", "1,2,3,4"]])
def test_ties_written_at_the_last_place_they_share_are_ranks(rows):
    width = len(rows[0].split(","))
    data = ("voter," + ",".join("ABCDE"[:width]) + "\n"
            + "".join(f"v{i},{r}\n" for i, r in enumerate(rows))).encode()
    assert len(read_preferences(data)) == len(rows)


@pytest.mark.parametrize("cells, first", [
    (["Mon 10:30 > Tue 9:00 > Wed 14:00", "Tue 9:00 > Mon 10:30 > Wed 14:00"],
     ["Mon 10:30", "Tue 9:00", "Wed 14:00"]),
    (["3.11 > 3.12 > 3.10", "3.12 > 3.11 > 3.10"], ["3.11", "3.12", "3.10"]),
])
def test_times_and_versions_in_a_cell_are_items(cells, first):
    data = ("ranking\n" + "\n".join(cells) + "\n").encode()
    assert read_preferences(data).to_lists(names=True)[0] == first


def test_a_side_mark_needs_a_separator_so_q1_beside_q2_is_a_question_of_its_own():
    data = b"Respondent,Q1,Q2\nr1,A > B > C,yes\nr2,B > A > C,no\nr3,A > C > B,yes\n"
    assert read_preferences(data).to_lists(names=True)[0] == ["A", "B", "C"]


def test_a_trimmed_qualtrics_export_with_only_its_response_id_keeps_its_title_rows():
    data = (b"ResponseId,Q1_1,Q1_2,Q1_3\nResponse ID,Rank the fruits - Apple,"
            b"Rank the fruits - Banana,Rank the fruits - Cherry\nR_1,1,2,3\nR_2,2,1,3\n")
    assert read_preferences(data).item_names == ("Apple", "Banana", "Cherry")


def test_a_driver_out_of_the_race_is_read_by_points_which_leave_him_last():
    data = (b"race,pos,driver,points\nBahrain,1,Verstappen,25\nBahrain,2,Hamilton,18\n"
            b"Bahrain,DNF,Norris,0\nJeddah,1,Hamilton,25\nJeddah,2,Norris,18\n"
            b"Jeddah,3,Verstappen,15\n")
    assert read_preferences(data).to_lists(names=True)[0] == ["Verstappen", "Hamilton",
                                                              "Norris"]


def test_models_shown_left_and_right_with_a_choice_of_side_are_read_as_comparisons():
    data = (b"PROLIFIC_PID,SESSION_ID,prompt,left_model,right_model,left_response,"
            b"right_response,choice\n"
            b"p1,s1,Explain X,gpt-4,claude,resp A,resp B,right\n"
            b"p1,s2,Explain Y,vicuna,gpt-4,resp A,resp B,right\n"
            b"p2,s3,Explain X,claude,vicuna,resp A,resp B,equal\n")
    result = read_file(data)
    assert result.report.layout == "pairwise" and result.report.ranker_column == "PROLIFIC_PID"
    assert result.preferences.to_lists(names=True) == [["claude", "gpt-4"], ["gpt-4", "vicuna"],
                                                       [frozenset({"claude", "vicuna"})]]


def test_models_ranked_per_prompt_are_long_rankings():
    data = (b"prompt_id,prompt,model,answer,rank\n0,p0,llama,a,3\n0,p0,claude,b,2\n"
            b"0,p0,gpt-4,c,1\n1,p1,llama,d,1\n1,p1,claude,e,3\n1,p1,gpt-4,f,2\n")
    result = read_file(data)
    assert result.report.layout == "long" and result.report.list_columns == ("prompt_id",)
    assert result.preferences.to_lists(names=True) == [["gpt-4", "claude", "llama"],
                                                       ["llama", "gpt-4", "claude"]]


# ------------------------------------------------ choices by hand, lists, results with DNF
def test_item_columns_chosen_by_hand_are_the_pairwise_coding():
    data = (b"info.id,summary_0_policy,summary_1_policy,choice,worker\n"
            b"t1,sup,ppo,1,w1\nt2,ppo,pre,0,w2\nt3,pre,sup,1,w1\n")
    options = ReadOptions(item_columns=("summary_0_policy", "summary_1_policy", "choice"),
                          ranker_column="worker")
    result = read_file(data, "pairwise", options=options)
    assert result.preferences.to_lists(names=True) == [["ppo", "sup"], ["ppo", "pre"],
                                                       ["sup", "pre"]]
    assert result.report.item_columns == ("summary_0_policy", "summary_1_policy", "choice")
    winner_loser = read_preferences(data, "pairwise", options=ReadOptions(
        item_columns=("summary_1_policy", "summary_0_policy")))
    assert winner_loser.to_lists(names=True)[0] == ["ppo", "sup"]
    with pytest.raises(PreferenceFormatError, match="no column called 'nope'"):
        read_preferences(data, "pairwise", options=ReadOptions(item_columns=("nope", "choice")))


def test_streaming_refuses_column_choices_it_cannot_honour(tmp_path, capsys):
    from coarsenrank_core.cli import main
    path = tmp_path / "pairs.csv"
    path.write_text("a,b,c\nx,y,1\ny,x,0\n")
    assert main(["rank", str(path), "--stream", "--items", "a", "b"]) == 2
    assert "does not take --items" in capsys.readouterr().err


def test_numbered_lines_with_colons_in_one_cell_are_a_ranking():
    rows = [f"Person {i},\"{chr(10).join(f'{k + 1}: {f}' for k, f in enumerate(order))}\",x"
            for i, order in enumerate(FIRST_ORDERS * 2)]
    prefs = read_preferences(form("Full Name,Rank These Fruits,Other", rows))
    assert prefs.to_lists(names=True)[:2] == FIRST_ORDERS


def test_a_competitor_out_of_the_event_is_placed_below_every_finisher_and_a_non_starter_left_out():
    data = (b"Event,Heat,Place,Name,Time\n100 Free,1,1,Kyle,47.1\n100 Free,1,2,Max,47.5\n"
            b"100 Free,1,DSQ,Pan,DSQ\n100 Free,1,DNS,Ryan,DNS\n200 Free,1,1,Pan,1:44.1\n"
            b"200 Free,1,2,Kyle,1:45.0\n200 Free,1,DNF,Max,DNF\n")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True) == [["Kyle", "Max", "Pan"], ["Pan", "Kyle", "Max"]]
    assert any("DNS" in note for note in prefs.notes)
    assert any("below every finisher" in note for note in prefs.notes)
    f1 = (b"raceId,driver,position,points\n1,Max,1,25\n1,Lewis,2,18\n1,Lando,R,0\n"
          b"2,Lewis,1,25\n2,Lando,2,18\n2,Max,R,0\n")
    assert read_preferences(f1, "long", options=ReadOptions(
        item_columns=("driver", "position"))).to_lists(names=True) == [
        ["Max", "Lewis", "Lando"], ["Lewis", "Lando", "Max"]]


def test_a_legacy_qualtrics_export_reads_its_tags_over_its_texts():
    head = ("V1,V2,V3,V4,V5,Q1_1,Q1_2,Q1_3\nResponseID,ResponseSet,Name,StartDate,Finished,"
            "Please rank these fruits-Apple,Please rank these fruits-Banana,"
            "Please rank these fruits-Cherry")
    rows = [f"R_{i},Default Response Set,Anonymous,2014-03-0{i + 1} 10:00:00,1,{r}"
            for i, r in enumerate(["1,2,3", "2,1,3", "1,3,2"])]
    result = read_file(form(head, rows))
    assert result.report.header_rows == 2 and result.report.ranker_column == "ResponseID"
    assert result.preferences.to_lists(names=True)[0] == ["Apple", "Banana", "Cherry"]


# ------------------------------------------------ second review: what must stay as it was
def test_marks_out_of_an_event_need_an_event_and_never_crash():
    # a ballot's 'R' means nothing of a race: refused as before, naming the row
    error = refusal(b"voter,candidate,rank\nv1,A,1\nv1,B,2\nv1,C,R\n")
    assert error.row == 4 and "'R'" in error.reason
    # nobody finished: refused as written, not a crash
    error = refusal(b"race,runner,time\nR1,Ann,DNF\nR1,Bob,DNF\n")
    assert "'DNF'" in error.reason


def test_a_non_starter_in_the_place_column_is_left_out_or_refused_beside_a_time():
    data = (b"Event,Place,Name,Time\n100 Free,1,Kyle,47.1\n100 Free,2,Max,47.5\n"
            b"100 Free,DNS,Pan,99.0\n200 Free,1,Pan,104.1\n200 Free,2,Kyle,105.0\n")
    prefs = read_preferences(data)  # read by its places: the non-starter is left out
    assert prefs.to_lists(names=True) == [["Kyle", "Max"], ["Pan", "Kyle"]]
    assert any("row 4" in note and "DNS" in note for note in prefs.notes)
    # where the time tells more apart than the places, it would rank the non-starter
    tied = (b"Event,Place,Name,Time\n100 Free,1,Kyle,47.1\n100 Free,2,Max,47.5\n"
            b"100 Free,2,Ryan,47.6\n100 Free,DNS,Pan,99.0\n200 Free,1,Pan,104.1\n"
            b"200 Free,2,Kyle,105.0\n200 Free,3,Max,106\n200 Free,3,Ryan,107\n")
    error = refusal(tied)
    assert error.row == 5 and error.column == "Place" and "'DNS'" in error.reason


def test_a_colon_inside_an_item_of_a_list_numbered_with_dots_stays_in_the_item():
    rows = [f"Person {i},\"{' '.join(f'{k + 1}. {g}' for k, g in enumerate(order))}\""
            for i, order in enumerate([["Portal", "Half-Life 2: Episode Two", "Warcraft 3: Reign"],
                                       ["Half-Life 2: Episode Two", "Portal", "Warcraft 3: Reign"]]
                                      * 2)]
    prefs = read_preferences(form("Name,Rank these games", rows))
    assert prefs.to_lists(names=True)[0] == ["Portal", "Half-Life 2: Episode Two",
                                             "Warcraft 3: Reign"]


ARENA = (b"question_id,model_a,model_b,winner\nq1,gpt4,llama,model_a\nq2,gpt4,claude,model_b\n"
         b"q5,claude,gpt4,tie\n")


def test_two_chosen_items_of_a_file_that_names_its_winner_are_refused():
    error = refusal(ARENA, "pairwise", item_columns=("model_a", "model_b"))
    assert "'winner'" in error.reason and "would win every comparison" in error.reason


def test_three_chosen_columns_in_either_order_read_the_same_winners():
    detected = read_preferences(ARENA).to_lists(names=True)
    for chosen in (("model_a", "model_b", "winner"), ("model_b", "model_a", "winner")):
        prefs = read_preferences(ARENA, "pairwise", options=ReadOptions(item_columns=chosen))
        assert [sorted(map(str, p)) for p in prefs.to_lists(names=True)] == [
            sorted(map(str, p)) for p in detected]
        assert prefs.to_lists(names=True)[0] == ["gpt4", "llama"]


def test_a_judges_winner_of_the_first_game_names_the_winner_of_two_numbered_models():
    rows = [{"question_id": 81, "model_1": "gpt-3.5", "model_2": "gpt-4", "g1_winner": "model_1",
             "g2_winner": "model_1", "judge": "gpt-4"},
            {"question_id": 82, "model_1": "gpt-4", "model_2": "claude", "g1_winner": "model_2",
             "g2_winner": "model_1", "judge": "gpt-4"},
            {"question_id": 83, "model_1": "claude", "model_2": "gpt-3.5", "g1_winner": "tie",
             "g2_winner": "tie", "judge": "gpt-4"}]
    result = read_file(("\n".join(json.dumps(r) for r in rows) + "\n").encode())
    assert result.report.item_columns == ("model_1", "model_2", "g1_winner", "g2_winner")
    # the second game swaps the answers' order; where the judge disagrees with itself, a tie
    assert result.preferences.to_lists(names=True) == [
        ["gpt-3.5", "gpt-4"], [frozenset({"claude", "gpt-4"})],
        [frozenset({"claude", "gpt-3.5"})]]
