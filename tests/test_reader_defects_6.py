"""Reader defects found by probing real export layouts (sixth batch)."""

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file, read_preferences
from tests.test_reader_defects_5 import refusal

# ------------------------------------------------------------- places named by their ends
# A grid whose answers number the middle places and name the two ends
END_WORD_GRID = (
    b"Respondent,Pizza,Sushi,Tacos,Curry\n"
    b"1,Most preferred,Second,Third,Least preferred\n"
    b"2,Second,Most preferred,Least preferred,Third\n"
    b"3,Third,Second,Most preferred,Least preferred\n")
END_WORD_ORDERS = [["Pizza", "Sushi", "Tacos", "Curry"], ["Sushi", "Pizza", "Curry", "Tacos"],
                   ["Tacos", "Sushi", "Pizza", "Curry"]]


def test_answers_naming_the_ends_beside_numbered_places_are_ranks():
    result = read_file(END_WORD_GRID)
    assert result.report.layout == "ranks"
    assert result.preferences.to_lists(names=True) == END_WORD_ORDERS


def test_a_google_forms_grid_answered_with_end_words_is_read_as_ranks():
    data = (b"Timestamp,Rank the dishes [Pizza],Rank the dishes [Sushi],"
            b"Rank the dishes [Tacos],Rank the dishes [Curry]\n"
            b"2024/03/01 10:00:00,Most preferred,Second,Third,Least preferred\n"
            b"2024/03/01 10:01:00,Second,Most preferred,Least preferred,Third\n"
            b"2024/03/01 10:02:00,Third,Second,Most preferred,Least preferred\n")
    assert read_preferences(data).to_lists(names=True) == END_WORD_ORDERS


def test_the_bottom_word_of_a_partial_row_is_its_last_ranked_place():
    data = (b"Respondent,Pizza,Sushi,Tacos,Curry\n"
            b"1,Best,2nd,,Worst\n"
            b"2,2nd,Best,Worst,3rd\n")
    assert read_preferences(data).to_lists(names=True) == [
        ["Pizza", "Sushi", "Curry"], ["Sushi", "Pizza", "Curry", "Tacos"]]


def test_a_best_worst_choice_is_refused_not_ranked_as_two_items():
    # MaxDiff: each row marks only the best and the worst; its labels were read as two items
    error = refusal(b"Respondent,Pizza,Sushi,Tacos,Curry\n"
                    b"1,Most preferred,,,Least preferred\n"
                    b"2,,Most preferred,Least preferred,\n"
                    b"3,Least preferred,,Most preferred,\n")
    assert "best-worst" in error.reason
    assert "2 for every other item" in error.fix


def test_a_top_word_beside_a_first_place_is_no_rank():
    error = refusal(b"Respondent,Pizza,Sushi,Tacos\n1,Best,1,2\n2,1,2,3\n", "ranks")
    assert "'Best' is not a rank" in error.reason
    assert error.row == 2


def test_items_worded_like_a_scale_under_place_titles_stay_wide_rankings():
    # as many distinct answers as columns: a row of places, not a scale reused under items
    data = (b"Voter,Most,Middle,Least\nv1,Very hot,Mild,Not spicy\n"
            b"v2,Mild,Very hot,Not spicy\nv3,Very hot,Not spicy,Mild\n")
    assert read_preferences(data).to_lists(names=True)[1] == ["Mild", "Very hot", "Not spicy"]


# ------------------------------------------------------------- what people add to a sheet
RANKS_OF_FIVE = (b"Respondent;Paris;Berlin;Rome;Madrid\nAnna;1;3;2;4\nBen;2;1;4;3\n"
                 b"Cem;1;2;3;4\nDora;3;1;2;4\nEmil;1;4;2;3\n")


def test_summary_rows_under_the_table_are_skipped_with_a_note():
    for summary in (b";;;;\nMedian;1;2;2;4\n", b"Average;1,8;2,2;2,6;3,6\n",
                    b"No. of 1st places;3;2;0;0\n", b"Grand Total;7;11;13;18\n"):
        result = read_file(RANKS_OF_FIVE + summary)
        assert len(result.preferences.to_lists()) == 5, summary
        assert result.preferences.ranker_names[-1] == "Emil"
        assert any("summary of the rows above" in n for n in result.report.notes)


def test_a_last_ranking_whose_first_item_is_named_like_a_summary_is_kept():
    data = (b"Voter,1st,2nd,3rd\nA,Sum 41,Blur,Oasis\nB,Blur,Sum 41,Oasis\n"
            b"C,Oasis,Blur,Sum 41\nD,Sum 41,Oasis,Blur\n")
    assert read_preferences(data).to_lists(names=True)[-1] == ["Sum 41", "Oasis", "Blur"]
    plain = b"1st,2nd,3rd\nBlur,Total,Oasis\nOasis,Blur,Total\nBlur,Oasis,Total\nTotal,Oasis,Blur\n"
    assert read_preferences(plain).to_lists(names=True)[-1] == ["Total", "Oasis", "Blur"]


