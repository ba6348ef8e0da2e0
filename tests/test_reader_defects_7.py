"""Reader defects found by probing real export layouts and the large-file readers (seventh
batch)."""

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file, stream_pairwise


@pytest.mark.parametrize("character", ["\x85", "\x9b", "\x7f", "\x07"])
def test_the_chunked_reader_refuses_every_control_character_the_table_reader_refuses(
        tmp_path, character):
    path = tmp_path / "names.csv"
    path.write_text(f"winner,loser\na,b\nb{character}x,c\n", encoding="utf-8")
    for reader in (read_file, stream_pairwise):
        with pytest.raises(PreferenceFormatError,
                           match=f"control character U\\+{ord(character):04X}") as info:
            reader(path)
        assert info.value.row == 3


def refused(data: bytes, **options) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data, **options)
    return info.value


# ------------------------------------------------------------ rating scales, not rankings
SATISFACTION_GRID = (
    b"Timestamp,How satisfied are you with each pizza? [Margherita],"
    b"How satisfied are you with each pizza? [Funghi],How satisfied are you with each pizza? "
    b"[Hawaii]\n"
    b"2024/05/01 10:00:00,Very satisfied,Satisfied,Dissatisfied\n"
    b"2024/05/01 10:05:00,Satisfied,Neither satisfied nor dissatisfied,Very dissatisfied\n"
    b"2024/05/01 10:09:00,Very satisfied,Dissatisfied,Satisfied\n"
    b"2024/05/01 10:12:00,Dissatisfied,Very satisfied,Satisfied\n")


@pytest.mark.parametrize("data", [
    SATISFACTION_GRID,
    # five agreement labels over three items, no label twice in a row
    b"Respondent,Margherita,Funghi,Hawaii\nr1,Strongly agree,Agree,Disagree\n"
    b"r2,Agree,Neutral,Strongly disagree\nr3,Neutral,Strongly agree,Agree\n",
    # and with a label twice in a row (once refused as an item appearing twice)
    b"Respondent,Margherita,Funghi,Hawaii\nr1,Strongly agree,Agree,Disagree\n"
    b"r2,Agree,Neutral,Strongly disagree\nr3,Neutral,Agree,Agree\n",
    # a quality scale
    b"Name,Tea,Coffee,Cocoa\nAnn,Very good,Poor,Fair\nBob,Good,Excellent,Poor\n"
    b"Cy,Fair,Very good,Good\n",
])
def test_a_grid_of_scale_labels_over_fewer_items_is_refused_as_labels(data):
    error = refused(data)
    assert "its answers are labels" in error.reason and "appears twice" not in error.reason
    assert "1st, 2nd" in error.fix


@pytest.mark.parametrize("data, items", [
    (b"Voter,Choice 1,Choice 2,Choice 3\nv1,Good,Fair,Poor\nv2,Fair,Good,Poor\n"
     b"v3,Poor,Fair,Good\nv4,Good,Poor,Fair\n", ("Good", "Fair", "Poor")),
    (b"Voter,Gold,Silver,Bronze\nv1,Very Berry,Most Wanted,Best Buy\n"
     b"v2,Best Buy,Very Berry,Most Wanted\nv3,Most Wanted,Best Buy,Very Berry\n"
     b"v4,Very Berry,Best Buy,Most Wanted\n", ("Very Berry", "Most Wanted", "Best Buy")),
])
def test_rankings_of_items_named_with_scale_words_are_still_read(data, items):
    assert set(read_file(data).preferences.item_names) == set(items)


# ------------------------------------------------------------ results and summary tables
@pytest.mark.parametrize("dash", ["\u2013", "-"])
def test_a_crosstable_of_match_scores_is_refused_as_results(dash):
    rows = [["Home \\ Away", "Arsenal", "Chelsea", "Liverpool", "Spurs"],
            ["Arsenal", "", "2-1", "1-1", "3-0"], ["Chelsea", "0-2", "", "2-2", "1-0"],
            ["Liverpool", "1-3", "0-0", "", "2-1"], ["Spurs", "1-1", "2-3", "0-1", ""]]
    data = "\n".join(",".join(r) for r in rows).replace("-", dash).replace(
        "Home \\ Away", "Home \\ Away").encode()
    error = refused(data)
    assert "match scores" in error.reason and "pairwise" in error.fix


