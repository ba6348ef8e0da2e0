"""Preference data as machine-learning sets publish it: JSON objects of numbers, winner and
loser models under other titles, and ties in nested Parquet lists."""

from __future__ import annotations

import io
import json

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import ReadOptions, read_file


def _jsonl(records: list[dict], **dump) -> bytes:
    return "\n".join(json.dumps(r, **dump) for r in records).encode() + b"\n"


@pytest.mark.parametrize("field, values, first", [
    ("ratings", ({"gpt-4": 5, "llama": 2, "falcon": 3}, {"gpt-4": 4, "llama": 1, "falcon": 5}),
     [["gpt-4", "falcon", "llama"], ["falcon", "gpt-4", "llama"]]),  # the highest first
    ("ranking", ({"gpt-4": 1, "llama": 3, "falcon": 2}, {"gpt-4": 2, "llama": 1, "falcon": 3}),
     [["gpt-4", "falcon", "llama"], ["llama", "gpt-4", "falcon"]]),  # 1 the best
    ("prefs", ({"gpt-4": 1, "llama": 3, "falcon": 2}, {"gpt-4": 2, "llama": 1, "falcon": 3}),
     [["gpt-4", "falcon", "llama"], ["llama", "gpt-4", "falcon"]]),
])
def test_an_object_of_numbers_reads_by_what_its_field_names(field, values, first):
    records = [{"prompt_id": f"p{k}", "annotator": f"a{k}", field: v}
               for k, v in enumerate(values)]
    assert read_file(_jsonl(records)).preferences.to_lists(names=True) == first


def test_an_object_of_numbers_under_another_title_is_no_ranking():
    records = [{"id": "p1", "user": "a1", "emojis": {"+1": 10, "_skip_reply": 1}},
               {"id": "p2", "user": "a2", "emojis": {"+1": 3, "_skip_reply": 5}}]
    with pytest.raises(PreferenceFormatError):
        read_file(_jsonl(records))


@pytest.mark.parametrize("winner, loser", [("winner_model", "loser_model"),
                                           ("model_winner", "model_loser")])
def test_winner_and_loser_models_are_read_whatever_order_their_keys_come_in(winner, loser):
    games = [("claude-2", "mistral-7b"), ("claude-2", "llama"), ("llama", "mistral-7b")]
    records = [{"question_id": k, winner: w, loser: lo, "judge": f"j{k}"}
               for k, (w, lo) in enumerate(games)]
    result = read_file(_jsonl(records, sort_keys=True))  # the loser's key sorts first
    assert result.report.layout == "pairwise"
    assert result.preferences.to_lists(names=True) == [list(g) for g in games]


def test_a_parquet_list_of_lists_keeps_its_ties():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rankings = pa.array([[["gpt-4", "claude-2"], ["llama"]], [["llama"], ["gpt-4"]]],
                        type=pa.list_(pa.list_(pa.string())))
    out = io.BytesIO()
    pq.write_table(pa.table({"annotator": ["a", "b"], "ranking": rankings}), out)
    lists = read_file(out.getvalue()).preferences.to_lists(names=True)
    assert lists == [[frozenset({"gpt-4", "claude-2"}), "llama"], ["llama", "gpt-4"]]


def test_chosen_and_rejected_models_chosen_by_hand_are_read_as_the_user_chose():
    text = (b"source,prompt,chosen,chosen-rating,chosen-model,rejected,rejected-rating,"
            b"rejected-model\ns1,p,a,5,gpt-4,b,2,llama\ns2,q,c,4,llama,d,3,falcon\n"
            b"s3,r,e,5,gpt-4,f,1,falcon\n")
    chosen = ReadOptions(item_columns=("chosen-model", "rejected-model"))
    lists = read_file(text, "wide", options=chosen).preferences.to_lists(names=True)
    assert lists == [["gpt-4", "llama"], ["llama", "falcon"], ["gpt-4", "falcon"]]
    assert read_file(text, options=chosen).preferences.to_lists(names=True) == lists