def test_trailing_separators_add_no_items():
    data = b"Respondent,Paris,Berlin,Rome\nAnna,1,3,2,\nBen,2,1,3,\nCem,1,2,3,\n"
    assert read_preferences(data).item_names == ("Paris", "Berlin", "Rome")
    semicolons = RANKS_OF_FIVE.replace(b"\n", b";;;;\n")
    assert read_preferences(semicolons).item_names == ("Paris", "Berlin", "Rome", "Madrid")


def test_names_that_differ_only_in_curly_quotes_are_one_item():
    data = ("Voter,1st,2nd,3rd\nAna,Joe's Diner,Luigi's,The Grill\n"
            "Ben,Luigi's,Joe's Diner,The Grill\nCal,Joe\u2019s Diner,The Grill,Luigi\u2019s\n")
    result = read_file(data.encode())
    assert result.preferences.item_names == ("Joe's Diner", "Luigi's", "The Grill")
    assert any("curly quote marks" in n for n in result.preferences.notes)


def test_the_chunked_reader_merges_curly_quotes_as_the_table_reader_does(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = tmp_path / "battles.csv"
    path.write_text("model_a,model_b,winner\nJoe\u2019s,Al's,model_a\n"
                    "Joe's,Al's,model_b\nAl\u2019s,Joe's,tie\n", encoding="utf-8")
    assert stream_pairwise(path).preferences.item_names == ("Joe\u2019s", "Al's")


# ------------------------------------------------------------- ballots and cast vote records
def test_a_ballot_number_column_is_no_candidate():
    for title in (b"Ballot", b"Ballot ID", b"Ballot #", b"No.", b"CVR"):
        prefs = read_preferences(title + b",Alice,Bob,Carla\n1,1,2,3\n2,2,1,3\n3,3,1,2\n")
        assert prefs.item_names == ("Alice", "Bob", "Carla"), title


def test_a_cast_vote_records_number_tells_its_rankings_apart():
    data = b"CvrNumber,Rank,CandidateId\n1,1,Cy\n1,2,Al\n1,3,Bo\n2,1,Bo\n2,2,Cy\n3,1,Al\n3,2,Bo\n"
    assert read_preferences(data).to_lists(names=True) == [
        ["Cy", "Al", "Bo"], ["Bo", "Cy"], ["Al", "Bo"]]


def test_a_cast_vote_record_of_two_contests_is_refused_not_mixed():
    error = refusal(b"CVR Number,Contest,Candidate,Rank\n1,Mayor,Alice,1\n1,Mayor,Bob,2\n"
                    b"1,Council,Dan,1\n1,Council,Eve,2\n2,Mayor,Bob,1\n2,Council,Eve,1\n")
    assert "2 contests in 'Contest'" in error.reason and error.column == "Contest"


# ------------------------------------------------------------- who ranked, who competed
def test_a_marker_or_teacher_column_is_the_ranker():
    for title in (b"Marker", b"Teacher", b"Moderator"):
        data = title + (b",1st,2nd,3rd\nMs Patel,Essay C,Essay A,Essay B\n"
                        b"Mr Jones,Essay A,Essay C,Essay B\nMs Patel,Essay B,Essay A,Essay C\n")
        assert read_preferences(data).ranker_names == ("Ms Patel", "Mr Jones"), title


def test_a_student_named_once_per_heat_is_the_competitor_not_a_rater():
    data = (b"Heat,Student,Place\nHeat A,Liam,1\nHeat A,Olivia,2\nHeat A,Noah,3\n"
            b"Heat B,Noah,1\nHeat B,Liam,2\nHeat B,Olivia,3\n")
    assert read_preferences(data).to_lists(names=True) == [
        ["Liam", "Olivia", "Noah"], ["Noah", "Liam", "Olivia"]]


# ------------------------------------------------------------- comparisons and standings
def test_a_verdict_naming_both_sides_says_who_won():
    data = (b"rater,question_id,model_a,model_b,verdict\n"
            b"r1,q1,gpt-4o,llama-3,A>>B\nr1,q2,llama-3,claude,B>A\n"
            b"r2,q1,claude,gpt-4o,B>>A\nr2,q3,gpt-4o,claude,A=B\nr3,q4,llama-3,gpt-4o,A<B\n")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True) == [
        ["gpt-4o", "llama-3"], ["claude", "llama-3"], ["gpt-4o", "claude"],
        [frozenset({"gpt-4o", "claude"})], ["gpt-4o", "llama-3"]]


