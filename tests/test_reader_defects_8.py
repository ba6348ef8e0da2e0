"""Reader defects found by probing real export layouts (eighth batch): JSON datasets and
annotation platforms."""

import io
import json

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file


def refused(data: bytes, **options) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data, **options)
    return info.value


def orders(data: bytes, **options) -> list[list[str]]:
    prefs = read_file(data, **options).preferences
    return [[prefs.item_names[i] for i in ranking] for ranking in prefs.to_lists()]


# ------------------------------------------------------------ UltraFeedback-style records
def ultrafeedback(scores: list[dict[str, float]], shown: list[list[str]]) -> bytes:
    records = []
    for k, (given, models) in enumerate(zip(scores, shown)):
        completions = [{"annotations": {"helpfulness": {"Rating": "4"}}, "model": model,
                        "response": f"text {k} {model}", "overall_score": given[model],
                        "fine-grained_score": given[model] / 2 + (model == models[0])}
                       for model in models]
        records.append({"source": "evol_instruct", "instruction": f"question {k}",
                        "models": models, "completions": completions,
                        "correct_answers": ["None"], "incorrect_answers": ["None"]})
    return json.dumps(records).encode()


UF_SCORES = [{"gpt-4": 8.5, "llama": 5.0, "falcon": 6.0, "wizard": 9.0},
             {"gpt-4": 9.5, "llama": 4.0, "falcon": 3.0, "wizard": 7.0},
             {"gpt-4": 9.0, "llama": 2.0, "falcon": 5.0, "wizard": 6.5}]
UF_SHOWN = [["gpt-4", "llama", "falcon", "wizard"], ["llama", "gpt-4", "wizard", "falcon"],
            ["falcon", "wizard", "gpt-4", "llama"]]


def test_the_models_shown_are_not_read_as_a_ranking_and_both_verdicts_are_offered():
    error = refused(ultrafeedback(UF_SCORES, UF_SHOWN))
    assert "'completions.fine-grained_score', 'completions.overall_score'" in error.reason
    assert "--format cell --items completions." in error.fix


def test_a_chosen_verdict_is_read_by_its_scores_highest_first():
    data = ultrafeedback(UF_SCORES, UF_SHOWN)
    read = orders(data, format="cell",
                  options=ReadOptions(item_columns=("completions.overall_score",)))
    assert read == [["wizard", "gpt-4", "falcon", "llama"], ["gpt-4", "wizard", "llama", "falcon"],
                    ["gpt-4", "wizard", "falcon", "llama"]]


def test_with_one_verdict_the_nested_scores_are_read_without_asking():
    records = [{"prompt": f"p{k}", "models": list(given),
                "completions": [{"model": m, "response": "x", "overall_score": s}
                                for m, s in given.items()]}
               for k, given in enumerate(UF_SCORES)]
    assert orders(json.dumps(records).encode())[0] == ["wizard", "gpt-4", "falcon", "llama"]


def test_a_list_of_models_beside_a_ranking_is_not_a_second_ranking():
    records = [{"prompt": "p1", "models": ["a", "b", "c"], "ranking": ["c", "a", "b"]},
               {"prompt": "p2", "models": ["b", "c", "a"], "ranking": ["a", "c", "b"]},
               {"prompt": "p3", "models": ["c", "a", "b"], "ranking": ["c", "b", "a"]}]
    assert orders(json.dumps(records).encode()) == [["c", "a", "b"], ["a", "c", "b"],
                                                    ["c", "b", "a"]]


@pytest.mark.parametrize("title", ["ballot", "order", "preferences", "vote"])
def test_a_list_of_names_under_a_ballot_title_is_still_a_ranking(title):
    records = [{"voter": "v1", title: ["a", "b", "c"]}, {"voter": "v2", title: ["b", "a", "c"]},
               {"voter": "v3", title: ["c", "b", "a"]}]
    assert orders(json.dumps(records).encode()) == [["a", "b", "c"], ["b", "a", "c"],
                                                    ["c", "b", "a"]]


def test_objects_that_name_their_item_by_two_fields_are_left_as_data():
    records = [{"q": f"q{k}", "completions": [
        {"model": m, "name": m.upper(), "score": s} for m, s in given.items()]}
        for k, given in enumerate(UF_SCORES)]
    error = refused(json.dumps(records).encode())
    assert "completions.score" not in str(error)


# ------------------------------------------------------------ Label Studio
def label_studio_task(task: int, annotations: list[dict]) -> dict:
    return {"id": task, "annotations": annotations, "file_upload": "tasks.json", "drafts": [],
            "predictions": [], "data": {"prompt": f"p{task}", "items": [
                {"id": i, "title": i.upper()} for i in "abc"]},
            "meta": {}, "created_at": "2024-01-01T00:00:00Z", "inner_id": task,
            "total_annotations": len(annotations), "cancelled_annotations": 0,
            "total_predictions": 0, "project": 3, "updated_by": 1}


