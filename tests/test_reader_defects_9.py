"""Reader defects found by probing real export layouts (ninth batch)."""

import json

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file


def refused(data: bytes, **options) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data, **options)
    return info.value


def orders(data: bytes, **options) -> list[list[str]]:
    prefs = read_file(data, **options).preferences
    return [[prefs.item_names[i] for i in ranking] for ranking in prefs.to_lists()]


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