def test_a_signed_preference_scale_is_refused_not_read_as_side_numbers():
    # '-2' lost its sign and read as 'the second side won'
    error = refusal(b"annotator,model_a,model_b,preference\nann1,gpt-4o,llama-3,-2\n"
                    b"ann1,llama-3,claude,1\nann2,claude,gpt-4o,2\n")
    assert "a number with a sign" in error.reason and error.row == 2


def test_a_left_or_right_candidate_and_the_side_that_won():
    data = (b"judge_id,left_candidate,right_candidate,won,time_taken_ms\n"
            b"J01,QX7P,MB2K,left,34120\nJ01,TR9A,QX7P,right,41003\n"
            b"J02,MB2K,TR9A,left,28771\n")
    assert read_preferences(data).to_lists(names=True) == [
        ["QX7P", "MB2K"], ["QX7P", "TR9A"], ["MB2K", "TR9A"]]


def test_a_single_results_list_is_refused_as_one_ranking():
    leaderboard = (b"Rank,TeamId,TeamName,Score\n1,101,Gradient Descenders,0.91\n"
                   b"2,102,NaN Hunters,0.90\n3,103,Overfitters,0.88\n")
    for data in (b"Place,Name,Time\n1,Anna Berg,15:42.3\n2,Julia Moss,15:58.9\n"
                 b"3,Kim Lee,16:01.0\n4,Eva Lund,16:20.7\n", leaderboard,
                 b"Rank,Name,Title,Country,Rating,Games,B-Year\n1,Carlsen,g,NOR,2832,0,1990\n"
                 b"2,Caruana,g,USA,2805,9,1992\n3,Nakamura,g,USA,2802,9,1987\n"):
        error = refusal(data)
        assert "holds one ranking" in error.reason and "ground truth" in error.fix
    assert "'TeamName' ordered by 'Rank'" in refusal(leaderboard).reason


# ------------------------------------------------------------- which end is best
def test_a_question_saying_the_highest_number_is_best_is_refused_with_one_is_worst():
    question = b"Rank the cities (4 = favourite, 1 = least favourite)"
    data = (b"Timestamp," + b",".join(b'"%s [%s]"' % (question, c) for c in
                                      (b"Paris", b"Berlin", b"Rome", b"Madrid"))
            + b"\n2024/03/03 10:15:22,4,2,3,1\n2024/03/03 10:17:02,3,4,1,2\n")
    error = refusal(data)
    assert "'4 = favourite'" in error.reason and "--one-is-worst" in error.fix
    assert read_preferences(data, options=ReadOptions(one_is_best=False)).to_lists(
        names=True)[0] == ["Paris", "Rome", "Berlin", "Madrid"]


def test_a_title_row_giving_the_favourite_most_points_is_refused_with_one_is_worst():
    data = (b"Give 4 points to your favourite city and 1 point to your least favourite;;;;\n"
            b"Respondent;Paris;Berlin;Rome;Madrid\nAnna;4;2;3;1\nBen;3;4;1;2\nCem;4;3;2;1\n")
    assert "4 points to your favourite'" in refusal(data).reason


def test_a_question_saying_one_is_best_reads_as_it_stands():
    data = (b"Rank the cities (1 = best, 4 = worst);;;;\n"
            b"Respondent;Paris;Berlin;Rome;Madrid\nAnna;1;3;2;4\nBen;2;1;4;3\n")
    assert read_preferences(data).to_lists(names=True)[0] == ["Paris", "Rome", "Berlin", "Madrid"]


# ------------------------------------------------------------- the review's misfires, guarded
def test_last_rankers_whose_names_start_like_a_summary_word_are_kept():
    for last in (b"Nancy", b"Count Basie", b"Mean Girls", b"Nadia"):
        data = b"Voter,Alice,Bob,Carol\nPaul,1,2,3\nRita,2,1,3\nSam,3,1,2\n" + last + b",1,3,2\n"
        assert len(read_preferences(data).to_lists()) == 4, last
    lines = b"ranking\nApple>Banana>Nectarine\nBanana>Apple>Nectarine\nNectarine>Apple>Banana\n"
    assert len(read_preferences(lines).to_lists()) == 3


def test_a_summary_row_is_cut_under_a_name_column_too():
    data = b"Name,Alice,Bob,Carol\nPaul,1,2,3\nRita,2,1,3\nSam,3,1,2\nMedian,2,1,3\n"
    assert read_preferences(data).ranker_names == ("Paul", "Rita", "Sam")