def ranker(annotation: int, annotator, value: dict, cancelled: bool = False,
           kind: str = "ranker") -> dict:
    return {"id": annotation, "completed_by": annotator, "was_cancelled": cancelled,
            "ground_truth": False, "lead_time": 3.2, "task": annotation // 10,
            "result": [{"value": value, "id": f"r{annotation}", "from_name": "rank",
                        "to_name": "results", "type": kind, "origin": "manual"}]}


def test_a_label_studio_export_is_read_one_ranking_per_annotation():
    tasks = [label_studio_task(1, [ranker(11, 1, {"ranker": {"results": ["b", "a", "c"]}}),
                                   ranker(12, {"id": 2, "email": "x@y.z"},
                                          {"ranker": {"results": ["c", "a", "b"]}}),
                                   ranker(13, 3, {"ranker": {"results": ["a", "b", "c"]}},
                                          cancelled=True)]),
             label_studio_task(2, [ranker(21, 1, {"ranker": {"results": ["a", "c", "b"]}})])]
    read = read_file(json.dumps(tasks).encode())
    prefs = read.preferences
    assert [[prefs.item_names[i] for i in r] for r in prefs.to_lists()] == [
        ["b", "a", "c"], ["c", "a", "b"], ["a", "c", "b"]]
    assert sorted(prefs.ranker_names) == ["1", "x@y.z"]


def test_a_label_studio_export_without_a_ranker_is_refused_for_that_reason():
    tasks = [label_studio_task(k, [ranker(10 * k, 1, {"choices": ["Good"]}, kind="choices")])
             for k in (1, 2, 3)]
    error = refused(json.dumps(tasks).encode())
    assert "holds no Ranker's order" in error.reason and "choices" in error.reason
    assert error.column == "annotations"


def test_label_studio_buckets_are_refused_as_a_grouping():
    value = {"ranker": {"relevant": ["a", "b"], "not_relevant": ["c"]}}
    tasks = [label_studio_task(k, [ranker(10 * k, 1, value)]) for k in (1, 2)]
    error = refused(json.dumps(tasks).encode())
    assert "a grouping, not an order" in error.reason and error.row == 1


def test_label_studio_json_min_keeps_the_order_under_the_list_name():
    records = [{"id": k, "items": [{"id": i, "title": i.upper()} for i in "abc"],
                "rank": {"results": order}, "annotator": k, "annotation_id": 10 + k,
                "created_at": "2024-01-01T00:00:00Z", "lead_time": 3.2}
               for k, order in enumerate([["b", "a", "c"], ["c", "a", "b"], ["a", "b", "c"]], 1)]
    assert orders(json.dumps(records).encode()) == [["b", "a", "c"], ["c", "a", "b"],
                                                    ["a", "b", "c"]]


def test_a_long_file_whose_rank_column_holds_numbers_is_still_long():
    data = b"judge,item,rank\nj1,a,1\nj1,b,2\nj1,c,3\nj2,a,2\nj2,b,1\nj2,c,3\n"
    assert orders(data) == [["a", "b", "c"], ["b", "a", "c"]]


# ------------------------------------------------------------ numbered slots
@pytest.mark.parametrize("data", [
    b"segid,id_sys1,rank_sys1,id_sys2,rank_sys2,id_sys3,rank_sys3\n1,online-A,1,online-B,3,"
    b"online-C,2\n2,online-B,1,online-C,2,online-A,3\n3,online-C,1,online-A,2,online-B,2\n",
    b"segid,system1Id,system1rank,system2Id,system2rank,system3Id,system3rank\n"
    b"1,A,1,B,3,C,2\n2,B,1,C,2,A,3\n3,C,1,A,2,B,2\n",
    b"hit,Model 1 name,Model 1 rank,Model 2 name,Model 2 rank,Model 3 name,Model 3 rank\n"
    b"h1,gpt,2,llama,1,mistral,3\nh2,llama,3,mistral,1,gpt,2\n",
])
def test_numbered_slots_with_their_ranks_beside_them_are_refused_with_the_reshape(data):
    error = refused(data)
    assert "hold the ranks of numbered places" in error.reason
    assert "wide_to_long" in error.fix


def test_numbered_places_holding_names_are_still_a_wide_ranking():
    data = b"voter,Rank 1,Rank 2,Rank 3\nv1,a,b,c\nv2,b,a,c\nv3,c,b,a\n"
    assert orders(data) == [["a", "b", "c"], ["b", "a", "c"], ["c", "b", "a"]]


