"""Resource limits: memory that grows linearly in the number of items, costs bounded by the data."""

import tracemalloc

import numpy as np
import pytest

from coarsenrank_core import results
from coarsenrank_core.results import PosteriorResult


def _posterior(draws: np.ndarray) -> PosteriorResult:
    return PosteriorResult(method="coarsen-pl-gibbs", scores=draws.mean(axis=0), iterations=1,
                           converged=None, seconds=0.0, draws=draws, lower=draws.min(axis=0),
                           upper=draws.max(axis=0))


def _full_table(post: PosteriorResult) -> np.ndarray:
    """The M × M rank-probability table, counted draw by draw."""
    n_draws, n_items = post.draws.shape
    table = np.zeros((n_items, n_items))
    for ranks in post.draw_ranks:
        table[np.arange(n_items), ranks] += 1
    return table / n_draws


def test_rank_probabilities_keep_the_leading_ranks_of_the_full_table():
    rng = np.random.default_rng(0)
    post = _posterior(rng.gamma(2.0, size=(500, 7)))
    full = _full_table(post)
    np.testing.assert_array_equal(post.rank_probabilities(), full)  # top 30 >= M: all ranks
    np.testing.assert_array_equal(post.rank_probabilities(top=None, block=3), full)
    top = post.rank_probabilities(top=3, block=64)
    assert top.shape == (7, 3)
    np.testing.assert_array_equal(top, full[:, :3])
    np.testing.assert_allclose(top.sum(axis=0), 1.0)
    with pytest.raises(ValueError):
        post.rank_probabilities(top=-1)


def test_rank_probabilities_of_20000_items_stay_linear_in_memory():
    # the old M × M count and float tables would need 2 × 3.2 GB here
    rng = np.random.default_rng(1)
    n_draws, n_items = 100, 20_000
    post = _posterior(rng.gamma(2.0, size=(n_draws, n_items)))
    tracemalloc.start()
    try:
        probabilities = post.rank_probabilities()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert probabilities.shape == (n_items, 30)
    # the draw ranks (n_draws × M int32, 8 MB) and one block's argsort dominate
    assert peak < 60e6
    np.testing.assert_allclose(probabilities.sum(axis=0), 1.0)
    first = np.bincount(np.argmax(post.draws, axis=1), minlength=n_items) / n_draws
    np.testing.assert_allclose(probabilities[:, 0], first)


def test_blocked_rank_summaries_equal_the_whole_array_formulas(monkeypatch):
    rng = np.random.default_rng(2)
    draws = rng.gamma(2.0, size=(37, 11))
    draws[:, 3] = draws[:, 5]  # exact ties keep the item order (stable sort)
    order = np.argsort(-draws, axis=1, kind="stable")
    expected = np.empty_like(order)
    np.put_along_axis(expected, order, np.arange(11)[None, :], axis=1)
    low = np.floor(np.quantile(expected + 1, 0.05, axis=0)).astype(int)
    high = np.ceil(np.quantile(expected + 1, 0.95, axis=0)).astype(int)
    for entries in (1, 50, 1 << 22):  # one draw or item at a time, a few, all at once
        monkeypatch.setattr(results, "_BLOCK_ENTRIES", entries)
        post = _posterior(draws)
        np.testing.assert_array_equal(post.draw_ranks, expected)
        got_low, got_high = post.rank_interval()
        np.testing.assert_array_equal(got_low, low)
        np.testing.assert_array_equal(got_high, high)


def test_the_consensus_rank_summary_needs_about_twice_the_draws():
    # the Consensus page: 400 draws, rank_interval and rank_probabilities
    rng = np.random.default_rng(3)
    post = _posterior(rng.gamma(2.0, size=(400, 20_000)))
    tracemalloc.start()
    try:
        post.rank_interval()
        post.rank_probabilities()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * post.draws.nbytes  # 64 MB of draws; an M × M table: 3.2 GB


def _mixed_preferences(rng, n=60, m=12):
    lists = []
    for _ in range(n):
        k = int(rng.integers(2, m + 1))
        items = rng.permutation(m)[:k].tolist()
        if k >= 4 and rng.random() < 0.5:  # a tied group in the middle
            items = [items[0], frozenset(items[1:3]), *items[3:]]
        lists.append(items)
    from coarsenrank_core import Preferences

    return Preferences.from_lists(lists, n_items=m)


@pytest.mark.parametrize("injector", ["replace_random", "reverse_preferences", "mallows_swaps",
                                      "spammers"])
def test_altered_distance_by_counting_equals_comparing_every_pair(monkeypatch, injector):
    from coarsenrank_core import noise

    rng = np.random.default_rng(4)
    prefs = _mixed_preferences(rng)
    result = noise.NOISE_TYPES[injector].function(prefs, 0.7, random_state=1)
    by_pairs = noise.altered_distance(prefs, result)
    monkeypatch.setattr(noise, "_LONG", 2)  # every source of 3 items or more is counted
    by_counting = noise.altered_distance(prefs, result)
    assert by_pairs.size > 10
    np.testing.assert_allclose(by_counting, by_pairs, rtol=0, atol=1e-12)


def test_altered_distance_of_a_long_ranking_stays_linear_in_memory():
    from coarsenrank_core import Preferences, noise

    # one ranking of 30,000 items: its 450 million pairs would need gigabytes
    k = 30_000
    prefs = Preferences.from_arrays(np.arange(k), [k])
    reversed_ = noise.reverse_preferences(prefs, 1.0, random_state=0)
    tracemalloc.start()
    try:
        distance = noise.altered_distance(prefs, reversed_)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(distance, [1.0])
    assert peak < 20e6


@pytest.mark.parametrize("dispersion", [0.0, 0.3, 0.9, 1.0])
def test_mallows_by_free_slots_draws_the_same_permutations(monkeypatch, dispersion):
    from coarsenrank_core import noise

    for length, rows in [(2, 5), (3, 4), (9, 6), (60, 3)]:
        by_insertion = noise.mallows_insertions(rows, length, dispersion, random_state=7)
        monkeypatch.setattr(noise, "_LONG_MALLOWS", 1)
        by_slots = noise.mallows_insertions(rows, length, dispersion, random_state=7)
        monkeypatch.undo()
        np.testing.assert_array_equal(by_slots, by_insertion)


def test_mallows_swaps_of_one_long_ranking_is_a_permutation_of_it():
    from coarsenrank_core import Preferences, noise

    # 100,000 items: the insertion loop would touch 5·10⁹ cells, the free slots 3.4·10⁶
    k = 100_000
    prefs = Preferences.from_arrays(np.arange(k), [k])
    result = noise.mallows_swaps(prefs, 0.3, random_state=0)
    items = result.preferences.items
    np.testing.assert_array_equal(np.sort(items), np.arange(k))
    moved = np.mean(items != np.arange(k))
    assert 0.1 < moved < 0.9  # φ = 0.3: mostly neighbours swapped
    assert 0 < noise.altered_distance(prefs, result)[0] < 0.01