def test_a_prompt_column_keeps_one_annotators_rankings_apart(tmp_path):
    # 'prompt_id' names the ranking, as a task or question id does: detected, and the same
    # as choosing it by hand
    text = (b"annotator,prompt_id,item,rank\na1,p1,gpt,1\na1,p1,llama,2\na1,p2,gpt,2\n"
            b"a1,p2,llama,1\na2,p1,gpt,1\na2,p1,llama,2\n")
    detected = read_file(text)
    assert detected.report.list_columns == ("prompt_id",)
    result = read_file(text, "long", options=ReadOptions(list_columns=("prompt_id",)))
    for read in (detected, result):
        assert read.preferences.to_lists(names=True) == [["gpt", "llama"], ["llama", "gpt"],
                                                         ["gpt", "llama"]]
        assert read.preferences.ranker_names == ("a1", "a2")
    # a column that only repeats within one ranking still names the refusal's choice
    other = text.replace(b"prompt_id", b"turn")
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(other)
    assert "--lists turn" in caught.value.fix


def test_an_arena_judges_hash_names_who_judged():
    text = (b"model_a,model_b,winner,judge_hash\ngpt,llama,model_a,h1\nllama,claude,model_b,h2\n"
            b"gpt,claude,tie,h1\n")
    assert read_file(text).preferences.ranker_names == ("h1", "h2")


@pytest.mark.parametrize("keys", [
    ("prompt", "rejected_model", "chosen_model"),  # the loser's column first
    ("prompt", "chosen_model", "rejected_model"),
    ("rejected_model", "judge", "chosen_model"),
])
def test_chosen_and_rejected_models_are_winner_and_loser_whatever_their_order(keys):
    pairs = [("gpt-4", "llama"), ("claude", "gpt-4"), ("claude", "llama")]
    records = [{key: {"prompt": f"q{k}", "judge": f"j{k % 2}", "chosen_model": won,
                      "rejected_model": lost}[key] for key in keys}
               for k, (won, lost) in enumerate(pairs)]
    prefs = read_file(_jsonl(records)).preferences
    assert prefs.to_lists(names=True) == [list(pair) for pair in pairs]


def test_the_models_of_dpo_answers_are_the_items_and_the_answers_and_subset_are_not():
    # RewardBench: the answers' texts under chosen/rejected, their models beside them
    records = [{"prompt": f"How do I {k}?", "chosen": f"Like this {k}", "chosen_model": won,
                "rejected": f"No idea {k}", "rejected_model": lost, "subset": "easy", "id": k}
               for k, (won, lost) in enumerate([("claude", "gpt-4"), ("gpt-4", "llama")])]
    result = read_file(_jsonl(records))
    assert result.preferences.to_lists(names=True) == [["claude", "gpt-4"], ["gpt-4", "llama"]]
    assert set(result.preferences.item_names) == {"claude", "gpt-4", "llama"}


def test_chosen_and_rejected_holding_names_are_winner_and_loser_by_annotator():
    text = (b"prompt_id,annotator,rejected,chosen\np0,w0,mistral,llama\np1,w1,llama,gpt-4\n"
            b"p2,w0,llama,gpt-4\n")
    prefs = read_file(text).preferences
    assert prefs.to_lists(names=True) == [["llama", "mistral"], ["gpt-4", "llama"],
                                          ["gpt-4", "llama"]]
    assert prefs.ranker_names == ("w0", "w1")


def test_better_and_worse_columns_are_winner_and_loser():
    text = b"worse,better,judge\nb,a,j1\nc,b,j2\n"
    assert read_file(text).preferences.to_lists(names=True) == [["a", "b"], ["b", "c"]]


def test_two_numbered_responses_with_no_winner_are_refused_not_read_first_as_better():
    # HelpSteer2's preference file: the winner is in a signed strength, not the order
    records = [{"prompt": "Hi", "response_1": "Hello!", "response_2": "Hey",
                "preference_strength": 2},
               {"prompt": "Bye", "response_1": "Bye!", "response_2": "See you",
                "preference_strength": -1}]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_jsonl(records))
    assert "two sides of a comparison" in caught.value.reason
    assert "--format wide --items response_1 response_2" in caught.value.fix
    chosen = ReadOptions(item_columns=("response_1", "response_2"))
    assert read_file(_jsonl(records), "wide", options=chosen).preferences.to_lists(
        names=True) == [["Hello!", "Hey"], ["Bye!", "See you"]]