# ------------------------------------------------------------ scores with half-time
def test_a_half_time_score_in_brackets_is_passed_over_for_the_final_one():
    data = (b"Date,Home,Away,Score\n2024-01-01,Arsenal,Chelsea,2-1 (0-0)\n"
            b"2024-01-08,Chelsea,Spurs,1-1 (1-0)\n2024-01-15,Spurs,Arsenal,0-3 (0-2)\n"
            b"2024-01-22,Spurs,Chelsea,2-0\n")
    prefs = read_file(data).preferences
    names = prefs.item_names
    read = [[sorted(names[i] for i in s) if isinstance(s, frozenset) else names[s]
             for s in r] for r in prefs.to_lists()]
    # the 1-1 draw is a tie, though Chelsea led at half-time
    assert read[:3] == [["Arsenal", "Chelsea"], [["Chelsea", "Spurs"]], ["Arsenal", "Spurs"]]


@pytest.mark.parametrize("result", ["1-1 (4-2 pen.)", "1-1 (4-2)", "2-2 (aet)"])
def test_penalties_or_extra_time_beside_a_score_are_refused_with_the_final_result(result):
    data = (f"Date,Home,Away,Score\n2024-01-01,Arsenal,Chelsea,{result}\n"
            "2024-01-08,Chelsea,Spurs,1-0\n").encode()
    error = refused(data)
    assert "more than a half-time score" in error.reason and error.row == 2
    assert error.column == "Score"


# ------------------------------------------------------------ MTurk batch results
MTURK_FIELDS = ("HITId,HITTypeId,Title,Description,Keywords,Reward,CreationTime,MaxAssignments,"
                "RequesterAnnotation,AssignmentDurationInSeconds,AutoApprovalDelayInSeconds,"
                "Expiration,NumberOfSimilarHITs,LifetimeInSeconds,AssignmentId,WorkerId,"
                "AssignmentStatus,AcceptTime,SubmitTime,AutoApprovalTime,ApprovalTime,"
                "RejectionTime,RequesterFeedback,WorkTimeInSeconds,LifetimeApprovalRate,"
                "Last30DaysApprovalRate,Last7DaysApprovalRate")


def mturk(answer_titles: str, answers: list[str], annotation: bool = True) -> bytes:
    rows = [f"{MTURK_FIELDS},{answer_titles},Approve,Reject"]
    for k, answer in enumerate(answers):
        worker = f"A{k % 2}WORKER"
        rows.append(
            f"3XH{k},3NSV,Which photo is better?,Pick the better photo,\"photo, image\",$0.05,"
            f"Tue Mar 05 10:00:00 PST 2024,3,"
            f"{'BatchId:5012345;OriginalHitTemplateId:928390909;' if annotation else ''},3600,"
            f"259200,Fri Mar 08 10:00:00 PST 2024,,,3IO{k},{worker},Submitted,"
            f"Tue Mar 05 10:12:00 PST 2024,Tue Mar 05 10:12:44 PST 2024,"
            f"Fri Mar 08 10:12:44 PST 2024,,,,44,0% (0/0),0% (0/0),0% (0/0),{answer},,")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("annotation", [True, False])
def test_mturk_batch_results_are_read_from_the_answers_not_mturks_own_fields(annotation):
    data = mturk("Answer.rank_beach,Answer.rank_forest,Answer.rank_city",
                 ["1,2,3", "2,1,3", "1,3,2", "1,2,3"], annotation)
    read = read_file(data)
    assert read.report.layout == "ranks"
    assert [n.split("_")[-1] for n in read.preferences.item_names] == ["beach", "forest", "city"]
    assert read.preferences.n_rankers == 2


def test_mturk_true_false_choices_per_photo_are_pairwise_comparisons():
    data = mturk("Input.photo_a,Input.photo_b,Answer.preferred.photo_a,Answer.preferred.photo_b",
                 ["beach.jpg,forest.jpg,false,true", "forest.jpg,city.jpg,false,true",
                  "city.jpg,beach.jpg,true,false", "beach.jpg,forest.jpg,true,false"])
    read = read_file(data)
    assert read.report.layout == "pairwise"
    prefs = read.preferences
    assert [[prefs.item_names[i] for i in r] for r in prefs.to_lists()] == [
        ["forest.jpg", "beach.jpg"], ["city.jpg", "forest.jpg"], ["city.jpg", "beach.jpg"],
        ["beach.jpg", "forest.jpg"]]


# ------------------------------------------------------------ a rating question
def test_columns_asking_for_a_rating_are_refused_as_ratings_on_any_platform():
    rows = ["5,3,1,4,4,2", "4,5,1,2,3,3", "5,4,2,1,3,3"]
    titles = ",".join(f"Rate our pizzas: {p}" for p in
                      ("Margherita", "Pepperoni", "Hawaiian", "Veggie", "Calzone", "Marinara"))
    data = (f"Submission Date,Full Name,E-mail,{titles},Submission ID\n" + "".join(
        f"\"Mar 5, 2024\",P{k},p{k}@example.com,{r},58591234567890{k}\n"
        for k, r in enumerate(rows))).encode()
    error = refused(data)
    assert "asks for a rating" in error.reason and "--one-is-worst" in error.fix
    read = read_file(data, options=ReadOptions(one_is_best=False)).preferences
    assert read.item_names[read.to_lists()[0][0]] in ("Margherita", "Marinara")


