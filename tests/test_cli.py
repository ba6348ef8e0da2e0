"""The command line: rank, dic and compare, and its behaviour on bad input."""

import csv
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core import choose_alpha, coarsen_pl, compare, read_preferences, run_method
from coarsenrank_core.cli import main
from coarsenrank_core.registry import DEFAULT_METHOD
from coarsenrank_core.uncertainty import rank_uncertainty

ROOT = Path(__file__).resolve().parents[1]
PIZZA = ROOT / "sample_data" / "pizza_rankings.csv"
PIZZA_TRUTH = ROOT / "sample_data" / "pizza_truth.csv"


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_rank_writes_item_rank_score_matching_the_engine(tmp_path, capsys):
    out = tmp_path / "ranking.csv"
    code = main(["rank", str(PIZZA), "--alpha", "50", "--calibration", "paper", "--max-iter",
                 "30", "--tol", "0", "--out", str(out)])
    assert code == 0
    table = rows(out.read_text())
    prefs = read_preferences(PIZZA)
    fit = coarsen_pl(prefs, alpha=50, calibration="paper", max_iter=30, tol=0)
    assert [r["item"] for r in table] == [prefs.item_names[i] for i in fit.order]
    assert [int(r["rank"]) for r in table] == list(range(1, prefs.n_items + 1))
    np.testing.assert_allclose([float(r["score"]) for r in table], fit.scores[fit.order])
    assert "tau" in capsys.readouterr().err


def test_rank_with_posterior_and_auto_alpha_fits_coarsen_pl(tmp_path, capsys):
    out = tmp_path / "ranking.csv"
    code = main(["rank", str(PIZZA), "--alpha", "auto", "--posterior", "--draws", "30",
                 "--burn-in", "20", "--replicates", "20", "--out", str(out)])
    assert code == 0
    table = rows(out.read_text())
    assert list(table[0]) == ["item", "rank", "score", "score_low", "score_high", "rank_low",
                              "rank_high", "p_first"]
    for r in table:
        assert float(r["score_low"]) <= float(r["score_high"])
        assert 1 <= int(r["rank_low"]) <= int(r["rank_high"]) <= 8
    assert sum(float(r["p_first"]) for r in table) == pytest.approx(1.0)
    err = capsys.readouterr().err
    assert "alpha chosen from the data" in err and "CoarsenPL, as asked" in err


def test_rank_by_default_is_the_registry_default_fit_and_says_why(tmp_path, capsys):
    out = tmp_path / "ranking.csv"
    assert main(["rank", str(PIZZA), "--out", str(out)]) == 0
    table = rows(out.read_text())
    prefs = read_preferences(PIZZA)
    fit = run_method(DEFAULT_METHOD, prefs)
    assert [r["item"] for r in table] == [prefs.item_names[i] for i in fit.order]
    np.testing.assert_allclose([float(r["score"]) for r in table], fit.scores[fit.order])
    err = capsys.readouterr().err
    assert ("fit: PL-EM with each list counted by the chance that it is careful, from PL-mix "
            "per list: every rater gives one list") in err
    assert "alpha" not in err  # the default fit has no α to choose


def test_rank_posterior_writes_the_bootstrap_of_the_default_fit(tmp_path):
    out = tmp_path / "ranking.csv"
    assert main(["rank", str(PIZZA), "--posterior", "--replicates", "30", "--seed", "4",
                 "--out", str(out)]) == 0
    table = rows(out.read_text())
    spread = rank_uncertainty(read_preferences(PIZZA), n_draws=30, random_state=4)
    order = spread.order
    assert [int(r["rank_low"]) for r in table] == spread.rank_low[order].tolist()
    assert [int(r["rank_high"]) for r in table] == spread.rank_high[order].tolist()
    np.testing.assert_allclose([float(r["p_first"]) for r in table], spread.p_first[order])


def rank_posterior(tmp_path, capsys, lines: list[str], *options: str
                   ) -> tuple[list[dict], str]:
    """``rank FILE --posterior [options]`` of a file holding ``lines``: its table and its
    stderr."""
    source = tmp_path / "prefs.csv"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "ranking.csv"
    assert main(["rank", str(source), "--posterior", *options, "--out", str(out)]) == 0
    return rows(out.read_text()), capsys.readouterr().err


@pytest.mark.parametrize("lines, never_placed", [
    # two lists that share no item, each pair compared once: the model's posterior, in
    # which the groups' order is the prior's and any item may come first
    (["1st,2nd", "x,y", "z,w"], {"y": ("1", "4"), "w": ("1", "4")}),
    # three raters: resampled, no item is placed by its name either (z, never first, is
    # not placed first; x, never last, not last)
    (["rater,1st,2nd,3rd", "a,x,y,z", "b,y,x,z", "c,x,z,y"],
     {"x": ("1", "2"), "y": ("1", "3"), "z": ("2", "3")}),
])
def test_rank_posterior_places_no_item_by_its_name_and_each_score_range_holds_the_score(
        tmp_path, capsys, lines, never_placed):
    table, err = rank_posterior(tmp_path, capsys, lines)
    groups = "warning: The items fall into 2 groups that are never compared"
    assert (groups in err) == ("z,w" in lines)
    table = {r["item"]: r for r in table}
    for item, (low, high) in never_placed.items():
        assert (table[item]["rank_low"], table[item]["rank_high"]) == (low, high)
    for row in table.values():
        assert float(row["score_low"]) <= float(row["score"]) <= float(row["score_high"])
        assert int(row["rank_low"]) <= int(row["rank_high"])


