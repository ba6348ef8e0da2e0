"""Ranker diagnostics (diagnostics.py): each rater's agreement with the consensus and the
mixture models' chance that a rater answered carelessly."""

import numpy as np
import pytest

from coarsenrank_core import Preferences, run_method
from coarsenrank_core.diagnostics import MIXTURE_METHODS, careless_rankers, ranker_disagreement
from coarsenrank_core.simulate import simulate_pl
from tests.test_mixture import auc, planted


def test_rater_disagreement_flags_a_reversed_rater():
    prefs, truth = simulate_pl(8, 400, length=5, n_rankers=20, spread=2.0, random_state=5)
    lists = prefs.to_lists()
    reversed_rater = 3
    flipped = [p[::-1] if prefs.rankers[n] == reversed_rater else p for n, p in enumerate(lists)]
    noisy = Preferences.from_lists(flipped, n_items=8, rankers=prefs.rankers.tolist())
    agreement = ranker_disagreement(noisy, truth)
    assert int(np.argmin(agreement.mean_log_likelihood)) == reversed_rater
    assert agreement.outlier[reversed_rater] and agreement.outlier.sum() == 1
    assert agreement.mean_log_likelihood[reversed_rater] < \
        agreement.uniform_log_likelihood[reversed_rater]
    assert agreement.n_preferences.sum() == len(noisy)


def test_rater_disagreement_is_per_stage_so_long_lists_are_not_penalised():
    theta = np.array([4.0, 2.0, 1.0, 0.5])
    short = Preferences.from_lists([[0, 1], [0, 1]], n_items=4, rankers=["a", "b"])
    long_ = Preferences.from_lists([[0, 1], [0, 1, 2, 3]], n_items=4, rankers=["a", "b"])
    assert ranker_disagreement(short, theta).mean_log_likelihood[1] == pytest.approx(
        np.log(4 / 6))
    per_stage = (np.log(4 / 7.5) + np.log(2 / 3.5) + np.log(1 / 1.5)) / 3
    assert ranker_disagreement(long_, theta).mean_log_likelihood[1] == pytest.approx(per_stage)


def test_agreement_records_are_read_only():
    prefs, _ = simulate_pl(10, 200, length=4, n_rankers=20, spread=1.5, random_state=2)
    agreement = ranker_disagreement(prefs, run_method("pl-em", prefs).scores)
    with pytest.raises(ValueError):
        agreement.outlier[0] = True


def test_careless_raters_reads_the_mixture_per_rater():
    prefs, _, bad_rater, _ = planted(seed=8)
    by_rater = careless_rankers(prefs, "pl-mix-ranker")
    assert by_rater.probability.shape == (prefs.n_rankers,)
    assert auc(by_rater.probability, bad_rater) >= 0.9
    assert not by_rater.probability.flags.writeable
    by_list = careless_rankers(prefs, "pl-mix")
    per_list = np.asarray(by_list.fit.extra["noise_probability"])
    np.testing.assert_allclose(by_list.probability[3],
                               per_list[prefs.ranker_index == 3].mean())
    with pytest.raises(ValueError):
        careless_rankers(prefs, "pl-em")


def test_only_the_mixtures_judge_raters():
    assert set(MIXTURE_METHODS) == {"pl-mix", "pl-mix-ranker"}