def test_items_named_like_judges_or_row_numbers_stay_items():
    assert read_preferences(b"Voter,Doctor,Teacher,Nurse,Police\nann,1,2,,\nbob,,1,2,\n"
                            b"cid,2,3,1,\ndan,,1,,2\n").item_names == (
        "Doctor", "Teacher", "Nurse", "Police")
    votes = b"Voter,Yes,No,Maybe,Abstain\nPaul,1,2,,\nRita,,1,2,\nSam,2,,,1\nTom,,,1,2\n"
    assert read_preferences(votes).item_names == ("Yes", "No", "Maybe", "Abstain")
    assert read_preferences(b"Voter,en,de,fr,no\nPaul,1,2,3,4\nRita,2,1,4,3\n"
                            b"Sam,3,4,1,2\n").item_names == ("en", "de", "fr", "no")


def test_a_team_beside_a_player_is_still_refused_as_either_competitor():
    error = refusal(b"Match,Rank,Team,Player\nM1,1,Lions,Smith\nM1,2,Tigers,Jones\n"
                    b"M1,3,Bears,Brown\nM2,1,Tigers,Jones\nM2,2,Bears,Lee\nM2,3,Lions,Smith\n")
    assert "'Team', 'Player' could each name what is ranked" in error.reason


def test_a_user_beside_a_model_is_not_ranked_as_a_competitor():
    data = (b"Round,User,Model,Score\n1,ann,gpt,7\n1,bob,llama,5\n1,cid,claude,8\n"
            b"2,ann,llama,4\n2,bob,claude,9\n2,cid,gpt,6\n")
    try:
        prefs = read_preferences(data)
    except PreferenceFormatError:
        return
    assert "ann" not in prefs.item_names


def test_an_office_that_never_changes_within_a_ranking_is_no_contest():
    data = (b"Respondent,Office,Option,Rank\nann,London,Remote,1\nann,London,Hybrid,2\n"
            b"ann,London,Onsite,3\nbob,Paris,Hybrid,1\nbob,Paris,Remote,2\nbob,Paris,Onsite,3\n")
    assert read_preferences(data).to_lists(names=True)[1] == ["Hybrid", "Remote", "Onsite"]


def test_ends_named_beside_bare_numbers_are_not_guessed():
    # 'Worst, 4, 2, Best': the numbers may count from either end
    with pytest.raises(PreferenceFormatError):
        read_preferences(b"Respondent,Apple,Banana,Cherry,Fig,Elder\n"
                         b"ann,Worst,4,2,Best,3\nbob,Best,2,3,4,Worst\n")


def test_a_best_worst_choice_marked_best_and_worst_is_refused():
    error = refusal(b"Respondent,Apple,Banana,Cherry,Fig\nann,Best,,,Worst\n"
                    b"bob,,Best,Worst,\ncid,Worst,,,Best\n")
    assert "best-worst" in error.reason


# ------------------------------------------------------------- model evaluations
def test_alpacaevals_generator_and_generator_2_are_the_sides():
    import json

    rows = [{"instruction": "Q1", "output_1": "text a", "generator": "gpt4", "output_2": "x",
             "generator_2": "mine", "annotator": "weighted", "preference": 1.0},
            {"instruction": "Q2", "output_1": "text b", "generator": "gpt4", "output_2": "y",
             "generator_2": "mine", "annotator": "weighted", "preference": 2.0},
            {"instruction": "Q3", "output_1": "text c", "generator": "gpt4", "output_2": "z",
             "generator_2": "mine", "annotator": "weighted", "preference": 1.25}]
    prefs = read_preferences(json.dumps(rows).encode())
    assert prefs.item_names == ("gpt4", "mine")
    assert sorted(prefs.weights.tolist()) == [0.25, 0.75, 1.0, 1.0]


def test_mt_benchs_two_games_of_a_pair_are_read_together():
    import json

    rows = [{"question_id": 81, "model_1": "gpt-4", "model_2": "vicuna", "g1_winner": "model_1",
             "g2_winner": "model_1", "judge": "gpt-4-pair"},
            {"question_id": 81, "model_1": "gpt-3.5", "model_2": "vicuna", "g1_winner": "tie",
             "g2_winner": "model_1", "judge": "gpt-4-pair"},
            {"question_id": 82, "model_1": "vicuna", "model_2": "gpt-3.5", "g1_winner": "model_2",
             "g2_winner": "model_2", "judge": "gpt-4-pair"}]
    result = read_file("\n".join(json.dumps(r) for r in rows).encode())
    assert result.preferences.to_lists(names=True) == [
        ["gpt-4", "vicuna"], [frozenset({"gpt-3.5", "vicuna"})], ["gpt-3.5", "vicuna"]]
    assert any("a tie where they disagree (1 of 3 rows)" in n for n in result.report.notes)