def test_columns_asking_for_an_order_with_rating_words_are_still_ranks():
    data = (b"Respondent,Rank the star ratings you trust: Critic,"
            b"Rank the star ratings you trust: Friends,Rank the star ratings you trust: Stars\n"
            b"r1,1,2,3\nr2,2,1,3\nr3,1,3,2\n")
    assert read_file(data).report.layout == "ranks"


# ------------------------------------------------------------ podiums
@pytest.mark.parametrize("titles", ["Event,Gold,Silver,Bronze", "Year,Winner,Runner-up,Third place",
                                    "Season,Champion,Runner-up,Third",
                                    "Date,Event,Gold,Silver,Bronze"])
def test_a_podium_table_is_one_ranking_per_row_gold_first(titles):
    rows = [["USA", "JAM", "GBR"], ["JAM", "USA", "CAN"], ["USA", "GBR", "JAM"],
            ["KEN", "USA", "GBR"]]
    lead = len(titles.split(",")) - 3
    data = (titles + "\n" + "".join(
        ",".join([f"2024-0{k + 1}-01", f"E{k}"][-lead:] + row) + "\n"
        for k, row in enumerate(rows))).encode()
    read = read_file(data)
    assert read.report.layout == "wide"
    assert orders(data) == rows


def test_items_named_as_medals_holding_ranks_are_still_ranked():
    data = b"Respondent,Gold,Silver,Bronze\nr1,1,2,3\nr2,2,1,3\nr3,3,1,2\n"
    read = read_file(data)
    assert read.report.layout == "ranks"
    assert orders(data)[0] == ["Gold", "Silver", "Bronze"]


# ------------------------------------------------------------ judges as columns
@pytest.mark.parametrize("rows_title", ["Country", "Name", "Participant"])
def test_judges_ranking_the_rows_down_their_columns_are_read_whatever_the_rows_title(
        rows_title):
    data = (f"{rows_title},Juror A,Juror B,Juror C,Juror D\nSweden,1,2,3,4\nItaly,2,1,4,3\n"
            "Spain,3,4,1,1\nFrance,4,3,2,2\n").encode()
    read = read_file(data)
    assert orders(data) == [["Sweden", "Italy", "Spain", "France"],
                            ["Italy", "Sweden", "France", "Spain"],
                            ["Spain", "France", "Sweden", "Italy"],
                            ["Spain", "France", "Italy", "Sweden"]]
    assert read.report.ranker_column == "Judge"


def test_respondents_ranking_judges_are_still_read():
    data = b"Respondent,Judge Adams,Judge Baker,Judge Cole\nr1,1,2,3\nr2,2,1,3\nr3,3,1,2\n"
    assert orders(data)[1] == ["Judge Baker", "Judge Adams", "Judge Cole"]


# ------------------------------------------------------------ checkbox questions
CHECKBOX_ANSWERS = ["Margherita, Pepperoni, Veggie", "Margherita, Hawaiian",
                    "Pepperoni, Hawaiian, Veggie", "Margherita, Pepperoni, Hawaiian, Veggie"]


@pytest.mark.parametrize("data", [
    ("Timestamp,Email Address,Which pizzas would you order? (select all that apply)\n" + "".join(
        f"2024/03/05 10:1{k}:44 AM GMT+1,p{k}@example.com,\"{a}\"\n"
        for k, a in enumerate(CHECKBOX_ANSWERS))).encode(),
    ("Id,Start time,Completion time,Email,Name,Which pizzas would you order?\n" + "".join(
        f"{k},3/5/24 10:1{k}:00,3/5/24 10:2{k}:00,p{k}@x.org,P{k},{a.replace(', ', ';')};\n"
        for k, a in enumerate(CHECKBOX_ANSWERS))).encode(),
])
def test_options_ticked_in_a_checkbox_question_are_not_rankings(data):
    error = refused(data)
    assert "one fixed order ('Margherita', 'Pepperoni', 'Hawaiian', 'Veggie')" in error.reason
    assert "checkbox question" in error.reason


def test_rankings_that_disagree_in_one_cell_are_still_read():
    answers = ["Margherita, Pepperoni, Veggie", "Hawaiian, Margherita", "Veggie, Pepperoni",
               "Pepperoni, Margherita, Hawaiian, Veggie"]
    data = ("Timestamp,Rank the pizzas you would order\n" + "".join(
        f"2024/03/05 10:1{k}:44,\"{a}\"\n" for k, a in enumerate(answers))).encode()
    assert orders(data)[1] == ["Hawaiian", "Margherita"]


