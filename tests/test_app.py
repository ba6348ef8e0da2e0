"""AppTest checks of every dashboard page: default sample, uploads, and the computations' charts."""

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from coarsenrank_core import compare, dic_sweep, read_preferences, read_truth
from coarsenrank_core.dic import DIC_DRAWS
from ui.compute import COMPARE_DRAWS
from ui.shell import PAGES

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
SAMPLE = ROOT / "sample_data"
SMALL_CSV = b"voter,1st,2nd,3rd\nann,tea,coffee,juice\nbob,coffee,tea,juice\ncy,tea,juice,coffee\n"


def fresh_app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120)


def open_page(path: str, at: AppTest | None = None) -> AppTest:
    at = at or fresh_app()
    return at.switch_page(path).run()


def open_coarsen(at: AppTest | None = None) -> AppTest:
    """The Consensus page showing CoarsenPL at α (the paper's method) instead of the default."""
    at = at or fresh_app()
    at.session_state["consensus_fit_kind"] = "coarsen-pl"
    return at.switch_page("pages/consensus.py").run()


def sidebar_text(at: AppTest) -> str:
    return " ".join(str(e.value) for e in at.sidebar.get("text")) + " " + " ".join(
        str(e.value) for e in at.sidebar.caption)


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def values(array) -> np.ndarray:
    """Plotly serialises numeric arrays as base64 typed arrays; decode either form."""
    if isinstance(array, dict) and "bdata" in array:
        flat = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        shape = array.get("shape")
        if isinstance(shape, str):
            shape = [int(v) for v in shape.split(",")]
        return flat.reshape(shape) if shape else flat
    return np.asarray(array)


def click(at: AppTest, label: str) -> AppTest:
    [button] = [b for b in at.button if b.label == label]
    return button.click().run()


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e for e in at.error if "Something went wrong" in e.value]


@pytest.mark.parametrize("path, title", [(p[0], p[1]) for p in PAGES])
def test_every_page_opens_on_the_default_sample_with_the_shared_sidebar(path, title):
    at = open_page(path)
    no_failure(at)
    assert at.title, f"{path} has no title"
    text = sidebar_text(at)
    assert "Pizza survey" in text and "8 items" in text and "30 lists" in text


def test_home_page_says_what_the_tool_does_and_where_to_start():
    at = fresh_app().run()
    no_failure(at)
    assert "CoarsenRank" in at.title[0].value
    assert any("Start here" in h.value for h in at.subheader)


def test_data_page_summarises_the_sample():
    at = open_page("pages/data.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Items"] == "8" and metrics["Lists"] == "30" and metrics["Raters"] == "30"
    specs = chart_specs(at)
    lengths = specs[0]["data"][0]
    assert list(lengths["x"]) == ["8"] and list(values(lengths["y"])) == [30]


def upload(at: AppTest, name: str, content: bytes, confirm: bool = True) -> AppTest:
    at.radio(key="data_source").set_value("My own file").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv"))
    at.run()
    if confirm and [b for b in at.button if b.key == "confirm_upload"]:
        at.button(key="confirm_upload").click().run()
    return at


@pytest.mark.parametrize("path", [p[0] for p in PAGES])
def test_every_page_works_after_a_successful_upload(path):
    at = open_page(path, upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV))
    no_failure(at)
    assert at.title
    text = sidebar_text(at)
    assert "drinks.csv" in text and "3 items" in text and "Pizza" not in text


@pytest.mark.parametrize("path", [p[0] for p in PAGES])
def test_every_page_works_after_a_failing_upload(path):
    at = upload(open_page("pages/data.py"), "broken.csv", b"voter,1st\nann,\x00\x01\n")
    assert any("could not read" in e.value for e in at.error)
    at = open_page(path, at)
    no_failure(at)
    assert "Pizza survey" in sidebar_text(at)


