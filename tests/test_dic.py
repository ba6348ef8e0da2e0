"""The DIC sweep: the paper's definitions of f, g and DIC, seeding, progress and the knee rule."""

import numpy as np
import pytest

import coarsenrank_core.dic as dic_module
from coarsenrank_core import Preferences, pl_log_likelihood
from coarsenrank_core.dic import (
    auto_alpha_grid,
    dic_point,
    dic_sweep,
    knee_alpha,
    knee_index,
    smooth_curve,
)
from coarsenrank_core.models import coarsen_pl_gibbs


def small_prefs(seed=0, n=60, m=6):
    rng = np.random.default_rng(seed)
    worth = np.exp(rng.normal(0, 1, m))
    lists = []
    for _ in range(n):
        items = rng.choice(m, 3, replace=False)
        keys = np.log(worth[items]) + rng.gumbel(size=3)
        lists.append(items[np.argsort(-keys)].tolist())
    return Preferences.from_lists(lists, n_items=m)


def test_point_follows_the_definitions():
    prefs = small_prefs()
    f, g = dic_point(prefs, 30.0, prior=(2.0, 1.0), burn_in=20, n_draws=25, random_state=3)
    post = coarsen_pl_gibbs(prefs, alpha=30.0, prior=(2.0, 1.0), burn_in=20, n_draws=25,
                            random_state=3)
    expected_f = np.mean([pl_log_likelihood(prefs, theta) for theta in post.draws])
    assert f == pytest.approx(expected_f, rel=1e-12)
    assert g == pytest.approx(pl_log_likelihood(prefs, post.mean) - expected_f, rel=1e-12)


def test_sweep_is_seeded_per_alpha_and_reports_progress(monkeypatch):
    prefs = small_prefs()
    calls = []
    real = dic_module.coarsen_pl_gibbs_fit_trace

    def counting(*args, **kwargs):
        calls.append(kwargs["alpha"])
        return real(*args, **kwargs)

    monkeypatch.setattr(dic_module, "coarsen_pl_gibbs_fit_trace", counting)
    seen = []
    sweep = dic_sweep(prefs, alphas=[100.0, 1.0, 10.0], burn_in=10, n_draws=10, random_state=4,
                      progress=lambda done, total: seen.append((done, total)))
    assert sorted(calls) == [1.0, 10.0, 100.0]  # one sampler run per alpha, nothing more
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert sweep.alphas.tolist() == [1.0, 10.0, 100.0]
    np.testing.assert_allclose(sweep.dic, sweep.g - sweep.f)
    np.testing.assert_allclose(sweep.taus, sweep.alphas / (sweep.alphas + 60))
    assert sweep.best_alpha == sweep.alphas[np.argmin(sweep.dic)]
    again = dic_sweep(prefs, alphas=[1.0, 10.0, 100.0], burn_in=10, n_draws=10, random_state=4)
    np.testing.assert_array_equal(again.dic, sweep.dic)


def test_parallel_sweep_equals_serial_sweep():
    prefs = small_prefs()
    kwargs = dict(alphas=[2.0, 20.0, 200.0], burn_in=10, n_draws=10, random_state=9)
    serial = dic_sweep(prefs, n_jobs=1, **kwargs)
    parallel = dic_sweep(prefs, n_jobs=2, **kwargs)
    np.testing.assert_array_equal(serial.f, parallel.f)
    np.testing.assert_array_equal(serial.g, parallel.g)


def test_clean_pl_data_fits_better_untempered():
    prefs = small_prefs(n=300)
    sweep = dic_sweep(prefs, alphas=[0.5, 3000.0], burn_in=50, n_draws=40, random_state=0)
    assert sweep.f[1] > sweep.f[0]
    assert sweep.dic[1] < sweep.dic[0]


def test_auto_grid_spans_one_to_ten_n():
    grid = auto_alpha_grid(3074)
    assert grid[0] == 1.0 and grid[-1] == pytest.approx(30740, rel=0.02)
    assert np.all(np.diff(grid) > 0) and len(grid) == 15


