"""The raters' item-by-item spread: scores against brute force, the estimate, the intervals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core import Preferences
from coarsenrank_core.heterogeneity import (
    HETEROGENEITY_COPIES,
    entry_scores,
    ranker_heterogeneity,
    simulate_orders,
    with_heterogeneity,
    within_ranker_covariance,
)
from coarsenrank_core.paper.default_study import heterogeneous_rankers
from coarsenrank_core.registry import METHODS
from coarsenrank_core.uncertainty import rank_uncertainty


def _mixed_preferences() -> Preferences:
    lists = [[0, 1, 2, 3], [2, 0], [3, {1, 2}, 0], [1, 3, 0], [{0, 3}, 2], [2, 3, 1, 0],
             [0, 2], [1, {0, 2, 3}]]
    return Preferences.from_lists(lists, n_items=4, rankers=[0, 0, 1, 1, 1, 2, 2, 0])


def _per_list_log_likelihood(prefs: Preferences, log_worths: np.ndarray) -> np.ndarray:
    return np.asarray(prefs.stages.log_likelihood(np.exp(log_worths), per_preference=True))


def test_entry_scores_are_the_derivatives_of_each_lists_log_likelihood():
    prefs = _mixed_preferences()
    x = np.array([0.3, -0.2, 0.5, -0.6])
    rows, items, score, information = entry_scores(prefs, x)
    h = 1e-5
    for n in range(len(prefs)):
        for i in np.unique(prefs.items[prefs.offsets[n]:prefs.offsets[n + 1]]):
            step = np.zeros(4)
            step[i] = h
            up = _per_list_log_likelihood(prefs, x + step)[n]
            down = _per_list_log_likelihood(prefs, x - step)[n]
            middle = _per_list_log_likelihood(prefs, x)[n]
            entry = np.flatnonzero((rows == n) & (items == i))
            assert entry.size == 1
            assert score[entry[0]] == pytest.approx((up - down) / (2 * h), abs=1e-6)
            assert information[entry[0]] == pytest.approx(-(up - 2 * middle + down) / h ** 2,
                                                          abs=1e-4)


def test_within_ranker_covariance_sums_products_across_one_raters_lists_only():
    prefs = _mixed_preferences()  # rater 0's first and last lists hold the same four items
    x = np.array([0.1, 0.4, -0.3, -0.2])
    weights = np.linspace(0.5, 1.5, len(prefs))
    rows, items, score, information = entry_scores(prefs, x)
    rater = prefs.ranker_index[rows]
    item_set = [frozenset(prefs.items[prefs.offsets[n]:prefs.offsets[n + 1]].tolist())
                for n in range(len(prefs))]
    assert item_set[0] == item_set[7] and rater[rows == 0][0] == rater[rows == 7][0]
    products = information_products = 0.0
    for a in range(rows.size):
        for b in range(rows.size):
            if (rows[a] != rows[b] and rater[a] == rater[b] and items[a] == items[b]
                    and item_set[rows[a]] != item_set[rows[b]]):
                w = weights[rows[a]] * weights[rows[b]]
                products += w * score[a] * score[b]
                information_products += w * information[a] * information[b]
    found = within_ranker_covariance(prefs, x, weights)
    assert found == pytest.approx((products, information_products))


def test_item_set_index_is_shared_by_exactly_the_lists_holding_the_same_items():
    from coarsenrank_core.heterogeneity import item_set_index

    lists = [[0, 1, 2], [2, 1, 0], [{0, 1}, 2], [0, 1], [1, 0], [0, 1, 3], [3, 2],
             [2, 1, 0, 3], [{0, 1, 2}]]
    prefs = Preferences.from_lists(lists, n_items=4)
    index = item_set_index(prefs)
    held = [sorted(prefs.items[prefs.offsets[n]:prefs.offsets[n + 1]].tolist())
            for n in range(len(prefs))]
    assert len(set(index.tolist())) == 5
    for a in range(len(lists)):
        for b in range(len(lists)):
            assert (index[a] == index[b]) == (held[a] == held[b]), (a, b)


def test_answers_sent_twice_are_not_read_as_raters_who_differ():
    from coarsenrank_core.simulate import simulate_rankers, true_worths

    worths = true_worths(12, 1.5, "even")
    for spread in (0.0, 1.0):
        once = simulate_rankers(worths, 120, 5, lists_per_ranker=4, ranker_spread=spread,
                                random_state=5).preferences
        twice = Preferences.from_lists(
            [lst for lst in once.to_lists() for _ in range(2)],
            n_items=once.n_items, rankers=np.repeat(once.ranker_index, 2))
        found = {name: ranker_heterogeneity(prefs, _refit(prefs), _refit, random_state=0)
                 for name, prefs in (("once", once), ("twice", twice))}
        # every copy's products with its original are left out, so the copies add nothing
        assert found["twice"].estimate == pytest.approx(found["once"].estimate, abs=0.1)
        if spread == 0.0:
            assert found["twice"].variance == 0.0
        else:
            assert found["twice"].variance > 0.4


def test_simulated_orders_keep_each_lists_items_ties_weight_and_rater():
    prefs = _mixed_preferences()._replace(weights=np.arange(1.0, 9.0))
    simulated = simulate_orders(prefs, np.zeros(4), np.random.default_rng(0))
    for n in range(len(prefs)):
        part = slice(prefs.offsets[n], prefs.offsets[n + 1])
        assert sorted(simulated.items[part]) == sorted(prefs.items[part])
        assert list(np.bincount(simulated.groups[part])) == list(np.bincount(prefs.groups[part]))
    assert np.array_equal(simulated.weights, prefs.weights)
    assert np.array_equal(simulated.rankers, prefs.rankers)


def _refit(prefs: Preferences) -> np.ndarray:
    return METHODS["pl-em"].run(prefs).scores


def test_the_spread_is_found_where_raters_differ_and_not_where_they_share_one_order():
    spread = {}
    for variance in (0.0, 0.5):
        prefs, _, _ = heterogeneous_rankers(variance, n_rankers=200, seed=1)
        spread[variance] = ranker_heterogeneity(prefs, _refit(prefs), _refit, random_state=0)
    assert spread[0.5].measurable and spread[0.5].variance > 0.25
    assert spread[0.5].variance == spread[0.5].estimate
    assert spread[0.0].measurable and spread[0.0].variance == 0.0
    assert abs(spread[0.0].estimate) < 0.05


def test_the_spread_cannot_be_measured_without_raters_who_give_several_lists():
    prefs, _, _ = heterogeneous_rankers(0.5, n_rankers=100, seed=2, lists_per_ranker=1)
    one_each = ranker_heterogeneity(prefs, _refit(prefs), _refit)
    anonymous = prefs._replace(rankers=None)
    nameless = ranker_heterogeneity(anonymous, _refit(anonymous), _refit)
    for spread in (one_each, nameless):
        assert not spread.measurable and spread.variance == 0.0


def test_draws_with_the_spread_are_copies_moved_by_it_and_zero_worths_stay_zero():
    draws = np.array([[1.0, 2.0, 0.0], [1.5, 1.0, 0.0]])
    rng = np.random.default_rng(0)
    same = with_heterogeneity(draws, 0.0, rng, copies=3)
    assert np.array_equal(same, np.repeat(draws, 3, axis=0))
    moved = with_heterogeneity(np.repeat(draws, 2000, axis=0), 0.25, rng, copies=2)
    assert np.all(moved[:, 2] == 0.0)
    shift = np.log(moved[:, :2]) - np.log(np.repeat(np.repeat(draws, 2000, axis=0), 2,
                                                       axis=0)[:, :2])
    assert shift.std() == pytest.approx(0.5, rel=0.05)


def test_the_default_likely_ranks_hold_the_spread_and_widen_with_it():
    prefs, _, _ = heterogeneous_rankers(0.5, n_rankers=150, seed=3)
    spread = rank_uncertainty(prefs, n_draws=30, random_state=0)
    consensus = rank_uncertainty(prefs, n_draws=30, random_state=0, heterogeneity=False)
    assert spread.heterogeneity is not None and spread.heterogeneity.variance > 0
    assert consensus.heterogeneity is None
    assert spread.draws.shape[0] == HETEROGENEITY_COPIES * 30
    assert spread.refits.shape[0] == 30
    np.testing.assert_array_equal(spread.refits, consensus.refits)
    np.testing.assert_array_equal(spread.scores, consensus.scores)
    width = np.mean(spread.rank_high - spread.rank_low)
    assert width > 1.5 * np.mean(consensus.rank_high - consensus.rank_low)
    other = rank_uncertainty(prefs, "pl-em", n_draws=10, random_state=0)
    assert other.heterogeneity is None and other.draws.shape[0] == 10


def test_a_further_rater_is_covered_about_as_often_as_claimed():
    covered = []
    from coarsenrank_core.paper.default_study import true_rank_covered
    for seed in range(3):
        prefs, _, new_rater = heterogeneous_rankers(0.3, n_rankers=300, seed=seed)
        result = rank_uncertainty(prefs, n_draws=40, random_state=seed)
        covered.append(true_rank_covered(result.rank_low, result.rank_high, new_rater).mean())
        consensus = rank_uncertainty(prefs, n_draws=40, random_state=seed,
                                     heterogeneity=False)
        assert true_rank_covered(consensus.rank_low, consensus.rank_high,
                                 new_rater).mean() < covered[-1]
    assert 0.8 <= np.mean(covered) <= 1.0


def test_many_items_get_fewer_copies_of_each_draw():
    from coarsenrank_core.heterogeneity import HETEROGENEITY_MAX_ENTRIES
    rng = np.random.default_rng(0)
    wide = np.ones((100, HETEROGENEITY_MAX_ENTRIES // 200))
    assert with_heterogeneity(wide, 0.1, rng).shape[0] == 200
    huge = np.ones((100, HETEROGENEITY_MAX_ENTRIES // 50))
    assert with_heterogeneity(huge, 0.1, rng).shape[0] == 100
    assert with_heterogeneity(np.ones((100, 30)), 0.1, rng).shape[0] == 100 * HETEROGENEITY_COPIES


def test_the_page_and_the_command_line_say_what_the_likely_ranks_hold():
    from coarsenrank_core.uncertainty import heterogeneity_note
    from ui.consensus_view import spread_text

    differing, _, _ = heterogeneous_rankers(0.5, n_rankers=150, seed=3)
    sharing, _, _ = heterogeneous_rankers(0.0, n_rankers=150, seed=3)
    one_each, _, _ = heterogeneous_rankers(0.0, n_rankers=150, seed=3, lists_per_ranker=1)
    found = {name: rank_uncertainty(prefs, n_draws=20, random_state=0)
             for name, prefs in [("differing", differing), ("sharing", sharing),
                                 ("one each", one_each),
                                 ("nameless", differing._replace(rankers=None))]}
    assert found["differing"].heterogeneity.variance > 0
    assert found["sharing"].heterogeneity.measurable
    assert found["sharing"].heterogeneity.variance == 0
    assert not found["one each"].heterogeneity.measurable
    assert not found["nameless"].heterogeneity.measurable
    page = {name: spread_text(result) for name, result in found.items()}
    cli = {name: heterogeneity_note(result) for name, result in found.items()}
    sd = f"{found['differing'].heterogeneity.sd:.2f}"
    assert "further rater like these" in page["differing"]
    # a teacher reads a factor on the strengths shown, not a log-scale standard deviation
    factor = f"about {np.exp(found['differing'].heterogeneity.sd):.1f} times higher or lower"
    assert factor in " ".join(page["differing"].split())
    assert "log scale" not in page["differing"]
    assert "further rater like these" in cli["differing"] and sd in cli["differing"]
    # not measured as 0: only not clearly above it (two raters' lists rarely tell)
    assert "no clear sign" in page["sharing"] and "no clear sign" in cli["sharing"]
    assert "no more than chance" not in page["sharing"] + cli["sharing"]
    assert "several lists that share an item" in page["one each"]
    assert "several lists that share an item" in cli["one each"]
    assert "name no raters" in page["nameless"] and "name no raters" in cli["nameless"]
    assert "rankers" not in cli["one each"] + cli["nameless"]
    assert "lists' consensus" not in page["nameless"] + cli["nameless"]
    assert "could not be measured" not in spread_text(
        rank_uncertainty(differing, "pl-em", n_draws=5, random_state=0))


def test_stop_during_the_spread_stops_the_likely_ranks():
    from coarsenrank_core.errors import Cancelled

    prefs, _, _ = heterogeneous_rankers(0.5, n_rankers=100, seed=4)
    asked = []

    def stop_after_the_refits() -> bool:
        asked.append(1)
        return len(asked) > 10  # the 10 refits pass, the first simulated data set stops

    with pytest.raises(Cancelled):
        rank_uncertainty(prefs, n_draws=10, random_state=0, should_stop=stop_after_the_refits)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n_items=st.integers(2, 9), n_prefs=st.integers(2, 40),
       n_rankers=st.integers(1, 8), tie_prob=st.sampled_from([0.0, 0.3]),
       weighted=st.booleans())
def test_property_the_default_likely_ranks_run_on_any_small_data_and_hold_the_rank(
        seed, n_items, n_prefs, n_rankers, tie_prob, weighted):
    from helpers import simulate

    rng = np.random.default_rng(seed)
    prefs = simulate(rng.normal(size=n_items), n_prefs,
                     lengths=tuple(range(2, min(4, n_items) + 1)), tie_prob=tie_prob,
                     n_rankers=n_rankers, seed=seed)
    if weighted:
        prefs = prefs._replace(weights=rng.integers(1, 4, size=len(prefs)).astype(float))
    result = rank_uncertainty(prefs, n_draws=8, random_state=seed)
    spread = result.heterogeneity
    if result.measurable:
        assert spread is not None
        assert spread.variance >= 0 and np.isfinite(spread.variance)
        if spread.variance > 0:
            assert spread.measurable and spread.variance == spread.estimate
        if not spread.measurable:
            assert spread.variance == 0
    low, high = result.rank_interval()
    assert np.all(low <= result.ranks) and np.all(result.ranks <= high)
    assert np.all(np.isfinite(result.draws)) and np.all(result.draws >= 0)


def test_rank_posterior_says_the_score_ranges_leave_out_the_raters_spread(tmp_path, capsys):
    """With the spread added, rank_low..rank_high widen but score_low..score_high do not: the
    command line must not call them "the same range" without saying so (BabyFace: items 1
    and 2 had disjoint score ranges and shared rank 1)."""
    from coarsenrank_core.cli import main

    differing, _, _ = heterogeneous_rankers(0.5, n_rankers=150, seed=3)
    path = tmp_path / "differing.csv"
    path.write_text(differing.to_csv())
    assert main(["rank", str(path), "--posterior", "--replicates", "20"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "more than chance explains" in err
    assert "score_low..score_high do not" in err


def test_the_page_says_the_chance_of_being_first_holds_the_spread_too():
    """The first-place chances are read off the same draws as the likely ranks: with the
    spread added the page, and the note on chances out of order, must say so."""
    from coarsenrank_core.uncertainty import order_note
    from ui.consensus_view import spread_text

    differing, _, _ = heterogeneous_rankers(0.5, n_rankers=150, seed=3)
    result = rank_uncertainty(differing, n_draws=20, random_state=0)
    assert result.heterogeneity.variance > 0
    assert "chance of being first hold that too" in " ".join(spread_text(result).split())
    assert "strays from the consensus item by item" in order_note(result)
    plain = rank_uncertainty(differing, n_draws=20, random_state=0, heterogeneity=False)
    assert "strays" not in order_note(plain)


def _as_pairs(prefs: Preferences) -> Preferences:
    """Every list written as all its pairs, winner first, each pair a list of its rater's."""
    import itertools
    winners, losers, raters = [], [], []
    for n, items in enumerate(prefs.to_lists()):
        for a, b in itertools.combinations(items, 2):
            winners.append(a)
            losers.append(b)
            raters.append(prefs.ranker_index[n])
    return Preferences.from_pairs(np.array(winners), np.array(losers), n_items=prefs.n_items,
                                  rankers=np.array(raters))


