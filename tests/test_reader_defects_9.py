"""Reader defects found by probing real export layouts (ninth batch)."""

import json

import numpy as np
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file
from tests.test_reader_defects_8 import orders, refused


# ------------------------------------------------------------ nested scores in JSON
def scored(beta: str) -> bytes:
    rows = [("alpha", "3", "beta", beta, "gamma", "1"), ("alpha", "2", "beta", "5", "gamma", "1"),
            ("alpha", "4", "beta", "1", "gamma", "3")]
    def completion(model: str, score: str) -> str:
        return f'{{"model": "{model}", "score": {score}}}'

    records = ",".join(
        f'{{"prompt": "q{k}", "completions": ['
        + ",".join(completion(row[j], row[j + 1]) for j in (0, 2, 4)) + "]}"
        for k, row in enumerate(rows))
    return f"[{records}]".encode()


@pytest.mark.parametrize("missing", ["NaN", "null"])
def test_a_missing_nested_score_leaves_that_item_out_not_the_whole_ranking(missing):
    assert orders(scored(missing)) == [["alpha", "gamma"], ["beta", "alpha", "gamma"],
                                       ["alpha", "gamma", "beta"]]


@pytest.mark.parametrize("infinite", ["Infinity", "-Infinity"])
def test_an_infinite_nested_score_is_refused_where_it_stands(infinite):
    error = refused(scored(infinite))
    assert error.row == 1 and error.column == "completions.score"
    assert "'beta'" in error.reason and "finite" in error.fix


def test_json_lines_name_the_line_of_an_infinite_nested_score():
    lines = [json.dumps({"p": k, "answers": [{"model": "a", "score": 1}, {"model": "b",
                                                                          "score": 2}]})
             for k in range(3)]
    lines.insert(2, "")
    lines[3] = lines[3].replace('"score": 2', '"score": Infinity')
    assert refused("\n".join(lines).encode()).row == 4


# ------------------------------------------------------------ 'Anonymous' read in chunks
def by_named_ranker(prefs) -> tuple[dict, int]:
    """(winner, loser, tied, ranker or None for anyone anonymous) -> weight, and how many
    anonymous rankers there are."""
    names = prefs.ranker_names or ()
    anonymous = {k for k, n in enumerate(names) if n.startswith("(")}
    out: dict = {}
    for (w, lose), g, weight, r in zip(prefs.items.reshape(-1, 2), prefs.groups[1::2],
                                       prefs.weights, prefs.rankers):
        key = (prefs.item_names[w], prefs.item_names[lose], int(g) == 0,
               None if r in anonymous else names[r])
        out[key] = out.get(key, 0.0) + float(weight)
    return out, len(anonymous)


def judged(tmp_path, judge, count: bool = False):
    lines = ["model_a,model_b,winner,judge" + (",n" * count)]
    lines += [f"m{k % 5},m{(k + 2) % 5},{('model_a', 'model_b', 'tie')[k % 3]},{judge(k)}"
              + (f",{1 + k % 2}" * count) for k in range(300)]
    path = tmp_path / "judged.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_anonymous_judges_read_in_chunks_are_each_their_own_as_in_one_piece(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = judged(tmp_path, lambda k: " Anonymous" if k % 3 == 1 else f"user{k % 4}")
    whole = read_file(path.read_bytes()).preferences
    chunked = stream_pairwise(path, chunk_bytes=2_000).preferences
    assert by_named_ranker(chunked) == by_named_ranker(whole)
    assert by_named_ranker(chunked)[1] == 100
    assert "100 comparisons name no one in 'judge' ('Anonymous')" in " ".join(chunked.notes)


def test_a_file_whose_every_judge_is_anonymous_is_read_without_rankers_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = judged(tmp_path, lambda k: ("anonymous", "Anon", "N/A")[k % 3])
    chunked = stream_pairwise(path, chunk_bytes=2_000)
    assert chunked.preferences.rankers is None and chunked.report.ranker_column is None
    assert read_file(path.read_bytes()).preferences.rankers is None


