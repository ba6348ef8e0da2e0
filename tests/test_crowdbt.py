"""CrowdBT: moment-matching updates against numerical integration, reliabilities, recovery."""

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import pairwise_accuracy
from coarsenrank_core.models import crowdbt as crowdbt_module
from coarsenrank_core.models.crowdbt import crowdbt, crowdbt_update, weighted_update


def _simulate_bt(scores, n_pairs, n_annotators, rng, reversed_annotators=()):
    """Pairs drawn from a Bradley–Terry model; some annotators answer reversed."""
    m = scores.size
    i = rng.integers(0, m, n_pairs)
    j = (i + rng.integers(1, m, n_pairs)) % m
    wins = rng.random(n_pairs) < expit(scores[i] - scores[j])
    winners, losers = np.where(wins, i, j), np.where(wins, j, i)
    annotators = rng.integers(0, n_annotators, n_pairs)
    flip = np.isin(annotators, reversed_annotators)
    winners, losers = np.where(flip, losers, winners), np.where(flip, winners, losers)
    return Preferences.from_pairs(winners, losers, n_items=m, rankers=annotators)


def _exact_moments(mu_i, mu_j, var_i, var_j, alpha, beta):
    """Exact posterior moments after one comparison "i beats j", by numerical integration.

    The scores' posterior depends on them only through d = s_i − s_j ~ N(μ_i − μ_j, V),
    so 1-D integrals suffice; η's posterior is Beta(α, β)(η C1 + (1 − η) C2) with the exact
    C1 = E[σ(d)], matched to a Beta by its first two moments.
    """
    v, d = var_i + var_j, mu_i - mu_j
    sd = math.sqrt(v)
    prior = stats.norm(d, sd).pdf
    lik = lambda x: (alpha * expit(x) + beta * expit(-x)) / (alpha + beta)  # noqa: E731
    lo, hi = d - 12 * sd, d + 12 * sd

    def mean_of(fn):
        return integrate.quad(lambda x: fn(x) * prior(x), lo, hi, epsabs=0, epsrel=1e-12)[0]

    z = mean_of(lik)
    m1 = mean_of(lambda x: x * lik(x)) / z
    m2 = mean_of(lambda x: x * x * lik(x)) / z
    var_d = m2 - m1 ** 2
    post_mu_i = mu_i + var_i / v * (m1 - d)
    post_mu_j = mu_j - var_j / v * (m1 - d)
    post_var_i = var_i - var_i ** 2 / v + (var_i / v) ** 2 * var_d
    post_var_j = var_j - var_j ** 2 / v + (var_j / v) ** 2 * var_d
    c1 = mean_of(expit)
    beta_pdf = stats.beta(alpha, beta).pdf
    weight = lambda e: beta_pdf(e) * (e * c1 + (1 - e) * (1 - c1))  # noqa: E731
    zb = integrate.quad(weight, 0, 1)[0]
    mean = integrate.quad(lambda e: e * weight(e), 0, 1)[0] / zb
    second = integrate.quad(lambda e: e * e * weight(e), 0, 1)[0] / zb
    size = (mean - second) / (second - mean ** 2)
    return np.array([post_mu_i, post_mu_j, post_var_i, post_var_j, mean * size,
                     (1 - mean) * size])


@pytest.mark.parametrize("mu_i, mu_j, alpha, beta", [(0.4, -0.3, 5.0, 3.0),
                                                     (-1.0, 0.5, 2.0, 6.0)])
def test_update_matches_exact_posterior_moments_for_small_variances(mu_i, mu_j, alpha, beta):
    # the updates are first order in the prior variance v: the relative error of each
    # parameter's change is O(v). At v = 0.01 we hold μ to 1%, σ² to 3%, (α, β) to 0.1%,
    # and check that the error shrinks at least 2.5x when v shrinks 3x.
    errors = []
    for v in (0.03, 0.01):
        before = np.array([mu_i, mu_j, v, 1.5 * v, alpha, beta])
        exact = _exact_moments(*before)
        ours = np.array(crowdbt_update(*before))
        errors.append(np.abs(ours - exact) / np.abs(exact - before))
    small = errors[1]
    assert np.all(small[:2] < 0.01)
    assert np.all(small[2:4] < 0.03)
    assert np.all(small[4:] < 1e-3)
    assert np.all(errors[0] > 2.5 * errors[1])