def test_a_ranking_summary_of_percentages_is_refused_as_a_summary():
    data = (b",1,2,3,Total,Score\nMargherita,45.00%,35.00%,20.00%,,\n,9,7,4,20,2.25\n"
            b"Funghi,30.00%,40.00%,30.00%,,\n,6,8,6,20,2.00\n"
            b"Hawaii,25.00%,25.00%,50.00%,,\n,5,5,10,20,1.75\n")
    error = refused(data)
    assert "percentages" in error.reason and "summary" in error.reason


def test_items_with_a_score_or_a_percent_among_names_are_still_read():
    data = (b"Voter,First,Second,Third,Fourth\nv1,Plan 2-1,Plan A,Plan B,Plan C\n"
            b"v2,Plan A,Plan 2-1,Plan C,Plan B\nv3,Plan B,Plan C,Plan A,Plan 2-1\n")
    assert "Plan 2-1" in read_file(data).preferences.item_names


# ------------------------------------------------------------ groups inside a ranking
FENCING = (b"Round,Pool,Fencer,Place\n1,1,ROSSI Marco,1\n1,1,DUPONT Jean,2\n1,1,SMITH John,3\n"
           b"1,2,MULLER Hans,1\n1,2,GARCIA Luis,2\n1,2,TANAKA Ken,3\n"
           b"2,1,MULLER Hans,1\n2,1,ROSSI Marco,2\n2,1,TANAKA Ken,3\n"
           b"2,2,SMITH John,1\n2,2,DUPONT Jean,2\n2,2,GARCIA Luis,3\n")
DEBATE = (b"Round,Room,Team,Side,Points\nRound 1,Room A,Oxford A,OG,3\n"
          b"Round 1,Room A,Cambridge B,OO,1\nRound 1,Room A,LSE A,CG,2\n"
          b"Round 1,Room A,Durham A,CO,0\nRound 1,Room B,UCL A,OG,2\n"
          b"Round 1,Room B,KCL A,OO,3\nRound 1,Room B,York A,CG,0\nRound 1,Room B,Bath A,CO,1\n")


@pytest.mark.parametrize("data, group", [(FENCING, "Pool"), (DEBATE, "Room")])
def test_places_repeated_once_per_pool_are_refused_with_the_columns_to_choose(data, group):
    error = refused(data)
    assert error.column == group and "ranking of its own" in error.reason
    assert f"--lists Round {group}" in error.fix


def test_choosing_the_round_and_the_pool_reads_one_ranking_per_pool():
    from coarsenrank_core.io import ReadOptions

    prefs = read_file(FENCING, options=ReadOptions(list_columns=("Round", "Pool"))).preferences
    assert prefs.to_lists(names=True) == [
        ["ROSSI Marco", "DUPONT Jean", "SMITH John"], ["MULLER Hans", "GARCIA Luis",
                                                       "TANAKA Ken"],
        ["MULLER Hans", "ROSSI Marco", "TANAKA Ken"], ["SMITH John", "DUPONT Jean",
                                                       "GARCIA Luis"]]


def test_true_ties_beside_an_unrelated_column_are_still_read():
    from coarsenrank_core.io import ReadOptions

    data = (b"Judge,Gender,Dish,Rank\nj1,F,Soup,1\nj1,M,Stew,1\nj1,F,Pie,3\n"
            b"j2,M,Soup,2\nj2,F,Stew,1\nj2,M,Pie,3\n")
    prefs = read_file(data, format="long",
                      options=ReadOptions(item_columns=("Dish", "Rank"))).preferences
    assert prefs.to_lists(names=True) == [[frozenset({"Soup", "Stew"}), "Pie"],
                                         ["Stew", "Soup", "Pie"]]


# ------------------------------------------------------------ tasters as columns
def test_a_sheet_whose_columns_and_rows_each_hold_every_rank_is_refused_with_the_transpose():
    # a Latin square: read by rows or by columns alike, so the file does not say which
    data = (b"Wine,Anna,Ben,Chloe,David\nRiesling Kabinett 2019,1,2,4,3\n"
            b"Gruner Veltliner 2020,2,1,3,4\nSauvignon Blanc 2021,3,4,1,2\n"
            b"Chardonnay 2018,4,3,2,1\n")
    error = refused(data)
    assert "holds the ranks 1 to" in error.reason and "Transpose" in error.fix


