"""The Data page's scenario builder keeps what the user set, created or not, over a switch
of the data source (Streamlit forgets a widget that a run did not draw, and a form's values
reach the server only when it is submitted)."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SCENARIO = "A simulated scenario (for teaching)"
SAMPLE = "A built-in sample"
SET = {"scenario_items": 17, "scenario_raters": 123, "scenario_length": 7,
       "scenario_lists": 3, "scenario_careless": 20}


def data_page() -> AppTest:
    return AppTest.from_file(APP, default_timeout=180).switch_page("pages/data.py").run()


def set_scenario(at: AppTest) -> AppTest:
    at.radio(key="data_source").set_value(SCENARIO).run()
    for key, value in SET.items():
        at.slider(key=key).set_value(value)
    at.number_input(key="scenario_seed").set_value(42)
    at.selectbox(key="scenario_exposure").set_value(1.0)
    return at.run()


def shown(at: AppTest) -> dict:
    values = {key: at.slider(key=key).value for key in SET}
    values["seed"] = at.number_input(key="scenario_seed").value
    values["exposure"] = at.selectbox(key="scenario_exposure").value
    return values


def test_settings_not_yet_created_survive_a_switch_to_another_source_and_back():
    at = set_scenario(data_page())
    assert not at.exception
    at.radio(key="data_source").set_value(SAMPLE).run()
    at.radio(key="data_source").set_value(SCENARIO).run()
    assert not at.exception
    assert shown(at) == {**SET, "seed": 42, "exposure": 1.0}
    # nothing was created: the sample is still what is loaded
    assert "Scenario" not in " ".join(h.value for h in at.header)


def test_created_settings_then_moved_survive_the_switch_and_create_what_is_shown():
    at = set_scenario(data_page())
    [create] = [b for b in at.button if b.label == "Create scenario"]
    at = create.click().run()
    assert "17 items, 123 raters, 3 lists each" in " ".join(h.value for h in at.header)
    at.slider(key="scenario_raters").set_value(200).run()  # moved after creating
    at.radio(key="data_source").set_value(SAMPLE).run()
    at.radio(key="data_source").set_value(SCENARIO).run()
    assert at.slider(key="scenario_raters").value == 200
    [create] = [b for b in at.button if b.label == "Create scenario"]
    at = create.click().run()
    assert "17 items, 200 raters" in " ".join(h.value for h in at.header)


def test_a_scenario_loaded_by_a_link_still_shows_its_own_settings():
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["data"] = "scenario:12,40,5,0.3,7"
    at = at.switch_page("pages/data.py").run()
    assert at.radio(key="data_source").value == SCENARIO
    assert (at.slider(key="scenario_items").value, at.slider(key="scenario_raters").value,
            at.slider(key="scenario_careless").value) == (12, 40, 30)


def test_a_second_scenario_is_created_with_its_new_settings():
    # the run after the first "Create scenario" put the widgets back on the created values,
    # so a second scenario with other settings silently recreated the first
    at = data_page()
    at.radio(key="data_source").set_value(SCENARIO).run()
    at.slider(key="scenario_raters").set_value(123)
    at = [b for b in at.button if b.label == "Create scenario"][0].click().run()
    assert "10 items, 123 raters" in " ".join(h.value for h in at.header)
    at.slider(key="scenario_raters").set_value(200)
    at = [b for b in at.button if b.label == "Create scenario"][0].click().run()
    assert "10 items, 200 raters" in " ".join(h.value for h in at.header)
    assert at.slider(key="scenario_raters").value == 200


def test_a_scenario_whose_raters_differ_shows_likely_ranks_that_hold_the_spread():
    """A teacher can show the raters' item-by-item spread: raters who differ "a lot" give
    likely ranks that say so on the Consensus page, and the link carries the setting."""
    at = data_page()
    at.radio(key="data_source").set_value(SCENARIO).run()
    at.slider(key="scenario_raters").set_value(150)
    at.selectbox(key="scenario_spread").set_value(1.0)
    [create] = [b for b in at.button if b.label == "Create scenario"]
    at = create.click().run()
    assert not at.exception
    assert "raters differ a lot" in " ".join(h.value for h in at.header)
    assert at.session_state["dataset"].original.recipe.endswith(",5,0,1")
    at.switch_page("pages/consensus.py").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption) + " ".join(m.value for m in at.markdown)
    assert "differ item by item more than chance explains" in captions


def test_a_scenario_link_carries_the_raters_spread_and_older_links_still_read():
    import pytest

    from ui.scenario import parse_scenario, scenario_from_recipe, simulate_scenario

    made = simulate_scenario(10, 30, 4, 0.2, 3, 5, 0.0, 0.5)
    assert made.recipe == "scenario:10,30,4,0.2,3,5,0,0.5"
    assert parse_scenario(made.recipe)["spread"] == 0.5
    assert scenario_from_recipe(made.recipe).preferences == made.preferences
    assert parse_scenario("scenario:12,40,5,0.3,7")["spread"] == 0.0
    assert parse_scenario("scenario:10,30,4,0.2,3,5,-1")["spread"] == 0.0
    assert simulate_scenario(10, 30, 4, 0.2, 3, 5, 0.0, 0.0).recipe == "scenario:10,30,4,0.2,3,5,0"
    for bad in ("scenario:10,30,4,0.2,3,5,0,0.7", "scenario:10,30,4,0.2,3,5,0,nan",
                "scenario:10,30,4,0.2,3,5,0,-1"):
        with pytest.raises(ValueError):
            parse_scenario(bad)