def test_surveymonkey_ticked_boxes_naming_their_own_column_are_refused():
    data = (b"Respondent ID,Collector ID,Start Date,End Date,Which pizzas would you order?,,,\n"
            b",,,,Margherita,Pepperoni,Hawaiian,Veggie\n"
            b"1142,4311,03/05/2024 10:12,03/05/2024 10:14,Margherita,Pepperoni,,Veggie\n"
            b"1143,4311,03/05/2024 10:15,03/05/2024 10:16,Margherita,,Hawaiian,\n"
            b"1144,4311,03/05/2024 11:01,03/05/2024 11:02,,Pepperoni,Hawaiian,Veggie\n")
    error = refused(data)
    assert "its own column's title" in error.reason and error.column == "Margherita"


def test_a_wide_ranking_whose_names_match_the_titles_in_another_order_is_read():
    data = b"a,b,c\nb,a,c\nc,b,a\na,c,b\n"
    assert read_file(data).preferences.n_preferences >= 3


# ------------------------------------------------------------ a monthly rating list
def test_a_monthly_rating_list_is_one_ranking_per_month_not_per_games_count():
    data = (b"Month,Rank,Name,Rating,Games\nJan 2024,1,Carlsen,2830,0\n"
            b"Jan 2024,2,Caruana,2804,9\nJan 2024,3,Nakamura,2789,5\nFeb 2024,1,Carlsen,2830,5\n"
            b"Feb 2024,2,Nakamura,2794,0\nFeb 2024,3,Caruana,2790,4\n")
    read = read_file(data)
    assert "one ranking per 'Month'" in " ".join(read.report.notes)
    assert orders(data) == [["Carlsen", "Caruana", "Nakamura"], ["Carlsen", "Nakamura", "Caruana"]]


def test_rankings_that_agree_and_stop_early_are_still_read():
    answers = ["a > b", "a > b", "a > b > c", "a > b > c > d", "a"]
    data = ("voter,ranking\n" + "".join(f"v{k},{a}\n" for k, a in enumerate(answers))).encode()
    assert orders(data)[3] == ["a", "b", "c", "d"]


# ------------------------------------------------------------ ballots that stop early
def test_ballots_that_stop_early_say_how_they_are_read():
    data = (b'3 1\n4 1 0\n3 2 1 0\n2 3 2 1 0\n1 1 2 3 0\n0\n"Alice" "Bob" "Carol"\n'
            b'"Mayor 2024"\n')
    read = read_file(data, format="blt")
    notes = " ".join(read.report.notes)
    assert "3 of the 6 ballots read list only some of the 3 candidates" in notes
    assert "Skipped 1 ballot with fewer than 2 items" in notes


def test_complete_ballots_carry_no_such_note():
    data = b'3 1\n2 1 2 3 0\n1 3 2 1 0\n0\n"Alice" "Bob" "Carol"\n"Mayor 2024"\n'
    assert not any("list only some" in n for n in read_file(data, format="blt").report.notes)


# ------------------------------------------------------------ criteria, not items
def test_scores_per_criterion_are_refused_with_the_read_by_the_total():
    data = (b"Judge,Project,Creativity,Technical,Presentation,Total\n"
            b"Dr. Patel,Volcano,8,7,9,24\nDr. Patel,Solar Car,9,10,8,27\n"
            b"Dr. Patel,Plant Growth,7,8,8,23\nMs. Lee,Volcano,7,7,8,22\n"
            b"Ms. Lee,Solar Car,9,9,9,27\nMs. Lee,Plant Growth,8,6,7,21\n")
    error = refused(data)
    assert "'Creativity', 'Technical', 'Presentation' name criteria" in error.reason
    assert "one 'Project'" in error.reason
    assert "--format long --items Project Total --one-is-worst" in error.fix
    read = read_file(data, format="long", options=ReadOptions(
        item_columns=("Project", "Total"), one_is_best=False))
    assert orders(data, format="long", options=ReadOptions(
        item_columns=("Project", "Total"), one_is_best=False))[0][0] == "Solar Car"
    assert read.preferences.n_rankers == 2


def test_a_preference_dataset_of_attribute_scores_is_refused():
    records = [{"prompt": f"question {k}", "response": f"answer {k}", "helpfulness": h,
                "correctness": c, "coherence": 4, "complexity": 2, "verbosity": v}
               for k, (h, c, v) in enumerate([(3, 4, 1), (4, 4, 2), (2, 3, 1), (4, 3, 2)])]
    data = "\n".join(json.dumps(r) for r in records).encode()
    error = refused(data)
    assert "name criteria" in error.reason and "one 'response'" in error.reason


def test_items_that_are_not_criteria_beside_one_that_is_are_read():
    data = b"voter,Tea,Coffee,Clarity\nv1,1,2,3\nv2,2,1,3\nv3,3,1,2\n"
    assert read_file(data).report.layout == "ranks"


