"""choose_alpha: the rules, the record, the default, cross-validation and the knee's stability."""

import dataclasses

import numpy as np
import pytest

import coarsenrank_core.alpha as alpha_module
from coarsenrank_core import Preferences, choose_alpha, run_method
from coarsenrank_core.alpha import DEFAULT_RULE, AlphaChoice, CVEvidence
from coarsenrank_core.dic import DICResult
from coarsenrank_core.simulate import pl_orderings, random_subsets


def simulated(n_prefs=120, n_items=8, length=4, seed=0, rankers=True):
    rng = np.random.default_rng(seed)
    subsets = random_subsets(n_items, np.full(n_prefs, length), random_state=rng)
    orders = pl_orderings(subsets.reshape(n_prefs, length), np.linspace(2, -2, n_items),
                          random_state=rng)
    return Preferences.from_arrays(orders.ravel(), np.full(n_prefs, length), n_items=n_items,
                                   rankers=np.arange(n_prefs) % 20 if rankers else None)


def test_a_number_is_used_as_it_is_and_bad_rules_are_refused():
    prefs = simulated()
    choice = choose_alpha(prefs, 42)
    assert (choice.alpha, choice.rule, choice.evidence) == (42.0, "fixed", None)
    assert choose_alpha(prefs, "inf").alpha == np.inf and choose_alpha(prefs, "inf").tau == 1
    for bad in ("elbow", 0, -3):
        with pytest.raises(ValueError):
            choose_alpha(prefs, bad)
    with pytest.raises(dataclasses.FrozenInstanceError):
        choice.alpha = 1.0


def test_dic_rules_return_the_curve_and_the_default_rule_is_the_knee():
    prefs = simulated()
    knee = choose_alpha(prefs, random_state=3)
    assert DEFAULT_RULE == "knee" and knee.rule == "knee"
    assert isinstance(knee.evidence, DICResult) and knee.alpha == knee.evidence.knee_alpha
    assert knee.evidence.params["common_random_numbers"]
    low = choose_alpha(prefs, "dic-min", random_state=3)
    assert low.alpha == low.evidence.best_alpha == low.evidence.alphas[
        np.argmin(low.evidence.dic)]
    assert low.at_grid_end == (low.alpha == low.evidence.alphas[-1])
    if low.at_grid_end:
        assert "still falling at the largest α tried" in low.describe()
    assert isinstance(knee, AlphaChoice) and knee.seconds >= 0
    # the registry's tempered methods use the same choice when given no alpha
    assert run_method("coarsen-pl", prefs).params["alpha"] == choose_alpha(prefs).alpha


def test_cv_holds_out_rankers_scores_every_alpha_and_includes_infinity():
    prefs = simulated(seed=1)
    choice = choose_alpha(prefs, "cv", random_state=0, alphas=[1.0, 10.0, 100.0])
    evidence = choice.evidence
    assert isinstance(evidence, CVEvidence) and evidence.split == "ranker"
    assert evidence.alphas.tolist() == [1.0, 10.0, 100.0, np.inf]
    assert evidence.fold_scores.shape == (5, 4) and np.all(np.isfinite(evidence.fold_scores))
    assert choice.alpha == evidence.alphas[np.argmax(evidence.mean)]
    anonymous = choose_alpha(prefs.with_rankers(None), "cv", alphas=[1.0, 10.0])
    assert anonymous.evidence.split == "list"


def test_cv_on_clean_pl_data_prefers_trusting_the_data():
    # clean PL lists: the held-out likelihood rises with alpha
    choice = choose_alpha(simulated(n_prefs=300, seed=2), "cv", alphas=[0.5, 5.0, 50.0])
    assert choice.evidence.mean[0] < choice.evidence.mean[-1]
    assert choice.alpha >= 50.0


def test_cv_ties_go_to_the_larger_alpha(monkeypatch):
    prefs = simulated()

    class Flat:
        scores = np.ones(prefs.n_items)

    monkeypatch.setattr(alpha_module, "consensus_fit", lambda *args, **kwargs: Flat())
    choice = choose_alpha(prefs, "cv", alphas=[1.0, 10.0], random_state=11)
    assert np.ptp(choice.evidence.mean) == 0
    assert choice.alpha == np.inf and choice.at_grid_end


@pytest.mark.slow
@pytest.mark.parametrize("name", ["readlevel", "babyface", "peergrading_released"])
def test_the_knee_stays_within_a_factor_1_5_across_seeds(data_dir, name):
    from coarsenrank_core.paper.datasets import PAPER_DATASETS

    prefs = PAPER_DATASETS[name](data_dir).preferences
    knees = [choose_alpha(prefs, "knee", random_state=seed).alpha for seed in range(5)]
    assert max(knees) / min(knees) <= 1.5, knees


def test_choices_are_cached_explicitly_and_cache_none_recomputes():
    prefs = simulated(n_prefs=30, n_items=5)
    settings = dict(alphas=[1.0, 10.0, 100.0], burn_in=5, n_draws=5)
    cache = alpha_module.ChoiceCache(size=1)
    first = choose_alpha(prefs, "knee", random_state=1, cache=cache, **settings)
    assert len(cache) == 1
    assert choose_alpha(prefs, "knee", random_state=1, cache=cache, **settings) is first
    fresh = choose_alpha(prefs, "knee", random_state=1, cache=None, **settings)
    assert fresh is not first and fresh.alpha == first.alpha
    choose_alpha(prefs, "knee", random_state=2, cache=cache, **settings)
    assert len(cache) == 1  # size 1: the oldest choice went
    again = choose_alpha(prefs, "knee", random_state=1, cache=cache, **settings)
    assert again is not first and again.alpha == first.alpha
    cache.clear()
    assert len(cache) == 0
    assert choose_alpha(prefs, "knee", random_state=1, cache=cache, **settings) is not again
    # opt-in: choose_alpha alone caches nothing; the registry's "auto" uses alpha.CHOICES
    assert choose_alpha.__kwdefaults__["cache"] is None


def test_only_the_registry_opts_in_to_the_engines_cache():
    prefs = simulated(n_prefs=30, n_items=5, seed=7)
    alpha_module.CHOICES.clear()
    choose_alpha(prefs)
    assert len(alpha_module.CHOICES) == 0  # a plain call stores nothing
    first = run_method("coarsen-pl", prefs)
    assert len(alpha_module.CHOICES) == 1
    assert run_method("coarsen-th", prefs).params["alpha"] == first.params["alpha"]
    assert len(alpha_module.CHOICES) == 1  # the second tempered method found the choice
    alpha_module.CHOICES.clear()
