"""Session files and share links are untrusted input (issue 21): ui/share.py.

Every field of a session file is checked against the schema the app writes; a file that
breaks it gives a SessionFileError with a plain message. Choices that cannot be used (α out
of range, repeated or unknown methods, a recipe that does not rebuild the file's data) are
dropped with a note. Links get the same rules. Two hypothesis properties fuzz both readers.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from coarsenrank_core.alpha import MAX_ALPHA, MIN_ALPHA
from coarsenrank_core.registry import METHODS
from tests.test_app import APP, no_failure
from ui import share
from ui.alpha import AlphaSetting
from ui.scenario import simulate_scenario

SCENARIO = simulate_scenario(6, 8, 3, 0.25, 2)


def valid_document(dataset=SCENARIO, methods=("borda", "pl-em")) -> dict:
    setting = AlphaSetting(alpha=12.5, rule=None, control="typed", data_key=dataset.key)
    return json.loads(share._document(dataset, setting, list(methods)))


def encoded(document) -> bytes:
    return json.dumps(document).encode()


def refusal(document_or_bytes) -> str:
    data = (document_or_bytes if isinstance(document_or_bytes, bytes)
            else encoded(document_or_bytes))
    with pytest.raises(share.SessionFileError) as error:
        share.read_session(data)
    return str(error.value)


# ------------------------------------------------------------------ the session file: High
def test_a_200_byte_file_declaring_a_million_unnamed_items_is_refused():
    data = encoded({"format": "coarsenrank-session", "version": 1,
                    "preferences": {"items": [0, 1], "offsets": [0, 2], "groups": [0, 1],
                                    "n_items": 1_000_000}})
    assert len(data) < 200
    assert "item_names" in refusal(data)


def test_names_for_far_more_items_than_the_lists_use_are_refused():
    document = valid_document()
    names = [f"item {k}" for k in range(2_000)]
    document["preferences"].update(n_items=len(names), item_names=names)
    document["truth"] = None
    message = refusal(document)
    assert "declares 2,000 items" in message and "use only 5 of them" in message


def test_names_must_match_the_number_of_items():
    document = valid_document()
    document["preferences"]["item_names"] = document["preferences"]["item_names"][:-1]
    assert "gives 5 names for 6 items" in refusal(document)


def test_rankers_need_their_names_and_ids_within_them():
    document = valid_document()
    document["preferences"]["ranker_names"] = None
    assert "every rater needs a name" in refusal(document)
    document = valid_document()
    document["preferences"]["rankers"][0] = 10 ** 9
    assert "rater ids from 0 to 7" in refusal(document)


# ------------------------------------------------------------------ types, numbers, text
@pytest.mark.parametrize("data, expected", [
    (b'{"format": "coarsenrank-session", "version": true}', "whole number 1"),
    (b'{"format": "coarsenrank-session", "version": 1.0}', "whole number 1"),
    (b'{"format": "coarsenrank-session", "version": "1"}', "whole number 1"),
    (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
    (b'{"format": "coarsenrank-session", "version": 1, "n": ' + b"9" * 5_000 + b"}",
     "thousands of digits"),
    (b"\xff\xfe{}", "not text"),
    (b'{"format": "coarsenrank-session", "version": 1,', "not JSON"),
])
def test_every_failure_of_the_file_gets_a_plain_message(data, expected):
    assert expected in refusal(data)


@pytest.mark.parametrize("path, value, field", [
    (("preferences", "items"), [0, 1.5], "preferences.items"),
    (("preferences", "items"), "0,1", "preferences.items"),
    (("preferences", "offsets"), [[0, 2]], "preferences.offsets"),
    (("preferences", "groups"), [0], "preferences.groups"),
    (("preferences", "n_items"), True, "preferences.n_items"),
    (("preferences", "n_items"), 6.0, "preferences.n_items"),
    (("preferences", "item_names"), [1, 2, 3, 4, 5, 6], "preferences.item_names"),
    (("preferences", "weights"), [1.0], "preferences.weights"),
    (("preferences", "rankers"), [True], "preferences.rankers"),
    (("preferences", "notes"), "a note", "preferences.notes"),
    (("truth",), [1, 2], "truth"),
    (("truth",), [float("inf")] * 6, "truth"),
    (("careless",), [0, 99], "careless"),
    (("careless",), [-1], "careless"),
    (("read_as",), [{"x": 1}], "read_as"),
    (("name",), ["a"], "name"),
    (("description",), "x" * 30_000, "description"),
    (("recipe",), 5, "recipe"),
    (("preferences",), [], "preferences"),
])
def test_every_field_is_type_checked(path, value, field):
    document = valid_document()
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    message = refusal(document)
    assert f"“{field}”" in message or field in message
    assert "Something went wrong" not in message and "Traceback" not in message


def test_infinity_and_nan_in_fields_that_are_not_read_are_ignored():
    text = share._document(SCENARIO, None, ["borda"]).decode()
    text = text[:-1] + ', "extra": Infinity, "more": [NaN, -Infinity]}'
    text = text.replace('"choices": {', '"choices": {"unused": NaN, ')
    dataset, choices, notes = share.read_session(text.encode())
    assert dataset.key == SCENARIO.key and notes == []


def test_careless_indices_are_kept_within_range_and_once():
    document = valid_document()
    document["careless"] = [3, 1, 3]
    dataset, _, _ = share.read_session(encoded(document))
    assert dataset.careless == (3, 1)


# ------------------------------------------------------------------ choices and the recipe
def test_repeated_methods_are_kept_once_and_unknown_ones_dropped():
    document = valid_document(methods=["coarsen-pl-gibbs"] * 3_000 + ["nope", "borda"])
    _, choices, notes = share.read_session(encoded(document))
    assert choices["methods"] == ["coarsen-pl-gibbs", "borda"]
    assert any("kept once" in n for n in notes)


@pytest.mark.parametrize("alpha, kept", [
    ("5e-324", None), (5e-324, None), ("1e-7", None), ("-3", None), ("nan", None),
    ("1e13", None), (True, None), ("1e-6", 1e-6), ("inf", float("inf")), (1e12, 1e12),
    ("12.5", 12.5),
])
def test_alpha_is_kept_only_within_the_range(alpha, kept):
    document = valid_document()
    document["choices"]["alpha"] = alpha
    _, choices, notes = share.read_session(encoded(document))
    assert choices["alpha"] == kept
    assert bool(notes) == (kept is None)


@pytest.mark.parametrize("recipe", ["scenario:abc", "sample:films", "sample:nope",
                                    "scenario:6,8,3,0.25,3", "https://example.org"])
def test_a_recipe_that_does_not_rebuild_the_files_data_is_dropped_with_a_note(recipe):
    document = valid_document()
    document["recipe"] = recipe
    dataset, _, notes = share.read_session(encoded(document))
    assert dataset.recipe == "" and dataset.key == SCENARIO.key
    assert any("does not rebuild" in n for n in notes)


def test_a_recipe_that_rebuilds_the_files_data_is_kept():
    dataset, _, notes = share.read_session(encoded(valid_document()))
    assert dataset.recipe == SCENARIO.recipe and notes == []


def test_the_description_and_the_name_are_shown_as_text():
    document = valid_document()
    document["recipe"] = ""
    document["name"] = "**bold** <img src=x>"
    document["description"] = "![tracker](http://example.org/t.png) [click](http://x.org)"
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("A saved session").run()
    at.file_uploader(key="upload_session").set_value(("s.json", encoded(document),
                                                      "application/json"))
    at.run()
    no_failure(at)
    at = at.switch_page("pages/home.py").run()
    no_failure(at)
    [caption] = [c.value for c in at.caption if "tracker" in c.value]
    assert "\\!\\[tracker\\]" in caption and "http\\:\u2060//" in caption


# ------------------------------------------------------------------ links
def test_a_link_repeating_a_method_thousands_of_times_keeps_it_once():
    view, problems = share.read_link({"methods": ",".join(["coarsen-pl-gibbs"] * 3_000)})
    assert view.methods == ("coarsen-pl-gibbs",)
    assert any("kept once" in p for p in problems)


@pytest.mark.parametrize("alpha", ["5e-324", "1e-7", "0", "1e13", "nan", "-inf", "1" * 400])
def test_a_link_alpha_out_of_range_is_refused(alpha):
    view, problems = share.read_link({"alpha": alpha})
    assert view.alpha is None and any("from 1e-06 to 1e+12" in p for p in problems)


@pytest.mark.parametrize("recipe", ["scenario:41,10,3,0,1", "scenario:10,501,3,0,1",
                                    "scenario:10,10,11,0,1", "scenario:10,10,3,0.95,1",
                                    "scenario:10,10,3,0,10001", "scenario:" + "9" * 5000])
def test_link_scenarios_stay_within_the_builders_limits(recipe):
    view, problems = share.read_link({"data": recipe})
    assert view.dataset is None and problems


# ------------------------------------------------------------------ fuzzing
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
PATHS = [("format",), ("version",), ("name",), ("description",), ("recipe",), ("truth",),
         ("careless",), ("read_as",), ("choices",), ("preferences",),
         *[("preferences", k) for k in ("items", "offsets", "groups", "n_items", "weights",
                                        "rankers", "item_names", "ranker_names", "notes")],
         *[("choices", k) for k in ("alpha", "rule", "methods", "noise")]]
EDITS = st.lists(st.tuples(st.sampled_from(PATHS), st.booleans(), JSON_VALUES), max_size=4)


def assert_within_limits(dataset, choices) -> None:
    prefs = dataset.preferences
    present = np.unique(prefs.items).size
    assert prefs.n_items <= share.DECLARED_FACTOR * present + share.DECLARED_SLACK
    assert len(prefs.item_names) == prefs.n_items
    assert dataset.careless is None or all(0 <= r < prefs.n_rankers for r in dataset.careless)
    assert dataset.truth is None or (dataset.truth.shape == (prefs.n_items,)
                                     and np.isfinite(dataset.truth).all())
    assert len(set(choices["methods"])) == len(choices["methods"])
    assert set(choices["methods"]) <= set(METHODS)
    alpha = choices["alpha"]
    assert alpha is None or alpha == float("inf") or MIN_ALPHA <= alpha <= MAX_ALPHA
    assert dataset.recipe in ("", SCENARIO.recipe)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=EDITS)
def test_fuzzed_session_files_load_within_limits_or_are_refused_plainly(edits):
    document = valid_document()
    for path, delete, value in edits:
        target = document
        for key in path[:-1]:
            target = target.get(key) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            continue
        if delete:
            target.pop(path[-1], None)
        else:
            target[path[-1]] = copy.deepcopy(value)
    try:
        dataset, choices, _ = share.read_session(json.dumps(document).encode())
    except share.SessionFileError as error:
        message = str(error)
        assert message and "\n" not in message and "Traceback" not in message
    else:
        assert_within_limits(dataset, choices)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_random_bytes_are_refused_plainly(data):
    with pytest.raises(share.SessionFileError):
        share.read_session(data)


LINK_VALUES = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from([*METHODS, "x", ""]), max_size=50).map(",".join),
    st.tuples(st.integers(-5, 50), st.integers(-5, 600), st.integers(-5, 50),
              st.floats(-1, 2), st.integers(-5, 20_000)).map(
        lambda t: "scenario:" + ",".join(map(str, t))),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@settings(max_examples=200, deadline=None)
@given(params=st.dictionaries(st.sampled_from([*share.PARAMS, "other"]), LINK_VALUES,
                              max_size=6))
def test_fuzzed_links_give_a_checked_view_and_plain_problems(params):
    view, problems = share.read_link(params)
    assert all(isinstance(p, str) and p for p in problems)
    assert len(set(view.methods)) == len(view.methods) and set(view.methods) <= set(METHODS)
    assert view.alpha is None or view.alpha == float("inf") or MIN_ALPHA <= view.alpha <= MAX_ALPHA
    if view.dataset is not None:
        assert view.dataset.preferences.n_items <= 40
    if view.noise is not None:
        assert 0 <= view.noise[2] <= 100_000


@pytest.mark.parametrize("text, value", [("5e-324", None), ("1e-7", None), ("0", None),
                                         ("nan", None), ("1e13", None), ("1e-6", 1e-6),
                                         ("∞", float("inf")), (" 12.5 ", 12.5)])
def test_alpha_typed_on_a_page_is_held_to_the_same_range(text, value):
    from ui.alpha import parse_alpha
    assert parse_alpha(text) == value


@pytest.mark.parametrize("offsets", [[0, 9223372036854775807, -2, 6], [0, -4, 6],
                                     [0, 4, 2, 6], [0, 2, 4, 9]])
def test_offsets_that_wrap_round_or_step_back_are_refused_not_a_crash(offsets):
    raw = {"format": "coarsenrank-session", "version": 1, "name": "x", "description": "",
           "preferences": {"items": [0, 1, 2, 0, 1, 2], "offsets": offsets,
                           "groups": [0, 1, 2, 0, 1, 2], "n_items": 3,
                           "item_names": ["A", "B", "C"]},
           "choices": {"alpha": "15.0", "rule": "typed", "methods": ["borda"]}}
    with pytest.raises(share.SessionFileError, match="do not fit together"):
        share.read_session(json.dumps(raw).encode())