def test_reliability_update_equals_the_authors_moment_formulas():
    # the closed form α' = (α + w) r, β' = (β + 1 − w) r must equal the released code's
    # (m − v) m / (v − m²) with the same Taylor C1 (no floor active here)
    for mu_i, mu_j, var_i, var_j, a, b in [(0.2, -0.1, 1.0, 1.0, 5.0, 3.0),
                                           (-2.0, 1.0, 0.3, 0.7, 1.5, 0.5),
                                           (0.0, 0.0, 0.5, 0.5, 50.0, 2.0)]:
        e1, e2 = math.exp(mu_i), math.exp(mu_j)
        c1 = e1 / (e1 + e2) + 0.5 * (var_i + var_j) * e1 * e2 * (e2 - e1) / (e1 + e2) ** 3
        c2 = 1 - c1
        c = (c1 * a + c2 * b) / (a + b)
        m = (c1 * (a + 1) + c2 * b) * a / (c * (a + b + 1) * (a + b))
        v = (c1 * (a + 2) + c2 * b) * (a + 1) * a / (c * (a + b + 2) * (a + b + 1) * (a + b))
        expected = ((m - v) * m / (v - m ** 2), (m - v) * (1 - m) / (v - m ** 2))
        got = crowdbt_update(mu_i, mu_j, var_i, var_j, a, b)[4:]
        np.testing.assert_allclose(got, expected, rtol=1e-9)


def test_a_sure_right_or_wrong_answer_moves_beta_by_one():
    # C1 -> 1 (winner far ahead, tiny variance): the annotator was right, α grows by 1;
    # the floor κ on C2 keeps it just short of 1 (w = C1 α / (C1 α + κ β))
    a, b = crowdbt_update(30.0, 0.0, 1e-6, 1e-6, 5.0, 3.0, kappa=1e-15)[4:]
    assert a == pytest.approx(6.0, abs=1e-9) and b == pytest.approx(3.0, abs=1e-9)
    a, b = crowdbt_update(-30.0, 0.0, 1e-6, 1e-6, 5.0, 3.0, kappa=1e-15)[4:]
    assert a == pytest.approx(5.0, abs=1e-9) and b == pytest.approx(4.0, abs=1e-9)
    a, b = crowdbt_update(30.0, 0.0, 1e-6, 1e-6, 5.0, 3.0, kappa=1e-4)[4:]
    assert a == pytest.approx(6.0, abs=1e-3) and b == pytest.approx(3.0, abs=1e-3)


def _online_bt_reference(prefs, passes, var0=1.0, kappa=1e-4):
    """Plain online Bradley–Terry (Weng & Lin 2011) over the rank-broken pairs in order."""
    pairs = prefs.rank_break()
    mu, var = np.zeros(prefs.n_items), np.full(prefs.n_items, var0)
    for _ in range(passes):
        for i, j in pairs.items.reshape(-1, 2):
            p = expit(mu[i] - mu[j])
            mu[i], mu[j] = mu[i] + var[i] * (1 - p), mu[j] - var[j] * (1 - p)
            var[i] *= max(1 - var[i] * p * (1 - p), kappa)
            var[j] *= max(1 - var[j] * p * (1 - p), kappa)
    return mu, var


def test_fully_reliable_annotators_give_plain_online_bt_and_recover_the_truth():
    rng = np.random.default_rng(1)
    truth = rng.normal(0, 1.5, 30)
    prefs = _simulate_bt(truth, 3000, 20, rng)
    reference, reference_var = _online_bt_reference(prefs, passes=3)
    # batch_change=0: one comparison at a time, the published algorithm exactly
    fixed = crowdbt(prefs, passes=3, fixed_reliability=1.0, shuffle=False, batch_change=0)
    np.testing.assert_allclose(fixed.scores, reference, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fixed.extra["score_variance"], reference_var, rtol=1e-10)
    near_sure = crowdbt(prefs, passes=3, reliability_prior=(1e6, 1.0), shuffle=False,
                        batch_change=0)
    assert np.max(np.abs(near_sure.scores - reference)) < 1e-3
    assert np.all(near_sure.extra["reliability"] > 0.99999)
    assert pairwise_accuracy(near_sure.scores, truth) > 0.9
    assert pairwise_accuracy(crowdbt(prefs).scores, truth) > 0.9


