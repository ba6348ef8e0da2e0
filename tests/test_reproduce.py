"""The paper's reproduction: golden accuracies on the real data and a quick end-to-end run."""

import csv
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core.paper.datasets import load_babyface, load_peergrading, load_readlevel
from coarsenrank_core.paper.figures import ACCURACY
from coarsenrank_core.paper.reproduce import TABLE_NAME, accuracy_section, main


@pytest.fixture(scope="module")
def accuracy_rows(data_dir):
    datasets = {"readlevel": load_readlevel(data_dir), "babyface": load_babyface(data_dir),
                "peergrading_released": load_peergrading(data_dir)}
    rows, _ = accuracy_section(datasets, None)
    return {(r["dataset"], r["method"]): r for r in rows}


PAPER_KEY = {"readlevel": "readlevel", "babyface": "babyface",
             "peergrading_released": "peergrading"}


@pytest.mark.parametrize("dataset", list(PAPER_KEY))
@pytest.mark.parametrize("method, tolerance", [
    ("coarsen-pl", 0.01), ("coarsen-bt", 0.01), ("pl-em", 0.01),
    ("pl", 0.03), ("coarsen-th", 0.03), ("crowdbt", 0.03), ("peergrader", 0.03)])
def test_accuracy_table_matches_the_paper(accuracy_rows, dataset, method, tolerance):
    row = accuracy_rows[(dataset, method)]
    assert row["paper"] == ACCURACY[method][PAPER_KEY[dataset]]
    assert abs(row["ours"] - row["paper"]) <= tolerance, row


@pytest.mark.parametrize("dataset, method, tolerance", [
    ("readlevel", "coarsen-pl", 0.002), ("readlevel", "pl-em", 0.003),
    ("babyface", "coarsen-pl", 0.002), ("babyface", "pl-em", 0.002)])
def test_coarsen_pl_and_pl_em_stay_within_the_engine_tolerances(accuracy_rows, dataset,
                                                                 method, tolerance):
    row = accuracy_rows[(dataset, method)]
    assert abs(row["ours"] - row["paper"]) <= tolerance, row


