"""Shareable views: a URL rebuilds the same numbers in a fresh session; the session file
round-trips; the Noise page's before/after numbers are the engine's."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from coarsenrank_core import compare, read_preferences, read_truth
from coarsenrank_core.alpha import consensus_fit
from coarsenrank_core.diagnostics import careless_rankers
from coarsenrank_core.experiments import teaching_arrays
from coarsenrank_core.noise import NOISE_TYPES
from tests.test_app import APP, SAMPLE, chart_specs, click, no_failure, sidebar_text, values
from ui import share
from ui.alpha import AlphaSetting
from ui.compute import COMPARE_DRAWS
from ui.scenario import simulate_scenario, teaching_careless
from ui.state import Dataset

SCENARIO = "scenario:12,40,5,0.3,7"


def app_with_url(params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at


def consensus_table(at: AppTest):
    return at.dataframe[0].value


def test_a_url_rebuilds_a_scenario_with_noise_alpha_and_methods_in_a_fresh_session():
    params = {"data": SCENARIO, "noise": "replace_random,0.4,3", "alpha": "15.0",
              "rule": "typed", "methods": "pl-em,borda,coarsen-pl"}
    at = app_with_url(params)
    at.session_state["consensus_fit_kind"] = "coarsen-pl"  # the α of the link at work
    at = at.switch_page("pages/consensus.py").run()
    no_failure(at)
    # the engine's own numbers for the same recipe
    original = simulate_scenario(12, 40, 5, 0.3, 7).preferences
    noisy = NOISE_TYPES["replace_random"].function(original, 0.4, random_state=3).preferences
    fit = consensus_fit(noisy, 15.0)
    table = consensus_table(at)
    assert list(table["item"]) == [noisy.item_names[i] for i in fit.order]
    np.testing.assert_allclose(table["strength"], fit.scores[fit.order])
    assert "α = 15" in sidebar_text(at) and "noisy copy" in sidebar_text(at)
    noise = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        noise.query_params[key] = value
    noise = noise.switch_page("pages/noise.py").run()
    assert noise.selectbox(key="noise_kind").value == "replace_random"
    assert noise.slider(key="noise_level_replace_random").value == 0.4
    assert noise.number_input(key="noise_seed").value == 3
    # the page keeps the URL in step, and the methods reached Compare
    assert dict(at.query_params) == params
    at = at.switch_page("pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == ["pl-em", "borda", "coarsen-pl"]
    at = click(at, "Run the comparison")
    no_failure(at)
    truth = simulate_scenario(12, 40, 5, 0.3, 7).truth
    engine = compare(noisy, ["pl-em", "borda", "coarsen-pl"], truth=truth,
                     overrides={"alpha": 15.0, **COMPARE_DRAWS})
    np.testing.assert_allclose(values(chart_specs(at)[0]["data"][0]["x"]),
                               [r.accuracy for r in engine.rows])


def test_the_copied_link_of_one_session_gives_the_same_consensus_in_another():
    first = AppTest.from_file(APP, default_timeout=120).switch_page("pages/noise.py").run()
    [button] = [b for b in first.button if b.key == "load_careless"]
    first = button.click().run()
    first.selectbox(key="noise_kind").set_value("spammers").run()
    first = click(first, "Make the noisy copy")
    first.session_state["consensus_fit_kind"] = "coarsen-pl"
    first = first.switch_page("pages/consensus.py").run()
    first.select_slider(key="consensus_alpha").set_value(
        first.select_slider(key="consensus_alpha").options[4]).run()
    no_failure(first)
    [link] = [c.value for c in first.sidebar.get("code")]
    query = dict(pair.split("=", 1) for pair in link.split("?", 1)[1].split("&"))
    from urllib.parse import unquote
    second = app_with_url({k: unquote(v) for k, v in query.items()})
    second.session_state["consensus_fit_kind"] = "coarsen-pl"
    second = second.switch_page("pages/consensus.py").run()
    no_failure(second)
    assert consensus_table(second).equals(consensus_table(first))
    assert sidebar_text(second) == sidebar_text(first)


def test_a_bad_url_is_reported_and_the_sample_loads():
    at = app_with_url({"data": "scenario:1,2,3", "alpha": "-4"}).run()
    no_failure(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "scenario settings are not valid" in warnings and "not a positive number" in warnings
    assert "Pizza survey" in sidebar_text(at)


def test_uploaded_data_is_not_put_in_the_url_and_the_page_says_so():
    from tests.test_app import SMALL_CSV, open_page, upload
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    no_failure(at)
    assert dict(at.query_params) == {"data": "upload"}  # only a marker, never the data
    text = " ".join(c.value for c in at.sidebar.caption)
    assert "Uploaded data cannot travel in a link" in text
    assert [b for b in at.get("download_button") if "session" in b.proto.label]


def test_the_session_file_round_trips_data_truth_and_choices():
    prefs = read_preferences(SAMPLE / "photo_pairs.csv")
    truth = read_truth(SAMPLE / "photo_truth.csv", prefs)
    dataset = Dataset(name="photos <b>x</b>.csv", preferences=prefs, truth=truth,
                      origin="upload", read_as=("read as pairs",), careless=(1, 4))
    setting = AlphaSetting(alpha=123.456789, rule=None, control="typed", data_key=dataset.key)
    data = share._document(dataset, setting, ["borda", "pl-em"])
    back, choices = share.read_session_file(data)
    assert back.key == dataset.key  # same preferences (fingerprint) and truth
    assert back.preferences == prefs and back.preferences.ranker_names == prefs.ranker_names
    np.testing.assert_array_equal(back.truth, truth)
    assert back.name == dataset.name and back.careless == (1, 4)
    assert back.read_as == ("read as pairs",)
    assert float(choices["alpha"]) == 123.456789 and choices["methods"] == ["borda", "pl-em"]
    # and the Data page opens it: the same data, α and methods in a fresh session
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("A saved session").run()
    at.file_uploader(key="upload_session").set_value(("s.json", data, "application/json"))
    at.run()
    no_failure(at)
    assert any("Opened the session" in s.value for s in at.success)
    assert "photos <b>x</b>.csv" in sidebar_text(at) and "α = 123.457" in sidebar_text(at)
    at.session_state["consensus_fit_kind"] = "coarsen-pl"
    at = at.switch_page("pages/consensus.py").run()
    fit = consensus_fit(prefs, 123.456789)
    assert list(consensus_table(at)["item"]) == [prefs.item_names[i] for i in fit.order]
    at = at.switch_page("pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == ["borda", "pl-em"]


def test_a_file_that_is_not_a_session_is_refused_with_a_message():
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("A saved session").run()
    at.file_uploader(key="upload_session").set_value(("s.json", b'{"a": 1}', "text/json"))
    at.run()
    no_failure(at)
    assert any("not a CoarsenRank session file" in e.value for e in at.error)
    assert "Pizza survey" in sidebar_text(at)


def test_before_and_after_on_the_noise_page_are_the_engines_numbers():
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/noise.py").run()
    [button] = [b for b in at.button if b.key == "load_careless"]
    at = button.click().run()
    at = at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["pl-em", "pl-mix-ranker"]).run()
    at = at.switch_page("pages/noise.py").run()
    at.selectbox(key="noise_kind").set_value("reverse_preferences").run()
    at.slider(key="noise_level_reverse_preferences").set_value(0.3)
    at.number_input(key="noise_seed").set_value(5)
    at = click(at, "Make the noisy copy")
    at = [b for b in at.button if b.key == "noise_methods"][0].click().run()
    no_failure(at)
    prefs, truth = teaching_arrays("careless", 0)
    alpha = float(at.query_params["alpha"])
    result = NOISE_TYPES["reverse_preferences"].function(prefs, 0.3, random_state=5)
    noisy = result.preferences
    before, after = consensus_fit(prefs, alpha), consensus_fit(noisy, alpha)
    table = at.dataframe[0].value
    names = prefs.item_names
    assert list(table["original data"]) == [names[i] for i in before.order]
    assert list(table["noisy copy"]) == [names[i] for i in after.order]
    moved = [a != b for a, b in zip(table["original data"], table["noisy copy"])]
    assert [bool(m) for m in table["moved (noisy copy)"]] == moved
    accuracy = at.dataframe[1].value
    expect_before = compare(prefs, ["pl-em", "pl-mix-ranker"], truth=truth,
                            overrides={"alpha": alpha, **COMPARE_DRAWS})
    expect_after = compare(noisy, ["pl-em", "pl-mix-ranker"], truth=truth,
                           overrides={"alpha": alpha, **COMPARE_DRAWS})
    np.testing.assert_allclose(accuracy["accuracy, original"],
                               [r.accuracy for r in expect_before.rows])
    np.testing.assert_allclose(accuracy["accuracy, noisy copy"],
                               [r.accuracy for r in expect_after.rows])
    # raters: the scenario's careless ones plus those whose lists were turned upside down
    raters = noisy.ranker_index[result.source]
    altered = np.bincount(raters, weights=result.altered, minlength=30)
    lists = np.bincount(raters, minlength=30)
    made = set(np.flatnonzero((2 * altered >= lists) & (altered > 0)).tolist())
    noisy_raters = made | set(teaching_careless("careless", 0))
    flagged = set(np.flatnonzero(careless_rankers(noisy, "pl-mix-ranker").outlier).tolist())
    hits = len(noisy_raters & flagged)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Raters made noisy"] == str(len(noisy_raters))
    assert metrics["Flagged and noisy"] == str(hits)
    assert metrics["Precision"] == f"{hits / len(flagged):.0%}"
    assert metrics["Recall"] == f"{hits / len(noisy_raters):.0%}"
    # the copy and the original both stay: one click each way
    at = click(at, "Switch to the original data")
    assert "noisy copy" not in sidebar_text(at)
    at = click(at, "Switch to the noisy copy")
    assert "noisy copy" in sidebar_text(at)


def test_teaching_scenarios_mark_the_raters_the_engine_made_careless():
    prefs, truth = teaching_arrays("careless", 0)
    bad = teaching_careless("careless", 0)
    assert len(bad) == 15
    # careless raters' lists are uniformly shuffled: they agree with the truth far less
    from coarsenrank_core.metrics import pairwise_accuracy
    lists = prefs.to_lists()
    score = np.zeros(30)
    for n, items in enumerate(lists):
        ranked = np.zeros(prefs.n_items)
        ranked[list(items)] = np.arange(len(items), 0, -1)
        score[prefs.rankers[n]] += pairwise_accuracy(ranked[list(items)], truth[list(items)])
    careful = np.setdiff1d(np.arange(30), bad)
    assert score[list(bad)].mean() < score[careful].mean() - 1.5


def test_scenarios_start_clean_and_a_noise_that_changes_nothing_says_why():
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("A simulated scenario (for teaching)").run()
    at = click(at, "Create scenario")
    no_failure(at)
    assert "all careful" in sidebar_text(at)
    at = AppTest.from_file(APP, default_timeout=120).switch_page("pages/noise.py").run()
    at.selectbox(key="noise_kind").set_value("subsample").run()
    at = click(at, "Make the noisy copy")
    no_failure(at)
    [warning] = [w.value for w in at.warning if "changed nothing" in w.value]
    assert "only one list" in warning


def test_a_reload_of_uploaded_data_says_why_the_sample_is_back():
    from tests.test_app import SMALL_CSV, open_page, upload
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    assert dict(at.query_params) == {"data": "upload"}
    reloaded = app_with_url(dict(at.query_params)).switch_page("pages/data.py").run()
    no_failure(reloaded)
    [warning] = [w.value for w in reloaded.warning if "uploaded data" in w.value]
    assert "session file" in warning
    assert "Pizza survey" in sidebar_text(reloaded)


def test_scenario_recipes_carry_lists_per_rater_and_exposure_and_old_links_still_work():
    from ui.scenario import parse_scenario, scenario_from_recipe

    old = parse_scenario("scenario:12,40,5,0.3,7")
    assert old["lists_per_ranker"] == 1 and old["exposure"] == 0.0
    assert scenario_from_recipe("scenario:12,40,5,0.3,7").preferences == \
        simulate_scenario(12, 40, 5, 0.3, 7).preferences
    made = simulate_scenario(10, 30, 4, 0.2, 3, lists_per_ranker=5, exposure=-1.0)
    assert made.recipe == "scenario:10,30,4,0.2,3,5,-1"
    again = scenario_from_recipe(made.recipe)
    assert again.preferences == made.preferences and again.careless == made.careless
    assert len(made.preferences) == 150 and "5 lists each" in made.name
    for bad in ("scenario:10,30,4,0.2,3,5,0.5", "scenario:10,30,4,0.2,3,99,0",
                "scenario:10,30,4,0.2,3,5", "scenario:10,30,4,0.2,3,5,nan"):
        with pytest.raises(ValueError):
            parse_scenario(bad)
