"""PeerGrader (models/peergrader.py): gradients, stationarity, the PL identity, recovery."""

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.models.peergrader import (
    ETA_MIN,
    PeerGraderDesign,
    peergrader,
    peergrader_objective,
)
from coarsenrank_core.models.pl_gradient import pl_lbfgs, pl_objective
from tests.helpers import (
    SEPARATED_KINDS,
    mixed_preferences,
    noisy_short_lists,
    numeric_gradient,
    separated_truth,
    simulate,
)


@pytest.fixture(scope="module")
def mixed():
    """Small data with ties, lengths 2..5, tied pairs, weights and 4 rankers."""
    return mixed_preferences()


# ---------------------------------------------------------------------------- gradients
def test_peergrader_gradients_in_both_blocks_match_finite_differences(mixed):
    rng = np.random.default_rng(3)
    s = rng.normal(size=mixed.n_items)
    eta = rng.uniform(0.4, 2.0, mixed.n_rankers)
    prior = (3.0, 2.0)
    _, grad_s, grad_eta = peergrader_objective(mixed, s, eta, 0.6, prior)
    numeric_s = numeric_gradient(lambda x: peergrader_objective(mixed, x, eta, 0.6, prior)[0], s)
    numeric_eta = numeric_gradient(
        lambda x: peergrader_objective(mixed, s, x, 0.6, prior)[0], eta)
    np.testing.assert_allclose(grad_s, numeric_s, atol=1e-6)
    np.testing.assert_allclose(grad_eta, numeric_eta, atol=1e-6)


def test_peergrader_reliability_curvature_matches_finite_differences(mixed):
    rng = np.random.default_rng(4)
    s, eta = rng.normal(size=mixed.n_items), rng.uniform(0.4, 2.0, mixed.n_rankers)
    design = PeerGraderDesign(mixed)
    _, _, _, curvature = design.evaluate(s, eta, grad_s=False, curvature=True)
    numeric = [numeric_gradient(lambda x, g=g: design.evaluate(s, x)[2][g], eta)[g]
               for g in range(eta.size)]
    np.testing.assert_allclose(curvature, numeric, atol=1e-5)
    assert np.all(curvature <= 0)


def test_reliability_one_gives_the_pl_likelihood(mixed):
    s = np.random.default_rng(5).normal(size=mixed.n_items)
    design = PeerGraderDesign(mixed)
    value, grad, _, _ = design.evaluate(s, np.ones(mixed.n_rankers))
    expected, expected_grad = pl_objective(mixed, s, regularization=0.0)
    assert value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(grad, expected_grad, atol=1e-10)


def test_scaled_likelihood_is_stable_for_extreme_scores():
    prefs = Preferences.from_lists([[0, 1, 2], [2, 1, 0], [0, 1], [{0, 2}, 1]])
    value, grad, d_eta, curvature = PeerGraderDesign(prefs).evaluate(
        np.array([400.0, 0.0, -400.0]), np.full(4, 3.0), curvature=True)
    assert np.isfinite(value) and value < -1e3
    assert np.all(np.isfinite(grad)) and np.all(np.isfinite(d_eta))
    assert np.all(np.isfinite(curvature))


# ---------------------------------------------------------------------------- fits
def test_peergrader_with_unit_reliability_equals_pl_with_the_same_l2(mixed):
    fixed = peergrader(mixed, l2=0.4, fit_reliability=False, inner_tol=1e-12)
    pl = pl_lbfgs(mixed, regularization=0.0, l2=0.4, tol=1e-12)
    np.testing.assert_allclose(fixed.scores, pl.scores, atol=1e-6)
    np.testing.assert_array_equal(fixed.extra["reliability"], 1.0)
    assert fixed.iterations == 1 and fixed.converged


@pytest.mark.parametrize("solver", ["joint", "alternating"])
def test_peergrader_optimum_is_stationary_in_both_blocks(mixed, solver):
    prior = (4.0, 3.0)
    result = peergrader(mixed, l2=0.5, reliability_prior=prior, solver=solver,
                        inner_tol=1e-11, tol=1e-9)
    eta = result.extra["reliability"]
    value, grad_s, grad_eta = peergrader_objective(mixed, result.scores, eta, 0.5, prior)
    assert result.converged
    assert np.abs(grad_s).max() < 1e-5 and np.abs(grad_eta).max() < 1e-5
    assert result.extra["objective"] == pytest.approx(value)


def test_joint_and_alternating_solvers_agree(mixed):
    joint = peergrader(mixed, inner_tol=1e-11)
    alternating = peergrader(mixed, solver="alternating", inner_tol=1e-11, tol=1e-10,
                             trace=True)
    np.testing.assert_allclose(joint.scores, alternating.scores, atol=1e-5)
    np.testing.assert_allclose(joint.extra["reliability"], alternating.extra["reliability"],
                               atol=1e-5)
    assert np.all(np.diff(alternating.trace) >= -1e-8)  # block ascent never decreases J


