"""Choosing τ from the data: the tempered sampler at any power, GPC calibration, SafeBayes."""

import pickle

import numpy as np
import pytest

from coarsenrank_core.learning_rate import (
    LearningRate,
    calibrate_tau,
    safe_bayes_tau,
    tempered_posterior,
)
from coarsenrank_core.models.plackett_luce import coarsen_pl_gibbs
from coarsenrank_core.paper.default_study import StudyCell, study_data
from coarsenrank_core.preferences import Preferences


def clean_lists(n_lists=300, seed=0):
    return study_data(StudyCell("uniform", "clean", 5, n_lists), seed)[0]


def repeated(prefs: Preferences, times: int) -> Preferences:
    """Every list ``times`` times, each copy kept with its own ranker."""
    lists = prefs.to_lists() * times
    rankers = np.tile(prefs.ranker_index, times)
    return Preferences.from_lists(lists, n_items=prefs.n_items, rankers=rankers)


def test_a_power_of_two_samples_the_data_given_twice():
    prefs = clean_lists(120)
    doubled = repeated(prefs, 2)
    tempered = tempered_posterior(prefs, 2.0, n_draws=3000, burn_in=200, random_state=1)
    plain = coarsen_pl_gibbs(doubled, n_draws=3000, burn_in=200, random_state=2)
    # centred: the overall scale, which only the prior fixes, mixes slowly in both chains
    logs_t, logs_p = (np.log(d) - np.log(d).mean(axis=1, keepdims=True)
                      for d in (tempered.draws, plain.draws))
    gap = np.abs(logs_t.mean(axis=0) - logs_p.mean(axis=0)) / logs_p.std(axis=0)
    assert gap.max() < 0.3, gap.max()  # Monte Carlo error of two autocorrelated chains
    np.testing.assert_allclose(logs_t.std(axis=0), logs_p.std(axis=0), rtol=0.12)


def test_four_times_the_power_halves_the_posterior_spread():
    prefs = clean_lists(1500)
    spread = {}
    for tau in (1.0, 4.0):
        logs = np.log(tempered_posterior(prefs, tau, n_draws=1500, burn_in=200,
                                         random_state=0).draws)
        spread[tau] = (logs - logs.mean(axis=1, keepdims=True)).std(axis=0)
    assert 1.8 <= np.median(spread[1.0] / spread[4.0]) <= 2.2


def test_a_tiny_power_gives_back_the_prior():
    post = tempered_posterior(clean_lists(60), 1e-6, n_draws=2000, burn_in=50, random_state=0)
    np.testing.assert_allclose(post.draws.mean(), 0.5, rtol=0.05)  # Gamma(1, rate 2)


def test_the_power_must_be_positive():
    with pytest.raises(ValueError, match="tau must be positive"):
        tempered_posterior(clean_lists(60), 0.0)


@pytest.mark.slow  # about 10 s: two calibrations of 25 posteriors a step
def test_calibration_meets_its_level_and_given_the_data_four_times_quarters_tau():
    # every ranker's lists written four times: the bootstrap over rankers moves no less,
    # while the plain posterior is twice as narrow, so the calibrated τ is a quarter
    prefs = clean_lists(300)
    once = calibrate_tau(prefs, random_state=0)
    four = calibrate_tau(repeated(prefs, 4), random_state=0)
    for result in (once, four):
        assert result.converged and result.rule == "calibrated"
        assert abs(result.criterion[list(result.taus).index(result.tau)] - 0.9) <= 0.01
        order = np.argsort(result.taus)
        assert np.corrcoef(np.log(result.taus[order]), result.criterion[order])[0, 1] < -0.8
    assert 0.7 <= 4 * four.tau / once.tau <= 1.4, (once.tau, four.tau)


def test_a_level_out_of_reach_inside_the_bounds_is_reported_not_converged():
    result = calibrate_tau(clean_lists(120), n_boot=4, n_draws=60, bounds=(0.9, 1.1),
                           level=0.5, random_state=0)
    assert not result.converged
    assert 0.9 <= result.tau <= 1.1 and result.iterations == 2


def test_safe_bayes_keeps_tau_one_where_the_model_is_right():
    result = safe_bayes_tau(clean_lists(300), taus=(1.0, 0.5, 0.125, 1 / 32), n_draws=60,
                            random_state=0)
    assert result.tau == 1.0 and result.alpha == np.inf and result.converged
    assert np.all(np.diff(result.criterion) > 0)  # the loss grows as τ falls


def test_safe_bayes_loss_is_the_held_out_log_loss_per_list():
    # one τ, two blocks: the loss is −E log P of the second block's lists under the first
    # block's posterior, so it lies between 0 and log(6!) for lists of 6 (a uniform guess)
    result = safe_bayes_tau(clean_lists(120), taus=(1.0,), n_blocks=2, n_draws=40,
                            random_state=0)
    assert 0 < result.criterion[0] < np.log(720)
    assert result.criterion[0] < 0.97 * np.log(720)  # the first block taught it something


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_blocks=1), "n_blocks"), (dict(taus=(1.0, 2.0)), "every tau"),
    (dict(taus=()), "every tau")])
def test_safe_bayes_refuses_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        safe_bayes_tau(clean_lists(60), **kwargs)


def test_a_learning_rate_is_frozen_and_stays_read_only_through_pickle():
    result = safe_bayes_tau(clean_lists(60), taus=(1.0, 0.5), n_blocks=2, n_draws=10,
                            random_state=0)
    assert isinstance(result, LearningRate) and result.params["n_blocks"] == 2
    with pytest.raises(AttributeError):
        result.tau = 2.0  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(result))
    assert not copy.criterion.flags.writeable and copy.tau == result.tau