@pytest.mark.parametrize("curve, expected", [
    # sharp drop then flat: the bend is the third point
    ([100.0, 40.0, 10.0, 9.0, 8.5, 8.2, 8.0], 2),
    # straight descent: no point below the chord, so the minimum
    ([6.0, 5.0, 4.0, 3.0, 2.0], 4),
    # increasing curve: the first point is both the minimum and the knee
    ([1.0, 2.0, 3.0], 0),
    # U shape: only the descending part counts
    ([50.0, 12.0, 10.0, 9.5, 20.0, 40.0], 1),
])
def test_knee_rule(curve, expected):
    alphas = np.geomspace(1, 10 ** (len(curve) - 1), len(curve))
    knee = knee_alpha(alphas, curve, smooth=False)
    assert int(np.argmin(np.abs(np.log(alphas) - np.log(knee)))) == expected


def test_knee_lies_between_grid_points_and_does_not_depend_on_grid_density():
    # a smooth decreasing curve: the knee is a property of the curve, not of the grid
    def curve(alphas):
        return 1000.0 / (1.0 + alphas / 50.0)

    coarse = np.geomspace(1, 1e5, 12)
    fine = np.geomspace(1, 1e5, 40)
    k_coarse, k_fine = knee_alpha(coarse, curve(coarse)), knee_alpha(fine, curve(fine))
    assert k_coarse not in coarse
    assert 1 / 1.25 < k_coarse / k_fine < 1.25
    assert knee_index(coarse, curve(coarse)) == int(
        np.argmin(np.abs(np.log(coarse) - np.log(k_coarse))))


def test_smoothing_keeps_a_line_straight_and_flattens_a_noisy_tail():
    np.testing.assert_allclose(smooth_curve([6.0, 5.0, 4.0, 3.0, 2.0]), [6, 5, 4, 3, 2])
    tail = smooth_curve([100.0, 50.0, 20.0, 10.0, 5.0, 7.0, 4.0, 6.0])
    assert np.all(np.diff(tail) <= 0)


def test_sweep_uses_common_random_numbers_and_flags_a_minimum_at_the_grid_end():
    prefs = small_prefs(n=200)
    kwargs = dict(burn_in=10, n_draws=10, random_state=2)
    both = dic_sweep(prefs, alphas=[5.0, 50.0], **kwargs)
    alone = dic_sweep(prefs, alphas=[50.0], **kwargs)
    assert both.f[1] == alone.f[0]  # the same random numbers at every alpha
    independent = dic_sweep(prefs, alphas=[5.0, 50.0], common_random_numbers=False, **kwargs)
    assert independent.f[1] != alone.f[0]
    rising = dic_sweep(prefs, alphas=[0.5, 3000.0], burn_in=50, n_draws=40, random_state=0)
    assert rising.still_falling and rising.best_index == 1


def test_knee_is_scale_free():
    alphas = np.geomspace(1, 1e4, 9)
    curve = 1000 * np.exp(-np.arange(9) / 1.5) + 3
    assert knee_index(alphas, curve) == knee_index(alphas * 7, curve * 0.01 - 50)


# ------------------------------------------------------------------ issue 12: warm starts
@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["readlevel", "babyface"])
def test_chained_sweep_matches_cold_sweep_within_seed_noise(data_dir, dataset):
    """One chain walked down the grid (15 burn-in sweeps after the first α) gives the same
    DIC curve as a fresh 100-sweep burn-in at every α, within the seed-to-seed noise."""
    from coarsenrank_core.paper import datasets

    prefs = getattr(datasets, f"load_{dataset}")(data_dir).preferences
    seeds = range(4)
    cold = [dic_sweep(prefs, burn_in=100, n_draws=100, warm_start=True, random_state=s)
            for s in seeds]
    chain = [dic_sweep(prefs, burn_in=100, n_draws=100, warm_start="chain", random_state=s)
             for s in seeds]
    assert chain[0].params["warm_start"] == "chain"
    c = np.array([r.dic for r in cold])
    h = np.array([r.dic for r in chain])
    error = np.sqrt(c.var(axis=0, ddof=1) / len(c) + h.var(axis=0, ddof=1) / len(h))
    gap = np.abs(h.mean(axis=0) - c.mean(axis=0))
    assert np.all(gap <= 3.5 * error + 1e-9 * np.abs(c.mean(axis=0)))
    typical = np.median([r.knee_alpha for r in cold])
    for result in chain:
        assert typical / 1.3 <= result.knee_alpha <= typical * 1.3


