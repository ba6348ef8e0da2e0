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
    scores = {}
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


if __name__ == "__main__" and "--write" in sys.argv:
    write()
