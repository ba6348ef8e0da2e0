"""AppTest checks of the default answer: the Consensus page, the exposure warning, teaching."""

import csv
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from coarsenrank_core import read_preferences, run_method
from coarsenrank_core.cli import main
from coarsenrank_core.registry import DEFAULT_METHOD
from ui.noise_report import rater_check
from ui.scenario import simulate_scenario

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PIZZA = ROOT / "sample_data" / "pizza_rankings.csv"


def open_page(path: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(APP, default_timeout=180)
    return at.switch_page(path).run()


def click(at: AppTest, label: str) -> AppTest:
    [button] = [b for b in at.button if b.label == label]
    return button.click().run()


def no_failure(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not [e.value for e in at.error if "Something went wrong" in e.value]


def same_as_rank_posterior(table, source: Path, tmp_path: Path) -> list[dict]:
    """``rank SOURCE --posterior``'s rows, after checking that the page's ``table`` shows
    their items, likely ranks and first-place chances."""
    out = tmp_path / "ranking.csv"
    assert main(["rank", str(source), "--posterior", "--out", str(out)]) == 0
    with open(out, encoding="utf-8") as handle:
        cli = list(csv.DictReader(handle))
    assert list(table["item"]) == [r["item"] for r in cli]
    np.testing.assert_allclose(table["chance of being first"], [float(r["p_first"]) for r in cli])
    shown = [f"{r['rank_low']}–{r['rank_high']}" if r["rank_low"] != r["rank_high"]
             else r["rank_low"] for r in cli]
    assert list(table["likely ranks (90%)"]) == shown
    return cli


def test_the_consensus_page_and_rank_posterior_give_the_same_numbers(tmp_path):
    at = open_page("pages/consensus.py")
    no_failure(at)
    assert at.radio(key="consensus_fit_kind").value == "default"
    captions = " ".join(c.value for c in at.caption)
    assert "PL-mix per list: every rater gives one list" in captions
    table = at.dataframe[0].value
    assert list(table.columns) == ["rank", "item", "likely ranks (90%)",
                                   "chance of being first", "strength"]
    cli = same_as_rank_posterior(table, PIZZA, tmp_path)
    np.testing.assert_allclose(table["strength"], [float(r["score"]) for r in cli])
    prefs = read_preferences(PIZZA)
    fit = run_method(DEFAULT_METHOD, prefs)
    assert list(table["item"]) == [prefs.item_names[i] for i in fit.order]
    assert "resampled at random" in captions and "narrows as more people answer" in captions


def test_one_uploaded_list_gets_the_order_and_a_line_on_why_no_likely_ranks():
    from tests.test_app import upload

    at = upload(open_page("pages/data.py"), "one.csv", b"1st,2nd,3rd\ntea,coffee,juice\n")
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    table = at.dataframe[0].value
    assert list(table["item"]) == ["tea", "coffee", "juice"]
    assert "chance of being first" not in table.columns
    assert any("with one there is nothing to resample" in i.value for i in at.info)


def test_a_first_place_chance_out_of_order_is_explained_in_a_visible_line():
    at = open_page("pages/consensus.py")
    table = at.dataframe[0].value
    first = table["chance of being first"].to_numpy()
    # some row more likely first than a row above it (pizza: rank 4 above rank 3)
    out_of_order = any(first[j] > first[i] + 1e-12 for j in range(len(first))
                       for i in range(j))
    note = [c.value for c in at.caption if "higher chance of being first" in c.value]
    assert bool(note) == out_of_order
    assert all("when the raters were resampled" in n for n in note)


def test_coarsen_pl_s_note_on_first_place_chances_names_its_posterior_draws():
    from tests.test_app import open_coarsen

    at = open_coarsen()
    no_failure(at)
    first = at.dataframe[0].value["chance of being first"].to_numpy()
    out_of_order = any(first[j] > first[:j].min() + 1e-12 for j in range(1, len(first)))
    note = [c.value for c in at.caption if "higher chance of being first" in c.value]
    assert bool(note) == out_of_order
    assert all("in the posterior's draws" in n and "resampled" not in n for n in note)


def test_one_list_per_rater_is_said_instead_of_flagging_nobody():
    at = open_page("pages/consensus.py")
    assert any("Every rater gave one list" in i.value for i in at.info)
    at = click(open_page("pages/noise.py", at), "Make the noisy copy")
    no_failure(at)
    shown = " ".join([i.value for i in at.info] + [c.value for c in at.caption])
    assert "Every rater gave one list" in shown


def test_the_pizza_sample_marks_its_seven_careless_respondents():
    at = open_page("pages/data.py")
    assert any("7 raters of these data answered carelessly by design" in c.value
               for c in at.caption)
    at = open_page("pages/consensus.py", at)
    spec = [e for e in at.get("plotly_chart")]
    assert spec  # the rater chart marks them
    assert any("drawn as filled red dots" in c.value for c in at.caption)


def test_a_scenario_with_weaker_items_shown_more_warns_on_data_and_consensus_pages():
    at = open_page("pages/data.py")
    at.radio(key="data_source").set_value("A simulated scenario (for teaching)").run()
    at.selectbox(key="scenario_exposure").set_value(-1.0)
    at.slider(key="scenario_lists").set_value(5)
    at.slider(key="scenario_raters").set_value(60)
    at = click(at, "Create scenario")
    no_failure(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "Weaker items were shown more often" in warnings
    assert "every method's answer here depends on that" in warnings
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    assert "Weaker items were shown more often" in " ".join(w.value for w in at.warning)
    # every rater careful: the careless-answer test fails, and the caption says so
    assert "PL-EM: the answers show no clear sign of careless ones" in " ".join(
        c.value for c in at.caption)


def test_the_dic_page_draws_the_curve_that_chose_alpha_without_a_click():
    at = open_page("pages/dic.py")
    no_failure(at)
    assert any("The curve the default rule drew" in c.value for c in at.caption)
    assert at.get("plotly_chart")


def test_the_teachers_scenario_flags_its_careless_raters_at_the_builders_defaults():
    # issue 16's scenario: 10 items, 60 raters, 30 % careless; the builder now asks for lists
    # per rater (default 5), and with them the careless raters stand out
    at = open_page("pages/data.py")
    at.radio(key="data_source").set_value("A simulated scenario (for teaching)").run()
    assert at.slider(key="scenario_lists").value == 5
    at.slider(key="scenario_careless").set_value(30)
    at = click(at, "Create scenario")
    no_failure(at)
    dataset = simulate_scenario(at.slider(key="scenario_items").value,
                                at.slider(key="scenario_raters").value,
                                at.slider(key="scenario_length").value, 0.30,
                                int(at.number_input(key="scenario_seed").value),
                                at.slider(key="scenario_lists").value,
                                float(at.selectbox(key="scenario_exposure").value))
    assert (dataset.preferences.n_items, dataset.preferences.n_rankers) == (10, 60)
    check = rater_check(dataset)
    assert len(check.noisy) == 18
    # before the control: one list each, "flagged 0, recall 0 %"; now 14 of 18 at 93 % precision
    assert check.recall >= 0.7 and check.precision >= 0.8, (check.recall, check.precision)
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    assert not any("Every rater gave one list" in i.value for i in at.info)


def test_two_raters_get_the_posteriors_likely_ranks_on_the_page_and_from_the_cli(tmp_path):
    """Two raters compare each pair twice at most: resampling them measures nothing, so the
    page and ``rank --posterior`` both give the model's posterior, and say why."""
    from tests.test_app import upload

    lines = b"rater,1st,2nd,3rd,4th\nann,tea,coffee,juice,milk\nbob,coffee,tea,milk,juice\n"
    at = upload(open_page("pages/data.py"), "two.csv", lines)
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    captions = " ".join(c.value for c in at.caption)
    assert "draws of the Plackett–Luce model's posterior" in captions
    assert "on average 2.0 raters compared each pair of items" in captions
    assert "resampled at random" not in captions
    source = tmp_path / "two.csv"
    source.write_bytes(lines)
    cli = same_as_rank_posterior(at.dataframe[0].value, source, tmp_path)
    assert any(r["rank_low"] != r["rank_high"] for r in cli)


def test_a_download_click_only_downloads_and_never_reruns_the_page():
    # a rerun started by the click races the request for the file (Streamlit warns of it);
    # once in CI a click on "Download the ranking (CSV)" started no download
    from tests.test_app import open_coarsen, upload
    from ui.shell import PAGES

    buttons = []
    for path in [p[0] for p in PAGES]:
        buttons += open_page(path).get("download_button")
    buttons += open_coarsen().get("download_button")
    bad = upload(open_page("pages/data.py"), "bad.csv", b"1st,2nd\n\x00\x01,\n", confirm=False)
    buttons += bad.get("download_button")
    labels = {b.proto.label for b in buttons}
    assert {"Download the ranking (CSV)", "Download the session (.json)",
            "Download the per-rater table (CSV)"} <= labels
    assert any(label.startswith("Download an example") for label in labels), labels
    assert [b.proto.label for b in buttons if not b.proto.ignore_rerun] == []


def test_the_likely_ranks_show_on_a_wide_screen_and_a_switch_is_kept_across_pages():
    at = open_page("pages/consensus.py")
    table = at.dataframe[0]
    shown = list(table.value.columns) if table.proto.column_order == [] else \
        list(table.proto.column_order)
    assert any(c.startswith("likely ranks") for c in shown), shown
    at.toggle(key="consensus_table_more_columns").set_value(False).run()
    assert list(at.dataframe[0].proto.column_order) == ["rank", "item",
                                                         "chance of being first"]
    at = open_page("pages/data.py", at)
    at = open_page("pages/consensus.py", at)
    assert at.toggle(key="consensus_table_more_columns").value is False
    assert list(at.dataframe[0].proto.column_order) == ["rank", "item",
                                                         "chance of being first"]


def test_the_consensus_page_names_items_with_equal_scores(tmp_path):
    from tests.test_app import upload

    symmetric = b"judge,1st,2nd,3rd\na,A,B,C\nb,A,C,B\nc,A,B,C\nd,A,C,B\n"
    at = open_page("pages/consensus.py", upload(open_page("pages/data.py"), "dom.csv",
                                                 symmetric))
    assert any("Equal scores" in c.value and "B and C (ranks 2–3)" in c.value
               for c in at.caption), \
        [c.value for c in at.caption]