def test_chained_sweep_burn_in_and_cancellation():
    from coarsenrank_core.errors import Cancelled

    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2], [0, 2, 1], [2, 1, 0]] * 10)
    calls = []
    real = dic_module.coarsen_pl_gibbs_fit_trace

    def spy(*args, **kwargs):
        calls.append((kwargs["alpha"], kwargs["burn_in"]))
        return real(*args, **kwargs)

    dic_module.coarsen_pl_gibbs_fit_trace = spy
    try:
        dic_sweep(prefs, alphas=[1.0, 10.0, 100.0], burn_in=80, n_draws=20,
                  warm_start="chain", random_state=0)
    finally:
        dic_module.coarsen_pl_gibbs_fit_trace = real
    # two chains (CHAIN_SEGMENTS): 100 -> 10, then 1 from EM with the full burn-in
    assert dic_module.CHAIN_SEGMENTS == 2
    assert calls == [(100.0, 80), (10.0, dic_module.CHAIN_BURN_IN), (1.0, 80)]
    with pytest.raises(Cancelled):
        dic_sweep(prefs, alphas=[1.0, 10.0], burn_in=5000, warm_start="chain",
                  should_stop=lambda: True)
    with pytest.raises(Cancelled):
        dic_sweep(prefs, alphas=[1.0, 10.0], burn_in=5000, should_stop=lambda: True)
    with pytest.raises(ValueError, match="warm_start"):
        dic_sweep(prefs, alphas=[1.0, 10.0], warm_start="warm")


def test_a_parallel_sweep_stops_when_asked():
    import time

    from coarsenrank_core.errors import Cancelled

    prefs = small_prefs(n=200)
    start = time.monotonic()
    with pytest.raises(Cancelled, match="stopped"):
        dic_sweep(prefs, alphas=[1.0, 10.0, 100.0, 1000.0], burn_in=200_000, n_draws=10,
                  n_jobs=2, warm_start="chain",
                  should_stop=lambda: time.monotonic() - start > 1.0)


def test_a_chained_sweep_does_not_depend_on_n_jobs():
    prefs = small_prefs(n=80)
    grid = [1.0, 5.0, 25.0, 125.0, 625.0]
    one = dic_sweep(prefs, alphas=grid, burn_in=30, n_draws=20, warm_start="chain",
                    random_state=3, n_jobs=1)
    two = dic_sweep(prefs, alphas=grid, burn_in=30, n_draws=20, warm_start="chain",
                    random_state=3, n_jobs=2)
    np.testing.assert_array_equal(one.dic, two.dic)
    assert one.knee_alpha == two.knee_alpha


def test_a_long_alpha_reports_its_share_on_the_way(monkeypatch):
    # a share is reported at most once a second; with no wait, every stop check reports one
    monkeypatch.setattr(dic_module._SweepTicker, "EVERY", 0.0)
    seen = []
    dic_sweep(small_prefs(), alphas=[1.0, 10.0], burn_in=20, n_draws=20, warm_start="chain",
              random_state=0, progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    between = [d for d in done if d != int(d)]
    assert between and all(0 < d - int(d) < 1 for d in between)
    assert done == sorted(done) and seen[-1] == (2, 2)
    assert {1, 2} <= set(done)  # every whole α is still reported
