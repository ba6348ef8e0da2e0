"""Preference data as machine-learning sets publish it: JSON objects of numbers, winner and
loser models under other titles, and ties in nested Parquet lists."""

from __future__ import annotations

import io
import json

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file


def _jsonl(records: list[dict], **dump) -> bytes:
    return "\n".join(json.dumps(r, **dump) for r in records).encode() + b"\n"


@pytest.mark.parametrize("field, values, first", [
    ("ratings", ({"gpt-4": 5, "llama": 2, "falcon": 3}, {"gpt-4": 4, "llama": 1, "falcon": 5}),
     [["gpt-4", "falcon", "llama"], ["falcon", "gpt-4", "llama"]]),  # the highest first
    ("ranking", ({"gpt-4": 1, "llama": 3, "falcon": 2}, {"gpt-4": 2, "llama": 1, "falcon": 3}),
     [["gpt-4", "falcon", "llama"], ["llama", "gpt-4", "falcon"]]),  # 1 the best
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
                                           ("model_winner", "model_loser"),
                                           ("chosen_model", "rejected_model")])
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
