"""The fast paths of the methods at scale against the plain computations they replace.

Issue 12 ("Methods at scale"): merged preferences fit as the unmerged ones, accelerated EM
reaches the plain EM's fixed point, warm-started and rescaled L-BFGS reach the plain
optimum, and the BLAS-free pieces equal what they stand for. CrowdBT's batches are tested in
test_crowdbt.py. No test here looks at a clock.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from coarsenrank_core import Preferences
from coarsenrank_core.models import peergrader as peergrader_module
from coarsenrank_core.models.bradley_terry import coarsen_bt
from coarsenrank_core.models.peergrader import PeerGraderDesign, peergrader, peergrader_objective
from coarsenrank_core.models.pl_gradient import pl_lbfgs, pl_objective, variable_scaling
from coarsenrank_core.models.plackett_luce import coarsen_pl, em_start, pl_em
from coarsenrank_core.models.thurstone import LOGISTIC_SLOPE, coarsen_th
from coarsenrank_core.noise import magnify
from coarsenrank_core.simulate import simulate_pl


def _base(ties: float = 0.0) -> Preferences:
    return simulate_pl(9, 70, length_range=(2, 5), n_rankers=6, ties=ties, random_state=21)[0]


@pytest.fixture(params=[0.0, 0.3], ids=["strict", "ties"])
def repeated(request) -> Preferences:
    """A collection whose every preference comes five times (magnified), with rankers."""
    return magnify(_base(request.param), 5).preferences


def _fresh(prefs: Preferences) -> Preferences:
    """The same collection without any cached layout (so the fit builds its own)."""
    return Preferences.from_arrays(prefs.items, prefs.lengths, prefs.groups,
                                   n_items=prefs.n_items, weights=prefs.weights,
                                   rankers=prefs.rankers)


def _unmerged_fit(monkeypatch, fit, prefs):
    """``fit`` on every row of ``prefs``: :attr:`Preferences.pooled` gives the collection
    itself, so nothing merges."""
    with monkeypatch.context() as patch:
        patch.setattr(Preferences, "pooled", property(lambda self: self))
        return fit(_fresh(prefs))


# ------------------------------------------------------------- merged = unmerged
EM_FITS = {
    "coarsen-pl": lambda p: coarsen_pl(p, alpha=50.0, calibration="paper", tol=1e-13,
                                       max_iter=20_000).scores,
    "coarsen-pl a=2": lambda p: coarsen_pl(p, alpha=50.0, prior=(2.0, 1.0), calibration=None,
                                           tol=1e-13, max_iter=20_000).scores,
    "pl-em": lambda p: pl_em(p, calibration="paper", tol=1e-13, max_iter=20_000).scores,
    "coarsen-bt": lambda p: coarsen_bt(p, alpha=50.0, calibration="paper", tol=1e-13,
                                       max_iter=20_000).scores,
}


@pytest.mark.parametrize("method", list(EM_FITS))
def test_em_on_merged_preferences_equals_em_on_every_copy(monkeypatch, repeated, method):
    fit = EM_FITS[method]
    assert len(repeated.pooled) < len(repeated)  # the fit below does merge
    merged = fit(repeated)
    copies = _unmerged_fit(monkeypatch, fit, repeated)
    np.testing.assert_allclose(merged, copies, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("method", list(EM_FITS))
def test_magnified_copies_fit_as_multiplied_weights(repeated, method):
    # magnify(x, 5) and x with every weight times 5 merge to the same collection
    base = _base(0.3 if repeated.has_ties else 0.0)
    weighted = Preferences.from_arrays(base.items, base.lengths, base.groups,
                                       n_items=base.n_items, weights=5.0 * base.weights,
                                       rankers=base.rankers)
    np.testing.assert_allclose(EM_FITS[method](repeated), EM_FITS[method](weighted),
                               rtol=1e-10, atol=1e-14)


def test_gradient_objectives_on_merged_preferences_equal_every_copy(monkeypatch, repeated):
    s = np.random.default_rng(3).normal(size=repeated.n_items)
    merged = pl_objective(repeated, s, regularization=0.5, l2=0.1)
    copies = _unmerged_fit(monkeypatch, lambda p: pl_objective(p, s, 0.5, 0.1), repeated)
    assert merged[0] == pytest.approx(copies[0], rel=1e-12)
    np.testing.assert_allclose(merged[1], copies[1], rtol=1e-10, atol=1e-10)
    th_merged = coarsen_th(repeated, alpha=50.0, tol=1e-11)
    th_copies = _unmerged_fit(monkeypatch, lambda p: coarsen_th(p, alpha=50.0, tol=1e-11),
                              repeated)
    np.testing.assert_allclose(th_merged.scores, th_copies.scores, atol=1e-7)


def test_peergrader_merges_each_graders_copies_exactly(monkeypatch, repeated):
    eta = np.random.default_rng(4).uniform(0.5, 2.0, repeated.n_rankers)
    s = np.random.default_rng(5).normal(size=repeated.n_items)
    merged = peergrader_objective(repeated, s, eta)
    monkeypatch.setattr(Preferences, "merge_duplicates", lambda self: self)
    monkeypatch.setattr(peergrader_module, "_merged_pair_block", lambda prefs: None)
    copies = peergrader_objective(_fresh(repeated), s, eta)
    assert merged[0] == pytest.approx(copies[0], rel=1e-12)
    for a, b in zip(merged[1:], copies[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


def test_the_pair_key_merge_equals_merge_duplicates(monkeypatch):
    rng = np.random.default_rng(6)
    winners = rng.integers(0, 12, 3000)
    losers = (winners + rng.integers(1, 12, 3000)) % 12
    prefs = Preferences.from_pairs(winners, losers, n_items=12, rankers=rng.integers(0, 9, 3000),
                                   weights=rng.choice([1.0, 2.0, 0.5], 3000))
    fast = PeerGraderDesign(prefs).blocks
    monkeypatch.setattr(peergrader_module, "_merged_pair_block", lambda prefs: None)
    plain = PeerGraderDesign(prefs).blocks
    assert len(fast) == len(plain) == 1
    for a, b in [(fast[0].items[0], plain[0].items[0]), (fast[0].items[1], plain[0].items[1]),
                 (fast[0].grader, plain[0].grader), (fast[0].weight, plain[0].weight)]:
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------- accelerated = plain fixed point
@pytest.mark.parametrize("kwargs", [dict(alpha=np.inf, prior=(1.0, 2.0), calibration="paper"),
                                    dict(alpha=50.0, prior=(1.0, 2.0), calibration="paper"),
                                    dict(alpha=50.0, prior=(2.0, 1.0), calibration=None)])
def test_squarem_em_reaches_the_plain_em_fixed_point(repeated, kwargs):
    fast = coarsen_pl(repeated, tol=1e-13, max_iter=20_000, accelerate=True, **kwargs)
    plain = coarsen_pl(repeated, tol=1e-13, max_iter=200_000, accelerate=False, **kwargs)
    assert fast.converged and plain.converged
    assert fast.iterations < plain.iterations
    np.testing.assert_allclose(fast.scores, plain.scores, rtol=1e-10, atol=1e-14)


def test_pl_em_converges_on_readlevel_x100_within_its_iteration_limit(data_dir):
    from coarsenrank_core.paper.datasets import load_readlevel
    from coarsenrank_core.registry import run_method

    large = magnify(load_readlevel(data_dir).preferences, 100).preferences
    for method, overrides in [("pl-em", {}), ("coarsen-pl", {"alpha": 2800.0}),
                              ("coarsen-bt", {"alpha": 2800.0})]:
        fit = run_method(method, large, **overrides)
        assert fit.converged, method
        assert fit.iterations < fit.params["max_iter"], method


# ----------------------------------------- warm starts and scaling reach the optimum
def _tight(fun, x0):
    """scipy's L-BFGS-B on the plain variables, far past the methods' tolerances."""
    found = minimize(fun, x0, jac=True, method="L-BFGS-B",
                     options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 50_000})
    return found.x


@pytest.mark.parametrize("regularization, l2", [(1.0, 0.0), (0.01, 0.0), (0.0, 2.0)])
def test_pl_lbfgs_from_em_and_from_zero_reach_the_plain_optimum(repeated, regularization, l2):
    scale = 1.0 / repeated.total_weight
    optimum = _tight(lambda s: tuple(-scale * v for v in pl_objective(repeated, s,
                                                                     regularization, l2)),
                     np.zeros(repeated.n_items))
    for init in ("em", None):
        fit = pl_lbfgs(repeated, regularization=regularization, l2=l2, init=init)
        assert fit.converged
        np.testing.assert_allclose(fit.scores, optimum, atol=2e-5)
        # the scaled gradient test is never looser than |∂(F/N)/∂s| ≤ tol; L-BFGS-B's
        # relative-decrease test (1e-15) may stop it a little before
        assert fit.extra["gradient_norm"] * scale <= (
            1e-8 if "PGTOL" in fit.extra["message"] else 1e-7)


def test_variable_scaling_is_the_square_root_of_the_objective_curvature(repeated):
    s = em_start(repeated)
    unit = variable_scaling(repeated, s, regularization=0.7, l2=0.2)
    h = 1e-5
    curvature = np.array([
        -(pl_objective(repeated, s + h * e, 0.7, 0.2)[1][m]
          - pl_objective(repeated, s - h * e, 0.7, 0.2)[1][m]) / (2 * h)
        for m, e in enumerate(np.eye(repeated.n_items))])
    np.testing.assert_allclose(unit, np.sqrt(curvature / curvature.max()), rtol=1e-5)


@pytest.mark.parametrize("ties", [0.0, 0.3])
def test_grader_curvature_matches_finite_differences(ties):
    prefs = _base(ties)
    design = PeerGraderDesign(prefs)
    rng = np.random.default_rng(7)
    s, eta = rng.normal(size=prefs.n_items), rng.uniform(0.3, 2.0, design.n_graders)
    h = 1e-5
    numeric = [-(design.evaluate(s + h * e, eta)[1][m] - design.evaluate(s - h * e, eta)[1][m])
               / (2 * h) for m, e in enumerate(np.eye(prefs.n_items))]
    np.testing.assert_allclose(design.score_curvature(s, eta), numeric, rtol=1e-6, atol=1e-8)


def test_peergrader_from_em_and_from_zero_reach_the_plain_optimum(repeated):
    scale = 1.0 / repeated.total_weight
    n = repeated.n_items

    def loss(x):
        value, d_s, d_eta = peergrader_objective(repeated, x[:n], np.exp(x[n:]))
        return -scale * value, -scale * np.concatenate([d_s, d_eta * np.exp(x[n:])])

    optimum = _tight(loss, np.zeros(n + repeated.n_rankers))
    for init in ("em", None):
        fit = peergrader(repeated, init=init)
        assert fit.converged
        np.testing.assert_allclose(fit.scores, optimum[:n], atol=2e-5)
        np.testing.assert_allclose(fit.extra["reliability"], np.exp(optimum[n:]), rtol=2e-5)


def test_the_blas_free_lbfgs_finds_scipys_minimum_and_stops_when_asked():
    from coarsenrank_core.errors import Cancelled

    def rosenbrock(x):
        value = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
        grad = np.zeros_like(x)
        grad[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1.0 - x[:-1])
        grad[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
        return value, grad

    start = np.full(6, -1.2)
    fit = peergrader_module._lbfgs(rosenbrock, start, 5000, 1e-10, trace=True, sign=1.0)
    assert fit["success"]
    np.testing.assert_allclose(fit["x"], 1.0, atol=1e-7)
    np.testing.assert_allclose(fit["x"], _tight(rosenbrock, start), atol=1e-6)
    assert np.all(np.diff(fit["values"]) <= 0)  # every accepted step lowers the value
    calls = []
    with pytest.raises(Cancelled, match="after 3 iterations"):
        peergrader_module._lbfgs(rosenbrock, start, 5000, 1e-10, trace=False, sign=1.0,
                                 should_stop=lambda: calls.append(1) or len(calls) >= 3)


def test_coarsen_th_from_an_em_start_reaches_the_zero_start_optimum(repeated):
    cold = coarsen_th(repeated, alpha=50.0, tol=1e-10)
    warm = coarsen_th(repeated, alpha=50.0, tol=1e-10, init=em_start(repeated) / LOGISTIC_SLOPE)
    assert cold.converged and warm.converged
    np.testing.assert_allclose(warm.scores, cold.scores, atol=1e-6)
