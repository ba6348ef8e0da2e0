"""The solver pieces the models share (models/_solver.py): the virtual node, log σ, L-BFGS-B,
argument checks, warm starts and the SQUAREM cycle."""

import numpy as np
import pytest
from scipy.special import expit, log_expit

from coarsenrank_core import Preferences
from coarsenrank_core.errors import Cancelled
from coarsenrank_core.models import coarsen_pl
from coarsenrank_core.models._solver import (
    check_common,
    log_sigmoid,
    run_lbfgs,
    squarem_step,
    virtual_node_penalty,
)
from coarsenrank_core.models.plackett_luce import em_start, initial_scores
from tests.helpers import numeric_gradient, simulate


# ---------------------------------------------------------------------------- virtual node
def test_virtual_node_penalty_gradient_and_value():
    s = np.array([-3.0, -0.5, 0.0, 0.4, 2.5])
    value, grad = virtual_node_penalty(s, slope=1.3)
    z = 1.3 * s
    assert value == pytest.approx(np.sum(log_expit(z) + log_expit(-z)))
    np.testing.assert_allclose(grad, numeric_gradient(lambda x: virtual_node_penalty(x, 1.3)[0],
                                                      s), atol=1e-7)


def test_virtual_node_is_a_pl_comparison_won_and_lost_against_an_item_of_worth_one():
    s = np.array([-2.0, 0.0, 0.7, 3.0])
    theta = np.exp(s)
    explicit = np.sum(np.log(theta / (theta + 1)) + np.log(1 / (theta + 1)))
    assert virtual_node_penalty(s)[0] == pytest.approx(explicit, rel=1e-12)
    # concave with its maximum at s = 0, where each item adds 2 log(1/2)
    assert virtual_node_penalty(np.zeros(4))[0] == pytest.approx(4 * 2 * np.log(0.5))
    assert np.all(virtual_node_penalty(np.zeros(4))[1] == 0.0)
    for shift in (-1.0, 0.5, 2.0):
        assert virtual_node_penalty(np.full(4, shift))[0] < virtual_node_penalty(np.zeros(4))[0]


def test_virtual_node_penalty_is_finite_for_huge_scores():
    value, grad = virtual_node_penalty(np.array([1e4, -1e4]), slope=2.0)
    assert value == pytest.approx(-2 * 2e4)
    np.testing.assert_allclose(grad, [-2.0, 2.0])


# ---------------------------------------------------------------------------- log σ
def test_log_sigmoid_matches_scipy_also_where_expit_underflows():
    z = np.array([-1000.0, -745.5, -40.0, -1.0, 0.0, 2.0, 50.0, 800.0])
    log_p, complement = log_sigmoid(z)
    np.testing.assert_allclose(log_p, log_expit(z), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(complement, 1 - expit(z), rtol=0, atol=1e-15)
    assert log_p[0] == -1000.0 and np.all(np.isfinite(log_p))
    empty_log, empty_complement = log_sigmoid(np.zeros(0))
    assert empty_log.shape == empty_complement.shape == (0,)


# ---------------------------------------------------------------------------- L-BFGS-B
def _quadratic(target):
    def fun(x):
        diff = x - target
        return float(diff @ diff), 2 * diff
    return fun


def test_run_lbfgs_finds_the_minimum_and_traces_the_maximised_value():
    target = np.array([1.0, -2.0, 0.5])
    out = run_lbfgs(_quadratic(target), np.zeros(3), max_iter=100, tol=1e-10, trace=True)
    np.testing.assert_allclose(out["x"], target, atol=1e-8)
    assert out["success"] and out["nit"] >= 1 and out["fun"] == pytest.approx(0.0, abs=1e-14)
    assert out["values"].size == out["nit"]
    assert np.all(out["values"] <= 0) and out["values"][-1] == pytest.approx(-out["fun"])
    assert np.abs(out["grad"]).max() < 1e-8 and out["change"] >= 0


def test_run_lbfgs_at_the_optimum_takes_no_step_and_bounds_hold():
    target = np.array([1.0, -2.0])
    out = run_lbfgs(_quadratic(target), target, max_iter=50, tol=1e-6, trace=False)
    assert out["nit"] == 0 and out["change"] == 0.0 and out["values"].size == 0
    bounded = run_lbfgs(_quadratic(target), np.zeros(2), max_iter=50, tol=1e-10, trace=False,
                        bounds=[(0.0, None), (-1.0, None)])
    np.testing.assert_allclose(bounded["x"], [1.0, -1.0], atol=1e-8)


def test_run_lbfgs_asks_should_stop_after_each_iteration_and_names_itself():
    def rosenbrock(x):
        value = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        grad = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2),
                         200 * (x[1] - x[0] ** 2)])
        return value, grad

    asked = []
    free = run_lbfgs(rosenbrock, np.array([-1.2, 1.0]), 500, 1e-9, False,
                     should_stop=lambda: asked.append(1) and False)
    assert len(asked) == free["nit"] > 3
    np.testing.assert_allclose(free["x"], [1.0, 1.0], atol=1e-5)
    calls = []
    with pytest.raises(Cancelled, match="^Solver X was stopped after 3 iterations"):
        run_lbfgs(rosenbrock, np.array([-1.2, 1.0]), 500, 1e-9, False, name="Solver X",
                  should_stop=lambda: calls.append(1) or len(calls) >= 3)