def test_selected_and_rejected_flags_are_not_items():
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(b"selected,rejected\n1,0\n0,1\n1,0\n")
    assert "yes/no flags" in caught.value.reason and caught.value.column == "selected"


def test_chosen_and_rejected_answers_that_never_come_twice_are_refused():
    records = [{"prompt": "Capital of France?", "chosen": "Paris.", "rejected": "Lyon."},
               {"prompt": "2+2?", "chosen": "4", "rejected": "5"}]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_jsonl(records))
    assert "more than one comparison" in caught.value.reason
    assert "chosen_model" in caught.value.fix


def test_a_model_beside_one_answer_only_makes_no_pair():
    text = b"prompt,chosen,chosen_model,rejected\nq0,good,gpt,bad0\nq1,good1,llama,bad1\n"
    with pytest.raises(PreferenceFormatError):
        read_file(text)


def test_an_arena_winner_beside_a_winner_model_column_keeps_its_ties():
    text = (b"model_a,model_b,winner,winner_model\ngpt,llama,model_a,gpt\n"
            b"gpt,claude,tie,\nllama,claude,model_b,claude\n")
    lists = read_file(text).preferences.to_lists(names=True)
    assert lists == [["gpt", "llama"], [frozenset({"gpt", "claude"})], ["claude", "llama"]]


def test_the_better_response_named_by_its_mark_wins_between_the_responses_sources():
    # PKU-SafeRLHF: response_0/response_1 texts, their sources, better_response_id 0 or 1
    records = [{"prompt": f"q{k}", "response_0": f"a{k}", "response_1": f"b{k}",
                "response_0_source": first, "response_1_source": second,
                "is_response_0_safe": True, "is_response_1_safe": False,
                "better_response_id": better, "safer_response_id": 1 - better}
               for k, (first, second, better) in enumerate(
                   [("alpaca-7b", "llama-2", 0), ("llama-2", "vicuna", 1),
                    ("vicuna", "alpaca-7b", 0)])]
    result = read_file(_jsonl(records))
    assert result.preferences.to_lists(names=True) == [["alpaca-7b", "llama-2"],
                                                       ["vicuna", "llama-2"],
                                                       ["vicuna", "alpaca-7b"]]
    assert "safer_response_id" in " ".join(result.report.lines())


def test_responses_with_no_source_are_refused_as_one_off_answers():
    records = [{"prompt": f"q{k}", "response_0": f"a{k}", "response_1": f"b{k}",
                "better_response_id": k % 2} for k in range(3)]
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(_jsonl(records))
    assert "more than one comparison" in caught.value.reason


def test_a_weighted_alpacaeval_preference_counts_for_both_outputs_by_its_share():
    records = [{"generator_1": "gpt-4", "generator_2": "mixtral", "annotator": "w",
                "preference": p} for p in (1.25, 1.0, 1.9)]
    prefs = read_file(json.dumps(records).encode()).preferences
    lists = prefs.to_lists(names=True)
    weights = dict()
    for pair, weight in zip(lists, prefs.weights):
        weights[tuple(pair)] = weights.get(tuple(pair), 0.0) + weight
    assert weights == pytest.approx({("gpt-4", "mixtral"): 0.75 + 1.0 + 0.1,
                                     ("mixtral", "gpt-4"): 0.25 + 0.9})
    # winners and ties only (1, 2, 1.5) still read as winners and ties
    plain = [{"generator_1": "gpt-4", "generator_2": "mixtral", "preference": p}
             for p in (1.0, 2.0, 1.5)]
    assert read_file(json.dumps(plain).encode()).preferences.to_lists(names=True) == [
        ["gpt-4", "mixtral"], ["mixtral", "gpt-4"], [frozenset({"gpt-4", "mixtral"})]]


def test_reading_weighted_preferences_in_chunks_is_refused_with_the_way_to_read_them(tmp_path):
    from coarsenrank_core.io import stream_pairwise

    path = tmp_path / "alpaca.csv"
    path.write_text("generator_1,generator_2,preference\ngpt-4,mixtral,1.25\n"
                    "gpt-4,mixtral,1.9\n")
    with pytest.raises(PreferenceFormatError) as caught:
        stream_pairwise(path)
    assert caught.value.column == "preference" and "without --stream" in caught.value.fix