# ------------------------------------------------------------ a Doodle poll
def test_a_doodle_poll_with_its_count_row_is_refused_as_availabilities():
    data = (b"Name,Mon 3 June,Tue 4 June,Wed 5 June\nAnna,OK,,OK\nBen,OK,(OK),\n"
            b"Cara,,OK,OK\nDave,OK,OK,(OK)\nCount,3,2,2\n")
    error = refused(data)
    assert "grid of approvals or availabilities" in error.reason


# ------------------------------------------------------------ judges' scores down columns
WINE_SCORES = (b"Wine,Parker,Robinson,Johnson,Suckling,Galloni\nChateau A,5,4,5,4,5\n"
               b"Chateau B,3,3,2,3,4\nChateau C,4,5,4,5,3\nChateau D,2,2,3,2,2\n"
               b"Chateau E,1,3,1,2,1\nChateau F,4,4,3,4,4\n")


@pytest.mark.parametrize("worst", [False, True])
def test_critics_scoring_the_wines_down_their_columns_are_refused_with_the_transpose(worst):
    error = refused(WINE_SCORES, options=ReadOptions(one_is_best=not worst))
    assert "each column is probably one judge's scores of the rows" in error.reason
    assert "Transpose" in error.fix and "'Judge'" in error.fix
    assert "--format ranks" in error.fix


def test_transposed_decimal_scores_read_with_the_layout_the_fix_names():
    data = WINE_SCORES.replace(b",5", b",5.5").replace(b",3", b",3.25")
    assert "each column is probably one judge's scores" in refused(data).reason
    import pandas as pd

    table = pd.read_csv(io.BytesIO(data)).set_index("Wine").T
    table.index.name = "Judge"
    read = read_file(table.to_csv().encode(), "ranks",
                     options=ReadOptions(one_is_best=False))
    first = read.preferences.to_lists(names=True)[0]
    assert read.preferences.n_rankers == 5
    assert first[0] == "Chateau A" and first[-1] == "Chateau E"


def test_the_transposed_wine_scores_read_as_the_fix_says():
    import pandas as pd

    table = pd.read_csv(io.BytesIO(WINE_SCORES)).set_index("Wine").T
    table.index.name = "Judge"
    data = table.to_csv().encode()
    read = read_file(data, options=ReadOptions(one_is_best=False))
    assert read.preferences.n_rankers == 5
    first = read.preferences.to_lists(names=True)[0]
    assert first[0] == "Chateau A" and first[-1] == "Chateau E"


def test_scores_with_ties_not_written_as_ranks_under_plain_titles_are_still_ratings():
    rows = ["4,0,3,3,4", "0,1,3,3,2", "1,0,4,3,2", "0,1,4,2,0", "3,1,4,2,3", "3,2,4,2,3"]
    data = ("voter,Alpha,Beta,Gamma,Delta,Epsilon\n" + "".join(
        f"v{k},{r}\n" for k, r in enumerate(rows))).encode()
    error = refused(data)
    assert "look like ratings or scores" in error.reason and error.row == 2


@pytest.mark.parametrize("event", ["Apparatus", "Discipline"])
def test_results_split_by_apparatus_or_discipline_are_one_ranking_each(event):
    data = (f"{event},Rank,Gymnast,Nation,Total\nVault,1,Biles,USA,15.933\n"
            "Vault,2,Andrade,BRA,15.000\nVault,3,Yeo,PRK,14.633\nBeam,1,Andrade,BRA,14.066\n"
            "Beam,2,Biles,USA,14.000\nBeam,3,Yeo,PRK,13.500\n").encode()
    assert orders(data) == [["Biles", "Andrade", "Yeo"], ["Andrade", "Biles", "Yeo"]]


def test_a_league_table_is_refused_with_the_read_by_its_pts_column():
    data = (b"Season,Team,Pld,W,D,L,GF,GA,GD,Pts\n2022,City,38,28,5,5,94,33,61,89\n"
            b"2022,Arsenal,38,26,6,6,88,43,45,84\n2022,United,38,23,6,9,58,43,15,75\n"
            b"2023,Arsenal,38,28,5,5,91,29,62,89\n2023,City,38,28,7,3,96,34,62,91\n"
            b"2023,United,38,18,6,14,57,58,-1,60\n")
    # 'Pts' is higher-better in a league and lower-better in sailing: the file must say
    error = refused(data)
    assert "--items Team Pts --one-is-worst" in error.fix
    read = read_file(data, format="long", options=ReadOptions(
        item_columns=("Team", "Pts"), one_is_best=False))
    assert read.preferences.to_lists(names=True) == [["City", "Arsenal", "United"],
                                                     ["City", "Arsenal", "United"]]