def test_counted_anonymous_comparisons_keep_their_weights_in_chunks(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = judged(tmp_path, lambda k: "anonymous" if k % 2 else f"user{k % 4}", count=True)
    chunked, anonymous = by_named_ranker(stream_pairwise(path, chunk_bytes=2_000).preferences)
    whole, _ = by_named_ranker(read_file(path.read_bytes()).preferences)
    assert chunked == whole and anonymous > 1


# ------------------------------------------------------------ Dask partitions
def test_dask_partitions_start_at_records_when_the_first_quote_comes_late(tmp_path):
    from coarsenrank_core.io.streaming import record_starts

    lines = ["model_a,model_b,winner,prompt"]
    lines += [f"m{k % 4},m{(k + 1) % 4},model_a,plain prompt {k}" for k in range(600)]
    lines += [f'm{k % 4},m{(k + 1) % 4},model_b,"a prompt {k}\nover two lines, quoted"'
              for k in range(300)]
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = path.read_bytes()
    starts = record_starts(path, range(100, len(data), 997), block_bytes=1000)
    assert len(starts) == len(range(100, len(data), 997))
    for bound, start in zip(range(100, len(data), 997), starts):
        assert start >= bound
        assert data[start - 1:start] == b"\n" and data[:start].count(b'"') % 2 == 0
        earlier = [p + 1 for p in range(bound - 1, start) if data[p:p + 1] == b"\n"
                   and data[:p].count(b'"') % 2 == 0]
        assert earlier == [start]  # the first record that starts at or after the bound


# ------------------------------------------------------------ Nectar: ranked answers
NECTAR_ORDERS = [["gpt-4", "llama", "alpaca", "vicuna"], ["vicuna", "gpt-4", "alpaca", "llama"],
                 ["alpaca", "llama", "vicuna", "gpt-4"], ["gpt-4", "vicuna", "llama", "alpaca"],
                 ["llama", "gpt-4", "vicuna", "alpaca"], ["gpt-4", "alpaca", "vicuna", "llama"]]


def nectar_records() -> list[dict]:
    records = []
    for k, order in enumerate(NECTAR_ORDERS):
        answers = [{"answer": f"{model} answers prompt {k}", "model": model,
                    "rank": float(order.index(model) + 1)} for model in sorted(order)]
        records.append({"prompt": f"Human: prompt {k}\n\nAssistant:", "answers": answers,
                        "turns": 1, "num_responses": len(order),
                        "source": ["lmsys-chat-1m"], "good_natured": True})
    return records


def test_nectar_answers_are_read_by_their_ranks_beside_counts_and_flags():
    data = "\n".join(json.dumps(r) for r in nectar_records()).encode()
    assert orders(data) == NECTAR_ORDERS
    assert read_file(data).report.item_columns == ("answers.rank",)


def test_nectar_as_parquet_is_read_as_its_json():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import io

    buffer = io.BytesIO()
    pd.DataFrame(nectar_records()).to_parquet(buffer)
    assert orders(buffer.getvalue()) == NECTAR_ORDERS


def test_parquet_conversations_read_as_json_data_not_as_rankings_of_objects():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import io

    frame = pd.DataFrame({"prompt": [f"p{k}" for k in range(4)],
                          "chosen": [[{"content": f"p{k}", "role": "user"},
                                      {"content": f"good {k}", "role": "assistant"}]
                                     for k in range(4)],
                          "rejected": [[{"content": f"p{k}", "role": "user"},
                                        {"content": f"bad {k}", "role": "assistant"}]
                                       for k in range(4)]})
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    error = refused(buffer.getvalue())
    assert "one-off answers" in error.reason and '[{"content": "p0"' in error.reason


# ------------------------------------------------------------ a pick by position in a list
SFF = [("sup2", "ref", 1, "w1"), ("ref", "ppo", 0, "w2"), ("ppo", "sup2", 0, "w1"),
       ("sup2", "ppo", 1, "w3"), ("ref", "sup2", 0, "w2"), ("ppo", "ref", 1, "w3")]


def sff_records(rows=SFF) -> list[dict]:
    return [{"info": {"id": f"t3_{k}", "post": f"post {k}", "subreddit": "tifu"},
             "split": "train",
             "summaries": [{"text": f"summary {k} by {a}", "policy": a, "note": None},
                           {"text": f"summary {k} by {b}", "policy": b, "note": None}],
             "choice": choice, "worker": worker, "batch": f"batch{k % 2}", "extra": {}}
            for k, (a, b, choice, worker) in enumerate(rows)]


def chosen_pairs(prefs) -> list[tuple[str, str, str]]:
    return [(*(prefs.item_names[i] for i in ranking), prefs.ranker_names[r])
            for ranking, r in zip(prefs.to_lists(), prefs.rankers)]


EXPECTED_SFF = [("ref", "sup2", "w1"), ("ref", "ppo", "w2"), ("ppo", "sup2", "w1"),
                ("ppo", "sup2", "w3"), ("ref", "sup2", "w2"), ("ref", "ppo", "w3")]


@pytest.mark.parametrize("lines", [True, False])
def test_summaries_picked_by_position_are_read_as_the_picked_policy_over_the_other(lines):
    records = sff_records()
    data = ("\n".join(map(json.dumps, records)) if lines else json.dumps(records)).encode()
    result = read_file(data)
    assert chosen_pairs(result.preferences) == EXPECTED_SFF
    assert result.report.ranker_column == "worker"


def test_summaries_picked_by_position_in_parquet_read_as_in_json():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import io

    frame = pd.DataFrame(sff_records()).drop(columns="extra")
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    assert chosen_pairs(read_file(buffer.getvalue()).preferences) == EXPECTED_SFF


def test_a_pick_outside_its_list_is_never_read_as_a_choice():
    records = sff_records()
    records[2]["choice"] = 2
    with pytest.raises(PreferenceFormatError):
        read_file(json.dumps(records).encode())


def test_a_comparison_of_a_policy_with_itself_ranks_nothing():
    result = read_file(json.dumps(sff_records([*SFF, ("ref", "ref", 1, "w4")])).encode())
    assert chosen_pairs(result.preferences) == EXPECTED_SFF
    assert "Skipped 1 row with fewer than 2 items: row 7" in " ".join(result.report.notes)


# ------------------------------------------------------------ polls of availabilities
DOODLE_TOP = "Team lunch\nPoll created by Jane Doe\n\n"


@pytest.mark.parametrize("grid", [
    # at most one OK and one (OK) a person: no mark twice in a row
    ",Mon 5/13/24 11:00 AM,Mon 5/13/24 12:00 PM,Tue 5/14/24 12:30 PM\n"
    "Alice,OK,,(OK)\nBob,,OK,(OK)\nCarol,(OK),OK,\nDan,OK,(OK),\nCount,2,2,0\n",
    # a month row, a day row and a time row over the marks
    ",May 2024,,,\n,Mon 13,Tue 14,Wed 15,Thu 16\n"
    ",12:00 PM – 1:00 PM,12:00 PM – 1:00 PM,12:00 PM – 1:00 PM,12:00 PM – 1:00 PM\n"
    "Alice,OK,,(OK),OK\nBob,,OK,OK,OK\nCarol,OK,(OK),,OK\nDan,OK,OK,,(OK)\nCount,3,2,1,3\n",
    # ticks under dates, no title rows
    "Name,1 June,2 June,3 June\nAmy,✓,,✓\nBen,✓,✓,\nCal,,✓,\n"])
def test_a_poll_of_availabilities_is_refused_as_such_with_its_titles_around_it(grid):
    text = grid if grid.startswith("Name") else DOODLE_TOP + grid
    error = refused(text.encode())
    assert "availabilities" in error.reason and "approvals" in error.reason
    assert "appears twice" not in error.reason



# ------------------------------------------------------------ KoboToolbox and ODK
KOBO_META = ("_id", "_uuid", "_submission_time", "_validation_status", "_status",
             "__version__", "_index")
KOBO_ROWS = [("pizza pasta salad", "pasta pizza soup salad"), ("salad", "salad soup pizza pasta"),
             ("pizza soup", "pizza pasta salad soup"), ("pasta soup", "soup pasta salad pizza"),
             ("pizza salad soup", "pizza salad pasta soup")]
OPTIONS = ("pizza", "pasta", "salad", "soup")


def kobo(ticks: bool = True, rank: bool = True, separator: str = ",") -> bytes:
    titles = ["start", "end", "favs", *[f"favs/{o}" for o in OPTIONS] * ticks,
              *["meal_rank"] * rank, *KOBO_META]
    rows = [separator.join(f'"{t}"' for t in titles)]
    for k, (chosen, order) in enumerate(KOBO_ROWS):
        cells = [f"2024-05-02T10:1{k}:00.000+02:00", f"2024-05-02T10:2{k}:00.000+02:00",
                 chosen, *[str(int(o in chosen.split())) for o in OPTIONS] * ticks,
                 *[order] * rank, str(1000 + k), f"a1b2-{k}", "2024-05-02T08:30:00", "",
                 "submitted_via_web", "vW3xk9Qe8", str(k + 1)]
        rows.append(separator.join(f'"{c}"' for c in cells))
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("ticks", [True, False])
@pytest.mark.parametrize("separator", [",", ";"])
def test_a_kobo_rank_question_is_read_beside_a_multiple_choice_one(ticks, separator):
    result = read_file(kobo(ticks=ticks, separator=separator))
    assert result.report.item_columns == ("meal_rank",)
    assert orders(kobo(ticks=ticks, separator=separator)) == [o.split() for _, o in KOBO_ROWS]


def test_kobo_ticks_are_said_to_be_a_multiple_choice_question():
    skipped = " ".join(read_file(kobo()).report.skipped_columns)
    assert "favs (a multiple-choice question" in skipped
    assert "favs/pizza (the ticks of the multiple-choice question 'favs')" in skipped


def test_a_kobo_export_with_only_a_multiple_choice_question_is_refused_for_that():
    error = refused(kobo(rank=False))
    assert error.column == "favs" and "multiple-choice question" in error.reason
    assert "'rank'" in error.fix


def test_options_ticked_alone_are_not_sent_to_commas():
    error = refused(b"_id,favs\n1000,pizza pasta salad\n1001,salad\n1002,pizza soup\n"
                    b"1003,pasta soup\n")
    assert error.column == "favs" and "multiple-choice question" in error.reason
    assert error.fix.startswith("Ask for a ranking instead")


# ------------------------------------------------------------ one-off texts side by side
def test_webgpt_answers_side_by_side_are_refused_as_one_off_answers():
    records = [{"question": {"full_text": f"q{k}"}, "quotes_0": {"title": []},
                "answer_0": f"Answer zero for question {k}.", "tokens_0": [1, 2],
                "score_0": (0.0, 1.0, -1.0)[k % 3], "quotes_1": {"title": []},
                "answer_1": f"Answer one for question {k}.", "tokens_1": [3],
                "score_1": (-0.0, -1.0, 1.0)[k % 3]} for k in range(6)]
    error = refused("\n".join(map(json.dumps, records)).encode())
    assert "one-off answers" in error.reason and error.column == "answer_0"


def test_shp_references_side_by_side_are_refused_as_one_off_answers():
    rows = ["post_id,domain,upvote_ratio,history,c_root_id_A,c_root_id_B,created_at_utc_A,"
            "created_at_utc_B,score_A,score_B,human_ref_A,human_ref_B,labels,"
            "seconds_difference,score_ratio"]
    rows += [f"p{k},askacademia_train,0.9{k},post text {k},c{k}a,c{k}b,16{k},17{k},{k + 5},"
             f"{k + 1},answer A number {k},answer B number {k},{k % 2},{k * 10},{1.5 + k}"
             for k in range(6)]
    error = refused(("\n".join(rows) + "\n").encode())
    assert "one-off answers" in error.reason and error.column == "human_ref_A"


def test_an_item_column_blank_on_every_row_is_named_as_such():
    rows = ["message_id,parent_id,user_id,text,role,rank,model_name"]
    rows += [f"m{k},p{k // 3},u{k},reply {k},assistant,{k % 3}," for k in range(9)]
    error = refused(("\n".join(rows) + "\n").encode())
    assert error.column == "model_name" and "blank on every row" in error.reason


# ------------------------------------------------------------ gzip-compressed files
def test_a_gzipped_json_lines_file_reads_as_the_file_itself(tmp_path):
    import gzip

    plain = "\n".join(map(json.dumps, sff_records())).encode()
    path = tmp_path / "comparisons.jsonl.gz"
    path.write_bytes(gzip.compress(plain[:200]) + gzip.compress(plain[200:]))  # two members
    assert chosen_pairs(read_file(path).preferences) == EXPECTED_SFF
    assert read_file(path).report.file_name == "comparisons.jsonl"
    assert orders(gzip.compress(b"a,b,c\nx,y,z\ny,z,x\n")) == orders(b"a,b,c\nx,y,z\ny,z,x\n")


def test_a_gzip_file_unpacking_beyond_the_budget_is_refused_before_it_is_unpacked(
        monkeypatch):
    import gzip

    from coarsenrank_core.io import containers

    monkeypatch.setattr(containers, "MAX_PART_BYTES", 1 << 20)
    bomb = gzip.compress(b"a,b\n" + b"x,y\n" * (1 << 20), compresslevel=9)
    assert len(bomb) < 20_000
    error = refused(bomb)
    assert "unpacks to more than 1 MB" in error.reason and "--stream" in error.fix


def test_a_gzip_file_cut_short_is_refused_as_damaged():
    import gzip

    packed = gzip.compress(b"a,b,c\nx,y,z\ny,z,x\n" * 50)
    assert "damaged or cut short" in refused(packed[: len(packed) // 2]).reason


# ------------------------------------------------------------ chess crosstables
CROSSTABLE = """Springfield Open 2024
Final Ranking crosstable after 3 Rounds

Rk.,SNo,,Name,FED,Rtg,1.Rd,2.Rd,3.Rd,Pts.,TB1
1,1,GM,"Kowalski, Jan",POL,2550,4w1,3b1,2w½,2.5,0
2,2,IM,"Novak, Petr",CZE,2430,3w½,4b1,1b½,2,0
3,3,FM,"Schmidt, Lukas",GER,2350,2b½,1w0,4w+,1.5,0
4,5,,"Meyer, Anna",GER,2100,1b0,2w0,3b-,0,0
5,4,,"Dubois, Marc",FRA,2210,-1,-0,-0,1,0
"""


def games(data: bytes) -> list[tuple[str, ...]]:
    """Each game as (winner, loser), a draw as ('A = B',)."""
    prefs = read_file(data).preferences
    return sorted(tuple(" = ".join(sorted(prefs.item_names[i] for i in stage))
                        if isinstance(stage, frozenset) else prefs.item_names[stage]
                        for stage in ranking) for ranking in prefs.to_lists())


def test_a_crosstable_is_read_one_game_each_by_the_numbering_that_points_back():
    data = CROSSTABLE.encode()
    assert games(data) == sorted([
        ("Kowalski, Jan = Novak, Petr",), ("Kowalski, Jan", "Meyer, Anna"),
        ("Kowalski, Jan", "Schmidt, Lukas"), ("Novak, Petr = Schmidt, Lukas",),
        ("Novak, Petr", "Meyer, Anna")])
    note = " ".join(read_file(data).report.notes)
    assert "opponents by 'Rk.'" in note and "1 game won by forfeit" in note
    assert "'Dubois, Marc'" in note


def test_a_starting_rank_crosstable_numbers_opponents_by_their_starting_number():
    # the rows in final order, the opponents by SNo (Meyer is 5, Dubois 4)
    data = CROSSTABLE.replace("4w1,3b1", "5w1,3b1").replace("4b1,1b½", "5b1,1b½").replace(
        "1w0,4w+", "1w0,5w+").encode()
    note = " ".join(read_file(data).report.notes)
    assert "opponents by 'SNo'" in note
    assert ("Kowalski, Jan", "Meyer, Anna") in games(data)


def test_german_colours_are_read_and_a_game_not_pointing_back_is_refused():
    german = CROSSTABLE.replace("b1", "s1").replace("b½", "s½").replace("b0", "s0").replace(
        "b-", "s-")
    assert len(games(german.encode())) == 5
    error = refused(CROSSTABLE.replace("2w½,2.5", "3w½,2.5").encode())
    assert "do not point back" in error.reason and error.column == "1.Rd"


# ------------------------------------------------------------ misfires found in review
FOODS = ["Pizza", "Pasta", "Salad", "Soup"]


def food_orders(n: int) -> list[list[str]]:
    import itertools

    return [list(p) for p in itertools.islice(itertools.permutations(FOODS), 1, 24, 23 // n)][:n]


def csv_text(header: str, rows: list[str]) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


@pytest.mark.parametrize("data, column", [
    # a ballot beside the options as displayed, one fixed order
    (csv_text("voter,ballot,options_shown", [
        f'v{k},{" > ".join(o)},"Pizza, Pasta, Salad, Soup"' for k, o in enumerate(
            food_orders(8))]), "ballot"),
    # a top three beside the order the options were presented in, shuffled
    (csv_text("participant,presented_order,top3", [
        f'p{k},"{", ".join(o)}",{" > ".join(food_orders(8)[-1 - k][:3])}'
        for k, o in enumerate(food_orders(8))]), "top3"),
    # consent answers, some respondents stopping there
    (csv_text("Name,Consent,Over 18,Please rank the dishes", [
        f"P{k},Yes,Yes,{';'.join(o) if k % 3 == 0 else ''}"
        for k, o in enumerate(food_orders(9))]), "Please rank the dishes"),
    (csv_text("Timestamp,Consent,Please rank the foods (best first)", [
        f'2024/03/0{k + 1} 10:00:00 AM GMT,OK,"{", ".join(o) if k % 3 == 0 else ""}"'
        for k, o in enumerate(food_orders(9))]), "Please rank the foods (best first)"),
    # a ballot beside flags titled under its name
    (csv_text("voter,ballot,ballot/valid,ballot/complete", [
        f"v{k},{' > '.join(o)},true,{'true' if k % 2 else 'false'}"
        for k, o in enumerate(food_orders(6))]), "ballot"),
])
def test_new_rules_leave_these_rankings_as_they_were_read(data, column):
    assert read_file(data).report.item_columns == (column,)


def test_a_pick_never_of_the_first_object_is_not_read_as_counted_from_zero():
    records = [{"rater": f"r{k}", "options": [{"model": a}, {"model": b}], "preferred": 1}
               for k, (a, b) in enumerate([("vicuna", "llama"), ("vicuna", "claude"),
                                           ("llama", "claude"), ("claude", "vicuna")])]
    with pytest.raises(PreferenceFormatError):
        read_file(json.dumps(records).encode())


def test_a_pick_beside_scored_objects_or_a_ballot_leaves_their_ranking_alone():
    scored = [{"prompt": f"p{k}", "completions": [
        {"model": m, "overall_score": s} for m, s in zip(("gpt", "mistral", "claude"), scores)],
        "best": int(np.argmax(scores))} for k, scores in enumerate(
        [(5, 8, 7), (6, 4, 9), (9, 3, 1), (2, 7, 5)])]
    assert read_file(json.dumps(scored).encode()).report.item_columns == (
        "completions.overall_score",)
    ballots = [{"voter": f"v{k}", "ballot": o, "candidates": [{"name": n} for n in FOODS],
                "selected": k % 4} for k, o in enumerate(food_orders(6))]
    assert orders(json.dumps(ballots).encode()) == food_orders(6)


# ------------------------------------------------------------ results event by event
HYTEK = '''Springfield Swim Club - Organization License,HY-TEK's MEET MANAGER 8.0 - 10:42 AM
2024 Summer Invitational - 6/14/2024 to 6/15/2024
Results

Event 1  Girls 10 & Under 50 Yard Freestyle
Place,Name,Age,Team,Seed Time,Finals Time,Points
1,"Smith, Emma",10,SSC-MA,35.12,33.98,20
2,"Jones, Ava",9,WAVE-MA,34.80,34.21,17
3,"Lee, Mia",10,SSC-MA,33.01,35.40,16
,"Brown, Lily",9,WAVE-MA,35.50,DQ,
,"Davis, Chloe",10,DOLF-MA,37.02,NS,

Event 2  Girls 10 & Under 100 Yard IM
Place,Name,Age,Team,Seed Time,Finals Time,Points
1,"Jones, Ava",9,WAVE-MA,1:22.40,1:20.11,20
2,"Brown, Lily",9,WAVE-MA,1:21.00,1:21.50,17
3,"Smith, Emma",10,SSC-MA,NT,1:23.02,16

Event 3  Girls 10 & Under 200 Yard Freestyle Relay
Place,Team,Relay,Seed Time,Finals Time,Points
1,Springfield Swim Club-MA,A,2:20.11,2:18.45,40
2,Wave Aquatics-MA,A,2:22.50,2:21.07,34
'''


def test_results_printed_event_by_event_are_one_ranking_an_event():
    result = read_file(HYTEK.encode())
    prefs = result.preferences
    assert [[prefs.item_names[i] if not isinstance(i, frozenset) else "DQ" for i in r]
            for r in prefs.to_lists()] == [
        ["Smith, Emma", "Jones, Ava", "Lee, Mia", "Brown, Lily"],
        ["Jones, Ava", "Brown, Lily", "Smith, Emma"]]
    notes = " ".join(result.report.notes)
    assert "Read 2 sections" in notes and "'Event 3  Girls 10 & Under 200 Yard" in notes
    assert "not starting" in notes and "'DQ'" in notes


def test_a_blank_place_beside_a_disqualification_is_out_of_the_event_not_refused():
    flat = ("Event,Place,Name,Seed Time,Finals Time\n"
            "50 Free,1,Ann,35.1,33.9\n50 Free,2,Bea,34.8,34.2\n50 Free,,Cy,35.5,DQ\n"
            "50 Free,,Di,36.0,NS\n100 Free,1,Bea,1:10,1:09.5\n100 Free,2,Cy,1:12,1:11.0\n")
    prefs = read_file(flat.encode()).preferences
    assert prefs.to_lists(names=True) == [["Ann", "Bea", "Cy"], ["Bea", "Cy"]]


# ------------------------------------------------------------ one player's games
def test_a_game_log_of_player_opponent_and_a_result_from_the_players_side():
    log = b"Player,Opponent,Result\nAnn,Bob,W\nBob,Cy,D\nCy,Ann,L\nAnn,Cy,W\nBob,Ann,L\n"
    assert games(log) == sorted([("Ann", "Bob"), ("Bob = Cy",), ("Ann", "Cy"), ("Ann", "Cy"),
                                 ("Ann", "Bob")])


def test_a_game_log_listing_every_game_from_both_sides_counts_each_once():
    both = (b"Team,Opponent,Result\nLions,Tigers,W\nTigers,Lions,L\nTigers,Bears,D\n"
            b"Bears,Tigers,D\nBears,Lions,W\nLions,Bears,L\n")
    assert games(both) == sorted([("Lions", "Tigers"), ("Bears = Tigers",), ("Bears", "Lions")])
    assert "listed twice" in " ".join(read_file(both).report.notes)


# ------------------------------------------------------------ Dominion cast vote records
def dominion(marks: list[str], contest: str = "Mayor (Number of positions=1, Number of ranks=3)",
             extra: bool = False) -> bytes:
    names = ["Alice Adams", "Bob Brown", "Carol Chen"]
    columns = [f"{n}({k})" for k in (1, 2, 3) for n in names]
    rows = ["2024 Springfield Municipal Election,5.10.50.85" + "," * (8 + len(columns)),
            ",,,,,,,," + ",".join(f'"{contest}"' for _ in columns)
            + ",Council (Vote For=1)" * extra,
            ",,,,,,,," + ",".join(columns) + ",Dan Dorn" * extra,
            "CvrNumber,TabulatorNum,BatchId,RecordId,ImprintedId,CountingGroup,PrecinctPortion,"
            "BallotType," + ",".join(["NP"] * len(columns)) + ",NP" * extra]
    rows += [f"{k + 1},5,2,{k + 1},5-2-{k + 1},Election Day,101 (101-A),Ballot 3,"
             + ",".join(m) + ",1" * extra for k, m in enumerate(marks)]
    return ("\n".join(rows) + "\n").encode()


BALLOTS = ["100010001", "010100000", "001010100", "010001100", "110000001"]


def test_a_dominion_cast_vote_record_is_read_one_ballot_a_ranking():
    result = read_file(dominion(BALLOTS, extra=True))
    prefs = result.preferences
    read = [[("=".join(sorted(prefs.item_names[i] for i in s)) if isinstance(s, frozenset)
              else prefs.item_names[s]) for s in r] for r in prefs.to_lists()]
    assert read == [["Alice Adams", "Bob Brown", "Carol Chen"], ["Bob Brown", "Alice Adams"],
                    ["Carol Chen", "Bob Brown", "Alice Adams"],
                    ["Bob Brown", "Carol Chen", "Alice Adams"],
                    ["Alice Adams=Bob Brown", "Carol Chen"]]  # an overvote ties at its rank
    notes = " ".join(result.report.notes)
    assert "Dominion cast vote record: 5 ballots" in notes
    assert "left out the contests without ranks ('Council (Vote For=1)')" in notes


def test_a_dominion_record_without_ranks_or_with_a_stray_mark_is_refused_as_such():
    plain = dominion(BALLOTS).replace(b"(1)", b"").replace(b"(2)", b" II").replace(
        b"(3)", b" III")
    assert "none of its contests" in refused(plain).reason
    error = refused(dominion(["100010001", "0101x0000"]))
    assert error.row == 6 and error.column == "Bob Brown(2)"


# ------------------------------------------------------------ one race a file
def test_a_folder_of_single_race_files_reads_each_file_as_one_event(tmp_path):
    from coarsenrank_core.io import read_preferences

    (tmp_path / "race1.csv").write_text("Place,Runner,Time\n1,Ann,10:01\n2,Bob,10:05\n3,Cy,10:09\n")
    (tmp_path / "race2.csv").write_text("Place,Runner,Time\n1,Bob,9:58\n2,Cy,10:00\n3,Ann,10:02\n")
    prefs = read_preferences(tmp_path)
    assert prefs.to_lists(names=True) == [["Ann", "Bob", "Cy"], ["Bob", "Cy", "Ann"]]
    assert "as one event's results each" in prefs.notes[0]
    with pytest.raises(PreferenceFormatError, match="holds one ranking"):
        read_preferences(tmp_path / "race1.csv")  # alone, still one ranking: a truth


# ------------------------------------------------------------ misfires found in review (2)
def test_an_event_continued_on_the_next_page_is_one_event_and_a_group_below_stays_in_it():
    continued = HYTEK.replace('3,"Lee, Mia",10,SSC-MA,33.01,35.40,16\n',
                              '3,"Lee, Mia",10,SSC-MA,33.01,35.40,16\n'
                              "Event 1  Girls 10 & Under 50 Yard Freestyle (continued)\n"
                              "Place,Name,Age,Team,Seed Time,Finals Time,Points\n"
                              '4,"Kim, Zoe",10,SSC-MA,36.00,35.90,14\n')
    first = read_file(continued.encode()).preferences.to_lists(names=True)[0]
    assert first[:4] == ["Smith, Emma", "Jones, Ava", "Lee, Mia", "Kim, Zoe"]
    regatta = ("Spring Regatta - Results\nRace 1  Single Sculls\nPlace,Name,Club,Time\n"
               "1,Tom Hill,Leander,7:01.2\n2,Sam Ray,Thames,7:05.9\nDid not finish\n"
               ",Ben Ode,Tideway,DNF\nRace 2  Repechage\nPlace,Name,Club,Time\n"
               "1,Ben Ode,Tideway,7:03.0\n2,Sam Ray,Thames,7:08.8\n")
    assert read_file(regatta.encode()).preferences.to_lists(names=True) == [
        ["Tom Hill", "Sam Ray", "Ben Ode"], ["Ben Ode", "Sam Ray"]]


def test_a_state_or_hand_beside_a_blank_place_is_no_mark_of_the_event():
    states = ("Race,Place,Name,State,Time\nSpring,1,Ann,VA,17:02\nSpring,,Cy,NC,\n"
              "Spring,2,Di,SC,18:30\nFall,1,Cy,NC,16:50\nFall,,Ed,NS,\nFall,2,Ann,VA,17:20\n")
    error = refused(states.encode())
    assert error.column == "Place" and "blank cell" in error.reason


def test_an_entry_score_is_a_result_and_a_seed_time_is_not():
    bake = ("Competition,Entry,Entry Score\nBake-off 1,Cake,92\nBake-off 1,Pie,88\n"
            "Bake-off 1,Tart,75\nBake-off 2,Cake,80\nBake-off 2,Pie,91\nBake-off 2,Tart,70\n")
    assert orders(bake.encode()) == [["Cake", "Pie", "Tart"], ["Pie", "Cake", "Tart"]]


def test_a_chess_score_beside_a_colour_is_refused_and_dated_rematches_both_count():
    chess = b"Player,Opponent,Colour,Result\nAnn,Bob,White,1-0\nCy,Ann,White,0-1\n"
    assert "White's side" in refused(chess).reason
    schedule = (b"Date,Team,Opponent,Result\n2024-01-05,Lions,Tigers,W\n"
                b"2024-01-12,Tigers,Bears,W\n2024-01-19,Bears,Lions,L\n"
                b"2024-02-02,Tigers,Lions,L\n2024-02-09,Bears,Tigers,L\n"
                b"2024-02-16,Lions,Bears,W\n")
    assert len(games(schedule)) == 6


def test_ballots_under_title_rows_with_a_cvr_number_are_no_dominion_record():
    ballots = (b"City of Springfield - Ranked Choice Ballots\nExported 2024-11-06\n"
               b"CvrNumber,Precinct,Choice 1,Choice 2,Choice 3\n1,P1,Ann,Bob,Cy\n"
               b"2,P1,Bob,Ann,\n3,P2,Cy,Ann,Bob\n4,P2,Ann,Cy,Bob\n")
    assert orders(ballots)[0] == ["Ann", "Bob", "Cy"]


def test_codes_like_games_under_other_titles_are_no_crosstable():
    codes = b"Name,Choice 1,Choice 2,Choice 3\nAnn,3b1,12w0,5s1\nBob,12w0,3b1,7b1\nCy,5s1,7b1,3b1\n"
    assert orders(codes)[0] == ["3b1", "12w0", "5s1"]


def test_a_dominion_record_of_two_ranked_contests_is_refused_naming_both():
    two = dominion(BALLOTS).replace(b'"Mayor (Number of positions=1, Number of ranks=3)"',
                                    b'"Council (RCV)"', 3)
    error = refused(two)
    assert "2 ranked-choice contests" in error.reason and "'Council (RCV)'" in error.reason


def test_section_titles_in_two_cells_or_above_a_record_line_name_their_events():
    two_cells = ("Springfield Invitational,Results\nEvent 1,Girls 50 Free\n"
                 "Place,Name,Age,Team,Finals Time\n1,Emma,10,SSC,33.98\n2,Ava,9,WAVE,34.21\n"
                 ",Lily,,WAVE,DQ\nEvent 2,Girls 100 IM\nPlace,Name,Age,Team,Finals Time\n"
                 "1,Ava,9,WAVE,1:20.11\n2,Emma,10,SSC,1:23.02\n")
    result = read_file(two_cells.encode())
    assert result.preferences.to_lists(names=True) == [["Emma", "Ava", "Lily"], ["Ava", "Emma"]]
    assert "'Event 1 Girls 50 Free'" in " ".join(result.report.notes)
    records = ("Invitational - Results\nEvent 1  Girls 50 Free\nPool Record: 26.10\n"
               "Place,Name,Age,Team,Finals Time\n1,Emma,10,SSC,33.98\n2,Ava,9,WAVE,34.21\n"
               "Event 2  Girls 100 IM\nPool Record: 1:02.00\nPlace,Name,Age,Team,Finals Time\n"
               "1,Ava,9,WAVE,1:20.11\n2,Emma,10,SSC,1:23.02\n")
    assert "'Event 1  Girls 50 Free'" in " ".join(read_file(records.encode()).report.notes)


def test_a_result_written_with_its_score_after_the_outcome():
    log = (b"Date,Team,Opponent,Result\n2024-01-05,Lions,Tigers,W 3-1\n"
           b"2024-01-12,Lions,Bears,L 0-2\n2024-01-19,Lions,Wolves,D 1-1\n")
    assert games(log) == sorted([("Lions", "Tigers"), ("Bears", "Lions"), ("Lions = Wolves",)])


def test_rankings_of_two_above_a_repeated_ranking_are_no_sections():
    rows = [["Hawaii", "Funghi"], ["Diavola", "Hawaii", "Funghi", "Quattro"],
            ["Quattro", "Hawaii", "Diavola", "Funghi"], ["Funghi", "Diavola"],
            ["Diavola", "Hawaii", "Funghi", "Quattro"], ["Hawaii", "Quattro", "Funghi", "Diavola"]]
    text = "Rank 1,Rank 2,Rank 3,Rank 4\n" + "".join(
        ",".join(r + [""] * (4 - len(r))) + "\n" for r in rows)
    assert orders(text.encode()) == rows


# ------------------------------------------------------------ game archives and walkovers
def test_a_chess_com_archive_reads_each_sides_result_as_the_games_score():
    archive = (b"url,time_class,white_username,white_rating,white_result,black_username,"
               b"black_result\nu1,blitz,alice,1500,win,bob,checkmated\n"
               b"u2,blitz,bob,1485,win,carol,resigned\nu3,rapid,carol,1505,agreed,alice,agreed\n"
               b"u4,bullet,dave,1405,timeout,carol,win\nu5,blitz,bob,1490,abandoned,dave,win\n")
    assert games(archive) == sorted([("alice", "bob"), ("bob", "carol"), ("alice = carol",),
                                     ("carol", "dave"), ("dave", "bob")])
    assert "game archive: 5 games" in " ".join(read_file(archive).report.notes)


def test_a_walkover_beside_winner_and_loser_is_no_match_and_forfeits_are_said_so():
    atp = (b"tourney_name,winner_name,loser_name,score,round\nBrisbane,Djokovic,Medvedev,"
           b"6-3 6-4,F\nBrisbane,Medvedev,Rublev,W/O,SF\nBrisbane,Alcaraz,Rublev,6-4 2-1 RET,QF\n")
    result = read_file(atp)
    assert games(atp) == sorted([("Djokovic", "Medvedev"), ("Alcaraz", "Rublev")])
    assert "no match played ('W/O'): row 3" in " ".join(result.report.notes)
    pairings = b"White,Black,Result\nAnn,Bob,1-0\nCy,Di,*\nAnn,Cy,+/-\nBob,Di,0-1\n"
    notes = " ".join(read_file(pairings).report.notes)
    assert "with no result (unfinished): row 3" in notes
    assert "decided without a game (a forfeit or walkover): row 4" in notes


# ------------------------------------------------------------ judges' score sheets
@pytest.mark.parametrize("scores", [
    ["9.25,9.50,9.00", "9.00,9.25,9.25", "8.75,8.50,9.00"],  # component scores
    ["3,2,3", "2,3,2", "1,1,2"],  # points repeating within a row
    ["2,1,3", "0,-1,1", "-2,0,-1"]])  # grades of execution, negative ones too
def test_a_judges_score_sheet_is_refused_with_the_transpose_and_the_direction(scores):
    sheet = "Name,J1,J2,J3\n" + "".join(
        f"Skater {s},{row}\n" for s, row in zip("ABC", scores))
    error = refused(sheet.encode())
    assert "titled as judges" in error.reason and "--format ranks --one-is-worst" in error.fix
