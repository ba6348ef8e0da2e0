"""Tests of the Plackett–Luce simulator and the random subset/ordering helpers."""

import filecmp
import itertools
import math
import pickle
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from coarsenrank_core.metrics import kendall_tau_b
from coarsenrank_core.models import coarsen_pl
from coarsenrank_core.simulate import (
    pl_orderings,
    random_orderings,
    random_subsets,
    simulate_pl,
    simulate_rankers,
    true_worths,
)

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"

P_MIN = 1e-4  # fixed seeds: a correct sampler passes; a wrong one gives p ≈ 0 at these sizes


def _pl_probability(order, theta) -> float:
    """Exact PL probability of a full ordering (brute force)."""
    w = np.asarray(theta, float)[list(order)]
    return float(np.prod([w[i] / w[i:].sum() for i in range(len(w) - 1)]))


def _rows(prefs):
    k = int(prefs.lengths[0])
    assert np.all(prefs.lengths == k)
    return prefs.items.reshape(-1, k)


def _frequencies(rows, outcomes):
    index = {tuple(o): i for i, o in enumerate(outcomes)}
    codes = np.array([index[tuple(r)] for r in rows.tolist()])
    return np.bincount(codes, minlength=len(outcomes))


# ---------------------------------------------------------------------- simulate_pl
def test_seeded_reproducibility_and_seed_dependence():
    a, theta_a = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=3)
    b, theta_b = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=3)
    c, theta_c = simulate_pl(15, 200, length_range=(2, 6), ties=0.2, n_rankers=7, random_state=4)
    assert a == b and np.array_equal(theta_a, theta_b)
    assert a != c and not np.array_equal(theta_a, theta_c)
    rng = np.random.default_rng(5)
    first, _ = simulate_pl(15, 50, random_state=rng)
    second, _ = simulate_pl(15, 50, random_state=rng)
    assert first != second  # a Generator is advanced, not reseeded


def test_shapes_lengths_and_scores():
    prefs, theta = simulate_pl(30, 500, length=7, random_state=0)
    assert len(prefs) == 500 and prefs.n_items == 30
    assert np.all(prefs.lengths == 7)
    assert theta.shape == (30,) and np.all(theta > 0)
    assert not prefs.has_ties and not prefs.has_rankers
    assert prefs.item_names == tuple(str(i) for i in range(30))
    rows = _rows(prefs)
    assert np.all(np.diff(np.sort(rows, axis=1), axis=1) > 0)  # distinct items per row


@pytest.mark.parametrize(("n_items", "expected"), [(5, 5), (10, 10), (40, 10)])
def test_default_length_is_min_of_m_and_10(n_items, expected):
    prefs, _ = simulate_pl(n_items, 20, random_state=1)
    assert np.all(prefs.lengths == expected)


def test_log_worths_have_the_requested_spread():
    _, theta = simulate_pl(20000, 1, length=2, spread=0.5, random_state=2)
    log_theta = np.log(theta)
    assert abs(log_theta.mean()) < 4 * 0.5 / np.sqrt(20000)
    assert abs(log_theta.std() - 0.5) < 0.02
    _, flat = simulate_pl(6, 10, spread=0.0, random_state=2)
    assert np.all(flat == 1.0)


def test_length_range_is_respected_and_uniform():
    prefs, _ = simulate_pl(12, 6000, length_range=(3, 8), random_state=7)
    assert prefs.lengths.min() == 3 and prefs.lengths.max() == 8
    counts = np.bincount(prefs.lengths, minlength=9)[3:]
    assert chisquare(counts).pvalue > P_MIN


@pytest.mark.parametrize("kwargs", [
    dict(length=1), dict(length=6), dict(length_range=(1, 3)), dict(length_range=(3, 2)),
    dict(length_range=(2, 6)), dict(length=3, length_range=(2, 3)), dict(spread=-1.0),
    dict(ties=1.5), dict(n_rankers=0), dict(n_rankers=11),
])
def test_invalid_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        simulate_pl(5, 10, **kwargs)