def _sushi_file(folder, rng):
    worth = rng.normal(0, 1, 100)
    lines = ["100 1"]
    for _ in range(600):
        items = rng.choice(100, 10, replace=False)
        order = items[np.argsort(-(worth[items] + rng.gumbel(size=10)))]
        lines.append("0 10 " + " ".join(map(str, order)))
    (folder / "sushi3b.5000.10.order").write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_quick_run_writes_the_papers_report_and_csvs(data_dir, tmp_path):
    sushi = tmp_path / "sushi"
    sushi.mkdir()
    _sushi_file(sushi, np.random.default_rng(0))
    out = tmp_path / "reports"
    assert main(["--data", str(data_dir), "--out", str(out), "--quick", "--only", "paper",
                 "--sushi", str(sushi)]) == 0
    assert not (out / "default_answer.md").exists()
    report = (out / "paper_reproduction.md").read_text()
    for heading in ["Table \"Accuracy\"", "PeerGrading built two ways", "Annotation ablation",
                    "Scale ablation", "DIC curves", "Learning times", "Calibration",
                    "Choosing α: the rules", "Exposure: when does CoarsenRank help?",
                    "teaching scenarios"]:
        assert heading in report
    with open(out / "paper_accuracy.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0])[:4] == ["dataset", "method", "ours", "paper"]
    assert {r["dataset"] for r in rows} == {"readlevel", "babyface", "peergrading_released",
                                            "peergrading_rebuilt", "sushi"}
    assert len(rows) == 5 * 7
    for name in ["ablation_annotations.csv", "ablation_scale.csv", "learning_times.csv",
                 "dic_summary.csv", "dic_readlevel.csv", "calibration_readlevel.csv",
                 "alpha_rules.csv", "alpha_accuracy_readlevel.csv", "exposure_study.csv",
                 "teaching_scenarios.csv"]:
        assert (out / name).stat().st_size > 0
    with open(out / "alpha_rules.csv") as handle:
        rules = list(csv.DictReader(handle))
    assert {(r["dataset"], r["rule"]) for r in rules} == {
        (d, rule) for d in ("readlevel", "babyface", "peergrading_released")
        for rule in ("knee", "dic-min", "cv")}
    assert all(0.5 < float(r["accuracy"]) <= 1 for r in rules)
    with open(out / "exposure_study.csv") as handle:
        study = list(csv.DictReader(handle))
    assert {r["exposure"] for r in study} == {"uniform", "correlated", "anti-correlated"}
    assert {r["method"] for r in study} >= {"coarsen-pl", "pl-em", "pl-mix", "pl-mix-ranker"}
    assert "## 11. The default answer" in report


@pytest.mark.slow
def test_quick_run_writes_the_default_answers_report_and_csvs(data_dir, tmp_path):
    out = tmp_path / "reports"
    assert main(["--data", str(data_dir), "--out", str(out), "--quick", "--only",
                 "default"]) == 0
    assert not (out / "paper_reproduction.md").exists()
    default = (out / "default_answer.md").read_text()
    for heading in ["## The default", "## 1. Accuracy", "## 2. Rank intervals",
                    "## 3. The paper's datasets"]:
        assert heading in default
    with open(out / "default_accuracy.csv") as handle:
        accuracy = list(csv.DictReader(handle))
    assert {r["method"] for r in accuracy} == {"consensus", "coarsen-pl", "pl-em", "pl-mix",
                                               "pl-mix-ranker"}
    with open(out / "default_bars.csv") as handle:
        bars = list(csv.DictReader(handle))
    # the bars are judged on the default and PL-EM, with PL-EM told the careless lists
    # where the contamination wrote some
    assert {(r["contamination"], r["method"]) for r in bars} == {
        ("clean", "consensus"), ("clean", "pl-em"), ("20% random rankers", "consensus"),
        ("20% random rankers", "pl-em"), ("20% random rankers", "pl-em, careless lists known")}
    assert "Judged over 2 seeds" in default and "On the tables' 2 seeds" in default
    with open(out / "default_intervals.csv") as handle:
        intervals = list(csv.DictReader(handle))
    assert all(0 <= float(r["mean"]) <= 1 for r in intervals)
    with open(out / "default_real_data.csv") as handle:
        real = list(csv.DictReader(handle))
    assert {r["dataset"] for r in real} == {"readlevel", "babyface", "peergrading_released",
                                            "peergrading_rebuilt"}
    assert {r["method"] for r in real} >= {"posterior, τ calibrated (Syring & Martin)",
                                          "posterior, τ by SafeBayes"}
    with open(out / "default_learning_rates.csv") as handle:
        rates = list(csv.DictReader(handle))
    assert {(r["data"], r["rule"]) for r in rates} >= {
        (d, rule) for d in ("Readlevel", "BabyFace", "PeerGrading (released)")
        for rule in ("calibrated", "safe-bayes")}
    assert all(0 < float(r["tau"]) <= 4 for r in rates) and "### τ chosen from the data" in default
    with open(out / "default_sparse.csv") as handle:
        sparse = list(csv.DictReader(handle))
    assert sparse and all(0 <= float(r["coverage"]) <= 1 and 1 <= float(r["width"]) <= 490
                          for r in sparse)
    assert "sparse pairs" not in default and "| 0.5 | ranker bootstrap (default) |" in default
    with open(out / "default_split_half.csv") as handle:
        split = list(csv.DictReader(handle))
    assert {r["data"] for r in split} >= {"Readlevel", "BabyFace", "PeerGrading (released)"}
    assert all(float(r["scale"]) > 0 for r in split) and "scale factor k" in default
    with open(out / "default_widening.csv") as handle:
        widening = list(csv.DictReader(handle))
    assert {r["data"] for r in widening} >= {"Readlevel", "BabyFace", "PeerGrading (released)",
                                             "PeerGrading (rebuilt)"}
    assert {float(r["factor"]) for r in widening} >= {1.0, 2.0}
    assert_widening_by_one_is_the_default(real, widening)
    assert "How much wider would the consensus-only likely ranks have to be" in default
    with open(out / "default_rater_spread_real.csv") as handle:
        spread = {r["dataset"]: r for r in csv.DictReader(handle)}
    assert set(spread) == {"readlevel", "babyface", "peergrading_released",
                           "peergrading_rebuilt"}
    # every paper's dataset has raters who differ item by item far beyond chance
    assert all(float(r["estimate"]) > 4 * float(r["null_sd"]) > 0 for r in spread.values())
    with open(out / "default_rater_spread.csv") as handle:
        simulated = list(csv.DictReader(handle))
    assert {r["truth"] for r in simulated} == {"mean order", "a further rater"}
    assert "### The raters' item-by-item spread" in default
    shipped = {r["dataset"]: float(r["value"]) for r in real
               if r["method"] == "likely ranks as shipped (default)"}
    consensus_only = {r["dataset"]: float(r["value"]) for r in real
                      if r["method"] == "ranker bootstrap, consensus only"}
    assert set(shipped) == set(consensus_only) == set(spread)
    assert all(shipped[d] > consensus_only[d] for d in shipped)
    with open(out / "default_small_samples.csv") as handle:
        small = list(csv.DictReader(handle))
    assert {r["method"] for r in small} == {"likely ranks (default)", "ranker bootstrap",
                                           "plain posterior (α = ∞)"}
    # 3 and 5 lists of 4 out of 10 items: 1.2-1.3 raters a pair, so the default is the
    # posterior, and the two rows are the same intervals
    assert all(r["posterior"] == "True" for r in small)
    by = {(r["n_lists"], r["seed"], r["method"]): r["coverage"] for r in small}
    assert all(by[n, seed, "likely ranks (default)"] == by[n, seed, "plain posterior (α = ∞)"]
               for n, seed, _ in by)
    assert "| 10 items, 3 lists of 4 |" in default and "default_small_samples.csv" in default
    with open(out / "default_held_out.csv") as handle:
        held_out = {r["data"]: r for r in csv.DictReader(handle)}
    # of the paper's datasets only BabyFace's raters give enough lists to measure their order
    assert set(held_out) == {"BabyFace", "simulated: BabyFace's shape, σ² = 0.3"}
    assert all(r["rankers"] == "2" and 0 <= float(r["covered"]) <= 1 for r in held_out.values())
    assert "| BabyFace | 2 |" in default


def assert_widening_by_one_is_the_default(real: list[dict], widening: list[dict]) -> None:
    """Widened by 1 is the default's interval without the rankers' spread, read off the same
    refits with ties shared out as the page shares them (Readlevel's refits score some
    items 0)."""
    default_rows = {TABLE_NAME[r["dataset"]]: (float(r["value"]), float(r["width"]))
                    for r in real if r["method"] == "ranker bootstrap, consensus only"}
    assert len(default_rows) == 4
    assert default_rows == {r["data"]: (float(r["coverage"]), float(r["width"]))
                            for r in widening
                            if float(r["factor"]) == 1.0 and r["data"] in default_rows}


# ------------------------------------------------------------------ without the datasets
def test_the_reports_widening_by_one_is_its_default_interval():
    reports = Path(__file__).resolve().parents[1] / "reports"
    with open(reports / "default_real_data.csv", encoding="utf-8") as handle:
        real = list(csv.DictReader(handle))
    with open(reports / "default_widening.csv", encoding="utf-8") as handle:
        assert_widening_by_one_is_the_default(real, list(csv.DictReader(handle)))


def test_the_top_level_module_is_the_paper_report_and_runs_as_a_script():
    import subprocess
    import sys

    import coarsenrank_core.paper.reproduce as paper_reproduce
    import coarsenrank_core.reproduce as shim

    assert shim.main is paper_reproduce.main
    assert shim.method_params is paper_reproduce.method_params
    run = subprocess.run([sys.executable, "-m", "coarsenrank_core.reproduce", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "--data" in run.stdout and "--quick" in run.stdout


def test_method_params_take_the_released_code_s_settings_then_ours_then_the_callers():
    from coarsenrank_core.paper.figures import RELEASED
    from coarsenrank_core.paper.reproduce import CHOSEN, PAPER_KEY, method_params
    from coarsenrank_core.registry import METHODS

    assert method_params("coarsen-pl", "readlevel") == {
        **RELEASED["readlevel"]["coarsen-pl"], "tol": 0.0}  # a fixed number of EM steps
    assert method_params("coarsen-th", "peergrading_rebuilt") == {
        **CHOSEN["coarsen-th"], "alpha": 950.0}
    assert method_params("crowdbt", "babyface", passes=2) == {**CHOSEN["crowdbt"], "passes": 2}
    assert method_params("pl-em", "sushi", max_iter=3)["max_iter"] == 3
    for dataset in PAPER_KEY:
        for method in ("pl", "pl-em", "crowdbt", "peergrader", "coarsen-th", "coarsen-bt",
                       "coarsen-pl"):
            assert set(method_params(method, dataset)) <= set(METHODS[method].parameters)


def test_report_tables_and_numbers_are_formatted_for_markdown():
    from coarsenrank_core.paper.reproduce import _fmt, markdown_table

    assert _fmt(0.12345) == "0.1235" and _fmt(2, digits=1) == "2.0"
    assert _fmt(None) == _fmt(float("nan")) == "–"
    assert markdown_table(["a", "b"], [[1, "x"], [None, 0.5]]) == (
        "| a | b |\n|---|---|\n| 1 | x |\n| None | 0.5 |")


def test_the_bars_text_gives_no_share_of_a_ceiling_that_gains_nothing():
    from coarsenrank_core.paper.reproduce import _conditions_text

    conditions = dict(worst_gap=-0.001, worst_cell=("uniform", "clean", 5, 300),
                      careless_gain=0.004, careless_cells=2, careless_by_lists={5: 0.004},
                      informed_gain=0.0)
    text = _conditions_text(conditions, 2, conditions, 2)
    assert "NOT met (+0.0040 with 5 list(s) per rater)." in text and "reaches" not in text
    text = _conditions_text(dict(conditions, informed_gain=0.008), 2, conditions, 2)
    assert "PL-EM gains +0.0080 there; the default, not told, reaches 50% of that." in text