def test_rank_posterior_of_one_list_spans_every_rank_and_says_why(tmp_path, capsys):
    table, err = rank_posterior(tmp_path, capsys, ["1st,2nd,3rd", "x,y,z"])
    assert [r["item"] for r in table] == ["x", "y", "z"]
    assert {(r["rank_low"], r["rank_high"], r["p_first"]) for r in table} == {("1", "3", "nan")}
    assert "with one list there is nothing to resample" in err


@pytest.mark.parametrize("lines", [
    # juice is ranked above coffee, yet comes first in fewer refits (0.03 against 0.10):
    # coffee is first or last, juice in between
    ["voter,1st,2nd,3rd", "ann,coffee,tea,juice", "bob,juice,tea,coffee",
     "cy,coffee,tea,juice", "di,tea,juice,coffee", "ed,tea,juice,coffee"],
    # the chances fall row by row: no line
    ["voter,1st,2nd,3rd"] + [f"v{k},tea,coffee,juice" for k in range(6)]
    + ["w1,coffee,tea,juice", "w2,tea,juice,coffee"],
])
def test_rank_posterior_explains_first_place_chances_out_of_order_as_the_page_does(
        tmp_path, capsys, lines):
    table, err = rank_posterior(tmp_path, capsys, lines)
    chances = [float(r["p_first"]) for r in table]
    out_of_order = any(c > min(chances[:k]) for k, c in enumerate(chances) if k)
    assert out_of_order == lines[1].startswith("ann")
    note = ("note: An item can have a higher chance of being first than one ranked above "
            "it: the order is the single best fit to all the answers, while the chance counts "
            "how often the item came first when the raters were resampled.")
    assert (note in err) == out_of_order


def test_rank_refuses_options_the_method_does_not_take(capsys):
    assert main(["rank", str(PIZZA), "--method", "borda", "--alpha", "5"]) == 2
    assert "--alpha goes with --method coarsen-pl" in capsys.readouterr().err
    assert main(["rank", str(PIZZA), "--method", "borda", "--tol", "0.1"]) == 2
    assert "borda takes no --tol" in capsys.readouterr().err


def test_dic_writes_the_curve(tmp_path):
    out = tmp_path / "dic.csv"
    assert main(["dic", str(PIZZA), "--alphas", "1", "10", "100", "--draws", "10",
                 "--burn-in", "10", "--out", str(out)]) == 0
    table = rows(out.read_text())
    assert [float(r["alpha"]) for r in table] == [1.0, 10.0, 100.0]
    assert sum(r["lowest_dic"] == "True" for r in table) == 1
    for r in table:
        assert float(r["dic"]) == pytest.approx(float(r["g"]) - float(r["f"]))


def test_dic_draws_the_curve_and_knee_that_choose_alpha_finds(tmp_path):
    # the CLI's dic and the dashboard (choose_alpha) run the same chained sweep
    out = tmp_path / "dic.csv"
    assert main(["dic", str(PIZZA), "--draws", "20", "--burn-in", "20", "--seed", "3",
                 "--out", str(out)]) == 0
    table = rows(out.read_text())
    chosen = choose_alpha(read_preferences(PIZZA), "knee", n_draws=20, burn_in=20,
                          random_state=3)
    np.testing.assert_array_equal([float(r["dic"]) for r in table], chosen.evidence.dic)
    knee = [float(r["alpha"]) for r in table if r["knee"] == "True"]
    assert knee == [chosen.evidence.alphas[chosen.evidence.knee_index]]


def test_compare_runs_the_registry(tmp_path, capsys):
    out = tmp_path / "results.csv"
    assert main(["compare", str(PIZZA), "--truth", str(PIZZA_TRUTH), "--methods", "pl-em",
                 "coarsen-pl", "borda", "--out", str(out)]) == 0
    table = rows(out.read_text())
    assert [r["method"] for r in table] == ["pl-em", "coarsen-pl", "borda"]
    assert all(0.5 < float(r["pairwise_accuracy"]) <= 1.0 for r in table)
    assert "are nan" not in capsys.readouterr().err
    # without a truth the accuracy columns are empty, and stderr says what would fill them
    assert main(["compare", str(PIZZA), "--methods", "pl-em", "--out", str(out)]) == 0
    assert rows(out.read_text())[0]["pairwise_accuracy"] == "nan"
    assert "which --truth FILE gives" in capsys.readouterr().err