def test_full_orderings_of_three_items_follow_pl():
    prefs, theta = simulate_pl(3, 60000, length=3, spread=1.0, random_state=11)
    outcomes = list(itertools.permutations(range(3)))
    observed = _frequencies(_rows(prefs), outcomes)
    expected = np.array([_pl_probability(o, theta) for o in outcomes]) * len(prefs)
    assert np.isclose(expected.sum(), len(prefs))
    assert chisquare(observed, expected).pvalue > P_MIN
    # the test has power: the reversed model is rejected
    reverse = np.array([_pl_probability(o[::-1], theta) for o in outcomes]) * len(prefs)
    assert chisquare(observed, reverse).pvalue < 1e-10


def test_pairs_follow_pl_and_uniform_subsets():
    prefs, theta = simulate_pl(3, 60000, length=2, spread=1.0, random_state=12)
    outcomes = list(itertools.permutations(range(3), 2))
    observed = _frequencies(_rows(prefs), outcomes)
    expected = np.array([theta[i] / (theta[i] + theta[j]) / 3 for i, j in outcomes]) * len(prefs)
    assert chisquare(observed, expected).pvalue > P_MIN


def test_fitted_pl_recovers_the_true_order():
    prefs, theta = simulate_pl(30, 3000, length=5, spread=1.0, random_state=21)
    fit = coarsen_pl(prefs, alpha=np.inf, prior=(1.5, 0.01), max_iter=300)
    assert kendall_tau_b(fit.scores, theta) > 0.9


def test_ties_merge_adjacent_positions_with_the_given_probability():
    strict, _ = simulate_pl(10, 300, length=5, random_state=3)
    assert not strict.has_ties
    tied, _ = simulate_pl(10, 300, length=5, ties=1.0, random_state=3)
    assert np.all(tied.n_groups == 1)
    prefs, _ = simulate_pl(10, 4000, length=5, ties=0.3, random_state=3)
    merged = 1 - (prefs.n_groups - 1).sum() / (4 * len(prefs))
    assert abs(merged - 0.3) < 4 * np.sqrt(0.3 * 0.7 / (4 * len(prefs)))
    # tied groups keep PL's item sets: the same seed gives the same items per preference
    assert np.array_equal(np.sort(_rows(tied), axis=1), np.sort(_rows(strict), axis=1))


def test_rankers_are_assigned_round_robin():
    prefs, _ = simulate_pl(8, 23, length=3, n_rankers=5, random_state=0)
    assert np.array_equal(prefs.rankers, np.arange(23) % 5)
    assert prefs.ranker_names == ("r1", "r2", "r3", "r4", "r5")
    assert np.array_equal(prefs.summary().preferences_per_ranker, [5, 5, 5, 4, 4])


def test_item_names_are_passed_through():
    names = [f"item {i + 1}" for i in range(4)]
    prefs, _ = simulate_pl(4, 5, length=2, item_names=names, random_state=0)
    assert prefs.item_names == tuple(names)
    with pytest.raises(ValueError):
        simulate_pl(4, 5, length=2, item_names=names[:3], random_state=0)


def test_large_item_set_smoke():
    prefs, theta = simulate_pl(5000, 20000, length=2, random_state=9)
    assert len(prefs) == 20000 and prefs.is_pairwise
    assert np.all(prefs.items[0::2] != prefs.items[1::2])
    assert np.unique(prefs.items).size > 4500  # 40000 draws cover most of 5000 items
    empty, _ = simulate_pl(5, 0, random_state=0)
    assert len(empty) == 0


# ---------------------------------------------------------------------- helpers
@pytest.mark.parametrize(("n_items", "k"), [(5, 2), (5, 4), (5, 5)])  # Floyd, Floyd, keys
def test_random_subsets_are_uniform_ordered_samples(n_items, k):
    rows = random_subsets(n_items, np.full(30000, k), random_state=k).reshape(-1, k)
    outcomes = list(itertools.permutations(range(n_items), k))
    assert chisquare(_frequencies(rows, outcomes)).pvalue > P_MIN