def test_a_reversed_grader_gets_the_lowest_reliability():
    truth = np.linspace(0, 4, 10)
    prefs = simulate(truth, 600, lengths=(3, 4), n_rankers=6, reversed_rankers=(5,), seed=12)
    result = peergrader(prefs)
    eta = result.extra["reliability"]
    assert eta.shape == (6,)
    assert eta[5] < 0.5 * eta[:5].min()
    assert pairwise_accuracy(result.scores, truth) == 1.0


def test_with_gamma_shape_one_a_reversed_grader_reaches_the_lower_bound():
    """Shape 1: the reversed grader's optimum is η = 0 (the bound); both solvers find it."""
    truth = np.linspace(0, 4, 8)
    prefs = simulate(truth, 300, lengths=(3,), n_rankers=4, reversed_rankers=(3,), seed=14)
    joint = peergrader(prefs, reliability_prior=(1.0, 1.0), inner_tol=1e-10)
    alternating = peergrader(prefs, reliability_prior=(1.0, 1.0), solver="alternating",
                             inner_tol=1e-10, tol=1e-9)
    for result in (joint, alternating):
        eta = result.extra["reliability"]
        assert result.converged
        # the alternating Newton steps creep to the bound: 1.0002e-8 from the EM start
        assert eta[3] == pytest.approx(ETA_MIN, rel=1e-3) and eta[:3].min() > 0.1
    np.testing.assert_allclose(joint.scores, alternating.scores, atol=1e-5)


def test_peergrader_without_rankers_gives_one_reliability_per_preference():
    prefs = simulate(np.linspace(0, 3, 6), 40, seed=13)
    result = peergrader(prefs, reliability_prior=(5.0, 5.0))
    assert result.extra["reliability"].shape == (40,)
    assert np.all(result.extra["reliability"] > 0)


def test_peergrader_rejects_bad_arguments(mixed):
    with pytest.raises(ValueError, match="shape >= 1"):
        peergrader(mixed, reliability_prior=(0.5, 1.0))
    with pytest.raises(ValueError, match="solver"):
        peergrader(mixed, solver="newton")


# ---------------------------------------------------------------------------- recovery
@pytest.mark.parametrize("kind", SEPARATED_KINDS)
def test_peergrader_recovers_a_strongly_separated_truth(kind):
    truth, prefs = separated_truth(kind)
    result = peergrader(prefs)
    assert result.method == "peergrader" and result.converged
    assert pairwise_accuracy(result.scores, truth) >= 0.95


def test_relabelling_items_permutes_the_peergrader_scores(mixed):
    perm = np.random.default_rng(0).permutation(mixed.n_items)
    base = peergrader(mixed).scores
    moved = peergrader(mixed.relabel(perm)).scores
    np.testing.assert_allclose(moved[perm], base, atol=1e-5)


@pytest.mark.parametrize("solver", ["joint", "alternating"])
@pytest.mark.parametrize("weighted, scores, objective, reliability", [
    (False, [0.7907429202684171, 0.5173187897569711, 0.056272580288648656,
             -0.37702678924808397, -0.9873075010659536], -4415.4648696068,
     [0.8139723882773582, 0.9265981766058725, 0.927704203517043, 0.9067732058349726]),
    (True, [0.8551450662533105, 0.5087233775723611, 0.08515548273577292, -0.375005723023942,
            -1.0740182035374968], -4629.453749839362,
     [0.8043371587434603, 0.9505354754492903, 0.9274879214487431, 0.9079971745346811])])
def test_copies_without_grader_ids_share_one_reliability_with_the_unmerged_optimum(
        solver, weighted, scores, objective, reliability):
    # golden values of the joint fit with one reliability per preference (400 here,
    # 1.27 M on Readlevel ×100); merged copies reach the same optimum within the
    # solvers' tolerance (stated: 1e-6 relative on scores and reliabilities)
    prefs, rng = noisy_short_lists(seed=5, n=400)
    if weighted:
        prefs = prefs._replace(weights=rng.choice([1.0, 2.0], len(prefs)))
    design = PeerGraderDesign(prefs)
    assert design.n_graders < len(prefs) // 3 and design.copies.sum() == len(prefs)
    fit = peergrader(prefs, solver=solver)
    assert fit.converged
    assert fit.extra["reliability"].shape == (len(prefs),)
    np.testing.assert_allclose(fit.scores, scores, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fit.extra["reliability"][:4], reliability, rtol=1e-6)
    assert fit.extra["objective"] == pytest.approx(objective, rel=1e-12)
    # every copy got its merged reliability: the objective of the expanded fit, unmerged
    assert peergrader_objective(prefs, fit.scores, fit.extra["reliability"])[0] == \
        pytest.approx(fit.extra["objective"], rel=1e-12)