def test_a_sheet_whose_columns_each_rank_the_wines_is_read_by_column():
    data = (b"Wine,Anna,Ben,Chloe,David,Emma\nChateau Montelena 1973,1,2,1,3,1\n"
            b"Meursault Charmes 1973,2,1,3,1,2\nChalone Vineyard 1974,3,3,2,2,4\n"
            b"Spring Mountain 1973,4,5,4,4,3\nBeaune Clos des Mouches 1973,5,4,5,5,5\n")
    read = read_file(data)
    assert read.preferences.n_preferences == 5
    assert read.preferences.to_lists(names=True)[1][:2] == ["Meursault Charmes 1973",
                                                            "Chateau Montelena 1973"]


def test_respondents_rows_whose_columns_happen_to_hold_every_rank_are_still_read():
    data = (b"Respondent,Pizza,Pasta,Salad\nr1,1,2,3\nr2,2,3,1\nr3,3,1,2\n")
    assert read_file(data).preferences.item_names == ("Pizza", "Pasta", "Salad")


# ------------------------------------------------------------ a form's rank widget
KOBO = (b"start;end;today;deviceid;priorities/rank_priorities;_id;_uuid;_submission_time;"
        b"_validation_status;_status;_submitted_by;__version__;_index\n"
        b"2024-03-01T10:00:01.000+01:00;2024-03-01T10:09:01.000+01:00;2024-03-01;collect:dev0;"
        b"road_maintenance health_clinic market_stalls clean_water school_repairs;200;uuid-0;"
        b"2024-03-01T09:00:00;;submitted_via_web;enumerator1;vXYZ;1\n"
        b"2024-03-02T10:00:01.000+01:00;2024-03-02T10:09:01.000+01:00;2024-03-02;collect:dev1;"
        b"clean_water road_maintenance school_repairs market_stalls health_clinic;201;uuid-1;"
        b"2024-03-01T09:00:00;;submitted_via_web;enumerator1;vXYZ;2\n"
        b"2024-03-03T10:00:01.000+01:00;2024-03-03T10:09:01.000+01:00;2024-03-03;collect:dev2;"
        b"health_clinic clean_water road_maintenance market_stalls school_repairs;202;uuid-2;"
        b"2024-03-01T09:00:00;;submitted_via_web;enumerator2;vXYZ;3\n")


def test_a_kobotoolbox_rank_widget_of_five_snake_case_choices_is_read_one_ranking_a_cell():
    prefs = read_file(KOBO).preferences
    assert prefs.to_lists(names=True)[0] == ["road_maintenance", "health_clinic",
                                             "market_stalls", "clean_water", "school_repairs"]
    assert len(prefs.item_names) == 5


def test_a_comment_column_of_lowercase_words_is_still_skipped_as_comments():
    data = (b"Respondent,Rank 1,Rank 2,Rank 3,Comments\n"
            b"r1,Tea,Coffee,Cocoa,i really like my tea in the morning\n"
            b"r2,Coffee,Tea,Cocoa,coffee keeps me awake during long lectures\n"
            b"r3,Cocoa,Tea,Coffee,hot cocoa reminds me of winter holidays at home\n")
    result = read_file(data)
    assert set(result.preferences.item_names) == {"Tea", "Coffee", "Cocoa"}


# ------------------------------------------------------------ numbered slots and their ranks
WMT = (b"srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
       b"system2Number,system2Id,system3Number,system3Id,system1rank,system2rank,system3rank\n"
       b"Czech,English,1093,newstest2013,1093,judge1,1,cs-en.uedin.3236,2,cs-en.online-B.0,3,"
       b"cs-en.CU-Zeman.2724,1,2,3\n"
       b"Czech,English,1094,newstest2013,1094,judge2,1,cs-en.online-B.0,2,cs-en.uedin.3236,3,"
       b"cs-en.CU-Zeman.2724,2,1,1\n"
       b"Czech,English,1095,newstest2013,1095,judge1,1,cs-en.CU-Zeman.2724,2,cs-en.online-B.0,3,"
       b"cs-en.uedin.3236,3,1,2\n")


def test_ranks_of_numbered_slots_named_in_other_columns_are_refused_with_the_reshape():
    error = refused(WMT)
    assert "system1Id" in error.reason and "system1rank" in error.reason
    assert "long rankings" in error.fix


