"""The default consensus: per-ranker or per-list PL-mix, chosen by whether rankers repeat."""

import numpy as np
import pytest

from coarsenrank_core import Preferences, run_method
from coarsenrank_core.models.consensus import (
    CONSENSUS_PRIOR,
    careless_unit,
    careless_unit_reason,
    consensus,
)
from coarsenrank_core.models.mixture import pl_mix, pl_mix_ranker, pl_mixture
from coarsenrank_core.registry import DEFAULT_METHOD, METHODS
from coarsenrank_core.simulate import simulate_rankers, true_worths

WORTHS = true_worths(8, 1.5, "even")


def ranked(lists_per_ranker: int, with_rankers: bool = True) -> Preferences:
    prefs = simulate_rankers(WORTHS, 20, 4, lists_per_ranker=lists_per_ranker,
                             careless=0.3, random_state=3).preferences
    return prefs if with_rankers else prefs._replace(rankers=None, ranker_names=None)


@pytest.mark.parametrize("prefs, unit", [
    (ranked(1, with_rankers=False), "list"),
    (ranked(3, with_rankers=False), "list"),
    (ranked(1), "list"),
    (ranked(3), "ranker"),
])
def test_the_careless_unit_is_the_ranker_only_when_some_ranker_gives_several_lists(prefs, unit):
    assert careless_unit(prefs) == unit


def test_one_repeated_ranker_is_enough_for_the_per_ranker_model():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2], [2, 1, 0]], rankers=[0, 1, 1])
    assert careless_unit(prefs) == "ranker"


@pytest.mark.parametrize("lists_per_ranker, with_rankers, reference", [
    (3, True, pl_mix_ranker), (3, False, pl_mix), (1, True, pl_mix)])
def test_the_default_fit_is_exactly_the_mixture_it_names(lists_per_ranker, with_rankers,
                                                         reference):
    prefs = ranked(lists_per_ranker, with_rankers)
    fit = consensus(prefs)
    expected = reference(prefs, prior=CONSENSUS_PRIOR)
    np.testing.assert_allclose(fit.scores, expected.scores, rtol=1e-10)
    assert fit.method == "consensus" and fit.extra.per == expected.extra.per
    np.testing.assert_allclose(fit.extra.noise_probability, expected.extra.noise_probability,
                               rtol=1e-8, atol=1e-12)


def test_the_registry_default_is_this_fit_with_its_defaults():
    assert DEFAULT_METHOD == "consensus" and METHODS[DEFAULT_METHOD].function is consensus
    prefs = ranked(3)
    np.testing.assert_array_equal(run_method(DEFAULT_METHOD, prefs).scores,
                                  consensus(prefs).scores)


@pytest.mark.slow  # several mixture fits on repeated raters
def test_with_repeated_rankers_the_better_explained_structure_is_kept():
    from coarsenrank_core.paper.default_study import StudyCell, study_data

    for contamination, per in (("20% random rankers", "ranker"), ("25% random lists", "list")):
        prefs, _ = study_data(StudyCell("uniform", contamination, 5, 600), 0)
        fits = {unit: pl_mixture(prefs, per=unit, prior=CONSENSUS_PRIOR)
                for unit in ("ranker", "list")}
        kept = consensus(prefs)
        assert kept.extra.per == per
        assert fits[per].extra.log_posterior > fits[{"ranker": "list",
                                                     "list": "ranker"}[per]].extra.log_posterior
        np.testing.assert_array_equal(kept.scores, fits[per].scores)
        np.testing.assert_array_equal(consensus(prefs, per=per).scores, kept.scores)


def test_the_reason_names_the_fit_and_why():
    assert careless_unit_reason(ranked(3), "ranker").startswith(
        "PL-mix per rater: 20 of 20 raters")
    assert "best explained with each list" in careless_unit_reason(ranked(3), "list")
    assert "names no raters" in careless_unit_reason(ranked(3, with_rankers=False))
    assert "every rater gives one list" in careless_unit_reason(ranked(1))


def test_the_default_finds_careless_rankers_as_a_whole():
    sim = simulate_rankers(WORTHS, 30, 4, lists_per_ranker=6, careless=0.3, random_state=1)
    fit = consensus(sim.preferences)
    flagged = np.flatnonzero(fit.extra.noise_probability > 0.5)
    assert set(flagged) <= set(sim.careless.tolist())  # no careful rater flagged
    assert flagged.size >= 0.8 * sim.careless.size


def test_a_row_more_likely_first_than_any_row_above_it_is_out_of_order():
    from ui.consensus_view import first_place_out_of_order

    order = np.array([2, 0, 1, 3])
    assert not first_place_out_of_order(order, np.array([0.2, 0.0, 0.7, 0.0]))
    # rank 4 (item 3) beats rank 3 (item 1), though not rank 1: the table needs its line
    assert first_place_out_of_order(order, np.array([0.2, 0.0, 0.7, 0.1]))
    assert first_place_out_of_order(order, np.array([0.1, 0.3, 0.6, 0.0]))