def test_a_blank_place_beside_a_dnf_time_does_not_disagree_with_the_time():
    data = (b"Race,Place,Name,Time\nR1,1,Ann,30:01\nR1,2,Bob,31:10\nR1,,Cat,DNF\nR1,3,Dan,32:00\n"
            b"R2,1,Cat,29:50\nR2,2,Dan,30:40\nR2,3,Ann,31:00\nR2,,Bob,DNS\n")
    prefs = read_file(data).preferences
    assert prefs.to_lists(names=True) == [["Ann", "Bob", "Dan", "Cat"], ["Cat", "Dan", "Ann"]]


def test_whole_transcripts_as_chosen_and_rejected_are_refused_as_one_off_answers():
    records = [{"chosen": f"\n\nHuman: question {k}?\n\nAssistant: yes {k}.",
                "rejected": f"\n\nHuman: question {k}?\n\nAssistant: no {k}."} for k in range(3)]
    error = refused("\n".join(json.dumps(r) for r in records).encode())
    assert "one-off answers" in error.reason and "several lines" not in error.reason


# ------------------------------------------------------------ a review's misfires, read as before
MISFIRES = [
    ('skills.csv', (
        b'Respondent,Communication,Teamwork,Creativity,Leadership\n'
        b'Ann,1,2,3,4\n'
        b'Bob,2,1,4,3\n'
        b'Cy,1,3,2,4\n'
        b'Dee,3,1,2,4\n'
     ), 'Communication'),
    ('starwars.csv', (
        b'RespondentID,Star Wars: Episode IV A New Hope,Star Wars: Episode V The Empire St'
        b'rikes Back,Star Wars: Episode VI Return of the Jedi\n'
        b'1,2,1,3\n'
        b'2,1,2,3\n'
        b'3,3,1,2\n'
        b'4,2,1,3\n'
     ), 'Episode V The Empire Strikes Back'),
    ('rank_model.csv', (
        b'prompt,rank1,rank2,rank3,model1,model2,model3\n'
        b'p1,gpt,claude,llama,gpt,claude,llama\n'
        b'p2,claude,gpt,llama,gpt,claude,llama\n'
        b'p3,llama,gpt,claude,gpt,claude,llama\n'
     ), 'gpt'),
    ('tiers.csv', (
        b'Respondent,Bronze,Silver,Gold,Platinum\n'
        b'Ann,4,3,2,1\n'
        b'Bob,3,4,1,2\n'
        b'Cy,4,2,3,1\n'
     ), 'Platinum'),
    ('mturk_processed.csv', (
        b'HITId,AssignmentId,WorkerId,first,second,third\n'
        b'h1,a1,w1,A,B,C\n'
        b'h1,a2,w2,B,A,C\n'
        b'h2,a3,w3,A,C,B\n'
     ), 'A'),
    ('gform.csv', (
        b'Timestamp,Email Address,List your favourite pizzas in order (best first)\n'
        b'2024/01/02 10:00:00 AM GMT,a@x.com,"Margherita, Pepperoni, Hawaiian"\n'
        b'2024/01/02 10:01:00 AM GMT,b@x.com,"Margherita, Veggie"\n'
        b'2024/01/02 10:02:00 AM GMT,c@x.com,"Pepperoni, Hawaiian, Veggie"\n'
        b'2024/01/02 10:03:00 AM GMT,d@x.com,"Margherita, Hawaiian"\n'
        b'2024/01/02 10:04:00 AM GMT,e@x.com,"Margherita, Pepperoni, Veggie"\n'
     ), 'Margherita'),
    ('rank_critics.csv', (
        b'Reader,Critic A,Critic B,Critic C\n'
        b'R1,1,2,3\n'
        b'R2,3,1,2\n'
        b'R3,2,3,1\n'
     ), 'Critic A'),
    ('olympics.csv', (
        b'Games,Event,Athlete,Rank\n'
        b'2012,100m,Bolt,1\n'
        b'2012,100m,Blake,2\n'
        b'2012,100m,Gatlin,3\n'
        b'2016,100m,Bolt,1\n'
        b'2016,100m,Gatlin,2\n'
        b'2016,100m,De Grasse,3\n'
        b'2012,200m,Bolt,1\n'
        b'2012,200m,Blake,2\n'
        b'2012,200m,Lemaitre,3\n'
        b'2016,200m,Bolt,1\n'
        b'2016,200m,De Grasse,2\n'
        b'2016,200m,Lemaitre,3\n'
     ), 'Bolt'),
    ('ballots_choices.json', (
        b'[{"voter": "v1", "choices": ["Alice", "Bob", "Carol"]},\n'
        b' {"voter": "v2", "choices": ["Bob", "Alice", "Carol"]},\n'
        b' {"voter": "v3", "choices": ["Alice", "Carol", "Bob"]},\n'
        b' {"voter": "v4", "choices": ["Carol", "Alice"]}]\n'
     ), 'Alice'),
    ('ranked_answers.json', (
        b'[{"question": "q1", "ranked_answers": ["a2", "a1", "a3"]},\n'
        b' {"question": "q1", "ranked_answers": ["a1", "a2", "a3"]},\n'
        b' {"question": "q1", "ranked_answers": ["a2", "a3", "a1"]}]\n'
     ), 'a2'),
]