# ---------------------------------------------------------------------------- checks
@pytest.mark.parametrize("args, message", [
    ((0, 1e-8, 1.0), "max_iter must be >= 1"),
    ((10, -1.0, 1.0), "tol >= 0"),
    ((10, float("nan"), 1.0), "tol >= 0"),
    ((10, 1e-8, -0.1), "non-negative"),
    ((10, 1e-8, float("inf")), "finite"),
    ((10, 1e-8, 1.0, -1.0), "non-negative"),
    ((10, 1e-8, 1.0, float("nan")), "finite"),
])
def test_check_common_refuses_bad_settings(args, message):
    with pytest.raises(ValueError, match=message):
        check_common(*args)


def test_check_common_accepts_the_edges():
    check_common(1, 0.0, 0.0, 0.0)
    check_common(5, 1e-8, 3.0, 0.5)


# ---------------------------------------------------------------------------- warm starts
def test_em_start_is_the_centred_log_of_a_short_pl_em():
    prefs = simulate(np.linspace(-1, 1, 6), 80, seed=4)
    start = em_start(prefs)
    theta = coarsen_pl(prefs, alpha=np.inf, prior=(2.0, 1.0), calibration=None, max_iter=100,
                       tol=1e-6).scores
    np.testing.assert_allclose(start, np.log(theta) - np.log(theta).mean(), rtol=1e-12)
    assert start.mean() == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_array_equal(em_start(Preferences.from_lists([], n_items=3)), 0.0)


def test_initial_scores_takes_none_em_or_m_finite_scores():
    prefs = simulate(np.linspace(-1, 1, 4), 30, lengths=(2, 3, 4), seed=2)
    np.testing.assert_array_equal(initial_scores(None, 4), np.zeros(4))
    np.testing.assert_array_equal(initial_scores("em", 4, prefs), em_start(prefs))
    given = [0.5, -1.0, 2.0, 0.0]
    out = initial_scores(given, 4)
    np.testing.assert_array_equal(out, given)
    out[0] = 9.0  # a copy: the caller's scores are not changed
    assert given[0] == 0.5
    with pytest.raises(ValueError, match="init must be None, 'em' or M scores, not 'zeros'"):
        initial_scores("zeros", 4, prefs)
    with pytest.raises(ValueError, match="not 'em'"):
        initial_scores("em", 4)  # 'em' needs the preferences
    with pytest.raises(ValueError, match="M finite scores"):
        initial_scores([0.0, 1.0], 4)
    with pytest.raises(ValueError, match="M finite scores"):
        initial_scores([0.0, np.nan, 1.0, 2.0], 4)


# ---------------------------------------------------------------------------- SQUAREM
def _affine_map(seed=0, size=4, radius=0.9):
    """A contraction F(x) = A (x − c) + c with spectral radius ``radius``, and c (F(c) = c
    exactly in floating point)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(size, size)))
    a = q @ np.diag(np.linspace(radius / 3, radius, size)) @ q.T
    c = rng.uniform(1.0, 2.0, size)
    return (lambda x: a @ (x - c) + c), c


def _l1_change(x, y):
    return float(np.abs(y - x).sum() / np.abs(x).sum())


def test_squarem_reaches_the_fixed_point_in_fewer_evaluations_than_plain_steps():
    step, fixed = _affine_map()
    x, step_max, evaluations = np.full(4, 5.0), 1.0, 0
    while np.abs(x - fixed).max() > 1e-10 and evaluations < 1000:
        x, change, used, step_max = squarem_step(step, x, step_max, _l1_change)
        assert used in (2, 3) and step_max >= 1.0 and change >= 0
        evaluations += used
    plain, plain_evaluations = np.full(4, 5.0), 0
    while np.abs(plain - fixed).max() > 1e-10:
        plain, plain_evaluations = step(plain), plain_evaluations + 1
    np.testing.assert_allclose(x, fixed, atol=1e-10)
    assert evaluations < plain_evaluations / 2


def test_squarem_at_a_fixed_point_stays_there_with_two_evaluations():
    step, fixed = _affine_map(seed=1)
    x, change, used, step_max = squarem_step(step, fixed.copy(), 4.0, _l1_change)
    np.testing.assert_allclose(x, fixed, rtol=1e-12)
    assert used == 2 and step_max == 4.0 and change == pytest.approx(0.0, abs=1e-14)


def test_squarem_falls_back_to_two_plain_steps_when_the_extrapolation_is_refused():
    step, _ = _affine_map(seed=2)
    x0 = np.full(4, 5.0)
    two = step(step(x0))
    # an inadmissible extrapolation: the step bound is kept
    x, _, used, step_max = squarem_step(step, x0, 8.0, _l1_change, admissible=lambda y: False)
    np.testing.assert_array_equal(x, two)
    assert used == 2 and step_max == 8.0
    # a residual larger after extrapolating: rejected after the stabilising step, the bound shrinks
    def growing(y, _):
        return 0.0 if y is x0 else 1.0  # the start's residual is the smallest

    x, _, used, step_max = squarem_step(step, x0, 8.0, _l1_change, residual=growing)
    np.testing.assert_array_equal(x, two)
    assert used == 3 and step_max == 2.0
