"""Checks of the dashboard defects of the second exploratory round (AppTest and figures)."""

import importlib.util
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import coarsenrank_core.experiments as experiments
from coarsenrank_core.comparison import DEFAULT_COMPARISON
from coarsenrank_core.experiments import robustness_curve, teaching_arrays
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.models import consensus as consensus_module
from coarsenrank_core.models.consensus import CONSENSUS_PRIOR
from coarsenrank_core.models.mixture import mixture_log_posterior
from coarsenrank_core.models.plackett_luce import coarsen_pl
from coarsenrank_core.registry import METHODS, attempt
from tests.test_app_default import click, no_failure, open_page
from ui import poll as poll_ui
from ui import poll_store
from ui.charts import PHONE_CELL_FONT, PHONE_LABEL_WIDTH, agreement_heatmap
from ui.compute import Job, Timings, robustness_note


def test_the_robustness_curve_fits_the_clean_data_once_for_a_method_without_a_seed(
        monkeypatch):
    prefs, truth = teaching_arrays("careless", 0, n_items=8, n_rankers=10, lists_per_ranker=2)
    fits: list[tuple[str, int]] = []

    def counted(method_id, data, **params):
        fits.append((method_id, len(data)))
        return attempt(method_id, data, **params)

    monkeypatch.setattr(experiments, "attempt", counted)
    progress: list[tuple[int, int]] = []
    curve = robustness_curve(prefs, ["pl-em", "crowdbt"], truth, levels=(0.0, 0.3),
                             seeds=3, progress=lambda done, total: progress.append((done, total)))
    # level 0: PL-EM (no seed) once, CrowdBT (seeded) in every repetition; level 0.3: both 3x
    assert [m for m, _ in fits].count("pl-em") == 1 + 3
    assert [m for m, _ in fits].count("crowdbt") == 3 + 3
    assert progress[-1] == (12, 12) and len(progress) == 12
    clean = pairwise_accuracy(attempt("pl-em", prefs).result.scores, truth)
    np.testing.assert_array_equal(curve.accuracy[0, 0], [clean] * 3)
    assert np.all(np.isfinite(curve.accuracy))


ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def test_the_robustness_note_counts_the_fits_and_adds_the_comparisons_seconds():
    timing = Timings(methods=("pl", "crowdbt"), names=("PL", "CrowdBT"), median=(0.5, 1.0),
                     fastest=(0.4, 0.9), slowest=(0.6, 1.1), runs=3)
    note = robustness_note(["pl", "crowdbt"], timing)
    assert "2 chosen methods at 7 noise levels (14 fits)" in note
    assert "roughly 10 s per repetition" in note  # 7 × (0.5 + 1.0)
    assert "Fewer methods or fewer repetitions are faster" in note
    untimed = robustness_note(["pl", "pl-em"], timing)  # PL-EM was not in the comparison
    assert "per repetition" not in untimed and "Run the comparison above" in untimed


def test_a_progress_bar_still_says_its_seconds_and_minutes_briefly():
    job = Job("Adding noise and refitting: fit")
    job.done, job.total, job.start = 1, 4, time.monotonic() - 30
    assert re.fullmatch(r"Adding noise and refitting: fit 1/4 · 3\d s so far, "
                        r"about \d+ (s|min) left", job._text())