def test_random_subsets_mixed_lengths_and_chunked_path():
    lengths = np.array([2, 5, 3, 2, 5, 4])
    flat = random_subsets(9, lengths, random_state=0)
    assert flat.size == lengths.sum()
    for piece in np.split(flat, np.cumsum(lengths)[:-1]):
        assert np.unique(piece).size == piece.size and piece.max() < 9
    # k^2 > 4M takes the random-key path, chunked over rows when M is large
    rows = random_subsets(5000, np.full(2000, 200), random_state=1).reshape(-1, 200)
    assert np.all(np.diff(np.sort(rows, axis=1), axis=1) > 0)
    counts = np.bincount(rows.ravel(), minlength=5000)
    assert chisquare(counts).pvalue > P_MIN
    first = np.bincount(rows[:, 0] * 10 // 5000, minlength=10)  # first slot is uniform too
    assert chisquare(first).pvalue > P_MIN
    with pytest.raises(ValueError):
        random_subsets(4, [5])


def test_random_orderings_are_uniform_permutations_of_each_row():
    base = np.tile([[7, 3, 9]], (30000, 1))
    shuffled = random_orderings(base, random_state=2)
    assert np.array_equal(np.sort(shuffled, axis=1), np.sort(base, axis=1))
    outcomes = list(itertools.permutations([7, 3, 9]))
    assert chisquare(_frequencies(shuffled, outcomes)).pvalue > P_MIN


def test_pl_orderings_put_the_better_item_first_with_pl_odds():
    log_theta = np.log([3.0, 1.0])
    rows = pl_orderings(np.tile([[1, 0]], (40000, 1)), log_theta, random_state=4)
    share = np.mean(rows[:, 0] == 0)
    assert abs(share - 0.75) < 4 * math.sqrt(0.75 * 0.25 / 40000)


# ---------------------------------------------------------------------- true worths
def test_true_worths_even_and_normal():
    even = true_worths(5, 1.5, "even")
    np.testing.assert_allclose(np.log(even), [1.5, 0.75, 0.0, -0.75, -1.5])
    assert np.array_equal(even, np.exp(np.linspace(1.5, -1.5, 5)))  # what the samples use
    # "normal" is the draw simulate_pl makes first from the same seed
    _, theta = simulate_pl(30, 10, spread=0.7, random_state=8)
    assert np.array_equal(true_worths(30, 0.7, "normal", random_state=8), theta)
    assert np.all(true_worths(4, 0.0) == 1.0)
    for bad in [dict(n_items=1), dict(spread=-1.0), dict(spacing="uniform")]:
        with pytest.raises(ValueError):
            true_worths(**{"n_items": 5, **bad})


# ---------------------------------------------------------------------- simulate_rankers
def _binomial_ok(count, n, p, z=4.5) -> bool:
    """``count`` successes of ``n`` lie within ``z`` standard deviations of ``n·p``."""
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p))


def test_raters_lists_rankers_names_and_shown_items():
    names = [f"Item {i}" for i in range(9)]
    sim = simulate_rankers(true_worths(9, 1.0, "even"), 7, 4, lists_per_ranker=3,
                          item_names=names, ranker_names=[f"rater {r}" for r in range(7)],
                          random_state=0)
    prefs = sim.preferences
    assert len(prefs) == 21 and np.all(prefs.lengths == 4) and not prefs.has_ties
    assert np.array_equal(prefs.rankers, np.repeat(np.arange(7), 3))  # rater by rater
    assert prefs.item_names == tuple(names) and prefs.ranker_names[0] == "rater 0"
    assert sim.shown.shape == sim.orders.shape == (21, 4) and sim.careless.size == 0
    assert np.array_equal(np.sort(sim.orders, axis=1), np.sort(sim.shown, axis=1))
    assert np.array_equal(prefs.items.reshape(21, 4), sim.orders)
    assert not sim.orders.flags.writeable and not sim.worths.flags.writeable
    copy = pickle.loads(pickle.dumps(sim))
    assert copy.preferences == prefs and not copy.shown.flags.writeable
    full = simulate_rankers(true_worths(5, 1.0, "even"), 3, random_state=0)  # full rankings
    assert np.array_equal(full.shown, np.tile(np.arange(5), (3, 1)))
    assert full.preferences.ranker_names == ("r1", "r2", "r3")


