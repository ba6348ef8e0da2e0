"""AppTest on a moderately large upload (200,000 comparisons): every page opens without error,
and a long computation shows a progress bar with an estimate and a Stop button while it runs.

What the page shows during a run is read from the messages the script has sent so far (the
tree AppTest would build if the run ended there), at each refresh of the progress bar.
"""

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import parse_tree_from_messages
from streamlit.testing.v1.local_script_runner import LocalScriptRunner

from ui.shell import PAGES
from ui.widgets import TABLE_ROWS

ROOT = Path(__file__).resolve().parents[1]
N_PAIRS, N_ITEMS, N_WORKERS = 200_000, 150, 2_000


@lru_cache(maxsize=1)
def pairs_file() -> bytes:
    """``worker,winner,loser``: Bradley–Terry outcomes of random pairs (about 3.6 MB)."""
    rng = np.random.default_rng(7)
    strength = rng.normal(0.0, 1.0, N_ITEMS)
    i = rng.integers(0, N_ITEMS, N_PAIRS)
    j = (i + rng.integers(1, N_ITEMS, N_PAIRS)) % N_ITEMS
    wins = rng.random(N_PAIRS) < 1.0 / (1.0 + np.exp(strength[j] - strength[i]))
    winner, loser = np.where(wins, i, j), np.where(wins, j, i)
    worker = rng.integers(0, N_WORKERS, N_PAIRS)
    rows = "".join(f"w{k},it{x},it{y}\n" for k, x, y in
                   zip(worker.tolist(), winner.tolist(), loser.tolist()))
    return ("worker,winner,loser\n" + rows).encode()