def test_the_compare_page_says_what_the_robustness_curve_costs_before_it_starts():
    at = open_page("pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["pl-em", "coarsen-pl"]).run()
    no_failure(at)
    assert "2 chosen methods at 7 noise levels (14 fits)" in captions(at)
    assert "Run the comparison above" in captions(at)
    at = click(at, "Run the comparison")
    no_failure(at)
    assert "At the comparison's speed that is roughly" in captions(at)
    assert "Run the comparison above" not in captions(at)


def ten_method_comparison() -> SimpleNamespace:
    """A comparison of the ten default methods as the heatmap reads it (names, agreement)."""
    names = [METHODS[m].name for m in DEFAULT_COMPARISON]
    rng = np.random.default_rng(0)
    agreement = rng.uniform(0.6, 1.0, (len(names), len(names)))
    agreement = (agreement + agreement.T) / 2
    np.fill_diagonal(agreement, 1.0)
    agreement[2, 5] = agreement[5, 2] = np.nan  # a pair that could not be compared
    return SimpleNamespace(rows=[SimpleNamespace(name=n) for n in names], agreement=agreement)


def test_the_agreement_heatmap_on_a_phone_names_every_column_in_readable_type():
    comparison = ten_method_comparison()
    fig = agreement_heatmap(comparison, phone=True)
    [heatmap] = fig.data
    n = len(comparison.rows)
    # every column has its label, short enough to stand upright under a 23 px column
    assert list(fig.layout.xaxis.ticktext) == [str(i + 1) for i in range(n)]
    assert fig.layout.xaxis.tickmode == "array" and fig.layout.xaxis.tickangle == 0
    assert list(heatmap.x) == list(fig.layout.xaxis.tickvals)
    # every row has its number and its method's whole name
    rows = [label.replace("<br>", " ") for label in fig.layout.yaxis.ticktext]
    assert rows == [f"{i + 1} {r.name}" for i, r in enumerate(comparison.rows)]
    assert max(len(line) for label in fig.layout.yaxis.ticktext
               for line in label.split("<br>")) <= PHONE_LABEL_WIDTH
    # the cells: whole percentages in a fixed, readable size; no colour bar to squeeze them
    assert heatmap.textfont.size == PHONE_CELL_FONT >= 12
    assert fig.layout.yaxis.tickfont.size >= 12
    assert heatmap.showscale is False
    text = np.asarray(heatmap.text)
    assert text[0, 0] == "100" and text[2, 5] == ""
    assert text[0, 1] == str(round(100 * comparison.agreement[0, 1]))
    assert "%" in fig.layout.title.text


def test_the_agreement_heatmap_on_a_desktop_keeps_its_named_columns_and_shares():
    comparison = ten_method_comparison()
    [heatmap] = agreement_heatmap(comparison).data
    assert [label.replace("<br>", " ") for label in heatmap.x] == [
        r.name for r in comparison.rows]
    assert np.asarray(heatmap.text)[0, 1] == str(round(comparison.agreement[0, 1], 3))


def visible_columns(table) -> list[str]:
    order = list(table.proto.column_order)
    return order or list(table.value.columns)


def before_after_table(at: AppTest):
    [table] = [t for t in at.dataframe if "noisy copy" in t.value.columns]
    return table


def test_the_noise_pages_before_and_after_caption_matches_the_columns_shown():
    at = open_page("pages/noise.py")
    at = click(at, "Make the noisy copy")
    no_failure(at)
    # on a desktop the switch starts on: both consensus columns, and the caption says so
    assert at.toggle(key="before_after_more_columns").value is True
    assert visible_columns(before_after_table(at))[:3] == ["place", "original data",
                                                           "noisy copy"]
    assert "Left: the consensus of the original data; right: of the noisy copy" in captions(at)
    # with the switch off (a phone's start) only the noisy copy is shown, and the caption
    # says so instead of pointing "left" at a column that is not there
    at.toggle(key="before_after_more_columns").set_value(False).run()
    no_failure(at)
    assert visible_columns(before_after_table(at)) == ["place", "noisy copy",
                                                       "moved (noisy copy)"]
    assert "Left:" not in captions(at)
    assert "The consensus of the noisy copy (switch on “More columns”" in captions(at)


def test_the_consensus_pages_view_choices_survive_a_visit_to_another_page():
    at = open_page("pages/consensus.py")
    no_failure(at)
    first_judge = at.radio(key="consensus_judge").value
    other_judge = "consensus" if first_judge != "consensus" else "pl-mix"
    at.radio(key="consensus_judge").set_value(other_judge).run()
    at.toggle(key="consensus_all_raters").set_value(True).run()
    at.toggle(key="consensus_table_more_columns").set_value(False).run()
    no_failure(at)
    at = open_page("pages/data.py", at)
    no_failure(at)
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    assert at.radio(key="consensus_judge").value == other_judge
    assert at.toggle(key="consensus_all_raters").value is True
    assert at.toggle(key="consensus_table_more_columns").value is False
    assert at.radio(key="consensus_fit_kind").value == "default"


def test_the_dic_pages_chosen_curves_survive_a_visit_to_another_page():
    at = open_page("pages/dic.py")
    no_failure(at)
    assert at.multiselect(key="dic_curves").value == ["dic"]
    at.multiselect(key="dic_curves").set_value(["dic", "f"]).run()
    at = open_page("pages/consensus.py", at)
    at = open_page("pages/dic.py", at)
    no_failure(at)
    assert at.multiselect(key="dic_curves").value == ["dic", "f"]


def an_older_poll_store_class(monkeypatch):
    """``ui.poll_store.PollStore`` as a server had it before its code was reloaded: the
    same source loaded again, so its errors are other classes than today's."""
    spec = importlib.util.spec_from_file_location("old_poll_store",
                                                  ROOT / "ui" / "poll_store.py")
    old = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "old_poll_store", old)
    spec.loader.exec_module(old)
    assert old.PollNotFound is not poll_store.PollNotFound
    return old.PollStore