def test_rankings_written_as_pairs_are_not_read_as_raters_who_differ():
    """One ranking per rater, written as "winner, loser" rows: the pairs of one rater share
    items and agree, as pieces of one answer do, however alike the raters are. Read as
    separate answers they gave σ ≈ 1.2 and likely ranks 2.4 times as wide."""
    from coarsenrank_core.heterogeneity import split_rankings
    from coarsenrank_core.simulate import simulate_rankers, true_worths
    from coarsenrank_core.uncertainty import heterogeneity_note
    from ui.consensus_view import spread_text

    sim = simulate_rankers(true_worths(12, 1.0, random_state=0), 80, 5, random_state=1)
    pairs = _as_pairs(sim.preferences)
    assert split_rankings(pairs).all()
    result = rank_uncertainty(pairs, n_draws=20, random_state=0)
    assert result.heterogeneity.variance == 0
    assert not result.heterogeneity.measurable
    assert result.heterogeneity.split_rankers == 80
    assert "one ranking split into pairs" in spread_text(result)
    assert "one ranking split into pairs" in heterogeneity_note(result)


def test_split_rankings_matches_a_brute_force_check():
    import itertools

    from coarsenrank_core.heterogeneity import split_rankings
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_raters, n_items = 4, 5
        lists, raters = [], []
        for r in range(n_raters):
            kind = rng.integers(3)
            if kind == 0:  # a ranking as pairs (maybe one pair dropped or flipped)
                order = list(rng.permutation(n_items)[:rng.integers(2, n_items + 1)])
                pairs = [[a, b] for a, b in itertools.combinations(order, 2)]
                if rng.random() < 0.3 and len(pairs) > 1:
                    pairs.pop(rng.integers(len(pairs)))
                if rng.random() < 0.3:
                    pairs[0] = pairs[0][::-1]
            elif kind == 1:  # random pairs
                pairs = [list(rng.permutation(n_items)[:2]) for _ in range(rng.integers(1, 6))]
            else:  # a longer list among pairs
                pairs = [list(rng.permutation(n_items)[:3]), list(rng.permutation(n_items)[:2])]
            lists += pairs
            raters += [r] * len(pairs)
        prefs = Preferences.from_lists(lists, n_items=n_items, rankers=raters)
        expected = []
        for r in range(n_raters):
            mine = [tuple(x) for x, who in zip(lists, raters) if who == r]
            items = {i for x in mine for i in x}
            unordered = {frozenset(x) for x in mine}
            ok = (all(len(x) == 2 for x in mine) and len(items) >= 3
                  and len(unordered) == len(mine) == len(items) * (len(items) - 1) // 2
                  and any(all((a, b) in mine for a, b in itertools.combinations(order, 2))
                          for order in itertools.permutations(items)))
            expected.append(ok)
        assert list(split_rankings(prefs)) == expected, lists


