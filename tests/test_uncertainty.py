"""The Bayesian bootstrap over rankers behind every "likely ranks" interval."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from coarsenrank_core import Preferences, run_method
from coarsenrank_core.preferences import MIN_WEIGHT
from coarsenrank_core.simulate import simulate_pl
from coarsenrank_core.uncertainty import (
    MIN_PAIR_OVERLAP,
    MIN_PULLED_ITEMS,
    BootstrapResult,
    bootstrap_level,
    hold_ranks,
    likely_rank_runs,
    nearest_rank_runs,
    pair_overlap,
    rank_uncertainty,
    shortest_rank_runs,
    shrink_refits,
    unit_counts,
    units_per_item,
)


def split_vote(with_rankers: bool) -> Preferences:
    """Ranker A says 0 > 1 in 60 lists, ranker B says 1 > 0 in 40."""
    lists = [[0, 1]] * 60 + [[1, 0]] * 40
    rankers = [0] * 60 + [1] * 40
    return Preferences.from_lists(lists, rankers=rankers if with_rankers else None)


def test_whole_rankers_are_resampled_not_their_lists():
    # with two rankers the answer turns on which of them weighs more: item 0 comes first
    # when w_A · 60 > w_B · 40, which has probability 1 / (1 + 2/3) = 0.6 for Exp(1)
    # weights; resampling the 100 lists one by one almost never reverses a 60:40 split
    by_ranker = rank_uncertainty(split_vote(True), "pl-em", n_draws=400, random_state=0)
    by_list = rank_uncertainty(split_vote(False), "pl-em", n_draws=400, random_state=0)
    assert by_ranker.unit == "ranker" and by_ranker.n_units == 2
    assert by_list.unit == "list" and by_list.n_units == 100
    assert by_ranker.p_first[0] == pytest.approx(0.6, abs=0.07)
    assert by_list.p_first[0] > 0.95
    assert by_ranker.rank_low[0] == 1 and by_ranker.rank_high[0] == 2


def test_one_ranker_gives_no_likely_ranks_however_many_lists_and_two_do():
    # one ranker's refits only weigh the prior against the same answers: before, a single
    # list x > y > z came out "surely 1st, 2nd, 3rd" with chances 1, 0, 0
    for prefs in (Preferences.from_lists([[0, 1, 2]]),
                  Preferences.from_lists([[0, 1, 2]] * 5, rankers=[0] * 5)):
        spread = rank_uncertainty(prefs, n_draws=20, random_state=0)
        assert spread.n_units == 1 and not spread.measurable
        assert spread.rank_low.tolist() == [1, 1, 1] and spread.rank_high.tolist() == [3, 3, 3]
        assert np.all(np.isnan(spread.p_first)) and np.all(np.isnan(spread.rank_probabilities()))
        assert np.all(np.isnan(spread.lower)) and np.all(np.isnan(spread.upper))
    two = rank_uncertainty(Preferences.from_lists([[0, 1, 2]] * 5, rankers=[0, 0, 1, 1, 1]),
                           n_draws=20, random_state=0)
    assert two.measurable and np.all(np.isfinite(two.p_first))
    assert two.p_first.sum() == pytest.approx(1.0)


def test_the_intervals_and_chances_are_read_off_the_refits():
    prefs = Preferences.from_lists([[0, 1, 2, 3], [1, 0, 2, 3], [0, 2, 1, 3],
                                    [2, 0, 1, 3], [0, 1, 3, 2]] * 4,
                                   rankers=np.repeat(np.arange(10), 2))
    spread = rank_uncertainty(prefs, n_draws=60, random_state=1)
    assert isinstance(spread, BootstrapResult) and spread.draws.shape == (60, 4)
    ranks = np.argsort(np.argsort(-spread.draws, axis=1, kind="stable"), axis=1) + 1
    # every item is in the lists of all 10 raters: its run is the one nearest 92.6 % of the
    # 60 refits (bootstrap_level), widened to hold its place in the order
    share = 2 * norm.cdf(norm.ppf(0.95) * np.sqrt(11 / 9)) - 1
    assert spread.units_per_item.tolist() == [10] * 4
    for item in range(4):
        low, high = nearest_run_by_brute_force(ranks[:, item], share)
        low, high = min(low, spread.ranks[item]), max(high, spread.ranks[item])
        assert (spread.rank_low[item], spread.rank_high[item]) == (low, high)
    np.testing.assert_allclose(spread.p_first, (ranks == 1).mean(axis=0))
    assert spread.p_first.sum() == pytest.approx(1.0)
    assert np.all(spread.rank_low <= spread.rank_high)


def test_the_order_is_the_full_data_fit_and_the_run_repeats_with_its_seed():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2], [0, 2, 1]] * 5,
                                   rankers=np.arange(15) // 3)
    fit = run_method("consensus", prefs)
    first = rank_uncertainty(prefs, n_draws=20, random_state=5)
    again = rank_uncertainty(prefs, n_draws=20, random_state=5, fit=fit)
    np.testing.assert_array_equal(first.scores, fit.scores)
    np.testing.assert_array_equal(first.draws, again.draws)
    assert not np.array_equal(first.draws,
                              rank_uncertainty(prefs, n_draws=20, random_state=6).draws)


def test_a_tempered_method_is_refitted_at_the_alpha_given():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0, 2], [0, 2, 1]] * 5)
    spread = rank_uncertainty(prefs, "coarsen-pl", n_draws=5, alpha=3.0)
    assert spread.method == "coarsen-pl" and spread.params["alpha"] == 3.0


def test_progress_is_reported_for_every_refit_and_bad_settings_are_refused():
    prefs = Preferences.from_lists([[0, 1], [1, 0], [0, 1]])
    seen = []
    rank_uncertainty(prefs, "pl-em", n_draws=4, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    with pytest.raises(ValueError, match="n_draws"):
        rank_uncertainty(prefs, n_draws=1)
    with pytest.raises(ValueError, match="level"):
        rank_uncertainty(prefs, level=1.0)


@pytest.mark.slow  # about 6 s of CPU: refits to convergence
def test_capped_refits_give_the_intervals_of_refits_run_to_convergence():
    from coarsenrank_core.paper.default_study import StudyCell, study_data

    for cell in (StudyCell("uniform", "clean", 1, 300),
                 StudyCell("uniform", "20% random rankers", 5, 300)):
        prefs, _ = study_data(cell, 0)
        capped = rank_uncertainty(prefs, n_draws=15, random_state=2)
        full = rank_uncertainty(prefs, n_draws=15, random_state=2, max_iter=1000, tol=1e-10)
        np.testing.assert_array_equal(capped.rank_low, full.rank_low)
        np.testing.assert_array_equal(capped.rank_high, full.rank_high)
        # a near-tie may swap in one refit: within the bootstrap's own Monte Carlo error
        assert np.abs(capped.p_first - full.p_first).max() <= 1 / 15 + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.floats(0.05, 0.99), st.integers(0, 2**32 - 1),
       st.integers(1, 7))
def test_the_run_is_the_shortest_that_holds_the_level_by_brute_force(n_draws, n_items, level,
                                                                     seed, block):
    ranks = np.random.default_rng(seed).integers(0, n_items, size=(n_draws, n_items))
    low, high = shortest_rank_runs(ranks, level, block_entries=block * n_draws)
    need = int(np.ceil(level * n_draws - 1e-9))
    for item in range(n_items):
        column = ranks[:, item] + 1
        held = [(b - a, a, b) for a in range(1, n_items + 1) for b in range(a, n_items + 1)
                if np.count_nonzero((column >= a) & (column <= b)) >= need]
        assert (low[item], high[item]) == min(held)[1:]


def test_a_discrete_rank_keeps_no_neighbour_that_holds_only_a_tail():
    # rank 6 in 80 % of refits and 5 or 7 in 10 % each: the central 90 % interval would be
    # 5–7 (covering the truth almost always); the shortest run holding 90 % is 5–6
    ranks = np.repeat([5, 4, 6], [80, 10, 10])[:, None]
    low, high = shortest_rank_runs(ranks, 0.9)
    assert (low[0], high[0]) == (5, 6)


def nearest_run_by_brute_force(column: np.ndarray, level: float) -> tuple[int, int]:
    """The nearest run written out: of the runs between ranks the draws hold, those no other
    run beats (as short holding more, or shorter holding as much); of these, the one nearest
    the level, then the shortest, then the one of best ranks."""
    places = np.unique(column)
    runs = [(np.count_nonzero((column >= a) & (column <= b)), b - a, a, b)
            for a in places for b in places if b >= a]
    candidates = [r for r in runs if not any(
        (o[0] >= r[0] and o[1] <= r[1]) and (o[0] > r[0] or o[1] < r[1]) for o in runs)]
    nearest = min(candidates, key=lambda r: (round(abs(r[0] - level * column.size), 9),
                                             r[1], r[2]))
    return nearest[2], nearest[3]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.floats(0.05, 0.99), st.integers(0, 2**32 - 1),
       st.integers(1, 7))
def test_the_run_is_the_one_nearest_the_level_by_brute_force(n_draws, n_items, level, seed,
                                                             block):
    ranks = np.random.default_rng(seed).integers(0, n_items, size=(n_draws, n_items),
                                                 dtype=np.int32)  # as draw_ranks gives them
    low, high = nearest_rank_runs(ranks, level, block_entries=block * n_draws)
    for item in range(n_items):
        assert (low[item], high[item]) == nearest_run_by_brute_force(ranks[:, item] + 1, level)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(20, 70), st.floats(0.05, 0.95), st.integers(0, 2**32 - 1))
@example(5, 40, 0.9, 1)  # a run spanning more than 2D + 2 places must still be the fullest
def test_the_nearest_run_holds_where_ranks_spread_over_more_places_than_draws(n_draws, places,
                                                                           level, seed):
    # many items and few draws: a run may span more places than there are draws
    ranks = np.random.default_rng(seed).integers(0, places, size=(n_draws, 2), dtype=np.int32)
    low, high = nearest_rank_runs(ranks, level)
    for item in range(2):
        assert (low[item], high[item]) == nearest_run_by_brute_force(ranks[:, item] + 1, level)


def test_a_run_may_hold_a_little_less_than_the_level_when_that_is_nearer():
    # rank 3 in 86 % of refits, rank 4 in 14 %: 3 alone holds 86 % (4 points short of 90),
    # 3–4 holds 100 % (10 points over); the first is the honest "90 %" interval
    ranks = np.repeat([2, 3], [86, 14])[:, None]
    assert tuple(int(v[0]) for v in nearest_rank_runs(ranks, 0.9)) == (3, 3)
    # at 88 % / 12 % the same: 2 points short beats 12 over; at 70 % / 30 % both ranks
    ranks = np.repeat([2, 3], [70, 30])[:, None]
    assert tuple(int(v[0]) for v in nearest_rank_runs(ranks, 0.9)) == (3, 4)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 8), st.integers(0, 2**32 - 1), st.integers(1, 5))
def test_a_level_per_column_reads_each_column_at_its_own_level(n_draws, n_items, seed, block):
    rng = np.random.default_rng(seed)
    ranks = rng.integers(0, n_items, size=(n_draws, n_items), dtype=np.int32)
    levels = rng.uniform(0.05, 1.0, n_items)
    low, high = nearest_rank_runs(ranks, levels, block_entries=block * n_draws)
    for item in range(n_items):
        alone = nearest_rank_runs(ranks[:, [item]], levels[item])
        assert (low[item], high[item]) == (alone[0][0], alone[1][0])


def test_the_level_makes_a_bayesian_bootstrap_of_a_mean_cover_what_it_claims():
    # n normal units, their mean resampled by Dirichlet(1, …, 1) weights: the central 90 % of
    # the refits covers the true mean in 83 % of data sets at n = 10 (the refits vary
    # (n − 1)/(n + 1) as much as the mean); read at bootstrap_level(0.9, n) it covers 86 %,
    # what a normal interval with the unbiased variance can (P(|t₉| < 1.645) = 0.866)
    rng = np.random.default_rng(3)
    for n in (10, 30):
        data = rng.normal(size=(3000, n))
        weights = rng.dirichlet(np.ones(n), size=(3000, 400))
        refits = np.einsum("sdn,sn->sd", weights, data)
        covered = {}
        for name, share in (("plain", 0.9), ("corrected", float(bootstrap_level(0.9, [n])[0]))):
            low, high = np.quantile(refits, [(1 - share) / 2, (1 + share) / 2], axis=1)
            covered[name] = np.mean((low <= 0) & (0 <= high))
        assert 0.85 <= covered["corrected"] <= 0.92, (n, covered)
        assert covered["plain"] < covered["corrected"] - 0.005 * 30 / n, (n, covered)


def test_the_level_rises_as_fewer_raters_hold_the_item():
    shares = bootstrap_level(0.9, [0, 1, 2, 3, 30, 300, 10**6])
    assert shares[0] == shares[1] == 1.0
    assert np.all(np.diff(shares[1:]) < 0)
    assert shares[3] == pytest.approx(0.98, abs=0.001)
    assert shares[-1] == pytest.approx(0.9, abs=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=5, unique=True), min_size=1,
                max_size=12), st.booleans(), st.integers(0, 2**32 - 1))
def test_units_per_item_counts_the_rankers_whose_answers_hold_it(lists, with_rankers, seed):
    rng = np.random.default_rng(seed)
    rankers = rng.integers(0, 3, len(lists)).tolist() if with_rankers else None
    weights = np.where(rng.random(len(lists)) < 0.2, MIN_WEIGHT, 1.0)
    prefs = Preferences.from_lists(lists, rankers=rankers, n_items=7, weights=weights)
    owners = prefs.ranker_index
    expected = [len({owners[k] for k, order in enumerate(lists)
                     if item in order and weights[k] > MIN_WEIGHT}) for item in range(7)]
    assert units_per_item(prefs).tolist() == expected


@pytest.mark.slow  # about 5 s of CPU: 40 bootstraps of three lists
def test_with_three_raters_the_likely_ranks_hold_more_of_the_refits_and_cover():
    # 5 items, 3 lists of 5: every pair compared by 3 raters, so the default resamples them;
    # read at 90 % the runs covered 84 % of true ranks (40 seeds), at the 98 % three raters
    # call for they cover about 92 %
    covered = {"default": [], "flat": []}
    for seed in range(40):
        prefs, worths = simulate_pl(5, 3, length=5, random_state=seed)
        spread = rank_uncertainty(prefs, random_state=seed)
        assert spread.source == "bootstrap" and spread.units_per_item.tolist() == [3] * 5
        truth = np.argsort(np.argsort(-worths)) + 1
        flat = likely_rank_runs(spread.draw_ranks, spread.ranks, 0.9)  # no units: flat
        for name, (low, high) in (("default", spread.rank_interval()), ("flat", flat)):
            covered[name].append(np.mean((low <= truth) & (truth <= high)))
    assert 0.85 <= np.mean(covered["default"]) <= 0.97, covered
    assert np.mean(covered["flat"]) < np.mean(covered["default"])


def test_the_pull_is_the_normal_normal_posterior_of_each_items_log_score():
    rng = np.random.default_rng(4)
    scores = np.exp(rng.normal(0, 0.6, 12))
    refits = scores * np.exp(rng.normal(0, 0.5, (200, 12)) * rng.uniform(0.2, 1.5, 12))
    draws, pull = shrink_refits(scores, refits)
    # by hand: centred logs, method-of-moments spread, B = s² / (s² + v)
    logs = np.log(refits) - np.log(refits).mean(axis=1, keepdims=True)
    estimate = np.log(scores) - np.log(scores).mean()
    noise = logs.var(axis=0)
    spread = estimate.var() - noise.mean()
    np.testing.assert_allclose(pull, spread / (spread + noise))
    pulled = np.log(draws) - np.log(scores).mean()
    np.testing.assert_allclose(pulled.mean(axis=0),
                               pull * estimate + np.sqrt(pull) * (logs.mean(axis=0) - estimate))
    np.testing.assert_allclose(pulled.var(axis=0), pull * noise)  # posterior variance B·v
    assert np.all((pull > 0) & (pull < 1))


def test_items_far_apart_are_not_pulled_and_zero_scores_are_left_alone():
    rng = np.random.default_rng(5)
    scores = np.exp(np.linspace(4, -4, 9))
    refits = scores * np.exp(rng.normal(0, 0.01, (50, 9)))
    draws, pull = shrink_refits(scores, refits)
    assert np.all(pull > 0.999)
    np.testing.assert_array_equal(np.argsort(-draws, axis=1), np.argsort(-refits, axis=1))
    refits[:, 3] = 0.0
    draws, pull = shrink_refits(scores, refits)
    assert pull[3] == 1 and np.all(draws[:, 3] == 0)


def test_three_items_are_not_pulled_onto_one_value():
    """With three items the spread was often estimated as 0, which pulled every refit onto
    one value: every place a tie, and the chances of being first shared out at random."""
    rng = np.random.default_rng(6)
    scores = np.array([2.0, 1.0, 0.5])
    refits = scores * np.exp(rng.normal(0, 1.5, (100, 3)))
    draws, pull = shrink_refits(scores, refits)
    assert MIN_PULLED_ITEMS == 4
    np.testing.assert_array_equal(draws, refits)
    np.testing.assert_array_equal(pull, 1.0)
    four = np.append(scores, 0.25)
    _, pull = shrink_refits(four, four * np.exp(rng.normal(0, 1.5, (100, 4))))
    assert np.all(pull < 1)


def test_three_judges_never_make_an_item_first_that_no_one_put_first():
    prefs = Preferences.from_lists([[0, 1, 2], [0, 2, 1], [1, 0, 2]], n_items=3)
    result = rank_uncertainty(prefs, random_state=0)
    assert result.source == "bootstrap"
    first = result.p_first
    assert first[2] == 0 and first[0] > first[1] > 0
    low, high = result.rank_interval()
    assert low[2] >= 2 and high[0] <= 2


@pytest.mark.slow  # two bootstraps on 300 items
def test_on_a_sparse_design_the_pull_brings_coverage_back_towards_its_claim():
    from coarsenrank_core.paper.default_study import sparse_pairs, true_rank_covered

    prefs, truth = sparse_pairs(0.5, 0, n_items=300, n_pairs=8000, n_rankers=400)
    pulled = rank_uncertainty(prefs, n_draws=60, random_state=0, fallback=False)
    raw = rank_uncertainty(prefs, n_draws=60, random_state=0, shrink=False, fallback=False)
    np.testing.assert_array_equal(pulled.refits, raw.draws)
    covered = {name: true_rank_covered(r.rank_low, r.rank_high, truth).mean()
               for name, r in (("pulled", pulled), ("raw", raw))}
    # 0.81 against 0.77 here: closer to the 90 % claimed, though still short of it
    assert covered["raw"] + 0.02 < covered["pulled"] <= 0.97, covered


@st.composite
def ranked_lists(draw):
    """Lists with ties, some raters giving several."""
    n_items = draw(st.integers(2, 6))
    lists, groups = [], []
    for _ in range(draw(st.integers(1, 8))):
        chosen = draw(st.permutations(range(n_items)))[:draw(st.integers(2, n_items))]
        lists.append(chosen)
        groups.append(np.cumsum([0] + [draw(st.integers(0, 1)) for _ in chosen[1:]]))
    rankers = draw(st.none() | st.lists(st.integers(0, 3), min_size=len(lists),
                                        max_size=len(lists)))
    offsets = np.cumsum([0] + [len(x) for x in lists])
    return Preferences(items=np.concatenate(lists), offsets=offsets,
                       groups=np.concatenate(groups), n_items=n_items,
                       rankers=None if rankers is None else np.unique(rankers,
                                                                     return_inverse=True)[1])


@settings(max_examples=80, deadline=None)
@given(ranked_lists())
def test_pair_overlap_counts_raters_and_disputes_as_brute_force_does(prefs):
    seen: dict = {}
    for n in range(len(prefs)):
        entries = prefs.items[prefs.offsets[n]:prefs.offsets[n + 1]]
        groups = prefs.groups[prefs.offsets[n]:prefs.offsets[n + 1]]
        for a in range(entries.size):
            for b in range(a + 1, entries.size):
                pair = (min(entries[a], entries[b]), max(entries[a], entries[b]))
                outcome = "tie" if groups[a] == groups[b] else (entries[a], entries[b])
                raters, outcomes = seen.setdefault(pair, (set(), set()))
                raters.add(int(prefs.ranker_index[n]))
                outcomes.add(outcome)
    overlap = pair_overlap(prefs)
    assert overlap.rankers_per_pair == pytest.approx(
        np.mean([len(r) for r, _ in seen.values()]))
    assert overlap.disputed == pytest.approx(np.mean([len(o) > 1 for _, o in seen.values()]))


def test_pair_overlap_is_not_built_beyond_its_pair_limit():
    prefs = Preferences.from_lists([list(range(40))] * 10)
    assert pair_overlap(prefs, max_pairs=1000) is None
    assert pair_overlap(prefs).rankers_per_pair == 10


def test_where_few_raters_compare_each_pair_the_default_uses_the_posterior_and_covers():
    # 10 items, 5 lists of 4: about 1.3 raters a pair, so every refit of the bootstrap keeps
    # most pairs' one order (here: bootstrap 0.81, posterior 0.95)
    covered = {True: [], False: []}
    for seed in range(24):
        prefs, worths = simulate_pl(10, 5, length=4, random_state=seed)
        truth = np.argsort(np.argsort(-worths)) + 1
        seen = np.bincount(prefs.items, minlength=10) > 0
        for fallback in (True, False):
            spread = rank_uncertainty(prefs, random_state=seed, fallback=fallback)
            assert spread.source == ("posterior" if fallback else "bootstrap")
            hit = (spread.rank_low <= truth) & (truth <= spread.rank_high)
            covered[fallback].append(hit[seen].mean())
    assert 0.97 >= np.mean(covered[True]) >= 0.85 > np.mean(covered[False]), \
        {k: np.mean(v) for k, v in covered.items()}


def test_unanimous_raters_get_the_posterior_and_many_raters_the_bootstrap():
    unanimous = rank_uncertainty(Preferences.from_lists([[0, 1, 2, 3]] * 4), random_state=0)
    assert unanimous.source == "posterior" and unanimous.overlap == 4
    assert np.any(unanimous.rank_low < unanimous.rank_high) and unanimous.p_first[0] < 1
    assert np.all(unanimous.lower <= unanimous.scores) and np.all(
        unanimous.scores <= unanimous.upper)
    many, _ = simulate_pl(8, 120, length=4, random_state=1)
    spread = rank_uncertainty(many, n_draws=20, random_state=0)
    assert spread.source == "bootstrap" and spread.overlap >= MIN_PAIR_OVERLAP
    other = rank_uncertainty(Preferences.from_lists([[0, 1, 2, 3]] * 4), "pl-em",
                             n_draws=20, random_state=0)
    assert other.source == "bootstrap"  # only the default consensus falls back


def noise_lists(seed: int) -> Preferences:
    """Lists drawn at random (no item better than another), with or without rater ids."""
    rng = np.random.default_rng(seed)
    n_items, n_lists = int(rng.integers(3, 12)), int(rng.integers(2, 40))
    lists = [list(rng.permutation(n_items)[:rng.integers(2, n_items + 1)])
             for _ in range(n_lists)]
    rankers = (rng.integers(0, max(1, n_lists // 2), size=n_lists) if seed % 2 else None)
    return Preferences.from_lists(lists, n_items=n_items, rankers=rankers)


def test_every_items_likely_ranks_hold_the_rank_shown_beside_it():
    # where the data cannot tell the items apart the runs of equally likely ranks can leave
    # out any rank: before the likely ranks held the fit's own, 3 of these 12 data sets had
    # rows such as "rank 2, likely ranks 3–10" or "rank 1, likely ranks 3–9" (4 rows; 12 of
    # 40 data sets, all from the bootstrap's refits)
    contradicting = []
    sources = set()
    for seed in range(12):
        spread = rank_uncertainty(noise_lists(seed), n_draws=40, random_state=seed)
        sources.add(spread.source)
        low, high = spread.rank_interval()
        outside = np.flatnonzero((spread.ranks < low) | (spread.ranks > high))
        contradicting += [(seed, int(spread.ranks[i]), int(low[i]), int(high[i]))
                          for i in outside]
        assert np.array_equal(spread.rank_low, low) and np.array_equal(spread.rank_high, high)
    assert sources == {"bootstrap", "posterior"}
    assert contradicting == []


def test_holding_the_shown_rank_widens_only_the_runs_that_leave_it_out():
    low, high = np.array([1, 3, 2]), np.array([2, 5, 2])
    widened = hold_ranks(low, high, np.array([2, 1, 3]))
    assert [w.tolist() for w in widened] == [[1, 1, 2], [2, 5, 3]]


def test_lists_counted_once_are_resampled_as_the_people_who_gave_them():
    """Identical lists counted once (a count column, a BLT weight, --stream) are that many
    people: the same units, overlap and intervals as the lists written out one by one."""
    lists = [[0, 1]] * 4 + [[1, 0]] + [[0, 2]] * 3 + [[2, 0]] + [[2, 1]] * 3 + [[1, 2]]
    written = Preferences.from_lists(lists, n_items=3)
    counted, _ = written.pool_identical()
    assert len(counted) == 6 and counted.weights.max() == 4
    assert unit_counts(counted).sum() == len(written) == 13
    np.testing.assert_array_equal(units_per_item(counted), units_per_item(written))
    assert pair_overlap(counted) == pair_overlap(written)
    one, other = (rank_uncertainty(p, n_draws=400, random_state=3) for p in (written, counted))
    assert one.source == other.source == "bootstrap" and one.n_units == other.n_units == 13
    np.testing.assert_allclose(one.p_first, other.p_first, atol=0.08)
    np.testing.assert_allclose(np.std(np.log(one.refits), axis=0),
                               np.std(np.log(other.refits), axis=0), rtol=0.25)


def test_equal_scores_are_named_as_ordered_by_the_input_only():
    from coarsenrank_core.uncertainty import equal_score_note

    names = ["A", "B", "C", "D", "E"]
    scores = np.array([3.0, 1.0 + 1e-12, 1.0, 0.5, 0.5])
    order = np.argsort(-scores, kind="stable")
    note = equal_score_note(scores, order, names)
    assert "B and C (ranks 2–3); D and E (ranks 4–5)" in note
    assert equal_score_note(np.array([3.0, 2.0, 1.0]), [0, 1, 2], names) is None
    three = equal_score_note(np.ones(3), [0, 1, 2], names)
    assert "A, B and C (ranks 1–3)" in three