def test_a_wrong_join_code_after_a_code_reload_asks_for_the_code_again(tmp_path, monkeypatch):
    monkeypatch.delenv("COARSENRANK_DATABASE_URL", raising=False)
    monkeypatch.setenv("COARSENRANK_DATA_DIR", str(tmp_path / "data"))
    poll_ui._store.clear()
    # the cached store was built by the module before the reload
    with monkeypatch.context() as before_reload:
        before_reload.setattr(poll_ui, "PollStore", an_older_poll_store_class(monkeypatch))
        stale = poll_ui._store(poll_store.default_location())
    assert not isinstance(stale, poll_store.PollStore)
    assert isinstance(poll_ui.store(), poll_store.PollStore)
    with pytest.raises(poll_store.PollNotFound):
        poll_ui.store().poll("ABC123")
    # and on the page: the plain message and a new join box, not "Something went wrong"
    with monkeypatch.context() as before_reload:
        before_reload.setattr(poll_ui, "PollStore", an_older_poll_store_class(monkeypatch))
        poll_ui._store.clear()
        poll_ui._store(poll_store.default_location())
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["poll"] = "ABC123"
    at = at.switch_page("pages/poll.py").run()
    no_failure(at)
    assert any("There is no poll with this code" in w.value for w in at.warning)
    assert [t.key for t in at.text_input] == ["poll_join_again"]
    poll_ui._store.clear()


def test_the_defaults_test_against_plain_pl_reaches_plain_pls_map(monkeypatch):
    prefs, _ = teaching_arrays("careless", 0)
    fits = []

    def recorded(*args, **kwargs):
        fits.append(coarsen_pl(*args, **kwargs))
        return fits[-1]

    monkeypatch.setattr(consensus_module, "coarsen_pl", recorded)
    fit = consensus_module.consensus(prefs)
    [plain] = fits  # the test's plain PL, at the default's prior
    assert plain.converged and plain.iterations < 100  # 1,000 and unconverged before
    exact = coarsen_pl(prefs, prior=CONSENSUS_PRIOR, calibration=None, tol=1e-13,
                       max_iter=20_000)
    at_zero = mixture_log_posterior(prefs, exact.scores, 0.0, per=fit.extra.per,
                                    prior=CONSENSUS_PRIOR)
    np.testing.assert_allclose(fit.extra.likelihood_ratio,
                               2 * (fit.extra.log_posterior - at_zero), rtol=1e-10)


def test_an_untouched_rater_judge_still_follows_the_data_loaded_next():
    at = open_page("pages/consensus.py")
    assert at.radio(key="consensus_judge").value == "pl-mix"  # pizza: one list per rater
    at = open_page("pages/data.py", at)
    at.selectbox(key="sample_choice").set_value("careless").run()
    at = click(at, "Load this sample")
    at = open_page("pages/consensus.py", at)
    no_failure(at)
    # the careless sample's raters give 8 lists each: the default judges them per rater
    assert at.radio(key="consensus_judge").value == "pl-mix-ranker"
