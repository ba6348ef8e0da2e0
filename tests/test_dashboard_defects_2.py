"""Checks of the dashboard defects of the second exploratory round (AppTest and figures)."""

import numpy as np
from streamlit.testing.v1 import AppTest  # noqa: F401  (this module's tests are app-tier)

import coarsenrank_core.experiments as experiments
from coarsenrank_core.experiments import robustness_curve, teaching_arrays
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.registry import attempt


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