def test_items_titled_with_a_number_and_rank_but_no_names_beside_are_still_read():
    data = b"Judge,Team 1 rank,Team 2 rank,Team 3 rank\nj1,1,2,3\nj2,2,1,3\nj3,3,1,2\n"
    assert len(read_file(data).preferences.item_names) == 3


# ------------------------------------------------------------ a winner's time, then gaps
def test_a_winners_whole_time_followed_by_gaps_is_refused():
    data = (b"Stage,Rider,Team,Time\nStage 1,Jasper Philipsen,Alpecin,4:32:10\n"
            b"Stage 1,Wout van Aert,Visma,0:00\nStage 1,Biniam Girmay,Intermarche,0:00\n"
            b"Stage 1,Tadej Pogacar,UAE,0:12\nStage 2,Tadej Pogacar,UAE,5:01:44\n"
            b"Stage 2,Wout van Aert,Visma,0:08\nStage 2,Jasper Philipsen,Alpecin,1:35\n")
    error = refused(data)
    assert error.column == "Time" and "gaps behind the winner" in error.reason


def test_whole_times_in_any_row_order_are_still_read():
    data = (b"Stage,Rider,Time\nStage 1,Ann,4:32:30\nStage 1,Bea,4:32:10\nStage 1,Cy,4:33:00\n"
            b"Stage 2,Bea,5:01:50\nStage 2,Cy,5:01:44\nStage 2,Ann,5:03:00\n")
    prefs = read_file(data).preferences
    assert prefs.to_lists(names=True) == [["Bea", "Ann", "Cy"], ["Cy", "Bea", "Ann"]]


# ------------------------------------------------------------ the review's guards
@pytest.mark.parametrize("data, items", [
    # time slots and number ranges are no match scores
    (b"Name,1st choice,2nd choice,3rd choice,4th choice\nAnn,9-11,11-13,14-16,16-18\n"
     b"Bob,11-13,9-11,16-18,14-16\nCy,14-16,16-18,9-11,11-13\n", 4),
    # a few percentages are options, not a summary
    (b"Voter,First,Second,Third,Fourth\nv1,Whole,2%,1%,Skim\nv2,2%,Whole,Skim,1%\n"
     b"v3,Skim,1%,2%,Whole\n", 4),
    (b"Voter,First,Second,Third\nv1,10%,15%,20%\nv2,20%,15%,10%\nv3,15%,10%,20%\n", 3),
    # scale words under titles naming places: a ranking of the labels themselves
    (b"Respondent,Top pick,Runner-up,Third pick\nr1,Very good,Good,Excellent\n"
     b"r2,Excellent,Very good,Fair\nr3,Good,Excellent,Poor\nr4,Fair,Good,Very good\n"
     b"r5,Poor,Fair,Good\n", 5),
    # students ranking subjects: every row and every column holds each rank once
    (b"Student,Math,Science,Art\nAlice,1,2,3\nBen,2,3,1\nCara,3,1,2\n", 3),
    # a comment column of lower-case words without punctuation beside rankings in cells
    (b'Respondent,Q3,Q4\nr1,"Pizza, Pasta, Salad",great service and friendly staff\n'
     b'r2,"Pasta, Salad, Pizza",the staff were friendly and helpful\n'
     b'r3,"Salad, Pizza, Pasta",service was slow and the food cold\n'
     b'r4,"Pizza, Salad, Pasta",friendly staff but slow service\n', 3),
])
def test_the_reviews_legitimate_files_are_still_read(data, items):
    assert len(read_file(data).preferences.item_names) == items


def test_partners_sharing_a_place_beside_their_role_are_still_read():
    data = (b"Competition,Couple,Role,Dancer,Place\nOpen,1,Leader,Ann,1\nOpen,1,Follower,Bo,1\n"
            b"Open,2,Leader,Cy,2\nOpen,2,Follower,Di,2\nOpen,3,Leader,Ed,3\n"
            b"Open,3,Follower,Flo,3\n")
    prefs = read_file(data).preferences
    assert len(prefs.item_names) == 6 and len(prefs.to_lists()) == 1


def test_pools_of_unequal_size_are_refused_too():
    data = (b"Round,Pool,Fencer,Place\n1,1,A,1\n1,1,B,2\n1,1,C,3\n1,1,D,4\n"
            b"1,2,E,1\n1,2,F,2\n1,2,G,3\n")
    assert refused(data).column == "Pool"


