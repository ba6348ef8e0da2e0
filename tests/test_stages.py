"""The choice stages of the PL likelihood (stages.py), checked stage by stage against a literal
enumeration: wins, the EM exposure, the Gibbs draws' mean and the log-likelihood."""

import math

import numpy as np
import pytest

from coarsenrank_core import Preferences
from coarsenrank_core.models.stages import StageDesign


def literal_stages(prefs: Preferences):
    """(preference, weight, winner, choice set) of every stage, by Breslow's rule."""
    stages = []
    for n, (pref, weight) in enumerate(zip(prefs.to_lists(), prefs.weights)):
        groups = [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]
        for j, group in enumerate(groups):
            if j == len(groups) - 1 and len(group) == 1:
                break  # a trailing single item is never chosen
            remaining = [m for g in groups[j:] for m in g]
            stages.extend((n, float(weight), m, remaining) for m in group)
    return stages


def collections():
    """Strict pairs, strict lists, tied lists and pairs, and absent items; unit and other
    weights (the design takes a shortcut when every weight is 1)."""
    rng = np.random.default_rng(11)
    lists = [[0, 1], [2, 0], [3, 1, 0], [1, 2, 3, 4], [{0, 1}], [2, {3, 4}], [{0, 2}, 1, 3],
             [4, {0, 1, 2}], [1, 0], [0, 3, 4]]
    lists += [rng.permutation(6)[:int(rng.integers(2, 6))].tolist() for _ in range(15)]
    unit = Preferences.from_lists(lists, n_items=7)  # item 6 never appears
    weighted = Preferences.from_lists(lists, n_items=7,
                                      weights=rng.choice([0.5, 1.0, 2.5], len(lists)))
    return {"unit": unit, "weighted": weighted}


@pytest.fixture(params=["unit", "weighted"])
def prefs(request):
    return collections()[request.param]


@pytest.fixture
def theta():
    return np.random.default_rng(2).gamma(2.0, 1.0, 7)


def test_wins_and_stage_counts_are_the_literal_ones(prefs):
    design = StageDesign.build(prefs)
    wins, count = np.zeros(7), np.zeros(7, dtype=int)
    per_preference = np.zeros(len(prefs))
    for n, weight, winner, _ in literal_stages(prefs):
        wins[winner] += weight
        count[winner] += 1
        per_preference[n] += 1
    np.testing.assert_allclose(design.wins, wins, rtol=1e-14)
    np.testing.assert_array_equal(design.wins_count, count)
    np.testing.assert_array_equal(design.stages_per_preference, per_preference)
    assert design.n_items == 7 and design.n_preferences == len(prefs)
    assert design.wins[6] == 0


@pytest.mark.parametrize("scale", [1.0, 0.3])
def test_exposure_sums_weight_over_eta_of_every_stage_holding_the_item(prefs, theta, scale):
    expected = np.zeros(7)
    for _, weight, _, choice_set in literal_stages(prefs):
        expected[choice_set] += scale * weight / theta[choice_set].sum()
    design = StageDesign.build(prefs)
    np.testing.assert_allclose(design.exposure(theta, scale), expected, rtol=1e-12)
    assert design.exposure(theta, scale)[6] == 0.0


def test_log_likelihood_in_total_and_per_preference(prefs, theta):
    per = np.zeros(len(prefs))
    for n, _, winner, choice_set in literal_stages(prefs):
        per[n] += math.log(theta[winner]) - math.log(theta[choice_set].sum())
    design = StageDesign.build(prefs)
    np.testing.assert_allclose(design.log_likelihood(theta, per_preference=True), per,
                               rtol=1e-12)
    assert design.log_likelihood(theta) == pytest.approx(float(prefs.weights @ per), rel=1e-12)


def test_an_item_that_never_wins_may_have_worth_zero(prefs):
    theta = np.ones(7)
    theta[6] = 0.0  # absent: every term stays finite
    assert np.isfinite(StageDesign.build(prefs).log_likelihood(theta))


def test_gibbs_exposure_draws_average_to_the_tempered_em_exposure(prefs, theta):
    """ξ ~ Gamma(τ·w·d, η) per choice set has mean τ·w·d/η: the draws' mean is exposure(θ, τ)."""
    design = StageDesign.build(prefs)
    tau = 0.4
    rng = np.random.default_rng(5)
    draws = np.array([design.sample_exposure(theta, tau, rng) for _ in range(2000)])
    expected = design.exposure(theta, tau)
    standard_error = draws.std(axis=0) / np.sqrt(len(draws))
    seen = expected > 0
    assert np.all(np.abs(draws.mean(axis=0) - expected)[seen] < 5 * standard_error[seen])
    assert np.all(draws[:, ~seen] == 0) and np.all(draws >= 0)
    again = StageDesign.build(prefs).sample_exposure(theta, tau, np.random.default_rng(5))
    np.testing.assert_array_equal(again, draws[0])  # seeded: the same draw


def test_trailing_tied_group_adds_one_stage_per_member():
    prefs = Preferences.from_lists([[0, {1, 2}], [{0, 1}, 2]], n_items=3)
    assert prefs.stages.stages_per_preference.tolist() == [3, 2]
    assert prefs.stages.wins.tolist() == [2, 2, 1]


def test_the_collection_builds_its_design_once():
    prefs = collections()["weighted"]
    assert isinstance(prefs.stages, StageDesign) and prefs.stages is prefs.stages


@pytest.mark.parametrize("copy_rows", [0, 1 << 22])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_pair_step_is_two_plain_bincount_passes(monkeypatch, copy_rows, weighted):
    from coarsenrank_core.models import stages as stages_module

    monkeypatch.setattr(stages_module, "PAIR_COPY_ROWS", copy_rows)
    rng = np.random.default_rng(5)
    n, m = 5000, 40
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    weights = rng.choice([1.0, 2.5], n) if weighted else None
    design = StageDesign.build(Preferences.from_pairs(a, b, m, weights=weights))
    [block] = design.blocks
    assert block.pair[0].dtype == (np.intp if copy_rows else np.int32)
    theta = rng.random(m) + 0.1
    per = (np.ones(n) if weights is None else weights) / (theta[a] + theta[b])
    expected = np.bincount(a, per, m) + np.bincount(b, per, m)
    np.testing.assert_array_equal(design.exposure(theta), expected)
    np.testing.assert_array_equal(design.exposure(theta, 0.25), expected * 0.25)