def test_same_seed_same_draw_and_a_generator_is_advanced():
    worth = true_worths(10, 1.0, "even")
    a = simulate_rankers(worth, 20, 4, careless=0.3, ties=0.2, random_state=5)
    b = simulate_rankers(worth, 20, 4, careless=0.3, ties=0.2, random_state=5)
    assert a.preferences == b.preferences and np.array_equal(a.careless, b.careless)
    rng = np.random.default_rng(5)
    first = simulate_rankers(worth, 20, 4, random_state=rng)
    assert first.preferences != simulate_rankers(worth, 20, 4, random_state=rng).preferences


def test_first_choices_follow_the_worths_within_a_binomial_bound():
    """P(item m first in a full ranking) = θ_m / Σθ (paper Eq. (19))."""
    theta = true_worths(6, 1.0, "normal", random_state=1)
    n = 20000
    sim = simulate_rankers(theta, n, random_state=2)
    counts = np.bincount(sim.orders[:, 0], minlength=6)
    for count, p in zip(counts, theta / theta.sum()):
        assert _binomial_ok(count, n, p)
    # on a random pair the first item wins with probability θ_i / (θ_i + θ_j)
    pairs = simulate_rankers(theta, n, 2, random_state=3)
    a, b = pairs.shown.T
    wins = pairs.orders[:, 0] == a
    p = theta[a] / (theta[a] + theta[b])
    assert abs(wins.sum() - p.sum()) <= 4.5 * math.sqrt(np.sum(p * (1 - p)))


def test_careless_raters_answer_at_random_or_upside_down():
    theta = true_worths(5, 1.5, "even")
    n = 12000
    sim = simulate_rankers(theta, n, careless=1.0, random_state=4)
    assert np.array_equal(sim.careless, np.arange(n))
    counts = np.bincount(sim.orders[:, 0], minlength=5)  # uniform first choices
    assert all(_binomial_ok(c, n, 0.2) for c in counts)
    honest = simulate_rankers(theta, n, random_state=4)
    flipped = simulate_rankers(theta, n, careless=1.0, careless_order="reversed",
                              random_state=4)
    assert np.array_equal(flipped.orders, honest.orders[:, ::-1])
    # a share is rounded half up; a count is taken as it is; every list of a careless rater
    mixed = simulate_rankers(theta, 10, 3, lists_per_ranker=4, careless=0.25,
                            careless_order="reversed", random_state=6)
    assert mixed.careless.size == 3  # 2.5 -> 3
    same = simulate_rankers(theta, 10, 3, lists_per_ranker=4, random_state=6)
    bad = np.isin(mixed.preferences.rankers, mixed.careless)
    assert np.array_equal(mixed.orders[bad], same.orders[bad, ::-1])
    assert np.array_equal(mixed.orders[~bad], same.orders[~bad])
    assert simulate_rankers(theta, 10, n_careless=7, random_state=0).careless.size == 7


def test_top_k_lists_are_the_head_of_the_full_draw_and_ties_merge_neighbours():
    theta = true_worths(12, 1.0, "even")
    full = simulate_rankers(theta, 50, random_state=7)
    top = simulate_rankers(theta, 50, top=5, random_state=7)
    assert np.all(top.preferences.lengths == 5)
    assert np.array_equal(top.orders, full.orders[:, :5])
    tied = simulate_rankers(theta, 4000, 5, ties=0.3, random_state=8)
    strict = simulate_rankers(theta, 4000, 5, random_state=8)
    assert np.array_equal(tied.orders, strict.orders)  # ties are drawn last
    merged = 4 * 4000 - (tied.preferences.n_groups - 1).sum()
    assert _binomial_ok(merged, 4 * 4000, 0.3)
    assert np.all(simulate_rankers(theta, 5, 4, ties=1.0, random_state=0)
                  .preferences.n_groups == 1)