@pytest.mark.slow  # four fresh interpreters that import the engine
@pytest.mark.parametrize("content, expected", [
    (None, "no such file"),
    (b"", "empty"),
    (b"a,b\nc,a,a\n", "twice"),
    (b"PK\x03\x04binary", "Excel"),
])
def test_bad_input_gives_a_short_message_and_exit_code_2(tmp_path, content, expected):
    path = tmp_path / "input.csv"
    if content is not None:
        path.write_bytes(content)
    result = subprocess.run([sys.executable, "-m", "coarsenrank_core", "rank", str(path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    assert expected.lower() in result.stderr.lower()
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 4
    assert result.stdout == ""


@pytest.mark.slow  # two fresh interpreters that import the engine
def test_bad_arguments_exit_2_without_traceback(tmp_path):
    for argv in (["rank", str(PIZZA), "--alpha", "-3"], ["rank", str(PIZZA), "--prior", "0.5",
                                                         "1", "--alpha", "5"]):
        result = subprocess.run([sys.executable, "-m", "coarsenrank_core", *argv],
                                capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert result.returncode == 2, argv
        assert "Traceback" not in result.stderr


def write_readlevel_csv(data_dir, tmp_path) -> Path:
    """The Readlevel pairs as a pairwise CSV (worker, left, right, winner), in a temp folder."""
    from coarsenrank_core.paper.datasets import load_readlevel

    prefs = load_readlevel(data_dir).preferences
    names = prefs.ranker_names
    lines = ["worker,left,right,winner"]
    for (winner, loser), ranker in zip(prefs.to_lists(names=True), prefs.ranker_index):
        lines.append(f"{names[ranker]},{winner},{loser},{winner}")
    path = tmp_path / "readlevel.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def cli_order(path, out_dir, *extra) -> list[str]:
    out = Path(out_dir) / f"ranking{len(list(Path(out_dir).glob('ranking*.csv')))}.csv"
    assert main(["rank", str(path), *extra, "--out", str(out)]) == 0
    table = rows(out.read_text())
    assert list(table[0]) == ["item", "rank", "score"]
    return [r["item"] for r in table]


def test_alpha_changes_the_cli_ranking_under_its_defaults(data_dir, tmp_path):
    path = write_readlevel_csv(data_dir, tmp_path)
    orders = {alpha: cli_order(path, tmp_path, "--alpha", alpha)
              for alpha in ("10", "1000", "inf")}
    assert orders["10"] != orders["1000"] != orders["inf"] != orders["10"]


def test_cli_rank_compare_and_the_engine_agree_on_alpha_and_order(tmp_path, capsys):
    prefs = read_preferences(PIZZA)
    choice = choose_alpha(prefs)
    order = cli_order(PIZZA, tmp_path, "--method", "coarsen-pl")
    err = capsys.readouterr().err
    assert f"α = {choice.alpha:g}" in err
    fit = run_method("coarsen-pl", prefs)
    assert fit.params["alpha"] == choice.alpha
    assert order == [prefs.item_names[i] for i in fit.order]
    out = tmp_path / "compare.csv"
    assert main(["compare", str(PIZZA), "--methods", "coarsen-pl", "borda",
                 "--out", str(out)]) == 0
    assert f"α = {choice.alpha:g}" in capsys.readouterr().err
    result = compare(prefs, ["coarsen-pl", "borda"])
    assert result.alpha_choice.alpha == choice.alpha
    np.testing.assert_array_equal(result.results["coarsen-pl"].order, fit.order)


def test_rank_posterior_of_another_method_warns_where_resampling_measures_little(tmp_path,
                                                                                 capsys):
    lines = ["rater,1st,2nd,3rd,4th", "ann,tea,coffee,juice,milk", "bob,coffee,tea,milk,juice"]
    _, err = rank_posterior(tmp_path, capsys, lines, "--method", "pl-em")
    assert "warning: resampling the raters measures little here (2.0 of them" in err
    _, err = rank_posterior(tmp_path, capsys, lines)
    assert "measures little" not in err and "draws of the Plackett-Luce posterior" in err
    more = lines + [f"r{k},tea,coffee,juice,milk" for k in range(3)]
    _, err = rank_posterior(tmp_path, capsys, more, "--method", "pl-em")
    assert "measures little" not in err


def test_rank_says_when_neighbours_have_equal_scores(tmp_path, capsys):
    table, err = rank_posterior(tmp_path, capsys, ["judge,1st,2nd,3rd", "a,A,B,C", "b,A,C,B",
                                                   "c,A,B,C", "d,A,C,B"])
    assert [r["item"] for r in table][0] == "A"
    assert "note: Equal scores: B and C (ranks 2–3)" in err
    _, err = rank_posterior(tmp_path, capsys, ["judge,1st,2nd,3rd", "a,A,B,C", "b,A,B,C"])
    assert "Equal scores" not in err