def test_reversed_annotator_gets_low_reliability():
    rng = np.random.default_rng(2)
    truth = rng.normal(0, 1.5, 30)
    prefs = _simulate_bt(truth, 3000, 10, rng, reversed_annotators=[3])
    result = crowdbt(prefs, random_state=0)
    reliability = result.extra["reliability"]
    assert reliability.shape == (10,)
    assert reliability[3] < 0.5
    assert np.all(np.delete(reliability, 3) > 0.5)
    assert pairwise_accuracy(result.scores, truth) > 0.9
    # plain BT, which trusts the spammer, does worse than CrowdBT here
    trusting = crowdbt(prefs, fixed_reliability=1.0, random_state=0)
    assert pairwise_accuracy(trusting.scores, truth) < pairwise_accuracy(result.scores, truth)


def test_strongly_separated_truth_is_recovered():
    rng = np.random.default_rng(3)
    truth = np.linspace(-6, 6, 25)
    prefs = _simulate_bt(truth, 1500, 15, rng)
    result = crowdbt(prefs, random_state=1)
    assert pairwise_accuracy(result.scores, truth) >= 0.95


@pytest.mark.parametrize("n_items", [2, 3, 50])
@pytest.mark.parametrize("kind", ["pairs", "lists", "ties"])
def test_small_and_mixed_inputs_give_finite_scores(n_items, kind):
    rng = np.random.default_rng(n_items)
    lists = []
    for _ in range(40):
        k = int(rng.integers(2, min(n_items, 5) + 1)) if kind != "pairs" else 2
        items = rng.permutation(n_items)[:k].tolist()
        if kind == "ties" and k >= 3:
            items = [items[0], frozenset(items[1:3]), *items[3:]]
        elif kind == "ties":
            items = [frozenset(items)] if rng.random() < 0.3 else items
        lists.append(items)
    prefs = Preferences.from_lists(lists, n_items=n_items, rankers=rng.integers(0, 4, 40))
    result = crowdbt(prefs, virtual_node=True)
    assert result.scores.shape == (n_items,)
    assert np.all(np.isfinite(result.scores))
    assert np.all(result.extra["score_variance"] > 0)
    assert np.all((result.extra["reliability"] > 0) & (result.extra["reliability"] < 1))


def test_lists_are_rank_broken_and_tied_items_give_no_pair():
    lists = [[0, frozenset({1, 2}), 3]]
    broken = Preferences.from_lists([[0, 1], [0, 2], [0, 3], [1, 3], [2, 3]], rankers=[0] * 5)
    a = crowdbt(Preferences.from_lists(lists, rankers=[0]), shuffle=False)
    b = crowdbt(broken, shuffle=False)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12)
    np.testing.assert_allclose(a.extra["reliability"], b.extra["reliability"], rtol=1e-12)


def test_order_is_deterministic_and_shuffles_differ():
    rng = np.random.default_rng(4)
    prefs = _simulate_bt(rng.normal(size=20), 600, 5, rng)
    a, b = crowdbt(prefs, random_state=7), crowdbt(prefs, random_state=7)
    np.testing.assert_array_equal(a.scores, b.scores)
    c = crowdbt(prefs, random_state=8)
    assert not np.allclose(a.scores, c.scores)
    d = crowdbt(prefs, shuffle=False, random_state=1)
    e = crowdbt(prefs, shuffle=False, random_state=2)
    np.testing.assert_array_equal(d.scores, e.scores)