@pytest.mark.parametrize("kwargs", [
    dict(worths=[1.0]), dict(worths=[1.0, -1.0]), dict(n_rankers=0), dict(length=1),
    dict(length=7), dict(top=1), dict(top=5, length=4), dict(careless=1.5),
    dict(careless=0.2, n_careless=1), dict(n_careless=11), dict(careless_order="sideways"),
    dict(ties=2.0), dict(lists_per_ranker=0),
])
def test_simulate_raters_rejects_invalid_arguments(kwargs):
    args = {"worths": np.ones(6), "n_rankers": 10, **kwargs}
    with pytest.raises(ValueError):
        simulate_rankers(**args)


# ---------------------------------------------------------------------- callers
def test_the_dashboard_scenario_is_one_call_of_simulate_raters(monkeypatch):
    import ui.scenario

    calls = []
    real = ui.scenario.simulate_rankers

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(ui.scenario, "simulate_rankers", spy)
    dataset = ui.scenario.simulate_scenario(12, 40, 5, 0.3, 7)
    assert len(calls) == 1
    sim = real(true_worths(12, 1.5, "even"), 40, 5, careless=0.3,
               item_names=[f"Item {i + 1:02d}" for i in range(12)],
               ranker_names=[f"rater {r + 1}" for r in range(40)], random_state=7)
    assert dataset.preferences == sim.preferences
    assert np.array_equal(dataset.truth, sim.worths)
    assert dataset.careless == tuple(sim.careless.tolist()) and len(dataset.careless) == 12


def test_the_sample_generator_goes_through_simulate_and_rebuilds_the_shipped_files(
        monkeypatch, tmp_path):
    from sample_data import make_samples

    calls = []
    real = make_samples.simulate_rankers

    def spy(*args, **kwargs):
        calls.append(kwargs.get("random_state"))
        return real(*args, **kwargs)

    monkeypatch.setattr(make_samples, "simulate_rankers", spy)
    make_samples.main(tmp_path)
    assert len(calls) == 1 + 12 + 1 + 1  # pizza, photos worker by worker, films, essays
    assert len({id(rng) for rng in calls}) == 1  # one generator, seeded once
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in SAMPLE_DIR.glob("*.csv"))
    for name in written:
        assert filecmp.cmp(tmp_path / name, SAMPLE_DIR / name, shallow=False), name


@pytest.mark.parametrize("exposure", [-1.0, 0.0, 1.0])
def test_exposed_subsets_hold_distinct_items_shown_by_worth(exposure):
    from scipy.stats import spearmanr

    from coarsenrank_core.simulate import exposed_subsets

    log_worths = np.linspace(1.5, -1.5, 12)
    rows = exposed_subsets(log_worths, 4000, 4, exposure, random_state=0)
    assert rows.shape == (4000, 4)
    assert np.all(np.sort(rows, axis=1)[:, 1:] != np.sort(rows, axis=1)[:, :-1])
    shown = np.bincount(rows.ravel(), minlength=12)
    rho = spearmanr(shown, log_worths).statistic
    if exposure == 0:
        assert abs(rho) < 0.6 and shown.min() > 0.8 * shown.mean()
    else:
        assert np.sign(rho) == exposure and abs(rho) > 0.95


def test_simulate_rankers_passes_exposure_and_refuses_a_wild_one():
    sim = simulate_rankers(true_worths(10, 1.5, "even"), 300, 3, exposure=-1.0,
                           random_state=0)
    shown = sim.preferences.appearances()
    assert shown[-1] > 2 * shown[0]  # the weakest item is shown far more than the best
    with pytest.raises(ValueError, match="exposure"):
        simulate_rankers(true_worths(10, 1.5, "even"), 5, 3, exposure=float("nan"))
