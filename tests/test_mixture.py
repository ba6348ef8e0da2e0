"""pl-mix and pl-mix-ranker: EM against a direct optimiser, noise recovery, ties and weights."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from coarsenrank_core import Preferences, pairwise_accuracy, run_method
from coarsenrank_core.models.mixture import mixture_log_posterior, pl_mix, pl_mixture
from coarsenrank_core.simulate import (
    pl_orderings,
    random_subsets,
    simulate_rankers,
    true_worths,
)
from tests.helpers import noisy_short_lists


def auc(scores, labels) -> float:
    """Probability that a random positive outranks a random negative (ties count half)."""
    scores, labels = np.asarray(scores, float), np.asarray(labels, bool)
    pos, neg = scores[labels], scores[~labels]
    greater = (pos[:, None] > neg[None, :]).mean()
    equal = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * equal)


def planted(n_rankers=40, lists_per_ranker=6, n_items=20, length=6, spammers=0.3, seed=0,
            noise_per="ranker"):
    """PL lists from a known truth; a share of raters (or of lists) answer uniformly at random."""
    rng = np.random.default_rng(seed)
    n = n_rankers * lists_per_ranker
    log_worth = np.linspace(2.0, -2.0, n_items)
    subsets = random_subsets(n_items, np.full(n, length), random_state=rng).reshape(n, length)
    orders = pl_orderings(subsets, log_worth, random_state=rng)
    rankers = np.repeat(np.arange(n_rankers), lists_per_ranker)
    if noise_per == "ranker":
        bad_rater = rng.permutation(n_rankers) < round(spammers * n_rankers)
        bad_list = bad_rater[rankers]
    else:
        bad_list = rng.permutation(n) < round(spammers * n)
        bad_rater = None
    shuffled = np.array([rng.permutation(row) for row in subsets])
    orders = np.where(bad_list[:, None], shuffled, orders)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n, length), n_items=n_items,
                                    rankers=rankers)
    return prefs, np.exp(log_worth), bad_rater, bad_list


def small(seed=0, ties=False, weights=False):
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(40):
        k = int(rng.integers(2, 5))
        items = rng.choice(6, k, replace=False)
        keys = np.linspace(1.5, -1.5, 6)[items] + rng.gumbel(size=k)
        order = items[np.argsort(-keys)].tolist()
        if rng.random() < 0.3:
            order = rng.permutation(order).tolist()
        if ties and k >= 3 and rng.random() < 0.4:
            order = [order[0], set(order[1:3]), *order[3:]]
        lists.append(order)
    w = rng.choice([1.0, 2.0, 0.5], 40) if weights else None
    return Preferences.from_lists(lists, n_items=6, weights=w,
                                  rankers=np.arange(40) % 8)


def direct(prefs, per, prior, reversed_component=False):
    """Maximise the mixture log-posterior over (log θ, softmax π) with L-BFGS."""
    k = 3 if reversed_component else 2

    def shares(x):
        if k == 2:
            noise = expit(x[-1])
            return np.array([1.0 - noise, noise])
        # (π_PL, π_U, π_R) with π_R <= π_PL, the model's identifiability constraint
        noise, careful = expit(x[-2]), 0.5 + 0.5 * expit(x[-1])
        return np.array([(1 - noise) * careful, noise, (1 - noise) * (1 - careful)])

    def negative(x):
        return -mixture_log_posterior(prefs, np.exp(x[:prefs.n_items]), shares(x), per, prior,
                                      reversed_component=reversed_component)

    best = None
    for start in (np.zeros(prefs.n_items + k - 1), np.r_[np.zeros(prefs.n_items),
                                                          np.full(k - 1, -2.0)]):
        fit = minimize(negative, start, method="L-BFGS-B",
                       options=dict(maxiter=20_000, ftol=1e-15, gtol=1e-10))
        if best is None or fit.fun < best.fun:
            best = fit
    return np.exp(best.x[:prefs.n_items]), 1.0 - shares(best.x)[0], -best.fun


@pytest.mark.parametrize("per", ["list", "ranker"])
@pytest.mark.parametrize("ties, weights, reverse", [
    (False, False, False), (True, True, False),
    pytest.param(True, False, True, marks=pytest.mark.slow)])  # the slow one: ~7 s of CPU
def test_em_reaches_the_optimum_a_direct_optimiser_finds(per, ties, weights, reverse):
    prefs = small(seed=3, ties=ties, weights=weights)
    fit = pl_mixture(prefs, per=per, prior=(2.0, 1.0), max_iter=50_000, tol=1e-13,
                     reversed_component=reverse)
    assert fit.converged
    theta, pi, best = direct(prefs, per, (2.0, 1.0), reverse)
    assert fit.extra["log_posterior"] >= best - 1e-6
    np.testing.assert_allclose(fit.scores, theta, rtol=2e-3)
    assert fit.extra["pi"] == pytest.approx(pi, abs=2e-3)


def test_each_em_step_never_decreases_the_objective():
    prefs = small(seed=5, ties=True, weights=True)
    values = [pl_mixture(prefs, per="ranker", max_iter=i, tol=0.0).extra["log_posterior"]
              for i in range(1, 30)]
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[1:]))


def test_planted_spammer_raters_are_recovered():
    aucs = []
    for seed in range(3):
        prefs, truth, bad_rater, _ = planted(seed=seed)
        fit = run_method("pl-mix-ranker", prefs)
        noise = np.asarray(fit.extra["noise_probability"])
        assert noise.shape == (prefs.n_rankers,)
        aucs.append(auc(noise, bad_rater))
        assert fit.extra["pi"] == pytest.approx(0.3, abs=0.12)
        assert pairwise_accuracy(fit.scores, truth) >= pairwise_accuracy(
            run_method("pl-em", prefs).scores, truth) - 0.01
    assert min(aucs) >= 0.9, aucs


def test_planted_upside_down_raters_are_recovered_by_the_reversed_component():
    from coarsenrank_core.noise import reverse_preferences

    prefs, truth, _, _ = planted(spammers=0.0, seed=7)
    bad = np.random.default_rng(7).permutation(prefs.n_rankers) < 12
    upside_down = reverse_preferences(prefs, 1.0).preferences
    lists = [r if bad[k] else p for p, r, k in zip(prefs.to_lists(), upside_down.to_lists(),
                                                     prefs.ranker_index)]
    mixed = Preferences.from_lists(lists, n_items=prefs.n_items, rankers=prefs.ranker_index)
    fit = run_method("pl-mix-ranker", mixed, reversed_component=True)
    assert auc(fit.extra["reversed_probability"], bad) >= 0.9
    assert fit.extra["pi_reversed"] == pytest.approx(0.3, abs=0.1)
    assert fit.extra["pi"] == pytest.approx(fit.extra["pi_uniform"] + fit.extra["pi_reversed"])
    # the reversed lists are used, not only discarded: at least as good as the plain mixture
    plain = run_method("pl-mix-ranker", mixed)
    assert pairwise_accuracy(fit.scores, truth) >= pairwise_accuracy(plain.scores, truth)
    assert pairwise_accuracy(fit.scores, truth) > pairwise_accuracy(
        run_method("pl-em", mixed).scores, truth) + 0.03


def test_planted_random_lists_are_recovered_per_list():
    prefs, truth, _, bad_list = planted(seed=4, noise_per="list")
    fit = run_method("pl-mix", prefs)
    noise = np.asarray(fit.extra["noise_probability"])
    assert noise.shape == (len(prefs),)
    assert auc(noise, bad_list) >= 0.9
    assert fit.extra["pi"] == pytest.approx(0.3, abs=0.1)


def test_clean_data_gives_little_noise_and_a_weight_is_a_repeat():
    prefs, truth, _, _ = planted(spammers=0.0, seed=6)
    fit = run_method("pl-mix", prefs)
    assert fit.extra["pi"] < 0.05
    assert pairwise_accuracy(fit.scores, truth) >= 0.9
    half = prefs.subset(np.arange(0, len(prefs), 2))
    doubled = half._replace(weights=np.full(len(half), 2.0))
    twice = Preferences.from_arrays(
        np.concatenate([half.items, half.items]), np.concatenate([half.lengths, half.lengths]),
        n_items=half.n_items)
    np.testing.assert_allclose(run_method("pl-mix", doubled, tol=1e-12).scores,
                               run_method("pl-mix", twice, tol=1e-12).scores, rtol=1e-6)


def test_bad_settings_are_refused():
    prefs = small()
    with pytest.raises(ValueError):
        pl_mixture(prefs, per="item")
    with pytest.raises(ValueError):
        pl_mixture(prefs, pi_init=1.0)
    with pytest.raises(ValueError):
        pl_mixture(prefs, prior=(0.5, 1.0))


def test_copies_and_weights_give_the_same_mixture_fit():
    """Identical lists are fitted once with summed weight; every list keeps its own value."""
    lists = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]]
    counts = [20, 4, 9, 7]
    copies = Preferences.from_lists([x for x, c in zip(lists, counts) for _ in range(c)])
    weighted = Preferences.from_lists(lists, weights=counts)
    a = pl_mix(copies, tol=1e-12, max_iter=5000)
    b = pl_mix(weighted, tol=1e-12, max_iter=5000)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9)
    assert a.extra["pi"] == pytest.approx(b.extra["pi"], rel=1e-9)
    noise = np.asarray(a.extra["noise_probability"])
    assert noise.shape == (len(copies),)
    np.testing.assert_allclose(noise, np.repeat(b.extra["noise_probability"], counts),
                               rtol=1e-9)


@pytest.mark.parametrize("per, reversed_component", [("list", False), ("ranker", True)])
def test_accelerated_mixture_em_reaches_the_plain_em_fixed_point(per, reversed_component):
    rng = np.random.default_rng(8)
    n, m = 300, 8
    items = random_subsets(m, np.full(n, 4), random_state=rng).reshape(n, 4)
    orders = pl_orderings(items, np.linspace(2, -2, m), random_state=rng)
    noisy = rng.random(n) < 0.3
    orders[noisy] = rng.permuted(orders[noisy], axis=1)
    prefs = Preferences.from_arrays(orders.ravel(), np.full(n, 4), n_items=m,
                                    rankers=np.arange(n) % 30)
    kwargs = dict(per=per, reversed_component=reversed_component, tol=1e-12,
                  max_iter=200_000)
    plain = pl_mixture(prefs, accelerate=False, **kwargs)
    fast = pl_mixture(prefs, accelerate=True, **kwargs)
    assert plain.converged and fast.converged and fast.iterations < plain.iterations
    np.testing.assert_allclose(fast.scores, plain.scores, rtol=1e-6)
    assert fast.extra["pi"] == pytest.approx(plain.extra["pi"], abs=1e-7)
    assert fast.extra["log_posterior"] >= plain.extra["log_posterior"] - 1e-7


@pytest.mark.slow
@pytest.mark.parametrize("reverse, theta, pi, objective, noise", [
    (False, [1.6231321536349326, 1.1229382602236828, 1.0701643656398392, 0.7057286444423149,
             0.4780365760413838], 0.04244512485951801, -346.9792367806026,
     [0.037101190935054595, 0.02045512096676816, 0.05594952168462053, 0.05431000022923893]),
    (True, [1.6231321536291559, 1.1229382602235296, 1.0701643656402593, 0.7057286444452011,
            0.47803657604491995], 0.0424451248508847, -346.979236780604,
     [0.03710119092713693, 0.020455120962312834, 0.05594952167370437, 0.054310000218471766])])
def test_mix_ranker_without_ids_pools_and_keeps_the_unpooled_numbers(reverse, theta, pi,
                                                                    objective, noise):
    # golden values of the version that fitted one unit per list (300 here, 1.27 M on
    # Readlevel ×100); now identical lists are pooled as for pl-mix
    prefs, _ = noisy_short_lists(seed=4, n=300)
    assert len(prefs.pooled) < len(prefs)
    fit = pl_mixture(prefs, per="ranker", tol=1e-12, max_iter=20_000,
                     reversed_component=reverse)
    assert fit.converged and fit.method == "pl-mix-ranker" and fit.extra["per"] == "ranker"
    np.testing.assert_allclose(fit.scores, theta, rtol=1e-8)
    assert fit.extra["pi"] == pytest.approx(pi, abs=1e-8)
    assert fit.extra["log_posterior"] == pytest.approx(objective, rel=1e-10)
    assert fit.extra["noise_probability"].shape == (len(prefs),)
    np.testing.assert_allclose(fit.extra["noise_probability"][:4], noise, atol=1e-8)


@pytest.mark.slow
def test_mix_ranker_without_ids_is_pl_mix_also_with_weights():
    prefs, _ = noisy_short_lists(seed=6, n=300)
    weighted = prefs._replace(weights=np.linspace(0.5, 3.0, len(prefs)))
    for data in (prefs, weighted):
        by_ranker = pl_mixture(data, per="ranker", tol=1e-12, max_iter=20_000)
        by_list = pl_mix(data, tol=1e-12, max_iter=20_000)
        np.testing.assert_allclose(by_ranker.scores, by_list.scores, rtol=1e-12)
        np.testing.assert_allclose(by_ranker.extra["noise_probability"],
                                   by_list.extra["noise_probability"], rtol=1e-12)
        assert mixture_log_posterior(data, by_list.scores, by_list.extra["pi"], "ranker") == \
            pytest.approx(by_list.extra["log_posterior"], rel=1e-12)


@pytest.mark.slow
def test_mixtures_converge_on_readlevel_x100_within_their_iteration_limit(data_dir):
    # before the exact scale step both stopped unconverged at 1,000 EM steps there
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel

    large = magnify(load_readlevel(data_dir).preferences, 100).preferences
    for data, per in ((large, "ranker"), (large.with_rankers(None), "ranker"),
                      (large, "list")):
        fit = pl_mixture(data, per=per)
        assert fit.converged and fit.iterations <= 1000
        # at the posterior mode the Gamma(2, 1) prior fixes the scale: Σθ = (a − 1) M / b
        assert fit.scores.sum() == pytest.approx(data.n_items, rel=1e-12)


@pytest.mark.slow
def test_the_scale_step_keeps_every_em_step_ascending_and_the_fixed_point():
    prefs = small(seed=7, ties=True, weights=True)
    values = [pl_mixture(prefs, per="list", max_iter=i, tol=0.0, prior=(3.0, 2.0))
              .extra["log_posterior"] for i in range(1, 25)]
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[1:]))
    fit = pl_mixture(prefs, per="list", prior=(3.0, 2.0), tol=1e-13, max_iter=50_000)
    theta, pi, best = direct(prefs, "list", (3.0, 2.0))
    assert fit.extra["log_posterior"] >= best - 1e-6
    np.testing.assert_allclose(fit.scores, theta, rtol=2e-3)


@pytest.mark.parametrize("per", ["list", "ranker"])
def test_the_mixture_reports_its_progress_and_fits_the_same(per):
    prefs = simulate_rankers(true_worths(6, 1.5, "even"), 20, 4, lists_per_ranker=3,
                             careless=0.3, random_state=3).preferences
    seen = []
    fit = pl_mixture(prefs, per=per, progress=lambda d, t: seen.append((d, t)))
    plain = pl_mixture(prefs, per=per)
    assert np.array_equal(fit.scores, plain.scores) and fit.iterations == plain.iterations
    assert seen[-1] == (1000, 1000) and all(t == 1000 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) >= 2 or fit.iterations < 5