def uploaded() -> AppTest:
    """The large file uploaded on the Data page and confirmed, as a person does it."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("My own file").run()
    at.file_uploader(key="upload_file").set_value(("pairs.csv", pairs_file(), "text/csv"))
    at.run()
    at.button(key="confirm_upload").click().run()
    return at


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e for e in at.error if "Something went wrong" in e.value]


def sidebar(at: AppTest) -> str:
    return " ".join(str(e.value) for e in at.sidebar.get("text")) + " " + " ".join(
        str(e.value) for e in at.sidebar.caption)


@pytest.fixture
def fresh_choice(monkeypatch):
    """α not chosen yet on these data in this process (the dashboard's and the engine's
    caches are shared by every test)."""
    import coarsenrank_core.alpha
    import ui.compute

    coarsenrank_core.alpha.CHOICES.clear()
    for cached in (ui.compute.alpha_choice, ui.compute.consensus_fit, ui.compute.posterior):
        cached.clear()
    yield
    for cached in (ui.compute.alpha_choice, ui.compute.consensus_fit, ui.compute.posterior):
        cached.clear()


@pytest.fixture
def screens(monkeypatch):
    """What the page showed at every refresh of a progress bar: ``(bar texts, buttons)``."""
    import ui.compute

    runners, seen = [], []
    real_init, real_refresh = LocalScriptRunner.__init__, ui.compute.Job._refresh

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        runners.append(self)

    def refresh(self):
        real_refresh(self)
        tree = parse_tree_from_messages(runners[-1].forward_msgs())
        seen.append(([p.text for p in tree.get("progress")],
                     [b.label for b in tree.get("button")]))

    monkeypatch.setattr(LocalScriptRunner, "__init__", init)
    monkeypatch.setattr(ui.compute.Job, "_refresh", refresh)
    return seen


def test_every_page_opens_on_a_large_upload():
    at = uploaded()
    no_failure(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Comparisons"] == f"{N_PAIRS:,}" and metrics["Raters"] == f"{N_WORKERS:,}"
    for path, title, *_ in PAGES:
        at.switch_page(path).run()
        no_failure(at)
        assert at.title, f"{title} has no title"
        assert "pairs.csv" in sidebar(at) and f"{N_PAIRS:,} comparisons" in sidebar(at)
        if path == "pages/compare.py":  # ×100 would hold 40 M list entries: it stops at ×50
            assert any("the copies stop at ×50" in c.value for c in at.caption)
    # the Consensus page is drawn with the default fit; its bootstrap waits for a click on
    # data this large, and says so
    at.switch_page("pages/consensus.py").run()
    no_failure(at)
    assert any("These data are large" in i.value for i in at.info)
    assert [b for b in at.button if b.key == "spread_run"]
    assert list(at.dataframe[0].value.columns) == ["rank", "item", "strength"]
    [raters] = [d for d in at.dataframe if "rater" in d.value.columns]
    assert len(raters.value) == min(N_WORKERS, TABLE_ROWS)
    assert any(f"first {TABLE_ROWS:,} of {N_WORKERS:,} rows" in c.value for c in at.caption)


def test_choosing_alpha_on_a_large_upload_shows_a_bar_with_an_estimate_and_stop(
        fresh_choice, screens):
    at = uploaded()
    screens.clear()  # the upload itself draws no bar
    at.switch_page("pages/noise.py").run()
    no_failure(at)
    bars = [(texts, buttons) for texts, buttons in screens if texts]
    assert bars, "choosing α drew no progress bar"
    assert all("Stop" in buttons for _, buttons in bars), "a bar was shown without Stop"
    assert any("Letting the data choose α" in t for texts, _ in bars for t in texts)
    assert any("left" in t for texts, _ in bars for t in texts), "the bar gave no estimate"
    # then the page is drawn at the chosen α, with neither the bar nor Stop left over
    assert not at.get("progress") and not [b for b in at.button if b.label == "Stop"]
    assert "Chosen α = " in sidebar(at)


def test_the_consensus_fit_and_posterior_on_a_large_upload_show_a_bar_and_stop(
        fresh_choice, screens, monkeypatch):
    import ui.compute

    # every question of the sampler redraws the bar, however fast this machine is
    monkeypatch.setattr(ui.compute.Job, "REFRESH", 0.0)
    at = uploaded()
    screens.clear()
    at.session_state["consensus_fit_kind"] = "coarsen-pl"  # the paper's method and its α
    at.switch_page("pages/consensus.py").run()
    no_failure(at)
    labels = {t.split(":")[0] for texts, _ in screens for t in texts}
    # (the EM fit itself may end before its bar's first refresh)
    assert {"Letting the data choose α", "Sampling how sure each place is"} <= labels
    assert all("Stop" in buttons for texts, buttons in screens if texts)
    # the posterior's bar counts its sweeps, so it says how long is left
    assert any(t.startswith("Sampling how sure each place is: sweep") and "left" in t
               for texts, _ in screens for t in texts)


def test_a_parallel_alpha_sweep_counts_each_alpha_as_its_workers_finish_it(monkeypatch):
    """The estimate of the α choice does not wait for half of the grid: each worker counts
    every α it finishes in a shared counter, which the parent reports at every poll."""
    import multiprocessing

    import coarsenrank_core.dic as dic
    from coarsenrank_core import Preferences

    rng = np.random.default_rng(0)
    first = rng.integers(0, 20, 400)
    prefs = Preferences.from_pairs(first, (first + rng.integers(1, 20, 400)) % 20, n_items=20)
    counted = multiprocessing.get_context().Value("d", 0.0)
    monkeypatch.setattr(dic, "_DONE", counted)  # as in a worker started by the sweep
    points = dic._chain_segment(prefs.pooled, [1e3, 1e2, 1e1], [0, 0, 0], prior=(1.0, 2.0),
                                burn_in=5, chain_burn_in=2, n_draws=5, thin=1)
    assert len(points) == 3 and counted.value == 3
    calls = []
    sweep = dic.dic_sweep(prefs, burn_in=5, n_draws=5, warm_start="chain", random_state=0,
                          n_jobs=2, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (sweep.alphas.size,) * 2
    assert [d for d, _ in calls] == sorted({d for d, _ in calls})  # increasing, no repeats
