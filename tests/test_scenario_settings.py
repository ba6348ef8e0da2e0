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