@pytest.mark.parametrize("var0", [1.0, 50.0])  # 50: the κ floors are hit
def test_inline_loop_equals_the_update_function_in_file_order(var0):
    rng = np.random.default_rng(5)
    prefs = _simulate_bt(rng.normal(size=15), 400, 4, rng)
    mu, var = [0.0] * 15, [var0] * 15
    alpha, beta = [5.0] * 4, [3.0] * 4
    for (i, j), k in zip(prefs.items.reshape(-1, 2).tolist(), prefs.rankers.tolist()):
        mu[i], mu[j], var[i], var[j], alpha[k], beta[k] = crowdbt_update(
            mu[i], mu[j], var[i], var[j], alpha[k], beta[k])
    result = crowdbt(prefs, passes=1, shuffle=False, score_prior=(0.0, var0))
    np.testing.assert_allclose(result.scores, mu, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.extra["reliability_a"], alpha, rtol=1e-12)
    np.testing.assert_allclose(result.extra["reliability_b"], beta, rtol=1e-12)


def test_integer_weights_repeat_a_comparison():
    weighted = Preferences.from_lists([[0, 1], [1, 2], [2, 0]], rankers=[0, 1, 0],
                                      weights=[3, 1, 2])
    repeated = Preferences.from_lists([[0, 1]] * 3 + [[1, 2]] + [[2, 0]] * 2,
                                      rankers=[0, 0, 0, 1, 0, 0])
    a = crowdbt(weighted, shuffle=False, passes=2)
    b = crowdbt(repeated, shuffle=False, passes=2)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12)
    # a fractional weight is a tempered observation: it moves the scores less than weight 1
    gaps = []
    for weight in (0.5, 1.0, 1.5):
        single = crowdbt(Preferences.from_pairs([0], [1], weights=[weight]), passes=1)
        assert np.all(np.isfinite(single.scores))
        gaps.append(single.scores[0] - single.scores[1])
    assert 0 < gaps[0] < gaps[1] < gaps[2]


def _repeated_updates(state, count, learn):
    for _ in range(count):
        state = crowdbt_update(*state, 1e-4, learn)
    return np.array(state)


def test_small_counts_from_the_prior_equal_repeated_updates_bit_for_bit():
    for learn, (a, b) in [(True, (5.0, 3.0)), (False, (1.0, 0.0)), (False, (0.8, 0.2))]:
        for count in range(1, 11):
            state = (0.3, -0.2, 1.0, 0.8, a, b)
            np.testing.assert_array_equal(
                weighted_update(*state, count, learn_reliability=learn),
                _repeated_updates(state, count, learn))


@pytest.mark.parametrize("count", [2, 5, 100, 3000])
def test_a_count_follows_repeated_updates_within_the_stated_tolerance(count):
    # weighted_update's docstring: variances and (α, β) within 1% relative, means within
    # 0.02 posterior standard deviations of `count` repeated updates
    rng = np.random.default_rng(count)
    for trial in range(20):
        state = [rng.normal(), rng.normal(), rng.uniform(0.01, 1.0), rng.uniform(0.01, 1.0),
                 rng.uniform(1, 20), rng.uniform(0.5, 10)]
        if trial % 2:
            state[4:] = [state[4] + state[5] + 1, 0.5]  # a reliable annotator
        for learn in (True, False):
            if not learn:
                state[4:] = [1.0, 0.0]
            ours = np.array(weighted_update(*state, count, learn_reliability=learn))
            reference = _repeated_updates(state, count, learn)
            sd = np.sqrt(reference[2:4])
            assert np.all(np.abs(ours[:2] - reference[:2]) < 0.02 * sd)
            np.testing.assert_allclose(ours[2:4], reference[2:4], rtol=0.01)
            if learn:
                np.testing.assert_allclose(ours[4:], reference[4:], rtol=0.01)


def test_a_count_of_ten_million_costs_a_few_thousand_updates(monkeypatch):
    calls = []
    original = crowdbt_module.crowdbt_update

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(crowdbt_module, "crowdbt_update", counted)
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2]], rankers=["x", "y"],
                                   weights=[3e6, 1])
    small = crowdbt(prefs._replace(weights=np.array([3.0, 1.0])), passes=1)
    n_small = len(calls)
    huge = crowdbt(prefs._replace(weights=np.array([1e7, 1.0])), passes=1)
    n_huge = len(calls) - n_small
    assert n_huge < 20_000  # each of the 3 pairs of weight 1e7: ~2,400 unit updates
    assert np.all(np.isfinite(huge.scores)) and huge.order.tolist() == [0, 1, 2]
    assert huge.extra["reliability"][0] > 0.999 > small.extra["reliability"][0]
    assert np.all(huge.extra["score_variance"] > 0)


