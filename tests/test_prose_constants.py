"""Numbers the README writes out are the constants the code runs with, read at test time.

The pages build such sentences from the constants themselves (f-strings); the README cannot,
so each number it copies is checked here. A failure means a constant changed (update the
README's number) or the sentence was reworded (update the pattern below).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def readme() -> str:
    """The README with every run of white space (line breaks too) made one space."""
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def numbers(pattern: str) -> tuple[int, ...]:
    """The groups of ``pattern`` in the README as whole numbers (``1,000`` or ``four``)."""
    found = re.search(pattern, readme())
    assert found, f"the README no longer says {pattern!r}: reword the test with the README"
    return tuple(WORDS[g] if g in WORDS else int(g.replace(",", "")) for g in found.groups())


def page_constants(page: str) -> dict[str, object]:
    """Module-level constants assigned in a page's source (pages run Streamlit when imported)."""
    values: dict[str, object] = {}
    for node in ast.parse((ROOT / "pages" / page).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            value = value if isinstance(target, ast.Tuple) else (value,)
            values.update({n.id: v for n, v in zip(names, value) if isinstance(n, ast.Name)})
    return values


def test_the_knee_rules_sweep_settings_are_dic_draws():
    from coarsenrank_core.dic import DIC_DRAWS

    burn_in, draws = numbers(r"the DIC sweep \(exact Gibbs, ([\d,]+) warm-up, ([\d,]+) draws, "
                             r"warm start")
    assert (burn_in, draws) == (DIC_DRAWS["burn_in"], DIC_DRAWS["n_draws"])
    assert DIC_DRAWS["warm_start"] == "chain"  # "warm start"


def test_the_dic_page_limits_are_the_pages_constants():
    limits = page_constants("dic.py")
    written = numbers(r"sweep α with the exact Gibbs sampler \(at most ([\d,]+) values, "
                      r"([\d,]+) draws, ([\d,]+) warm-up sweeps\)")
    assert written == (limits["MAX_ALPHAS"], limits["MAX_DRAWS"], limits["MAX_BURN_IN"])


def test_the_consensus_pages_interval_level_is_the_bootstraps_and_the_samplers():
    from coarsenrank_core import PosteriorResult
    from coarsenrank_core.models import coarsen_pl_gibbs
    from coarsenrank_core.uncertainty import BOOTSTRAP_DRAWS, INTERVAL_LEVEL, rank_uncertainty

    [level] = numbers(r"likely ranks \(the (\d+) ?% range of its place")
    assert level == pytest.approx(100 * INTERVAL_LEVEL)
    assert rank_uncertainty.__kwdefaults__["level"] == INTERVAL_LEVEL
    page_level = inspect.signature(coarsen_pl_gibbs).parameters["interval"].default
    default = {f.name: f.default for f in dataclasses.fields(PosteriorResult)}["interval_level"]
    assert page_level == default == INTERVAL_LEVEL
    assert numbers(r"refits from the\s+full-data fit \((\d+) replicates\)") == (BOOTSTRAP_DRAWS,)


def test_the_compare_pages_timing_robustness_and_scale_numbers():
    from coarsenrank_core.experiments import DEFAULT_FACTORS
    from ui.charts import ROBUSTNESS_SHOWN
    from ui.compute import TIMING_RUNS

    assert numbers(r"time per method \(median of (\d+) or more runs") == (TIMING_RUNS,)
    assert numbers(r"a robustness curve \((\w+) methods at first") == (ROBUSTNESS_SHOWN,)
    assert numbers(r"a scale test \(×(\d+) to ×(\d+),") == (DEFAULT_FACTORS[0],
                                                            DEFAULT_FACTORS[-1])


def test_the_large_data_thresholds_are_the_dashboards():
    from ui.alpha import QUICK_CHOICE_ENTRIES
    from ui.compute import PARALLEL_ENTRIES

    [quick] = numbers(r"On data of more than ([\d,]+) distinct list entries \(identical lists "
                      r"merged\) a page is drawn first at a provisional α")
    assert quick == QUICK_CHOICE_ENTRIES
    [both] = numbers(r"DIC sweeps on data of ([\d,]+) list entries or more use both cores")
    assert both == PARALLEL_ENTRIES


def test_the_command_lines_limits_and_the_cv_folds():
    from coarsenrank_core import choose_alpha
    from coarsenrank_core.cli import MAX_DRAWS, MAX_GRID

    assert numbers(r"`--draws` and `--burn-in` at most ([\d,]+), `--alphas` at most (\d+) "
                   r"values") == (MAX_DRAWS, MAX_GRID)
    folds = inspect.signature(choose_alpha).parameters["folds"].default
    assert numbers(r"the best (\d+)-fold held-out") == (folds,)


def test_the_consensus_page_text_reads_its_draws_and_level(monkeypatch):
    """The page builds its sentences from the constants: change them, the text follows."""
    from tests.test_app import no_failure
    from ui import compute

    monkeypatch.setattr(compute, "CONSENSUS_DRAWS", dict(burn_in=7, n_draws=13))
    compute.posterior.clear()  # no cached posterior with other draws, before or after
    try:
        from tests.test_app import open_coarsen

        at = open_coarsen()
        no_failure(at)
        text = " ".join(m.value for m in [*at.markdown, *at.caption])
        assert "(13 draws after 7 warm-up sweeps)" in text
        assert "takes in 90% of CoarsenPL's posterior draws" in text
        assert "likely ranks (90%)" in at.dataframe[0].value.columns
    finally:
        compute.posterior.clear()


def test_the_workbook_budgets_are_the_readers():
    from coarsenrank_core.io import containers as c

    mb = 2 ** 20
    written = numbers(r"each part at most (\d+) MB unpacked, all parts together (\d+) MB, the "
                      r"shared strings (\d+) MB, and no part over (\d+) MB unpacking more than "
                      r"(\d+)× its stored size")
    assert written == (c.MAX_PART_BYTES // mb, c.MAX_ARCHIVE_BYTES // mb,
                       c.MAX_SHARED_STRINGS_BYTES // mb, c.RATIO_FREE_BYTES // mb,
                       c.MAX_COMPRESSION_RATIO)
    assert numbers(r"tied to the (\d+) MB upload limit") == (c.UPLOAD_LIMIT_BYTES // mb,)
    assert numbers(r"counts toward the (\d+) M-cell limit") == (c._MAX_SHEET_CELLS // 10 ** 6,)
    assert numbers(r"outnumber the cells with values by at most (\d+)× plus ([\d,]+)") == (
        c.BLANK_CELLS_FACTOR, c.BLANK_CELLS_SLACK)
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert f"maxUploadSize = {c.UPLOAD_LIMIT_BYTES // mb}" in config


def test_the_rules_for_links_and_session_files_are_the_codes():
    from coarsenrank_core.alpha import MAX_ALPHA, MIN_ALPHA
    from coarsenrank_core.io import DECLARED_FACTOR, DECLARED_SLACK

    assert "a number from 10⁻⁶ to 10¹²" in readme() and (MIN_ALPHA, MAX_ALPHA) == (1e-6, 1e12)
    assert numbers(r"by at most (\d+)× plus ([\d,]+), its link recipe") == (DECLARED_FACTOR,
                                                                           DECLARED_SLACK)


def test_the_poll_token_cookie_is_the_pages():
    from ui.poll import TOKEN_COOKIE, TOKEN_COOKIE_SECONDS

    assert numbers(rf"in a cookie \(`{TOKEN_COOKIE}`, kept (\d+) days\)") == (
        TOKEN_COOKIE_SECONDS // 86_400,)


def test_the_teaching_sentence_quotes_the_reports_means_by_the_charts_names():
    import csv
    from pathlib import Path

    from coarsenrank_core.registry import get_method
    from ui.scenario import TEACHING

    rows = {r["method"]: float(r["mean"]) for r in csv.DictReader(
        (Path(__file__).resolve().parents[1] / "reports" / "teaching_scenarios.csv").open())
        if r["scenario"] == "careless"}
    text = TEACHING["careless"]
    assert f"{get_method('pl-mix-ranker').name} and {get_method('crowdbt').name}" in text
    assert f"about {round(rows['pl-mix-ranker'], 2):.2f} against {round(rows['pl-em'], 2):.2f}" \
        in text and abs(rows["crowdbt"] - rows["pl-mix-ranker"]) < 0.01
    assert f"about {round(rows['pl-mix'], 2):.2f})" in text