def test_judges_as_columns_are_read_one_ranking_a_judge():
    # each column ranks the rows 1, 2, 3 once while a row repeats a rank: read by column
    result = read_file(b"Finalist,Judge Adams,Judge Baker,Judge Chen\nEssay A,1,2,1\n"
                       b"Essay B,2,1,3\nEssay C,3,3,2\n")
    assert result.preferences.to_lists(names=True) == [
        ["Essay A", "Essay B", "Essay C"], ["Essay B", "Essay A", "Essay C"],
        ["Essay A", "Essay C", "Essay B"]]
    assert result.report.ranker_column == "Judge"


# ------------------------------------------------------------- columns beside the ranks
def test_a_total_or_age_column_beside_the_ranks_is_skipped():
    for title, cells in ((b"Total", (b"10", b"10", b"10")), (b"Age", (b"34", b"27", b"51"))):
        rows = (b"Anna,1,3,2,4,", b"Ben,2,1,4,3,", b"Cem,1,2,3,4,")
        data = b"Respondent,Paris,Berlin,Rome,Madrid," + title + b"\n" + b"".join(
            r + c + b"\n" for r, c in zip(rows, cells))
        result = read_file(data)
        assert result.preferences.item_names == ("Paris", "Berlin", "Rome", "Madrid"), title
        assert result.preferences.to_lists(names=True)[0] == ["Paris", "Rome", "Berlin", "Madrid"]


def test_notes_beside_the_ranks_are_skipped_untitled_or_titled_in_german():
    for title in (b"", b"Anmerkung"):
        data = (b"Respondent,Paris,Berlin,Rome,Madrid," + title + b"\n"
                b"Anna,1,3,2,4,called back later\nBen,2,1,4,3,\nCem,1,2,3,4,was everywhere\n")
        assert read_preferences(data).item_names == ("Paris", "Berlin", "Rome", "Madrid")


def test_item_names_holding_a_semicolon_stay_whole_in_a_wide_table():
    data = (b"Name,Top pick,Runner-up,Third\nAnna,\"Salt; vinegar\",Cheese & onion,Paprika\n"
            b"Ben,\"Salt; vinegar\",Paprika,Cheese & onion\n"
            b"Cem,Paprika,\"Salt; vinegar\",Cheese & onion\n")
    prefs = read_preferences(data)
    assert prefs.item_names == ("Salt; vinegar", "Cheese & onion", "Paprika")
    assert len(prefs.to_lists()) == 3


def test_rows_saved_in_two_encodings_are_each_read_in_their_own():
    utf8 = "Voter,1st,2nd,3rd\nAna,Café,Crème brûlée,Tiramisù\nBen,Crème brûlée,Café,Tiramisù\n"
    cp1252 = "Cal,Tiramisù,Café,Crème brûlée\nDan,Café,Tiramisù,Crème brûlée\n"
    prefs = read_preferences(utf8.encode("utf-8") + cp1252.encode("cp1252"))
    assert prefs.item_names == ("Café", "Crème brûlée", "Tiramisù")
    assert len(prefs.to_lists()) == 4


def test_a_table_of_scores_per_model_is_refused_with_the_transpose_fix():
    for data in (b"Model/adapter,Mean win rate,MMLU - EM,BoolQ - EM\n"
                 b"Llama 2 (70B),0.944,0.582,0.886\nLLaMA (65B),0.908,0.584,0.871\n"
                 b"Falcon (40B),0.729,0.509,0.819\n",
                 b"T,Model,Average,ARC,HellaSwag\nA,upstage/SOLAR,74.2,71.08,88.16\n"
                 b"B,mistralai/Mixtral,72.7,70.14,87.55\nB,01-ai/Yi-34B,70.1,64.59,85.69\n"):
        error = refusal(data)
        assert "the rows are the items" in error.reason and "Transpose" in error.fix


def test_comparative_judgements_left_won_flag_says_which_script_won():
    data = (b"Judge,Left Script,Right Script,Left Won\nMr Smith,Script 014,Script 022,1\n"
            b"Mr Smith,Script 031,Script 014,0\nMs Ahmed,Script 022,Script 031,1\n")
    assert read_preferences(data).to_lists(names=True) == [
        ["Script 014", "Script 022"], ["Script 014", "Script 031"], ["Script 022", "Script 031"]]
    # a home side's one win flag stays refused: a draw would read as an away win
    with pytest.raises(PreferenceFormatError):
        read_preferences(b"home_team,away_team,home_won\nA,B,1\nB,C,0\nC,A,0\n")


