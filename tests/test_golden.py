"""Every registered method's numbers on small synthetic files kept in tests/data/golden.

The files and the scores were written by ``python -m tests.test_golden --write``; a clone
without the paper's datasets still checks every model's numbers. A change that moves them
must say why in its commit and rewrite them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from coarsenrank_core import Preferences, read_preferences
from coarsenrank_core.registry import METHODS, run_method
from coarsenrank_core.simulate import simulate_pl

GOLDEN = Path(__file__).parent / "data" / "golden"
ALPHA = 50.0  # a finite α, so that the tempered methods are tested as tempered
NOTE = ("Written by `python -m tests.test_golden --write` (tests/test_golden.py): the seeded "
        "collections of make_collections() (simulate_pl with random_state 1, 2 and 3) saved as "
        "pairs.csv, lists.csv and ties.csv, read back, and every method of "
        "coarsenrank_core.registry.METHODS fitted with its registry defaults, alpha = 50 for "
        "the tempered methods and random_state = 0 for the stochastic ones. Scores by "
        "collection, then method id, one per item id. Checked to 1e-8 relative for the "
        "deterministic methods and to 1e-6 for the stochastic ones (fixed random_state).")
DETERMINISTIC_RTOL = 1e-8  # same data, same arithmetic: only rounding may move the numbers


def make_collections() -> dict[str, Preferences]:
    """Three small seeded collections: pairs, partial lists, and lists with ties."""
    pairs = simulate_pl(8, 60, 2, n_rankers=10, random_state=1)[0]
    lists = simulate_pl(8, 30, 5, n_rankers=6, random_state=2)[0]
    ties = simulate_pl(6, 25, 4, ties=0.3, n_rankers=7, random_state=3)[0]
    return {"pairs": pairs, "lists": lists, "ties": ties}


def fit(method_id: str, prefs: Preferences) -> np.ndarray:
    overrides = {}
    if METHODS[method_id].tempered:
        overrides["alpha"] = ALPHA
    if METHODS[method_id].stochastic:
        overrides["random_state"] = 0
    return np.asarray(run_method(method_id, prefs, **overrides).scores, dtype=float)


def write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    scores: dict = {"note": NOTE}
    for name, prefs in make_collections().items():
        (GOLDEN / f"{name}.csv").write_text(prefs.to_csv(), encoding="utf-8")
        read = read_preferences(GOLDEN / f"{name}.csv")
        scores[name] = {m: fit(m, read).tolist() for m in METHODS}
    (GOLDEN / "scores.json").write_text(json.dumps(scores, indent=1) + "\n")


def golden_scores() -> dict:
    return json.loads((GOLDEN / "scores.json").read_text())


CASES = [(name, method) for name in ("pairs", "lists", "ties") for method in METHODS]


@pytest.mark.parametrize(("name", "method"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_every_method_keeps_its_numbers_on_the_golden_files(name, method):
    expected = golden_scores()[name].get(method)
    assert expected is not None, f"no golden scores for {method}: rewrite them (see docstring)"
    prefs = read_preferences(GOLDEN / f"{name}.csv")
    np.testing.assert_allclose(fit(method, prefs), expected, rtol=1e-6, atol=1e-9)


def test_the_golden_files_are_the_seeded_collections():
    for name, prefs in make_collections().items():
        read = read_preferences(GOLDEN / f"{name}.csv")
        assert read.to_lists(names=True) == prefs.to_lists(names=True)
        assert read.has_ties == (name == "ties") and read.n_rankers == prefs.n_rankers


DETERMINISTIC = [(name, method) for name, method in CASES if not METHODS[method].stochastic]
STOCHASTIC = [m for m in METHODS if METHODS[m].stochastic]


@pytest.mark.parametrize(("name", "method"), DETERMINISTIC,
                         ids=[f"{n}-{m}" for n, m in DETERMINISTIC])
def test_deterministic_methods_keep_their_numbers_to_1e_8(name, method):
    expected = golden_scores()[name][method]
    prefs = read_preferences(GOLDEN / f"{name}.csv")
    np.testing.assert_allclose(fit(method, prefs), expected, rtol=DETERMINISTIC_RTOL,
                               atol=1e-12)


@pytest.mark.parametrize("method", STOCHASTIC)
def test_a_stochastic_method_s_golden_numbers_are_its_random_state_s(method):
    """Its numbers come from random_state = 0: a rerun repeats them bit for bit, another seed
    gives other numbers (so the looser 1e-6 check above is not vacuous)."""
    prefs = read_preferences(GOLDEN / "lists.csv")
    first, again = fit(method, prefs), fit(method, prefs)
    np.testing.assert_array_equal(first, again)
    overrides = {"alpha": ALPHA} if METHODS[method].tempered else {}
    other = run_method(method, prefs, random_state=1, **overrides).scores
    assert np.abs(np.asarray(other) - first).max() > 1e-3


def test_the_scores_file_holds_exactly_the_registered_methods_and_says_how_it_was_made():
    scores = golden_scores()
    assert set(scores) == {"note", "pairs", "lists", "ties"}
    assert "python -m tests.test_golden --write" in scores["note"]
    for name in ("pairs", "lists", "ties"):
        assert list(scores[name]) == list(METHODS), name
        n_items = read_preferences(GOLDEN / f"{name}.csv").n_items
        assert all(len(v) == n_items and np.all(np.isfinite(v))
                   for v in scores[name].values()), name


if __name__ == "__main__" and "--write" in sys.argv:
    write()