def test_a_winners_whole_time_among_gaps_in_name_order_is_refused():
    data = (b"Stage,Rider,Time\nStage 1,Ann,0:05\nStage 1,Bea,4:32:10\nStage 1,Cy,0:00\n"
            b"Stage 2,Ann,5:01:44\nStage 2,Bea,0:08\nStage 2,Cy,1:35\n")
    assert "gaps behind the winner" in refused(data).reason


def test_a_rank_widget_of_upper_case_choice_names_is_read_too():
    data = (b"_id,rank_priorities\n1,ROAD HEALTH MARKET WATER SCHOOL\n"
            b"2,WATER ROAD SCHOOL MARKET HEALTH\n3,HEALTH WATER ROAD MARKET SCHOOL\n")
    prefs = read_file(data).preferences
    assert prefs.to_lists(names=True)[1] == ["WATER", "ROAD", "SCHOOL", "MARKET", "HEALTH"]


# ------------------------------------------------------------ JSON records of platforms
def test_an_mturk_assignments_record_is_refused_rather_than_read_from_its_ids_or_xml():
    answer = ('<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="http://x">'
              '<Answer><QuestionIdentifier>taskAnswers</QuestionIdentifier><FreeText>'
              '[{"first": "Red", "second": "Blue"}]</FreeText></Answer></QuestionFormAnswers>')
    records = [{"AssignmentId": f"3AA{k}", "WorkerId": f"A{k}", "HITId": "HIT1",
                "AssignmentStatus": "Submitted", "SubmitTime": "2024-03-01T00:05:00Z",
                "Answer": answer} for k in range(3)]
    import json

    with pytest.raises(PreferenceFormatError):
        read_file(json.dumps({"Assignments": records}).encode())


def test_qualtrics_displayed_fields_are_not_a_ranking():
    import json

    responses = [{"responseId": f"R_{k}", "values": {"QID1_1": a, "QID1_2": b, "QID1_3": c},
                  "displayedFields": ["QID1_1", "QID1_2", "QID1_3"]}
                 for k, (a, b, c) in enumerate([(1, 2, 3), (2, 1, 3), (3, 1, 2)])]
    with pytest.raises(PreferenceFormatError):
        read_file(json.dumps({"responses": responses}).encode())


def test_a_games_count_is_not_the_event_of_a_rating_list():
    data = (b"date,player,rating,games\n2024-01-01,Carlsen,2830,5\n2024-01-01,Caruana,2804,7\n"
            b"2024-01-01,Nakamura,2789,4\n2024-02-01,Carlsen,2834,6\n2024-02-01,Caruana,2795,5\n"
            b"2024-02-01,Nakamura,2794,8\n")
    error = refused(data)
    assert error.column == "games" and "how many games" in error.reason


def test_a_null_score_leaves_that_item_out_of_the_ranking():
    data = (b'{"rater": "r1", "scores": {"a": 3, "b": null, "c": 1}}\n'
            b'{"rater": "r2", "scores": {"a": 2, "b": 2, "c": 1}}\n'
            b'{"rater": "r3", "scores": {"a": 1, "b": 3, "c": 2}}\n')
    prefs = read_file(data).preferences
    assert prefs.to_lists(names=True)[0] == ["a", "c"]


@pytest.mark.parametrize("data", [
    b"Item,1st choice,2nd choice,3rd choice\nApple,6,3,1\nBanana,3,5,2\nCherry,1,2,7\n",
    b"Fruit,1st choice,2nd choice,3rd choice\nApple,6,3,1\nBanana,3,5,2\nCherry,1,2,7\n",
])
def test_a_pivot_of_counts_per_place_is_refused_even_when_no_row_repeats_a_count(data):
    assert "how many people put each option" in refused(data).reason


@pytest.mark.parametrize("data", [b"Voter,1st,2nd,3rd\nAnn,2,1,3\nBob,1,3,2\nCy,3,2,1\n",
                                  b"Voter,1st,2nd,3rd\nAnn,12,4,7\nBob,4,12,9\nCy,7,9,4\n"])
def test_ballots_of_numbered_candidates_are_still_read(data):
    assert len(read_file(data).preferences.to_lists()) == 3