def test_disconnected_items_are_named_in_a_warning():
    data = b"voter,1st,2nd\nann,tea,coffee\nbob,coffee,tea\ncy,cola,lemonade\n"
    at = upload(open_page("pages/data.py"), "split.csv", data)
    [warning] = [w.value for w in at.warning if "never compared" in w.value]
    assert "2 groups" in warning and "(tea, coffee)" in warning and "(cola, lemonade)" in warning
    at = open_page("pages/consensus.py", at)  # the answer the groups bear on says so too
    no_failure(at)
    assert [w.value for w in at.warning if "never compared" in w.value] == [warning]
    assert "read ranks inside a group only" in warning


def test_successful_upload_replaces_the_data_on_every_page():
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    no_failure(at)
    assert any("Loaded drinks.csv" in s.value for s in at.success)
    assert "drinks.csv" in sidebar_text(at)
    preview = at.dataframe[0].value
    assert list(preview["rater"]) == ["ann", "bob", "cy"]
    assert preview["list (best first)"].iloc[0] == "tea > coffee > juice"
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    table = at.dataframe[0].value
    assert sorted(table["item"]) == ["coffee", "juice", "tea"]
    assert table["item"].iloc[0] == "tea"


@pytest.mark.parametrize("content, where", [
    (b"voter,1st,2nd\nann,tea,tea\n", "column"),
    (b"", "empty"),
    (b"PK\x03\x04\x14\x00binary", "Excel"),
])
def test_failing_upload_shows_the_problem_and_keeps_the_old_data(content, where):
    at = upload(open_page("pages/data.py"), "broken.csv", content)
    no_failure(at)
    [error] = [e for e in at.error if "could not read" in e.value]
    assert where.lower() in error.value.lower()
    assert "How to fix it" in error.value
    assert any("Still loaded: Pizza survey" in i.value for i in at.info)
    assert "Pizza survey" in sidebar_text(at)
    assert at.get("download_button"), "an example file is offered"
    at = open_page("pages/consensus.py", at)
    assert len(at.dataframe[0].value) == 8


def drinks_with_truth(name: str, truth: bytes) -> AppTest:
    """The Data page after uploading SMALL_CSV and then its true order."""
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    at.file_uploader(key="upload_truth").set_value((name, truth, "text/plain"))
    at.run()
    assert any("True order loaded" in s.value for s in at.success)
    return at


def test_truth_upload_enables_accuracy():
    at = drinks_with_truth("truth.csv", b"item,score\ntea,3\ncoffee,2\njuice,1\n")
    at = open_page("pages/consensus.py", at)
    assert [m.label for m in at.metric] == ["Agreement with the true order"]


def test_a_true_order_read_for_earlier_data_is_not_applied_to_new_data():
    at = drinks_with_truth("truth.txt", b"tea\ncoffee\njuice\n")
    films = b"who,1st,2nd,3rd\na,Film A,Film B,Film C\nb,Film B,Film A,Film C\n"
    at = upload(at, "films.csv", films)
    no_failure(at)
    assert not at.error, [e.value for e in at.error]
    assert any("was read for the data loaded before" in i.value for i in at.info)
    assert "films.csv" in sidebar_text(at)
    at = open_page("pages/consensus.py", at)
    assert "Agreement with the true order" not in [m.label for m in at.metric]