@pytest.mark.parametrize("name, data, first", MISFIRES, ids=[m[0] for m in MISFIRES])
def test_files_the_new_rules_first_misread_are_read_as_before(name, data, first):
    prefs = read_file(data).preferences
    assert prefs.to_lists(names=True)[0][0] == first


# ------------------------------------------------------------ a second review's misfires
XC_ROUNDS = (b"Event,Pos,Name,Club,Category,Time\nXC Round 1,1,Ann Lee,Harriers,SEN,20:01\n"
             b"XC Round 1,2,Bea Moss,AC,V35,20:15\nXC Round 1,3,Cara Pike,Harriers,SEN,20:40\n"
             b"XC Round 2,1,Bea Moss,AC,V35,19:55\nXC Round 2,2,Ann Lee,Harriers,SEN,20:10\n"
             b"XC Round 2,3,Cara Pike,Harriers,SEN,21:15\n")


@pytest.mark.parametrize("title", ["Category", "Division"])
def test_a_category_describing_the_runner_does_not_split_the_rounds(title):
    data = XC_ROUNDS.replace(b"Category", title.encode())
    assert orders(data) == [["Ann Lee", "Bea Moss", "Cara Pike"],
                            ["Bea Moss", "Ann Lee", "Cara Pike"]]


def test_the_month_a_race_was_held_does_not_split_it_further():
    data = (b"Month,Race,Pos,Name,Time\nApril,Spring 5k,1,Ann,18:00\nApril,Spring 5k,2,Bea,19:00\n"
            b"April,Spring 10k,1,Bea,18:00\nApril,Spring 10k,2,Ann,19:00\n"
            b"May,May 5k,1,Ann,18:00\nMay,May 5k,2,Bea,20:00\n")
    assert orders(data) == [["Ann", "Bea"], ["Bea", "Ann"], ["Ann", "Bea"]]


@pytest.mark.parametrize("title", ["Winner", "Champion"])
def test_a_winner_column_beside_places_is_another_question(title):
    data = (f"Judge,1st,2nd,3rd,{title}\nJ1,Ann,Bea,Cara,Ann\nJ2,Bea,Ann,Cara,Bea\n"
            "J3,Ann,Cara,Bea,Ann\n").encode()
    assert orders(data) == [["Ann", "Bea", "Cara"], ["Bea", "Ann", "Cara"],
                            ["Ann", "Cara", "Bea"]]


def test_skills_ranked_with_a_few_ties_are_ranks_not_criteria():
    data = (b"Student,Communication,Teamwork,Creativity,Technical,Leadership\n"
            b"s1,1,2,3,4,5\ns2,2,1,3,3,5\ns3,1,1,2,3,4\ns4,3,2,1,4,5\ns5,2,1,3,4,4\n"
            b"s6,1,2,2,3,4\n")
    assert read_file(data).report.layout == "ranks"


# ------------------------------------------------------------ tennis set scores
def test_tennis_set_scores_are_read_by_the_sets_won_and_a_walkover_is_skipped():
    data = (b"Round,Player 1,Player 2,Score\nR32,Sinner,Khachanov,6-4 7-5 6-3\n"
            b"R16,Medvedev,Hurkacz,6-4 3-6 7-6(5)\nQF,Rublev,Sinner,4-6 6-7(5) 3-6\n"
            b"F,Sinner,Medvedev,3-6 3-6 6-4 6-4 6-3\nR16,Zverev,Alcaraz,W/O\n")
    read = read_file(data)
    assert read.preferences.to_lists(names=True) == [
        ["Sinner", "Khachanov"], ["Medvedev", "Hurkacz"], ["Sinner", "Rublev"],
        ["Sinner", "Medvedev"]]
    assert any("decided without a game (a forfeit or walkover): row 6" in n
               for n in read.report.notes)


def test_a_retirement_beside_set_scores_is_refused_with_the_final_result():
    data = b"Round,Player 1,Player 2,Score\nR16,Hurkacz,Medvedev,3-6 1-0 ret.\nR16,A,B,6-1 6-2\n"
    error = refused(data)
    assert "a retirement" in error.reason and error.row == 2


@pytest.mark.parametrize("forfeit", ["+ - -", "- - +", "- - -"])
def test_a_chess_forfeit_is_skipped_as_no_game(forfeit):
    data = (f"Round,White,Result,Black\n1,Carlsen,1 - 0,Giri\n1,Ding,0 - 1,Carlsen\n"
            f"2,Giri,{forfeit},Ding\n").encode()
    read = read_file(data)
    assert read.preferences.to_lists(names=True) == [["Carlsen", "Giri"], ["Carlsen", "Ding"]]
    assert any("row 4" in n for n in read.report.notes)
