"""Chart properties under AppTest: axis types and ranges, marker positions, what is shown."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.test_app import chart_specs, click, no_failure, open_page, values
from ui.charts import TITLE_WIDTH


def spec_titled(at: AppTest, words: str) -> dict:
    found = [s for s in chart_specs(at) if words in s["layout"]["title"]["text"].replace(
        "<br>", " ")]
    assert found, [s["layout"]["title"]["text"] for s in chart_specs(at)]
    return found[0]


def title_lines(spec: dict) -> list[str]:
    return spec["layout"]["title"]["text"].split("<br>")


def axes(spec: dict, letter: str) -> list[dict]:
    layout = spec["layout"]
    return [layout[k] for k in sorted(layout) if k.startswith(letter + "axis")]


def test_dic_panels_share_one_log_alpha_axis_and_the_chosen_line_moves_at_once():
    at = open_page("pages/dic.py")
    at.number_input(key="dic_draws").set_value(20)
    at = click(at, "Run")
    at.multiselect(key="dic_curves").set_value(["dic", "f", "g"]).run()
    no_failure(at)
    spec = spec_titled(at, "DIC curve")
    xaxes = axes(spec, "x")
    assert len(xaxes) == 3 and all(a["type"] == "log" for a in xaxes)
    # every panel marks the knee, and the α the pages use, at the same α
    knees = [values(d["x"])[0] for d in spec["data"] if d["name"].startswith("levels off")]
    chosen = [values(d["x"]) for d in spec["data"] if d["name"] == "α the pages use"]
    assert len(knees) == 3 and len(set(knees)) == 1
    assert len(chosen) == 3 and all(np.all(c == chosen[0][0]) for c in chosen)
    # the knee marker sits on its panel's curve: its y is interpolated on log α
    curve = next(d for d in spec["data"] if d["name"] == "f")
    mark = [d for d in spec["data"] if d["name"].startswith("levels off")][1]
    expected = np.interp(np.log(knees[0]), np.log(values(curve["x"])), values(curve["y"]))
    assert values(mark["y"])[0] == pytest.approx(expected)
    # "Use α" moves the dashed line in the same click (no rerun late)
    label = next(b.label for b in at.button if b.key == "use_best")
    best = float(label.split("= ")[1].split(" ")[0].replace(",", ""))
    at = click(at, label)
    spec = spec_titled(at, "DIC curve")
    lines = [values(d["x"]) for d in spec["data"] if d["name"] == "α the pages use"]
    assert all(line[0] == pytest.approx(best, rel=1e-5) for line in lines)


@pytest.fixture(scope="module")
def compared() -> AppTest:
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_methods").set_value(
        ["pl-em", "coarsen-pl", "crowdbt", "borda", "copeland", "pl-mix"]).run()
    at = click(at, "Run the comparison")
    at.slider(key="robust_seeds").set_value(1)
    at = click(at, "Draw the robustness curve")
    at = click(at, "Run the scale test")
    no_failure(at)
    return at


def test_accuracy_axis_runs_from_chance_to_one(compared):
    spec = spec_titled(compared, "How close is each method")
    assert spec["layout"]["xaxis"]["range"] == [0.5, 1.0]
    dots = spec["data"][0]
    assert dots["mode"].startswith("markers")  # dots: no bar length from an arbitrary base
    assert np.all((values(dots["x"]) >= 0.5) & (values(dots["x"]) <= 1.0))


def test_times_are_points_with_error_bars_on_a_log_axis_from_three_runs(compared):
    spec = spec_titled(compared, "How long does each method take")
    trace = spec["data"][0]
    assert trace["type"] == "scatter" and trace["mode"] == "markers"
    assert spec["layout"]["xaxis"]["type"] == "log"
    assert "median of 3 runs" in spec["layout"]["xaxis"]["title"]["text"].replace("<br>", " ")
    median, plus, minus = (values(trace["x"]), values(trace["error_x"]["array"]),
                           values(trace["error_x"]["arrayminus"]))
    assert np.all(plus >= 0) and np.all(minus >= 0) and np.all(median > 0)
    table = compared.dataframe[0].value
    assert "seconds per fit (median of 3 runs)" in table.columns
    assert "converged" not in table.columns and "stopped by its rule" in table.columns
    assert set(table["stopped by its rule"]) <= {"yes", "no", "—"}


def test_a_method_without_a_stopping_rule_shows_a_dash():
    from dataclasses import replace

    from coarsenrank_core import compare, read_preferences
    from tests.test_app import SAMPLE
    from ui.compute import Timings
    from ui.tables import comparison_table

    result = compare(read_preferences(SAMPLE / "pizza_rankings.csv"), ["borda", "pl-em"])
    rows = (replace(result.rows[0], converged=None), replace(result.rows[1], converged=False))
    timing = Timings(("borda", "pl-em"), ("Borda", "PL-EM"), (0.1, 0.2), (0.1, 0.2),
                     (0.1, 0.2), 3)
    header, table = comparison_table(replace(result, rows=rows), timing)
    column = header.index("stopped by its rule")
    assert [r[column] for r in table] == ["—", "no"]
    assert header[3] == "seconds per fit (median of 3 runs)"


def test_robustness_shows_four_methods_at_first_and_each_can_be_chosen(compared):
    spec = spec_titled(compared, "as more raters answer")
    lines = [d["name"] for d in spec["data"] if d.get("mode") == "lines+markers"]
    assert lines == ["PL-EM", "CoarsenPL", "CrowdBT", "Borda"]
    assert spec["layout"]["yaxis"]["range"][1] == 1.0
    compared.multiselect(key="robust_shown").set_value(["copeland", "pl-mix"]).run()
    spec = spec_titled(compared, "as more raters answer")
    assert [d["name"] for d in spec["data"] if d.get("mode") == "lines+markers"] == [
        "Copeland", "PL-mix"]


def test_scale_chart_draws_the_proportional_line_its_caption_names(compared):
    spec = spec_titled(compared, "grow in step")
    assert spec["layout"]["xaxis"]["type"] == "log" == spec["layout"]["yaxis"]["type"]
    [line] = [d for d in spec["data"] if d["name"] == "in proportion to the data"]
    x, y = values(line["x"]), values(line["y"])
    np.testing.assert_allclose(y / y[0], x / x[0])
    assert "dotted grey line" in " ".join(c.value for c in compared.caption)


def test_raters_are_sorted_say_how_many_are_shown_and_can_all_be_seen():
    at = open_page("pages/data.py")
    at.radio(key="data_source").set_value("A simulated scenario (for teaching)").run()
    at.slider(key="scenario_careless").set_value(20)
    at.slider(key="scenario_lists").set_value(1)
    at = click(at, "Create scenario")  # 60 raters, 12 of them careless, one list each
    spec = spec_titled(at, "How much did each rater answer")
    assert spec["layout"]["xaxis"]["type"] == "category"  # whole numbers, no 0.6-1.4 ticks
    assert list(spec["data"][0]["x"]) == ["1"]
    at = open_page("pages/consensus.py", at)
    at.radio(key="consensus_judge").set_value("consensus").run()
    no_failure(at)
    spec = spec_titled(at, "disagree with the consensus")
    assert "(showing 40 of 60)" in spec["layout"]["title"]["text"].replace("<br>", " ")
    dots = [d for d in spec["data"] if d["mode"] == "markers"]
    shown = np.concatenate([values(d["x"]) for d in dots])
    assert shown.size == 40
    order = spec["layout"]["yaxis"]["categoryarray"]
    by_name = {n: x for d in dots for n, x in zip(d["y"], values(d["x"]))}
    assert [by_name[n] for n in order] == sorted(by_name.values())  # lowest first
    assert any(d["name"] == "careless (known)" for d in dots)
    at.toggle(key="consensus_all_raters").set_value(True).run()
    spec = spec_titled(at, "disagree with the consensus")
    assert "showing" not in spec["layout"]["title"]["text"]
    assert sum(values(d["x"]).size for d in spec["data"] if d["mode"] == "markers") == 60


@pytest.mark.parametrize("path", ["pages/data.py", "pages/consensus.py"])
def test_every_chart_has_a_png_export_and_a_title_that_fits_a_phone(path):
    at = open_page(path)
    charts = at.get("plotly_chart")
    assert charts
    for chart in charts:
        config = json.loads(chart.proto.config)
        assert config["toImageButtonOptions"]["format"] == "png"
        spec = json.loads(chart.proto.spec)
        assert all(len(line) <= TITLE_WIDTH for line in title_lines(spec))
        assert spec["layout"]["margin"]["t"] >= 30 + 26 * len(title_lines(spec)) - 1


def test_before_after_and_careless_charts_have_fixed_ranges_and_mark_known_raters():
    at = open_page("pages/noise.py")
    [button] = [b for b in at.button if b.key == "load_careless"]
    at = button.click().run()
    at = click(at, "Make the noisy copy")
    at = [b for b in at.button if b.key == "noise_methods"][0].click().run()
    no_failure(at)
    spec = spec_titled(at, "before and after the noise")
    assert spec["layout"]["xaxis"]["range"][1] == 1.0
    assert spec["layout"]["xaxis"]["range"][0] <= 0.5
    dots = {d["name"]: d for d in spec["data"] if d.get("mode") == "markers"}
    assert set(dots) == {"original data", "noisy copy"}
    assert list(dots["original data"]["y"]) == list(dots["noisy copy"]["y"])
    spec = spec_titled(at, "answered at random")
    assert spec["layout"]["xaxis"]["range"] == [0, 1]
    known = [d for d in spec["data"] if d["name"].startswith("made noisy")]
    assert known and values(known[0]["x"]).size >= 15  # the scenario's 15 and the noise's
    order = spec["layout"]["yaxis"]["categoryarray"]
    by_name = {n: x for d in spec["data"] if d["mode"] == "markers"
               for n, x in zip(d["y"], values(d["x"]))}
    assert [by_name[n] for n in order] == sorted(by_name.values(), reverse=True)


def test_cross_validation_chart_puts_infinity_at_the_right_end_of_a_log_axis():
    at = click(open_page("pages/dic.py"), "Cross-validate")
    no_failure(at)
    spec = spec_titled(at, "Cross-validation")
    assert spec["layout"]["xaxis"]["type"] == "log"
    x = values(spec["data"][0]["x"])
    assert np.all(np.diff(x) > 0)
    assert spec["layout"]["xaxis"]["ticktext"][-1] == "∞"


def test_data_page_charts_count_whole_lists_and_name_the_least_covered_items():
    at = open_page("pages/data.py")
    lengths = spec_titled(at, "How long are the lists")
    assert list(lengths["data"][0]["x"]) == ["8"]
    coverage = spec_titled(at, "How often was each item ranked")
    assert coverage["layout"]["yaxis"]["autorange"] == "reversed"
    counts = values(coverage["data"][0]["x"])
    assert list(counts) == sorted(counts)  # least covered first, at the top


def test_the_robustness_chart_shows_the_default_and_coarsenpl_from_the_start():
    from ui.charts import ROBUSTNESS_SHOWN, first_shown

    methods = ["pl", "pl-em", "crowdbt", "peergrader", "coarsen-pl", "consensus", "borda"]
    shown = first_shown(methods)
    assert shown[:3] == ["consensus", "coarsen-pl", "pl-em"] and len(shown) == ROBUSTNESS_SHOWN
    assert first_shown(["borda", "copeland"]) == ["borda", "copeland"]


def test_rater_dots_have_the_colours_their_captions_name():
    from coarsenrank_core.diagnostics import careless_rankers, ranker_disagreement
    from coarsenrank_core.simulate import simulate_rankers, true_worths
    from ui.charts import (
        CAREFUL_BLUE,
        CARELESS_RED,
        FLAGGED_ORANGE,
        careless_chart,
        rater_chart,
    )

    sim = simulate_rankers(true_worths(8, 1.5, "even"), 20, 4, lists_per_ranker=5,
                           careless=0.3, random_state=2)
    prefs = sim.preferences
    agreement = ranker_disagreement(prefs, np.exp(np.linspace(1.5, -1.5, 8)))
    marks = {d["name"]: d["marker"] for d in rater_chart(agreement, None, sim.careless).data
             if d.mode == "markers"}
    # the Consensus page: "drawn as filled red dots"; "... stand out (orange)"
    assert marks["careless (known)"]["color"] == CARELESS_RED
    assert marks["careless (known)"]["symbol"] == "circle"
    assert marks["fits like the others"]["color"] == CAREFUL_BLUE
    if "stands out" in marks:
        assert marks["stands out"]["color"] == FLAGGED_ORANGE
    assert CARELESS_RED != FLAGGED_ORANGE
    careless = careless_rankers(prefs, "pl-mix-ranker")
    marks = {d["name"]: d["marker"] for d in careless_chart(careless, None, sim.careless).data
             if d.mode == "markers"}
    # the Noise page: "filled red dots are the raters made noisy ..., hollow blue dots the others"
    assert marks["made noisy / careless (known)"]["color"] == CARELESS_RED
    assert marks["made noisy / careless (known)"]["symbol"] == "circle"
    assert marks["careful (known)"]["color"] == CAREFUL_BLUE
    assert marks["careful (known)"]["symbol"] == "circle-open"


def _falling_curve():
    """A DIC curve still falling at the largest α tried (a stand-in for a DICResult)."""
    from types import SimpleNamespace

    alphas = np.array([1.0, 10.0, 100.0, 1000.0])
    dic = np.array([40.0, 30.0, 25.0, 20.0])
    return SimpleNamespace(alphas=alphas, taus=alphas / (alphas + 30), dic=dic, f=-dic / 2,
                           g=dic / 2, knee_alpha=1000.0, still_falling=True, best_index=3)


@pytest.mark.parametrize("curves", [("dic",), ("dic", "f", "g")])
def test_dic_title_stands_above_the_first_panels_title_and_the_end_label_below_the_curve(
        curves):
    from ui.charts import SUBTITLE_LINE, dic_chart

    fig = dic_chart(_falling_curve(), curves=curves, chosen_alpha=100.0)
    layout = fig.layout
    # the first panel's title sits on top of the plot; the chart's title is lifted above it
    panel_title = [a for a in layout.annotations if a.text.startswith("DIC = g")][0]
    assert panel_title.yanchor == "bottom" and panel_title.y == pytest.approx(1.0)
    lines = layout.title.text.count("<br>") + 1
    assert layout.title.pad.b >= 14 + 24 * (lines - 1) + SUBTITLE_LINE
    assert layout.margin.t >= 30 + 26 * lines + SUBTITLE_LINE
    # "still falling" hangs below and left of the last point, off the falling curve
    [label] = [a for a in layout.annotations if a.text.startswith("still falling")]
    assert label.yanchor == "top" and label.xanchor == "right" and label.yshift < 0
    assert label.y == pytest.approx(20.0)


@pytest.mark.parametrize("path", ["pages/compare.py", "pages/noise.py", "pages/consensus.py",
                                  "pages/dic.py"])
def test_markers_at_the_ends_of_an_axis_are_drawn_whole(path):
    at = open_page(path)
    for label in ("Run", "Run the comparison", "Make the noisy copy"):
        if [b for b in at.button if b.label == label]:
            at = click(at, label)
    no_failure(at)
    scatters = [d for spec in chart_specs(at) for d in spec["data"]
                if d.get("type", "scatter") == "scatter"]
    assert scatters
    assert all(d.get("cliponaxis") is False for d in scatters), [
        d.get("name") for d in scatters if d.get("cliponaxis") is not False]


def test_the_timings_are_the_seconds_the_comparison_measured():
    from coarsenrank_core import compare, read_preferences
    from tests.test_app import SAMPLE
    from ui.compute import timings

    result = compare(read_preferences(SAMPLE / "pizza_rankings.csv"), ["borda", "pl-em"],
                     repeats=3)
    timing = timings(result)
    assert timing.methods == ("borda", "pl-em") and timing.runs == 3
    for row, median, fastest, slowest in zip(result.rows, timing.median, timing.fastest,
                                             timing.slowest):
        assert median == np.median(row.seconds)
        assert (fastest, slowest) == (min(row.seconds), max(row.seconds))


@pytest.mark.parametrize("path", ["pages/data.py", "pages/consensus.py", "pages/compare.py"])
def test_every_chart_is_styled_as_plotly_white_for_the_traces_it_draws(path):
    """The charts' template (plotly's default once ``ui`` is imported) is plotly_white cut
    to the trace types the charts draw: a chart looks as it did with all of plotly_white."""
    import plotly.io as pio
    from plotly.utils import PlotlyJSONEncoder

    white = json.loads(json.dumps(pio.templates["plotly_white"].to_plotly_json(),
                                  cls=PlotlyJSONEncoder))
    at = open_page(path)
    if [b for b in at.button if b.label == "Run the comparison"]:
        at = click(at, "Run the comparison")
    specs = chart_specs(at)
    assert specs
    for spec in specs:
        template = spec["layout"]["template"]
        assert template["layout"] == white["layout"]
        for kind in {d.get("type", "scatter") for d in spec["data"]}:
            assert template["data"][kind] == white["data"][kind], kind


def test_a_long_method_name_wraps_beside_the_axis_instead_of_widening_the_chart():
    # a 40-character name once pushed the Compare and Noise charts' axis titles off a
    # 390-pixel phone screen; every line of a name beside an axis now fits LABEL_WIDTH
    from ui.charts import LABEL_WIDTH, method_label, timing_chart
    from ui.compute import Timings

    long = "Default (PL-EM, careless raters down-weighted <by> mixture)"
    timing = Timings(methods=("a", "b"), names=(long, "PL-EM"), median=(0.1, 0.2),
                     fastest=(0.05, 0.1), slowest=(0.2, 0.3), runs=3)
    labels = list(timing_chart(timing).data[0].y)
    assert labels[1] == "PL-EM" and labels[0] == method_label(long)
    lines = labels[0].split("<br>")
    assert len(lines) > 1 and all(len(line) <= LABEL_WIDTH for line in lines)
    assert "&lt;by&gt;" in labels[0] and " ".join(lines) == long.replace("<", "&lt;").replace(
        ">", "&gt;")


def test_count_axes_of_the_data_summary_carry_whole_numbers_only():
    from types import SimpleNamespace

    from ui import charts

    summary = SimpleNamespace(length_counts={3: 3}, preferences_per_ranker=[1, 1, 1])
    for fig in (charts.length_histogram(summary), charts.ranker_histogram(summary)):
        assert fig.layout.yaxis.tickformat == ",d" and fig.layout.yaxis.dtick == 1
    many = SimpleNamespace(length_counts={3: 300}, preferences_per_ranker=[1] * 300)
    assert charts.length_histogram(many).layout.yaxis.dtick is None