def test_with_the_spread_no_sentence_says_the_likely_ranks_narrow_with_more_answers():
    """The caption said "It narrows as more people answer" and, two sentences on, that the
    range "stays wide ... however many answer"."""
    from coarsenrank_core.uncertainty import MIN_PAIR_OVERLAP
    from ui.consensus_view import heterogeneity_text, posterior_interval_text, spread_text

    differing, _, _ = heterogeneous_rankers(0.5, n_rankers=150, seed=3)
    result = rank_uncertainty(differing, n_draws=20, random_state=0)
    assert result.heterogeneity.variance > 0
    text = " ".join(spread_text(result).split())
    assert "however many answer" in text
    assert "narrows as more people answer" not in text
    posterior = posterior_interval_text(0.9, "ranker", MIN_PAIR_OVERLAP / 2, 400,
                                        result.heterogeneity)
    assert "narrow as more people answer" not in posterior
    assert heterogeneity_text(result.heterogeneity, "ranker") in posterior
    plain = rank_uncertainty(differing, n_draws=20, random_state=0, heterogeneity=False)
    assert "narrows as more people answer" in " ".join(spread_text(plain).split())


def test_simulated_raters_with_a_spread_are_found_to_differ_and_without_one_are_unchanged():
    from coarsenrank_core.simulate import simulate_rankers, true_worths

    worths = true_worths(12, 1.5, "even")
    plain = simulate_rankers(worths, 40, 5, lists_per_ranker=4, random_state=3)
    again = simulate_rankers(worths, 40, 5, lists_per_ranker=4, ranker_spread=0.0,
                             random_state=3)
    assert plain.preferences == again.preferences
    differing = simulate_rankers(worths, 200, 6, lists_per_ranker=5, ranker_spread=1.0,
                                 random_state=3).preferences
    sharing = simulate_rankers(worths, 200, 6, lists_per_ranker=5, random_state=3).preferences
    found = {name: rank_uncertainty(prefs, n_draws=10, random_state=0).heterogeneity
             for name, prefs in (("differing", differing), ("sharing", sharing))}
    assert found["differing"].variance > 0.4
    assert found["sharing"].variance == 0.0
    with pytest.raises(ValueError, match="ranker_spread"):
        simulate_rankers(worths, 5, 3, ranker_spread=-1.0)


def test_raters_who_only_repeat_one_set_of_items_are_told_why_the_spread_is_not_measured():
    from coarsenrank_core.simulate import simulate_rankers, true_worths
    from coarsenrank_core.uncertainty import unmeasured_spread_text

    worths = true_worths(6, 1.5, "even")
    once = simulate_rankers(worths, 40, 6, lists_per_ranker=1, random_state=2).preferences
    again = simulate_rankers(worths, 40, 6, lists_per_ranker=1, random_state=3).preferences
    # every rater ranks all six items twice: their two lists hold the very same items
    both = Preferences.from_lists(once.to_lists() + again.to_lists(), n_items=6,
                                  rankers=np.tile(np.arange(40), 2))
    result = rank_uncertainty(both, n_draws=10, random_state=0)
    spread = result.heterogeneity
    assert spread is not None and not spread.measurable and spread.repeats_only
    assert spread.variance == 0.0
    text = unmeasured_spread_text(result.unit, spread, "the likely ranks show")
    assert "very same items" in text and "sent twice" in text
    one_each = rank_uncertainty(once, n_draws=10, random_state=0).heterogeneity
    assert one_each is not None and not one_each.repeats_only