def test_item_names_are_shown_as_text_not_html():
    evil = b"voter,1st,2nd\nann,<img src=x onerror=alert(1)>,=SUM(A1)\nbob,=SUM(A1),plain\n"
    at = open_page("pages/consensus.py", upload(open_page("pages/data.py"), "evil.csv", evil))
    no_failure(at)
    assert "<img src=x onerror=alert(1)>" in list(at.dataframe[0].value["item"])
    heatmap = [s for s in chart_specs(at) if s["data"][0]["type"] == "heatmap"][0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in heatmap["data"][0]["y"]


def test_dic_run_draws_the_curve_and_stores_alpha():
    at = open_page("pages/dic.py")
    at.radio(key="dic_grid_kind").set_value("My own list")
    at.text_input(key="dic_custom").set_value("1, 10, 100")
    at.number_input(key="dic_draws").set_value(20)
    at = click(at, "Run")
    no_failure(at)
    [spec] = chart_specs(at)
    np.testing.assert_allclose(values(spec["data"][0]["x"]), [1, 10, 100])
    prefs = read_preferences(SAMPLE / "pizza_rankings.csv")
    expected = dic_sweep(prefs, alphas=[1, 10, 100], burn_in=100, n_draws=20, random_state=0,
                         warm_start=DIC_DRAWS["warm_start"])
    np.testing.assert_allclose(values(spec["data"][0]["y"]), expected.dic)
    best = f"{expected.best_alpha:g}"
    assert expected.still_falling  # the minimum is the grid's end: no star, a sentence
    assert "not reached" == {m.label: m.value for m in at.metric}["α with the lowest DIC"]
    assert "still falling at the largest α tried" in " ".join(c.value for c in at.caption)
    assert "star" not in [d.get("marker", {}).get("symbol") for d in spec["data"]]
    axis = spec["layout"]["xaxis"]["title"]["text"]
    assert "larger α = smaller neighbourhood = trusting the data more" in axis.replace("<br>", " ")
    text = " ".join(m.value for m in at.markdown)
    assert "τ = α / (α + N)" in text and "N = 30" in text and "levels off" in text
    at = click(at, f"Use α = {best} (largest tried; still falling)")
    assert f"Chosen α = {best}" in sidebar_text(at)
    at = open_page("pages/compare.py", at)
    assert f"α = {best}" in " ".join(c.value for c in at.caption)


def test_compare_run_charts_accuracy_and_time_from_the_engine():
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["pl-em", "coarsen-pl", "borda"])
    at.text_input(key="compare_alpha").set_value("20")
    at = click(at, "Run the comparison")
    no_failure(at)
    specs = chart_specs(at)
    accuracy = specs[0]["data"][0]
    assert list(accuracy["y"]) == ["PL-EM", "CoarsenPL", "Borda"]
    prefs = read_preferences(SAMPLE / "pizza_rankings.csv")
    truth = read_truth(SAMPLE / "pizza_truth.csv", prefs)
    expected = compare(prefs, ["pl-em", "coarsen-pl", "borda"], truth=truth,
                       overrides={"alpha": 20.0, **COMPARE_DRAWS})
    np.testing.assert_allclose(values(accuracy["x"]), [r.accuracy for r in expected.rows])
    timing = [s for s in specs if s["layout"].get("xaxis", {}).get("type") == "log"][0]
    assert list(timing["data"][0]["y"]) == ["PL-EM", "CoarsenPL", "Borda"]
    table = at.dataframe[0].value
    assert list(table["method"]) == ["PL-EM", "CoarsenPL", "Borda"]


def test_compare_without_truth_shows_agreement_heatmap():
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    at = open_page("pages/compare.py", at)
    at.multiselect(key="compare_methods").set_value(["coarsen-pl", "borda"])
    at = click(at, "Run the comparison")
    no_failure(at)
    heatmap = chart_specs(at)[0]["data"][0]
    assert heatmap["type"] == "heatmap"
    assert np.allclose(np.diag(values(heatmap["z"])), 1.0)


def test_a_true_order_naming_some_items_says_the_accuracy_is_over_those_only():
    at = drinks_with_truth("truth.txt", b"tea\ncoffee\n")
    at = open_page("pages/compare.py", at)
    at.multiselect(key="compare_methods").set_value(["pl-em", "borda"])
    at = click(at, "Run the comparison")
    no_failure(at)
    [note] = [i.value.replace("\\", "") for i in at.info if "true order names" in i.value]
    assert "names 2 of the 3 items" in note and "not named: juice" in note
    at = open_page("pages/compare.py", drinks_with_truth("truth.txt", b"tea\ncoffee\njuice\n"))
    at = click(at, "Run the comparison")
    assert not [i.value for i in at.info if "true order names" in i.value]