# ------------------------------------------------------------- files of any size
def test_a_header_pasted_again_is_refused_in_chunks_and_behind_a_byte_order_mark(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    rows = "".join(f"m{k % 5},m{(k + 1) % 5}\n" for k in range(20))
    plain = tmp_path / "again.csv"
    plain.write_text("winner,loser\n" + rows + "winner,loser\n" + rows, encoding="utf-8")
    with pytest.raises(PreferenceFormatError, match="repeats the first row") as info:
        stream_pairwise(plain)
    assert info.value.row == 22
    marked = tmp_path / "bom.csv"
    marked.write_bytes(("\ufeffwinner,loser\r\n" + rows + "\ufeffwinner,loser\r\n"
                        + rows).encode("utf-8"))
    for read in (read_file, stream_pairwise):
        with pytest.raises(PreferenceFormatError, match="repeats the first row"):
            read(marked)


def test_quoted_prompts_over_several_lines_are_never_cut_between_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise
    from coarsenrank_core.io.streaming import record_starts

    lines = ["question_id,model_a,model_b,winner,prompt"]
    for k in range(300):
        prompt = f'"line one of {k}\nline two, with a comma\n""quoted"" line three"'
        lines.append(f"q{k},m{k % 4},m{(k + 1) % 4},{'model_a' if k % 3 else 'tie'},{prompt}")
    path = tmp_path / "prompts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    whole = read_file(path).preferences
    for chunk in (300, 777, 5000):
        counted = stream_pairwise(path, chunk_bytes=chunk).preferences
        assert float(counted.weights.sum()) == len(whole.to_lists()) == 300, chunk
    data = path.read_bytes()
    for start in record_starts(path, range(100, len(data), 997), block_bytes=1000):
        assert data[start - 1:start] == b"\n" and data[:start].count(b'"') % 2 == 0


def test_a_per_row_id_is_no_ranker_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = tmp_path / "train.csv"
    path.write_text("id,model_a,model_b,winner_model_a,winner_model_b,winner_tie\n" + "".join(
        f"{1000 + k},m{k % 3},m{(k + 1) % 3},1,0,0\n" for k in range(30)), encoding="utf-8")
    result = stream_pairwise(path)
    assert not result.preferences.has_rankers and result.report.ranker_column is None
    assert read_file(path).preferences.has_rankers is False


def test_the_dask_engine_refuses_corrections_it_would_ignore(tmp_path):
    path = tmp_path / "battles.csv"
    path.write_text("winner,loser,count\na,b,3\nb,c,1\n", encoding="utf-8")
    with pytest.raises(PreferenceFormatError, match="count_column"):
        read_file(path, engine="dask", options=ReadOptions(count_column=""))


# ------------------------------------------------------------- the second review, guarded
def test_questions_that_only_mention_a_number_near_most_are_read_as_they_stand():
    for question in (b"Rank your top 3 - most important first", b"Rank 1-3: most important first",
                     b"Rank these 3 for the most recent purchase"):
        data = (b"Timestamp," + b",".join(b'"%s [%s]"' % (question, c) for c in
                                          (b"Price", b"Quality", b"Service"))
                + b"\n2024/03/03 10:15:22,1,2,3\n2024/03/03 10:17:02,2,1,3\n")
        assert read_preferences(data).to_lists(names=True)[0] == ["Price", "Quality", "Service"]
    said = (b"Rank from 1 to 3 with 3 being most important;;;\nRespondent;Price;Quality;Service\n"
            b"Ann;3;2;1\nBob;2;3;1\n")
    assert "'3 being most'" in refusal(said).reason
    assert read_preferences(said, "ranks").to_lists(names=True)[0] == [
        "Service", "Quality", "Price"]  # chosen by hand, 1 is the best as asked


def test_items_named_like_judges_in_a_survey_are_not_refused():
    for data in (b"Respondent,Judge Judy,Judge Dredd,Judge Rinder\nr1,1,2,3\nr2,2,1,3\n",
                 b"Respondent,Voter ID laws,Voter registration,Voter turnout\nr1,1,2,3\n"
                 b"r2,3,1,2\n"):
        assert len(read_preferences(data).item_names) == 3


def test_a_multi_select_answer_beside_the_ranking_does_not_hide_it():
    data = (b"ID,Start time,Completion time,Email,Name,Which fruits have you tried?,"
            b"Rank these fruits\n1,x,y,a@b.c,Ann,Apple;Banana;Cherry;,Apple;Banana;Cherry;\n"
            b"2,x,y,b@b.c,Bob,Apple;Cherry;,Cherry;Apple;Banana;\n"
            b"3,x,y,c@b.c,Cy,Banana;,Banana;Cherry;Apple;\n")
    assert read_preferences(data).to_lists(names=True)[1] == ["Cherry", "Apple", "Banana"]


def test_a_generator_or_won_column_of_a_graded_file_keeps_the_grade_reader():
    data = (b"prompt_id,generator,annotator,rating\n1,gpt4,ann1,5\n1,llama,ann1,3\n"
            b"2,gpt4,ann1,4\n2,llama,ann1,4\n1,gpt4,ann2,2\n1,llama,ann2,5\n")
    assert read_preferences(data).to_lists(names=True)[0] == ["gpt4", "llama"]


def test_games_named_by_year_or_number_stay_events():
    data = (b"Games,Team,Rank,Gold\n2012,USA,1,46\n2012,CHN,2,38\n"
            b"2016,USA,1,46\n2016,GBR,2,27\n")
    assert read_preferences(data).to_lists(names=True) == [["USA", "CHN"], ["USA", "GBR"]]


def test_a_cp1252_file_whose_bytes_happen_to_be_utf8_stays_cp1252():
    data = (b"Name,1st,2nd,3rd\nann,NESCAF\xc9\xae,Lavazza,Illy\n"
            b"bob,Illy,Lavazza,NESCAF\xc9\xae\ndan,Illy,NESCAF\xc9\xae,Lavazza \x96 Oro\n")
    assert read_preferences(data).item_names[0] == "NESCAF\u00c9\u00ae"
    appended = (b"\xef\xbb\xbf" + "Voter,1st,2nd,3rd\nAna,Café,Crème,Thé\n".encode()
                + "Ben,Thé,Café,Crème\n".encode("cp1252"))
    assert read_preferences(appended).item_names == ("Café", "Crème", "Thé")


def test_an_untitled_first_column_of_names_is_the_ranker_not_notes():
    data = b",Apple,Banana,Cherry\nAnn Lee,1,2,3\nBob Smith,2,1,3\nCy Young,3,1,2\n"
    assert read_preferences(data).ranker_names == ("Ann Lee", "Bob Smith", "Cy Young")


def test_a_standings_table_refused_as_one_ranking_loads_as_the_ground_truth():
    from coarsenrank_core.io import read_truth

    prefs = read_preferences(b"winner,loser\nLions,Tigers\nTigers,Bears\nLions,Bears\n")
    for data in (b"Pos,Team,P,W,D,L,Pts\n1,Lions,2,2,0,0,6\n2,Tigers,2,1,0,1,3\n"
                 b"3,Bears,2,0,0,2,0\n",
                 b"Rank,TeamId,TeamName,Score\n1,11,Lions,0.3\n2,12,Tigers,0.2\n3,13,Bears,0.1\n"):
        assert "ground truth" in refusal(data).fix
        assert read_truth(data, prefs).tolist() == [-1.0, -2.0, -3.0]


def test_mt_benchs_inconsistent_tie_is_a_tie():
    data = (b"question_id,model_a,model_b,winner,judge,turn\n"
            b"82,gpt-4,llama,tie (inconsistent),gpt4_pair,1\n83,gpt-4,llama,model_a,gpt4_pair,1\n")
    assert read_preferences(data).to_lists(names=True)[0] == [frozenset({"gpt-4", "llama"})]


def test_a_mean_rank_column_inside_the_rank_range_is_a_summary_not_an_item():
    data = b"Voter,Alice,Bob,Carol,Mean rank\nv1,1,2,3,2\nv2,2,1,3,2\nv3,3,1,2,2\n"
    assert read_preferences(data).item_names == ("Alice", "Bob", "Carol")
    kept = b"Voter,Alice,Bob,Carol,Average\nv1,1,2,3,4\nv2,2,1,3,4\nv3,3,1,2,4\n"
    assert "Average" in read_preferences(kept).item_names  # ranks that sum nothing up


def test_anonymous_rankers_of_two_files_are_not_one_person(tmp_path):
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("judge,winner,loser\nAnonymous,x,y\nann,y,z\n"
                                     "Anonymous,x,z\n", encoding="utf-8")
    prefs = read_preferences(tmp_path)
    assert len(prefs.ranker_names) == 5  # ann, and four rows that name no one


def test_a_bad_row_of_the_second_file_is_named_with_its_file_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    (tmp_path / "a.csv").write_text("winner,loser\nx,y\ny,z\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("winner,loser\nx,y\n,z\n", encoding="utf-8")
    with pytest.raises(PreferenceFormatError, match="In 'b.csv'") as info:
        stream_pairwise(tmp_path)
    assert info.value.row == 3


def test_candidate_ids_under_choice_titles_are_the_items_with_a_warning():
    data = (b"Cast Vote Record,Precinct,DEM Mayor Choice 1 of 3 Kings (026916),"
            b"DEM Mayor Choice 2 of 3 Kings (026916),DEM Mayor Choice 3 of 3 Kings (026916)\n"
            b"000052,AD: 41,217208,218035,undervote\n000053,AD: 41,217997,217208,218035\n"
            b"000054,AD: 42,218035,217997,217208\n")
    result = read_file(data)
    assert result.preferences.to_lists(names=True)[0] == ["217208", "218035"]
    assert "look like ids" in result.report.warning


def test_joiners_inside_a_name_shape_it_and_invisible_marks_are_dropped():
    data = ("Voter,1st,2nd,3rd\nann,\U0001f469\u200d\U0001f4bb coding,Pizza,Soup\n"
            "bob,Pizza\u200e,\U0001f469\u200d\U0001f4bb coding,Soup\u200d\n").encode()
    assert read_preferences(data).item_names == (
        "\U0001f469\u200d\U0001f4bb coding", "Pizza", "Soup")


# ------------------------------------------------------------- the third review, guarded
def test_lines_of_two_encodings_are_each_read_in_their_own_whatever_their_script():
    cases = {
        "Voter,1st,2nd,3rd\nAna,東京,Москва,Zoë\nBen,Москва,東京,Zoë\n".encode()
        + "Cal,Zoë,Café,Tokyo\n".encode("cp1252"): ("東京", "Москва", "Zoë", "Café", "Tokyo"),
        "Voter,1st,2nd,3rd\nAna,Café,Crème,Thé\n".encode()
        + b"Cal,Cr\xc3\xa8me,Caf\xc3\xa9,Th\xc3\xa9 \x96 vert\n": (
            "Café", "Crème", "Thé", "Thé – vert"),
        b"Voter,1st,2nd,3rd\nAna,PERCH\xc8\xa0NO,Caf\xe9,Illy\nBen,Illy,Caf\xe9,PERCH\xc8\xa0NO\n":
            ("PERCHÈ NO", "Café", "Illy"),  # the no-break space read as a space
    }
    for data, names in cases.items():
        assert read_preferences(data).item_names == names


def test_a_cell_starting_with_a_byte_order_mark_is_no_repeated_header():
    rows = "".join(f"m{k % 3},m{(k + 1) % 3},model_a,prompt {k}\n" for k in range(50))
    data = ("model_a,model_b,winner,prompt\n" + rows + "m1,m2,model_b,\ufeffpasted\n").encode()
    assert float(read_preferences(data).weights.sum()) == 51


def test_a_first_row_naming_two_players_like_the_titles_is_read_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = tmp_path / "games.csv"
    path.write_text("Player 1,Player 2,Winner\nPlayer 1,Player 2,Player 2\nAnn,Bob,Ann\n",
                    encoding="utf-8")
    assert stream_pairwise(path).preferences.item_names == read_file(
        path).preferences.item_names


def test_one_stray_quote_mark_keeps_the_dask_partitions(tmp_path):
    from coarsenrank_core.io.streaming import record_starts

    path = tmp_path / "stray.csv"
    path.write_text("x,y,winner\n" + 'a,27" monitor,model_a\n'
                    + "".join(f"a{k},b{k},model_a\n" for k in range(5000)), encoding="utf-8")
    bounds = list(range(1000, path.stat().st_size, 4096))
    assert record_starts(path, bounds, block_bytes=4096) == bounds


def test_a_per_row_id_beside_trailing_separator_rows_is_no_ranker_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = tmp_path / "train.csv"
    path.write_text("id,winner,loser\n" + "".join(f"{k},m{k % 3},m{(k + 1) % 3}\n"
                                                  for k in range(30)) + ",,\n,,\n",
                    encoding="utf-8")
    assert not stream_pairwise(path).preferences.has_rankers


def test_the_chunked_reader_reads_float_ids_and_control_characters_as_the_table_reader(
        tmp_path):
    import pandas as pd

    from coarsenrank_core.io import stream_pairwise

    ids = tmp_path / "ids.parquet"
    pd.DataFrame({"winner": [1.0, 2.0, 1e19, 3.0], "loser": [2.0, 3.0, 2e19, 1e19]}).to_parquet(ids)
    assert stream_pairwise(ids).preferences.item_names == read_file(ids).preferences.item_names
    gap = tmp_path / "gap.parquet"
    pd.DataFrame({"winner": [1.0, float("nan")], "loser": [2.0, 1.0]}).to_parquet(gap)
    with pytest.raises(PreferenceFormatError, match="blank"):
        stream_pairwise(gap)
    bell = tmp_path / "bell.csv"
    bell.write_text("winner,loser\na,b\nb\x07,c\n", encoding="utf-8")
    with pytest.raises(PreferenceFormatError, match="control character U\\+0007") as info:
        stream_pairwise(bell)
    assert info.value.row == 3


def test_judges_titled_j1_to_j5_over_numbered_couples_are_refused_with_the_transpose_fix():
    error = refusal(b"Couple,J1,J2,J3,J4,J5\n101,1,2,1,1,3\n102,2,1,3,2,1\n103,3,3,2,3,2\n")
    assert "titled as judges" in error.reason and "Transpose" in error.fix
    assert read_preferences(b"Respondent,J1,J2,J3\nr1,1,2,3\nr2,2,1,3\n").item_names == (
        "J1", "J2", "J3")  # a survey about J1 ... J3 stays a survey
