"""The result records (results.py): tempering, read-only fields, order and ranks, and the
posterior's rank summaries, whose memory grows linearly in the number of items."""

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
    draws[:, 3] = draws[:, 5]  # exact ties: each draw's order is drawn by its own seed
    keys = np.array([np.random.default_rng((results._TIE_BREAK_SEED, d)).random(11)
                     for d in range(37)])
    order = np.lexsort((keys, -draws), axis=1)
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


def test_equal_scores_in_a_draw_share_their_ranks_instead_of_following_the_item_ids():
    # refits pulled to one value (the data cannot tell the items apart), and two items that
    # never win: neither may come out as surely placed by the order of their ids
    same = _posterior(np.full((400, 4), 0.5))
    low, high = same.rank_interval()
    assert low.tolist() == [1] * 4 and high.tolist() == [4] * 4
    np.testing.assert_allclose(same.rank_probabilities(top=1)[:, 0], 0.25, atol=0.06)
    rng = np.random.default_rng(4)
    draws = np.column_stack([rng.gamma(50.0, size=400) + 100, rng.gamma(50.0, size=400),
                             np.zeros(400), np.zeros(400)])
    low, high = _posterior(draws).rank_interval()
    assert low.tolist() == [1, 2, 3, 3] and high.tolist() == [1, 2, 4, 4]
    ranks = _posterior(draws).draw_ranks
    assert 0.4 < np.mean(ranks[:, 2] == 2) < 0.6
    assert _posterior(draws).draw_ranks.tolist() == ranks.tolist()  # the same on every call


@pytest.mark.slow  # a Gibbs run at two numbers of draws
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


# ------------------------------------------------------------------ tempering and records
def test_tempering_is_alpha_over_alpha_plus_n_and_refuses_a_non_positive_alpha():
    assert results.tempering(np.inf, 123.0) == 1.0
    assert results.tempering(30.0, 90.0) == pytest.approx(0.25)
    assert results.tempering(1e-9, 1e9) == pytest.approx(1e-18)
    assert results.tempering(5, 0) == 1.0  # no data: nothing to temper
    for bad in (0.0, -1.0, float("nan"), -np.inf):
        with pytest.raises(ValueError, match="alpha must be positive"):
            results.tempering(bad, 10.0)


def test_order_is_best_first_with_equal_scores_in_id_order_and_ranks_invert_it():
    record = results.RankingResult(method="x", scores=[0.5, 2.0, 0.5, -1.0, 2.0],
                                   iterations=1, converged=None, seconds=0.0)
    assert record.order.tolist() == [1, 4, 0, 2, 3]
    assert record.ranks.tolist() == [3, 1, 4, 5, 2]
    np.testing.assert_array_equal(record.order[record.ranks - 1], np.arange(5))
    assert np.isnan(record.change) and record.tau is None and record.trace is None


def test_a_result_holds_read_only_copies_and_cannot_be_changed():
    scores = np.array([1.0, 3.0, 2.0])
    params = {"alpha": 3.0}
    record = results.RankingResult(method="x", scores=scores, iterations=2, converged=True,
                                   seconds=0.1, params=params, trace=[1, 2])
    scores[0] = 99.0
    params["alpha"] = 4.0
    assert record.scores.tolist() == [1.0, 3.0, 2.0] and record.params["alpha"] == 3.0
    assert record.scores.dtype == float and record.trace.dtype == float
    with pytest.raises(ValueError):
        record.scores[0] = 5.0
    with pytest.raises(ValueError):
        record.trace[0] = 5.0
    with pytest.raises(TypeError):
        record.params["alpha"] = 1.0
    with pytest.raises(AttributeError):
        record.method = "y"


def test_a_posterior_result_freezes_its_draws_and_its_mean_is_the_scores():
    draws = np.array([[3.0, 1.0, 2.0], [2.0, 1.5, 0.5], [4.0, 0.5, 1.0], [1.0, 2.0, 3.0]])
    post = _posterior(draws)
    assert post.mean is post.scores and post.converged is None
    assert post.interval_level == 0.9 and np.isnan(post.max_split_rhat)
    for name in ("draws", "lower", "upper", "draw_ranks"):
        with pytest.raises(ValueError):
            getattr(post, name)[0, ...] = 0
    # draw by draw: ranks 0 = best
    assert post.draw_ranks.tolist() == [[0, 2, 1], [0, 1, 2], [0, 2, 1], [2, 1, 0]]
    low, high = post.rank_interval(level=0.5)
    # item 0's 1-based ranks 1, 1, 1, 3: quartiles 1 and 1.5 -> [1, 2]
    assert low.tolist()[0] == 1 and high.tolist()[0] == 2
    np.testing.assert_allclose(post.rank_probabilities(top=1)[:, 0], [0.75, 0.0, 0.25])