def test_a_symmetric_reliability_prior_leaves_every_score_at_the_prior_mean():
    prefs = Preferences.from_lists([[0, 1, 2], [0, 1], [1, 2]], rankers=[0, 1, 1])
    result = crowdbt(prefs, reliability_prior=(2.0, 2.0), score_prior=(0.5, 1.0))
    np.testing.assert_array_equal(result.scores, 0.5)
    np.testing.assert_allclose(result.extra["reliability"], 0.5)


def test_without_rankers_every_preference_is_its_own_annotator():
    prefs = Preferences.from_lists([[0, 1, 2], [2, 1], [0, 2]])
    result = crowdbt(prefs)
    assert result.extra["reliability"].shape == (3,)
    assert result.method == "crowdbt" and result.iterations == 5


def test_virtual_node_pulls_an_unbeaten_item_towards_zero():
    prefs = Preferences.from_lists([[0, 1], [0, 2], [0, 1], [0, 2], [1, 2]] * 4)
    free = crowdbt(prefs, shuffle=False, passes=5)
    tied_down = crowdbt(prefs, shuffle=False, passes=5, virtual_node=True)
    assert 0 < tied_down.scores[0] < free.scores[0]
    assert tied_down.order.tolist() == free.order.tolist() == [0, 1, 2]


def test_tol_stops_early_and_params_are_kept():
    rng = np.random.default_rng(6)
    prefs = _simulate_bt(rng.normal(size=10), 300, 3, rng)
    result = crowdbt(prefs, passes=200, tol=0.05, reliability_prior=(4, 2))
    assert result.converged and result.iterations < 200 and result.change < 0.05
    assert crowdbt(prefs, passes=2).converged is None  # tol=0: no stopping rule
    assert crowdbt(prefs, passes=1, tol=1e-12).converged is False
    assert result.params["reliability_prior"] == (4, 2)
    per_ranker = crowdbt(prefs, reliability_prior=np.array([[5, 3], [5, 3], [1, 9]]))
    assert per_ranker.extra["reliability"].shape == (3,)


@pytest.mark.parametrize("kwargs", [dict(passes=0), dict(kappa=0), dict(score_prior=(0, 0)),
                                    dict(reliability_prior=(0, 1)),
                                    dict(fixed_reliability=1.5), dict(tol=-1),
                                    dict(batch_change=-0.1), dict(batch_change=float("nan"))])
def test_invalid_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        crowdbt(Preferences.from_lists([[0, 1]]), **kwargs)


def test_should_stop_is_asked_every_batch_and_cancels(monkeypatch):
    from coarsenrank_core.errors import Cancelled

    rng = np.random.default_rng(8)
    prefs = _simulate_bt(rng.normal(size=12), 100, 4, rng)
    plain = crowdbt(prefs, passes=3)
    monkeypatch.setattr(crowdbt_module, "BATCH", 7)
    asked = []
    batched = crowdbt(prefs, passes=3, should_stop=lambda: asked.append(1) and False)
    np.testing.assert_array_equal(batched.scores, plain.scores)  # batching changes nothing
    assert len(asked) == 3 * 15  # ceil(100 / 7) batches per pass
    assert "should_stop" not in batched.params

    def stop_on_the_twentieth_call():
        asked.append(1)
        return len(asked) >= 20

    asked.clear()
    with pytest.raises(Cancelled, match="pass 2 of 3"):
        crowdbt(prefs, passes=3, should_stop=stop_on_the_twentieth_call)
    assert len(asked) == 20