def test_robustness_curve_and_scale_test_run_from_the_compare_page():
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["pl-em", "coarsen-pl"])
    at.slider(key="robust_seeds").set_value(1)
    at = click(at, "Draw the robustness curve")
    no_failure(at)
    lines = [d for d in chart_specs(at)[-1]["data"] if d.get("mode") == "lines+markers"]
    assert [d["name"] for d in lines] == ["PL-EM", "CoarsenPL"]
    np.testing.assert_allclose(values(lines[0]["x"]), [0, 10, 20, 30, 40, 50, 60])
    at = click(at, "Run the scale test")
    no_failure(at)
    scale = chart_specs(at)[-1]
    np.testing.assert_allclose(values(scale["data"][0]["x"]), [1, 10, 50, 100])
    assert scale["layout"]["xaxis"]["type"] == "log" == scale["layout"]["yaxis"]["type"]


def test_noise_makes_a_copy_and_one_click_goes_back():
    at = open_page("pages/noise.py")
    at.selectbox(key="noise_kind").set_value("reverse_preferences").run()
    at.slider(key="noise_level_reverse_preferences").set_value(0.5)
    at = click(at, "Make the noisy copy")
    no_failure(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Lists altered"] == "50%"
    assert "noisy copy" in sidebar_text(at)
    at = click(at, "Switch to the original data")
    assert "noisy copy" not in sidebar_text(at)
    assert "Pizza survey" in sidebar_text(at)


def test_fewer_answers_per_rater_says_how_many_lists_it_left_out():
    at = open_page("pages/noise.py")
    [button] = [b for b in at.button if b.key == "load_campaign"]  # 8 lists a rater
    at = button.click().run()
    at.selectbox(key="noise_kind").set_value("subsample").run()
    at.slider(key="noise_level_subsample").set_value(0.5)
    at = click(at, "Make the noisy copy")
    no_failure(at)
    metrics = {m.label: m.value for m in at.metric}
    kept, _, before = metrics["Lists kept"].partition(" of ")
    assert int(kept.replace(",", "")) < int(before.replace(",", ""))
    assert int(metrics["Lists left out"].replace(",", "")) == (
        int(before.replace(",", "")) - int(kept.replace(",", "")))
    assert "Lists altered" not in metrics


def test_consensus_page_shows_ranking_intervals_heatmap_and_raters():
    at = open_page("pages/consensus.py")
    no_failure(at)
    table = at.dataframe[0].value
    assert list(table["rank"]) == list(range(1, 9))
    assert table["chance of being first"].between(0, 1).all()
    types = [s["data"][0]["type"] for s in chart_specs(at)]
    assert types == ["heatmap", "scatter"]
    assert at.get("download_button")


def test_sessions_do_not_share_data():
    first = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    second = open_page("pages/data.py")
    assert "drinks.csv" in sidebar_text(first)
    assert "Pizza survey" in sidebar_text(second) and "drinks.csv" not in sidebar_text(second)


def test_a_cached_sweep_replays_cleanly_on_another_page():
    # The DIC page's automatic sweep is the same cached call the Consensus and Noise pages
    # make for their default alpha; a cache hit must replay without touching the old page.
    at = click(open_page("pages/dic.py"), "Run")
    no_failure(at)
    knee = [m.value for m in at.metric
            if m.label == "α where the curve levels off (default rule)"][0]
    at = open_coarsen(at)
    no_failure(at)
    assert knee in " ".join(c.value for c in at.caption)
    at = click(open_page("pages/noise.py", at), "Make the noisy copy")
    no_failure(at)
    assert [s.value for s in at.subheader][0] == "What changed"


def test_a_widget_change_that_needs_no_recomputation_does_not_recompute(monkeypatch):
    import ui.compute

    calls = []
    real = ui.compute.dic_sweep

    def counting(*args, **kwargs):
        calls.append(kwargs.get("alphas"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ui.compute, "dic_sweep", counting)
    at = open_page("pages/dic.py")
    at.radio(key="dic_grid_kind").set_value("My own list")
    at.text_input(key="dic_custom").set_value("2, 20, 200, 2000")
    at = click(at, "Run")
    assert calls == [(2.0, 20.0, 200.0, 2000.0)]
    at.multiselect(key="dic_curves").set_value(["dic", "f", "g"]).run()
    no_failure(at)
    assert len(chart_specs(at)[0]["data"]) > 3
    at = click(at, "Run")  # the same settings again: served from the cache
    assert len(calls) == 1


def test_a_preflib_upload_is_recognised_by_its_file_name():
    soc = (b"# FILE NAME: drinks.soc\n# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 3\n"
           b"# ALTERNATIVE NAME 1: tea\n# ALTERNATIVE NAME 2: coffee\n"
           b"# ALTERNATIVE NAME 3: juice\n2: 1,2,3\n1: 2,1,3\n")
    at = upload(open_page("pages/data.py"), "drinks.soc", soc)
    no_failure(at)
    assert any("Loaded drinks.soc" in s.value for s in at.success)
    assert "3 items" in sidebar_text(at)


def test_a_parquet_upload_reads_as_its_csv_twin():
    import pandas as pd

    buffer = io.BytesIO()
    pd.DataFrame({"voter": ["ann", "bob", "cy"], "1st": ["tea", "coffee", "tea"],
                  "2nd": ["coffee", "juice", "juice"]}).to_parquet(buffer)
    at = upload(open_page("pages/data.py"), "drinks.parquet", buffer.getvalue())
    no_failure(at)
    assert any("Loaded drinks.parquet" in s.value for s in at.success)
    assert "3 items" in sidebar_text(at)
    assert at.dataframe[0].value["list (best first)"].iloc[1] == "coffee > juice"


def test_rows_the_reader_skipped_are_reported_on_the_data_page():
    data = b"voter,1st,2nd\nann,tea,coffee\nbob,juice\ncy,coffee,tea\n"
    at = upload(open_page("pages/data.py"), "drinks.csv", data)
    no_failure(at)
    assert any("Skipped 1 row" in i.value and "3" in i.value for i in at.info)


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_one_alpha_and_one_consensus_on_every_page(tmp_path, capsys):
    import csv

    from coarsenrank_core import choose_alpha, run_method
    from coarsenrank_core.cli import main

    prefs = read_preferences(SAMPLE / "pizza_rankings.csv")
    truth = read_truth(SAMPLE / "pizza_truth.csv", prefs)
    alpha = choose_alpha(prefs).alpha
    expected = f"α = {alpha:g}"
    fit = run_method("coarsen-pl", prefs)
    assert fit.params["alpha"] == alpha
    at = open_coarsen()
    no_failure(at)
    assert f"Chosen {expected}" in sidebar_text(at) and expected in captions(at)
    assert at.select_slider(key="consensus_alpha").value == alpha
    table = at.dataframe[0].value
    assert list(table["item"]) == [prefs.item_names[i] for i in fit.order]
    np.testing.assert_allclose(table["strength"], fit.scores[fit.order])
    out = tmp_path / "ranking.csv"
    assert main(["rank", str(SAMPLE / "pizza_rankings.csv"), "--method", "coarsen-pl",
                 "--out", str(out)]) == 0
    assert expected in capsys.readouterr().err
    with open(out) as handle:
        cli = list(csv.DictReader(handle))
    assert [r["item"] for r in cli] == list(table["item"])
    np.testing.assert_allclose([float(r["score"]) for r in cli], table["strength"])
    at = open_page("pages/compare.py", at)
    assert f"Chosen {expected}" in sidebar_text(at) and expected in captions(at)
    assert at.text_input(key="compare_alpha").value == f"{alpha:g}"
    at.multiselect(key="compare_methods").set_value(["coarsen-pl", "pl-mix"])
    at = click(at, "Run the comparison")
    no_failure(at)
    shown = values(chart_specs(at)[0]["data"][0]["x"])
    engine = compare(prefs, ["coarsen-pl", "pl-mix"], truth=truth, overrides=COMPARE_DRAWS)
    assert engine.alpha_choice.alpha == alpha
    np.testing.assert_allclose(shown, [r.accuracy for r in engine.rows])
    at = open_page("pages/home.py", at)
    assert f"Chosen {expected}" in sidebar_text(at)


def test_the_consensus_slider_sets_alpha_for_every_page():
    at = open_coarsen()
    at.select_slider(key="consensus_alpha").set_value(float("inf")).run()
    no_failure(at)
    assert "Chosen α = ∞" in sidebar_text(at) and "set with the slider" in sidebar_text(at)
    at = open_page("pages/compare.py", at)
    assert at.text_input(key="compare_alpha").value == "inf"
    assert "α = ∞" in captions(at)
    at = open_page("pages/noise.py", at)
    assert "Chosen α = ∞" in sidebar_text(at)
    # and a value typed on Compare reaches the Consensus slider
    at = open_page("pages/compare.py", at)
    at.multiselect(key="compare_methods").set_value(["borda"])
    at.text_input(key="compare_alpha").set_value("24")
    at = click(at, "Run the comparison")
    assert "Chosen α = 24" in sidebar_text(at)
    at = open_coarsen(at)
    assert at.select_slider(key="consensus_alpha").value == 24.0
    assert "α = 24" in captions(at)


def test_a_noisy_copy_keeps_the_alpha_and_says_so():
    at = open_coarsen()
    grid = at.select_slider(key="consensus_alpha").options
    chosen = float(grid[3])
    at.select_slider(key="consensus_alpha").set_value(chosen).run()
    at = open_page("pages/noise.py", at)
    at = click(at, "Make the noisy copy")
    no_failure(at)
    assert "noisy copy" in sidebar_text(at)
    assert f"Chosen α = {chosen:g}" in sidebar_text(at)
    assert "Kept from the original" in sidebar_text(at)
    assert any(f"α = {chosen:g}" in i.value and "keeps the original" in i.value
               for i in at.info)
    at = open_coarsen(at)
    no_failure(at)
    assert f"α = {chosen:g}" in captions(at)
    assert at.select_slider(key="consensus_alpha").value == chosen
    # the DIC page of the copy says that its α is the original's, whatever this curve says
    at = open_page("pages/dic.py", at)
    at.number_input(key="dic_draws").set_value(20)
    at = click(at, "Run")
    no_failure(at)
    assert "shares one α with its original data" in captions(at)


def test_consensus_judges_raters_with_the_mixture_when_chosen():
    from coarsenrank_core.diagnostics import careless_rankers

    at = open_page("pages/consensus.py")
    at.radio(key="consensus_judge").set_value("pl-mix-ranker").run()
    no_failure(at)
    spec = [s for s in chart_specs(at) if "random" in s["layout"]["title"]["text"]][0]
    prefs = read_preferences(SAMPLE / "pizza_rankings.csv")
    expected = careless_rankers(prefs, "pl-mix-ranker")
    dots = np.concatenate([values(d["x"]) for d in spec["data"] if d["mode"] == "markers"])
    np.testing.assert_allclose(sorted(dots, reverse=True),
                               np.sort(expected.probability)[::-1][:40])
    assert f"{expected.pi:.0%}" in spec["layout"]["title"]["text"]


def test_teaching_scenarios_load_from_the_noise_page_with_their_sentence():
    at = open_page("pages/noise.py")
    no_failure(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Nothing helps against a coordinated adversary" in text
    assert "clearly better than plain PL" in text
    [button] = [b for b in at.button if b.key == "load_campaign"]
    at = button.click().run()
    no_failure(at)
    assert "Teaching: a coordinated campaign" in sidebar_text(at)


def test_cross_validation_runs_on_the_dic_page_and_can_set_alpha():
    from coarsenrank_core import choose_alpha

    at = click(open_page("pages/dic.py"), "Cross-validate")
    no_failure(at)
    expected = choose_alpha(read_preferences(SAMPLE / "pizza_rankings.csv"), "cv")
    [spec] = [s for s in chart_specs(at) if "Cross-validation" in s["layout"]["title"]["text"]]
    np.testing.assert_allclose(values(spec["data"][0]["y"]), expected.evidence.mean)
    label = "∞" if expected.alpha == float("inf") else f"{expected.alpha:g}"
    at = click(at, f"Use α = {label} (cross-validation)")
    assert f"Chosen α = {label}" in sidebar_text(at)
    assert "cross-validation" in sidebar_text(at)


def test_large_data_are_drawn_first_at_a_provisional_alpha_then_refined(monkeypatch):
    import ui.compute
    import ui.state
    from coarsenrank_core import choose_alpha

    monkeypatch.setattr("ui.alpha.QUICK_CHOICE_ENTRIES", -1)  # every dataset counts as large
    fitted = []
    real = ui.compute.engine_consensus_fit

    def spy(prefs, alpha, **kwargs):
        fitted.append(alpha)
        return real(prefs, alpha, **kwargs)

    monkeypatch.setattr(ui.compute, "engine_consensus_fit", spy)
    ui.compute.consensus_fit.clear()
    at = open_coarsen()
    no_failure(at)
    knee = choose_alpha(read_preferences(SAMPLE / "pizza_rankings.csv")).alpha
    assert fitted[0] == 30.0  # the page is drawn first at α = N (30 lists)
    assert fitted[-1] == knee  # then α is chosen by the default rule and the page redrawn
    assert f"Chosen α = {knee:g}" in sidebar_text(at)
    assert not [i for i in at.info if "provisional" in i.value]


def test_the_data_page_radio_says_where_the_loaded_data_came_from():
    at = upload(open_page("pages/data.py"), "drinks.csv", SMALL_CSV)
    at = open_page("pages/data.py", open_page("pages/home.py", at))
    assert at.radio(key="data_source").value == "My own file"
    assert "drinks.csv" in at.header[0].value
    at = open_page("pages/noise.py", at)
    [button] = [b for b in at.button if b.key == "load_campaign"]
    at = open_page("pages/data.py", button.click().run())
    assert at.radio(key="data_source").value == "A built-in sample"
    assert at.selectbox(key="sample_choice").value == "campaign"


def test_methods_chosen_on_compare_survive_leaving_the_page():
    at = open_page("pages/compare.py")
    chosen = at.multiselect(key="compare_methods").value
    assert len(chosen) > 2
    at.multiselect(key="compare_methods").set_value(chosen[1:]).run()
    at = open_page("pages/compare.py", open_page("pages/consensus.py", at))
    assert at.multiselect(key="compare_methods").value == chosen[1:]


def test_home_start_here_lists_the_sidebar_pages_in_the_sidebar_order():
    at = fresh_app().run()
    links = [link.proto.page for link in at.get("page_link")]
    assert links == [url for *_, url in PAGES[1:]]


def test_the_dashboard_sweep_on_both_cores_gives_the_command_lines_alpha(monkeypatch):
    import ui.compute
    from coarsenrank_core import choose_alpha
    from coarsenrank_core.experiments import teaching_arrays

    prefs, _ = teaching_arrays("careless", 0)
    monkeypatch.setattr(ui.compute, "PARALLEL_ENTRIES", 0)
    assert ui.compute.workers(prefs) == 2
    at = open_page("pages/noise.py")
    [button] = [b for b in at.button if b.key == "load_careless"]
    at = open_coarsen(button.click().run())
    no_failure(at)
    assert at.select_slider(key="consensus_alpha").value == choose_alpha(prefs).alpha


def _spy_consensus_steps(monkeypatch):
    """Record, in order, the Consensus page's EM fits, α choices and posteriors."""
    import coarsenrank_core
    import ui.compute

    events = []
    real_fit, real_choose = ui.compute.engine_consensus_fit, ui.compute.choose_alpha
    real_gibbs = coarsenrank_core.coarsen_pl_gibbs

    def fit(prefs, alpha, **kwargs):
        events.append(("fit", alpha))
        return real_fit(prefs, alpha, **kwargs)

    def choose(prefs, rule, **kwargs):
        events.append(("choose", rule))
        return real_choose(prefs, rule, **kwargs)

    def gibbs(prefs, alpha, **kwargs):
        events.append(("posterior", alpha))
        return real_gibbs(prefs, alpha=alpha, **kwargs)

    monkeypatch.setattr(ui.compute, "engine_consensus_fit", fit)
    monkeypatch.setattr(ui.compute, "choose_alpha", choose)
    monkeypatch.setattr(coarsenrank_core, "coarsen_pl_gibbs", gibbs)
    # every data set counts as slow to choose α on
    monkeypatch.setattr("ui.alpha.QUICK_CHOICE_ENTRIES", -1)
    for cached in (ui.compute.consensus_fit, ui.compute.posterior, ui.compute.alpha_choice):
        cached.clear()
    return events


def test_the_consensus_page_draws_a_provisional_consensus_before_any_sweep(monkeypatch):
    """First drawing on data whose α is slow to choose: the EM consensus at the quick
    rule's α = N, labelled provisional, and no DIC sweep nor posterior before it."""
    events = _spy_consensus_steps(monkeypatch)
    monkeypatch.setattr("ui.alpha.refine_step", lambda notice: None)  # stop after drawing
    at = open_coarsen()
    no_failure(at)
    assert events == [("fit", 30.0)]  # 30 lists: α = N, nothing else
    [note] = [i.value for i in at.info if "Provisional consensus" in i.value]
    assert "α = 30" in note and "default rule" in note
    assert any("provisional, α = N" in c.value for c in at.caption)
    table = at.dataframe[0].value
    assert list(table.columns) == ["rank", "item", "strength"]
    assert at.select_slider(key="consensus_alpha").value == 30.0
    assert not [s for s in chart_specs(at) if "How sure" in s["layout"]["title"]["text"]]


def test_the_provisional_consensus_is_refined_to_the_default_rules_alpha(monkeypatch):
    """Then, with no click: α by the default rule (as the command line's), the consensus at
    that α, and the posterior at that α only."""
    from coarsenrank_core import choose_alpha

    events = _spy_consensus_steps(monkeypatch)
    at = open_coarsen()
    no_failure(at)
    knee = choose_alpha(read_preferences(SAMPLE / "pizza_rankings.csv")).alpha
    assert events == [("fit", 30.0), ("choose", "knee"), ("fit", knee), ("posterior", knee)]
    assert at.select_slider(key="consensus_alpha").value == knee
    assert f"Chosen α = {knee:g}" in sidebar_text(at)
    assert not [i for i in at.info if "rovisional" in i.value]
    assert "likely ranks (90%)" in at.dataframe[0].value.columns
    assert [s for s in chart_specs(at) if "How sure" in s["layout"]["title"]["text"]]



def test_without_raters_the_data_page_draws_no_rater_chart():
    at = upload(open_page("pages/data.py"), "lists.csv", b"1st,2nd,3rd\na,b,c\nb,a,c\nc,a,b\n")
    no_failure(at)
    titles = [s["layout"]["title"]["text"] for s in chart_specs(at)]
    assert not any("each rater" in t for t in titles) and any("lists" in t for t in titles)
    at = upload(at, "drinks.csv", SMALL_CSV)
    titles = [s["layout"]["title"]["text"] for s in chart_specs(at)]
    assert any("each rater" in t for t in titles)


def test_raters_read_upside_down_are_not_called_random_in_the_rater_table():
    rng = np.random.default_rng(3)
    rows = ["rater,first,second,third,fourth"]
    for rater in range(30):
        for _ in range(4):
            order = [str(i) for i in sorted(rng.choice(8, 4, replace=False))]
            rows.append(f"r{rater}," + ",".join(order[::-1] if rater < 6 else order))
    at = upload(fresh_app().switch_page("pages/data.py").run(), "turned.csv",
                ("\n".join(rows) + "\n").encode())
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    [table] = [d.value for d in at.dataframe if "rater" in d.value.columns]
    assert "chance of answering at random or upside down" in table.columns
    # the six raters who wrote every list upside down are the ones it counts
    column = table["chance of answering at random or upside down"]
    assert sorted(table["rater"][column > 0.5]) == [f"r{k}" for k in range(6)]
    assert any("answered at random or upside down" in c.value for c in at.caption)