def test_the_vectorised_virtual_pass_equals_two_updates_per_item():
    from coarsenrank_core.models.crowdbt import _virtual_pass

    rng = np.random.default_rng(10)
    mu, var = rng.normal(0, 3, 200).tolist(), rng.uniform(1e-3, 3, 200).tolist()
    expected_mu, expected_var = [], []
    for m, v in zip(mu, var):
        m, _, v, _, _, _ = crowdbt_update(m, 0.0, v, 0.0, 1.0, 0.0, 1e-4, False)
        _, m, _, v, _, _ = crowdbt_update(0.0, m, 0.0, v, 1.0, 0.0, 1e-4, False)
        expected_mu.append(m)
        expected_var.append(v)
    _virtual_pass(mu, var, 1e-4)
    np.testing.assert_allclose(mu, expected_mu, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(var, expected_var, rtol=1e-12)
    far = [-800.0, 800.0]  # one update alone divides 0 by 0 here
    _virtual_pass(far, [1.0, 1.0], 1e-4)
    assert np.all(np.isfinite(far))


def test_plain_online_bt_survives_a_winner_far_behind():
    # a vague prior (σ₀² = 10⁶) moves scores by ~10⁶ per comparison: σ(μ_i − μ_j) then
    # underflows to 0, where ap / (ap + βq) was 0 / 0 with β = 0
    prefs = Preferences.from_lists([[0, 1], [1, 0], [0, 1]])
    result = crowdbt(prefs, shuffle=False, score_prior=(0.0, 1e6), fixed_reliability=1.0)
    assert np.all(np.isfinite(result.scores)) and result.order.tolist() == [0, 1]
    step = crowdbt_update(-1e6, 0.0, 1.0, 1.0, 1.0, 0.0, 1e-4, False)
    assert step[:4] == (-1e6 + 1.0, -1.0, 1.0, 1.0)  # g = q = 1, h = −pq = 0


# ---------------------------------------------------------------- batches (batch_change)
def test_the_pass_order_keeps_each_preferences_pairs_together_in_rank_break_order():
    from coarsenrank_core.models.crowdbt import _pass_order

    rng = np.random.default_rng(11)
    lists = [rng.permutation(8)[:rng.integers(2, 6)].tolist() for _ in range(50)]
    lists[3] = [frozenset({1, 2})]  # an all-tied preference gives no pair
    prefs = Preferences.from_lists(lists, n_items=8)
    _, source = prefs.rank_break(return_source=True)
    counts = np.bincount(source, minlength=len(prefs))
    permutation = rng.permutation(len(prefs))
    rank = np.empty(len(prefs), dtype=np.intp)
    rank[permutation] = np.arange(len(prefs))
    np.testing.assert_array_equal(_pass_order(permutation, counts, np.cumsum(counts) - counts),
                                  np.argsort(rank[source], kind="stable"))
    # as many pairs as preferences, but not one each
    counts = np.array([0, 2])
    np.testing.assert_array_equal(_pass_order(np.array([1, 0]), counts, np.array([0, 0])),
                                  [0, 1])
    np.testing.assert_array_equal(_pass_order(np.array([2, 0, 1]), np.ones(3, int),
                                              np.arange(3)), [2, 0, 1])


def _count_batches(monkeypatch):
    """Record how many comparisons every vectorised batch applied."""
    applied = []
    original = crowdbt_module._batch_step

    def recorded(*args):
        applied.append(original(*args))
        return applied[-1]

    monkeypatch.setattr(crowdbt_module, "_batch_step", recorded)
    return applied


@pytest.mark.parametrize("kwargs", [{}, dict(fixed_reliability=1.0),
                                    dict(fixed_reliability=0.8, virtual_node=True),
                                    dict(score_prior=(0.0, 1e6), fixed_reliability=1.0),
                                    dict(score_prior=(0.0, 50.0))])
def test_batches_of_comparisons_that_share_nothing_equal_the_one_at_a_time_loop(monkeypatch,
                                                                                 kwargs):
    # batches of any length, but no shared item or annotator inside one: every comparison
    # then reads exactly the state the sequential loop gives it (κ floors and the b = 0
    # limit included); only rounding differs
    rng = np.random.default_rng(12)
    prefs = _simulate_bt(rng.normal(0, 2, 40), 3000, 25, rng)
    exact = crowdbt(prefs, passes=3, batch_change=0, **kwargs)
    monkeypatch.setattr(crowdbt_module, "MIN_BATCH", 1)
    applied = _count_batches(monkeypatch)
    batched = crowdbt(prefs, passes=3, batch_change=1e-300, **kwargs)
    assert sum(applied) == 3 * 3000 and max(applied) > 1
    np.testing.assert_allclose(batched.scores, exact.scores, rtol=1e-9, atol=1e-9)
    for key in ("score_variance", "reliability_a", "reliability_b"):
        np.testing.assert_allclose(batched.extra[key], exact.extra[key], rtol=1e-9)


def test_weighted_comparisons_always_take_the_exact_path(monkeypatch):
    rng = np.random.default_rng(13)
    prefs = _simulate_bt(rng.normal(size=30), 2000, 10, rng)
    weights = np.where(rng.random(len(prefs)) < 0.05, 3.0, 1.0)
    prefs = prefs._replace(weights=weights)
    exact = crowdbt(prefs, passes=2, batch_change=0)
    monkeypatch.setattr(crowdbt_module, "MIN_BATCH", 1)
    applied = _count_batches(monkeypatch)
    batched = crowdbt(prefs, passes=2, batch_change=1e-300)
    assert 0 < sum(applied) == 2 * int(np.sum(weights == 1.0))
    np.testing.assert_allclose(batched.scores, exact.scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(batched.extra["reliability_a"], exact.extra["reliability_a"],
                               rtol=1e-9)


def test_scattered_weights_leave_the_exact_loop_long_stretches(monkeypatch):
    # every other comparison weighted: the exact loop takes each chunk in one call,
    # not one call per comparison
    rng = np.random.default_rng(16)
    prefs = _simulate_bt(rng.normal(size=20), 4000, 5, rng)
    prefs = prefs._replace(weights=np.tile([1.0, 2.0], 2000))
    calls = []
    original = crowdbt_module._run_exact

    def counted(*args):
        calls.append(args[0].size)
        return original(*args)

    monkeypatch.setattr(crowdbt_module, "_run_exact", counted)
    monkeypatch.setattr(crowdbt_module, "BATCH", 1000)
    crowdbt(prefs, passes=2)
    assert sum(calls) == 2 * 4000 and len(calls) == 2 * 4


def test_the_exact_loop_on_many_items_moves_only_what_it_touches(monkeypatch):
    # stretches far shorter than the number of items take the relabelled path
    rng = np.random.default_rng(14)
    prefs = _simulate_bt(rng.normal(size=3000), 500, 7, rng)
    mu, var = [0.0] * 3000, [1.0] * 3000
    alpha, beta = [5.0] * 7, [3.0] * 7
    for (i, j), k in zip(prefs.items.reshape(-1, 2).tolist(), prefs.rankers.tolist()):
        mu[i], mu[j], var[i], var[j], alpha[k], beta[k] = crowdbt_update(
            mu[i], mu[j], var[i], var[j], alpha[k], beta[k])
    monkeypatch.setattr(crowdbt_module, "BATCH", 64)
    result = crowdbt(prefs, passes=1, shuffle=False, batch_change=0)
    np.testing.assert_allclose(result.scores, mu, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.extra["score_variance"], var, rtol=1e-12)
    np.testing.assert_allclose(result.extra["reliability_a"], alpha, rtol=1e-12)


def _batched_against_exact(prefs, **kwargs):
    exact = crowdbt(prefs, batch_change=0, **kwargs)
    batched = crowdbt(prefs, **kwargs)
    sd = np.sqrt(exact.extra["score_variance"])
    shift = np.abs(batched.scores - exact.scores) / sd
    relative = {key: np.max(np.abs(batched.extra[key] / exact.extra[key] - 1))
                for key in ("score_variance", "reliability_a", "reliability_b")}
    tau = stats.kendalltau(batched.scores, exact.scores).statistic
    return exact, batched, shift, relative, tau


def test_batches_on_settled_beliefs_follow_the_exact_algorithm(monkeypatch):
    # many comparisons of few items: most of them go through batches; the batched fit
    # stays far closer to the exact one (same order) than another order of the exact one
    rng = np.random.default_rng(15)
    truth = rng.normal(0, 1.5, 40)
    prefs = _simulate_bt(truth, 40_000, 30, rng, reversed_annotators=[4, 9])
    applied = _count_batches(monkeypatch)
    exact, batched, shift, relative, tau = _batched_against_exact(prefs, passes=3)
    assert sum(applied) > 0.8 * 3 * 40_000
    other = crowdbt(prefs, passes=3, batch_change=0, random_state=1)
    sd = np.sqrt(exact.extra["score_variance"])
    assert np.max(shift) < 0.3 and np.median(shift) < 0.05
    assert np.median(shift) < 0.2 * np.median(np.abs(other.scores - exact.scores) / sd)
    assert tau > 0.999
    assert relative["score_variance"] < 0.03
    assert relative["reliability_a"] < 0.01 and relative["reliability_b"] < 0.01
    assert np.all(batched.extra["reliability"][[4, 9]] < 0.5)
    assert abs(pairwise_accuracy(batched.scores, truth)
               - pairwise_accuracy(exact.scores, truth)) < 0.002


@pytest.mark.slow
def test_batches_on_readlevel_x10_keep_the_documented_bounds(data_dir):
    from coarsenrank_core.noise import magnify
    from coarsenrank_core.paper.datasets import load_readlevel

    data = load_readlevel(data_dir)
    prefs = magnify(data.preferences, 10).preferences
    exact, batched, shift, relative, tau = _batched_against_exact(prefs)
    assert tau >= 0.9997 and np.max(shift) <= 0.26 and np.median(shift) <= 0.05
    assert relative["score_variance"] <= 0.03
    assert relative["reliability_a"] <= 0.01 and relative["reliability_b"] <= 0.01
    assert (pairwise_accuracy(batched.scores, data.truth)
            == pytest.approx(pairwise_accuracy(exact.scores, data.truth), abs=1e-3))


def test_the_update_survives_an_underflowing_mixture():
    # b = 0 and σ(μ_i − μ_j) ≈ 1e-304: ap + bq > 0 but its square underflows to 0
    step = crowdbt_update(-700.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1e-4, False)
    assert all(map(math.isfinite, step))
    assert step[0] == -699.0 and step[1] == -1.0  # g = q = 1


def _pairs_for_golden(seed, n_items, n_annotators):
    rng = np.random.default_rng(seed)
    s = rng.normal(0, 1.5, n_items)
    i = rng.integers(0, n_items, 3000)
    j = (i + rng.integers(1, n_items, 3000)) % n_items
    win = rng.random(3000) < 1 / (1 + np.exp(-(s[i] - s[j])))
    rankers = None if n_annotators is None else rng.integers(0, n_annotators, 3000)
    return Preferences.from_pairs(np.where(win, i, j), np.where(win, j, i), n_items,
                                  rankers=rankers)


@pytest.mark.parametrize("seed, n_items, n_annotators, scores, reliability", [
    (1, 30, 25, [0.9199373974542282, 1.968157338097718, 0.9759145696818293,
                 -2.331414293408511, 2.148298763191129],
     [0.9610129675025196, 0.9754948659856328, 0.9667169097559524, 0.9128786442196349,
      0.9285756780158099]),
    (2, 8, None, [0.36452157639805277, -2.073211342916545, -1.4745929734974101,
                  -4.758568580446546, 4.728601362980309],
     [0.6974897113841176, 0.7261731821973948, 0.4799980034040634, 0.7271330670745837,
      0.7120428761734013])])
def test_batches_count_annotators_by_local_ids_with_the_same_numbers_as_global_ids(
        monkeypatch, seed, n_items, n_annotators, scores, reliability):
    # golden values of the version that counted every batch over all annotator ids
    # (O(N) per batch without ranker ids); local ids inside a batch give the same sums.
    # Batches of up to hundreds of comparisons that share items and annotators
    prefs = _pairs_for_golden(seed, n_items, n_annotators)
    monkeypatch.setattr(crowdbt_module, "MIN_BATCH", 1)
    applied = _count_batches(monkeypatch)
    result = crowdbt(prefs, passes=3, batch_change=0.5)
    assert max(applied) > 100
    np.testing.assert_allclose(result.scores[:5], scores, rtol=1e-12)
    np.testing.assert_allclose(result.extra["reliability"][:5], reliability, rtol=1e-12)
