"""Tests of the noise injectors: counts, provenance, distributions and invariances."""

import inspect
import itertools
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from coarsenrank_core import Preferences
from coarsenrank_core.metrics import kendall_distance
from coarsenrank_core.models import coarsen_pl
from coarsenrank_core.noise import (
    NOISE_TYPES,
    NoiseResult,
    altered_distance,
    magnify,
    mallows_insertions,
    mallows_swaps,
    replace_random,
    reverse_preferences,
    spammers,
    subsample,
)
from coarsenrank_core.simulate import simulate_pl

P_MIN = 1e-4
INJECTORS = [replace_random, reverse_preferences, mallows_swaps, spammers, subsample]


def half_up(x: float) -> int:
    return int(np.floor(x + 0.5))


@pytest.fixture(scope="module")
def strict():
    prefs, _ = simulate_pl(60, 400, length_range=(3, 7), n_rankers=40, random_state=1)
    return prefs


@pytest.fixture(scope="module")
def tied():
    prefs, _ = simulate_pl(12, 300, length_range=(2, 6), ties=0.25, n_rankers=25,
                           random_state=2)
    return prefs


def _content_differs(original, result):
    """Brute force: compare every output preference with its source as Python lists."""
    before = original.to_lists()
    after = result.preferences.to_lists()
    return np.array([after[i] != before[s] for i, s in enumerate(result.source.tolist())])


def _inversions(centre, output_rows):
    """Number of item pairs that each row of ``output_rows`` orders against ``centre``."""
    where = (output_rows[:, :, None] == centre[None, None, :]).argmax(axis=1)
    upper, lower = np.triu_indices(centre.size, 1)
    return (where[:, upper] > where[:, lower]).sum(axis=1)


def _identical_lists(lists, copies):
    return Preferences.from_lists([list(lists)] * copies)


# ---------------------------------------------------------------------- replace_random
def test_replace_random_replaces_exactly_the_rounded_count(strict):
    result = replace_random(strict, 0.3, random_state=0)
    assert isinstance(result, NoiseResult) and result.kind == "replace_random"
    assert result.altered.sum() == half_up(0.3 * len(strict)) == 120
    assert np.array_equal(result.source, np.arange(len(strict)))
    assert np.array_equal(result.altered, _content_differs(strict, result))
    noisy = result.preferences
    assert np.array_equal(noisy.lengths, strict.lengths)
    assert np.array_equal(noisy.rankers, strict.rankers)
    assert noisy.ranker_names == strict.ranker_names
    assert not noisy.has_ties
    assert result.fraction_altered == pytest.approx(0.3)
    assert dict(result.params) == {"fraction": 0.3, "random_state": 0}


def test_replace_random_rounds_half_up_and_handles_extremes():
    prefs, _ = simulate_pl(200, 5, length=4, random_state=0)
    assert replace_random(prefs, 0.5, random_state=1).altered.sum() == 3  # 2.5 -> 3
    assert not replace_random(prefs, 0.0, random_state=1).altered.any()
    assert replace_random(prefs, 1.0, random_state=1).altered.all()


def test_replace_random_draws_from_all_items():
    # sources use only items 0..2 of 30; random answers use all 30
    prefs = Preferences.from_lists([[0, 1, 2], [2, 1, 0]] * 500, n_items=30)
    result = replace_random(prefs, 1.0, random_state=3)
    counts = np.bincount(result.preferences.items, minlength=30)
    assert chisquare(counts).pvalue > P_MIN


def test_replace_random_reports_a_chance_identical_replacement_as_unaltered():
    prefs = Preferences.from_lists([[0, 1]] * 4000)  # M = 2: the replacement is [0,1] or [1,0]
    result = replace_random(prefs, 1.0, random_state=4)
    assert np.array_equal(result.altered, _content_differs(prefs, result))
    assert abs(result.fraction_altered - 0.5) < 4 * np.sqrt(0.25 / 4000)


# ---------------------------------------------------------------------- reverse
def test_reverse_is_an_involution_and_reverses_the_chosen(tied):
    once = reverse_preferences(tied, 0.4, random_state=5)
    twice = reverse_preferences(once.preferences, 0.4, random_state=5)
    assert twice.preferences == tied
    before, after = tied.to_lists(), once.preferences.to_lists()
    changed = np.array([a != b for a, b in zip(after, before)])
    assert np.array_equal(once.altered, changed)
    assert all(a == b[::-1] for a, b, hit in zip(after, before, once.altered) if hit)
    # exactly round(0.4 N) were chosen; only a single tied group is its own reverse
    self_reverse = sum(len(b) == 1 for b in before)
    assert once.altered.sum() <= half_up(0.4 * len(tied)) <= once.altered.sum() + self_reverse
    assert once.altered.sum() > 0.9 * half_up(0.4 * len(tied))


def test_reverse_keeps_tied_groups():
    prefs = Preferences.from_lists([[0, {1, 2}, 3], [{0, 1, 2}], [4, 5]])
    result = reverse_preferences(prefs, 1.0, random_state=0)
    assert result.preferences.to_lists() == [[3, frozenset({1, 2}), 0], [frozenset({0, 1, 2})],
                                             [5, 4]]
    assert result.altered.tolist() == [True, False, True]
    assert np.allclose(altered_distance(prefs, result), [5 / 6, 1.0])  # the tied pair stays


# ---------------------------------------------------------------------- mallows
def test_mallows_zero_dispersion_is_the_identity(tied):
    result = mallows_swaps(tied, 0.0, random_state=0)
    assert result.preferences == tied and not result.altered.any()


def test_mallows_full_dispersion_gives_uniform_orderings():
    prefs = _identical_lists([2, 0, 1], 30000)
    result = mallows_swaps(prefs, 1.0, random_state=1)
    rows = result.preferences.items.reshape(-1, 3)
    outcomes = list(itertools.permutations([2, 0, 1]))
    index = {o: i for i, o in enumerate(outcomes)}
    counts = np.bincount([index[tuple(r)] for r in rows.tolist()], minlength=6)
    assert chisquare(counts).pvalue > P_MIN


def test_mallows_three_items_match_the_exact_distribution():
    phi = 0.5
    prefs = _identical_lists([0, 1, 2], 40000)
    rows = mallows_swaps(prefs, phi, random_state=2).preferences.items.reshape(-1, 3)
    outcomes = list(itertools.permutations(range(3)))
    weights = np.array([phi ** kendall_distance(o, [0, 1, 2]) for o in outcomes])
    index = {o: i for i, o in enumerate(outcomes)}
    counts = np.bincount([index[tuple(r)] for r in rows.tolist()], minlength=6)
    assert chisquare(counts, weights / weights.sum() * counts.sum()).pvalue > P_MIN


@pytest.mark.parametrize(("k", "phi"), [(6, 0.6), (8, 0.9), (5, 0.2)])
def test_mallows_mean_inversions_match_the_exact_expectation(k, phi):
    n = 20000
    centre = np.random.default_rng(k).permutation(20)[:k]
    prefs = Preferences.from_arrays(np.tile(centre, n), np.full(n, k), n_items=20)
    rows = mallows_swaps(prefs, phi, random_state=3).preferences.items.reshape(-1, k)
    inversions = _inversions(centre, rows)
    exact = sum(sum(v * phi ** v for v in range(i)) / sum(phi ** v for v in range(i))
                for i in range(1, k + 1))
    assert abs(inversions.mean() - exact) < 4 * inversions.std() / np.sqrt(n)


def test_mallows_insertions_are_permutations_with_exact_probabilities():
    draws = mallows_insertions(30000, 4, 0.7, random_state=5)
    assert np.all(np.sort(draws, axis=1) == np.arange(4))
    outcomes = list(itertools.permutations(range(4)))
    weights = np.array([0.7 ** kendall_distance(o, range(4)) for o in outcomes])
    index = {o: i for i, o in enumerate(outcomes)}
    counts = np.bincount([index[tuple(r)] for r in draws.tolist()], minlength=24)
    assert chisquare(counts, weights / weights.sum() * counts.sum()).pvalue > P_MIN


def test_mallows_distance_grows_with_dispersion(strict):
    means = []
    for phi in (0.1, 0.4, 0.7, 1.0):
        result = mallows_swaps(strict, phi, random_state=6)
        means.append(altered_distance(strict, result).sum() / len(strict))
    assert all(a < b for a, b in zip(means, means[1:]))
    assert abs(means[-1] - 0.5) < 0.03  # uniform orderings: half the pairs swapped


def test_mallows_moves_tied_groups_as_units():
    prefs = _identical_lists([0, {1, 2}, 3], 24000)
    result = mallows_swaps(prefs, 1.0, random_state=7)
    lists = result.preferences.to_lists()
    assert all(frozenset({1, 2}) in pref and len(pref) == 3 for pref in lists)
    index = {o: i for i, o in enumerate(itertools.permutations([0, frozenset({1, 2}), 3]))}
    counts = np.bincount([index[tuple(p)] for p in lists], minlength=6)
    assert chisquare(counts).pvalue > P_MIN
    single = Preferences.from_lists([[{0, 1, 2}]])
    assert not mallows_swaps(single, 1.0, random_state=0).altered.any()


# ---------------------------------------------------------------------- spammers
def test_spammers_touch_only_the_chosen_rankers(strict):
    result = spammers(strict, 0.25, random_state=8)
    chosen = np.asarray(result.extra["spammers"])
    assert chosen.size == half_up(0.25 * strict.n_rankers) == 10
    assert np.unique(chosen).size == chosen.size
    of_spammer = np.isin(strict.rankers, chosen)
    assert not result.altered[~of_spammer].any()
    assert result.altered[of_spammer].mean() > 0.9  # lists of 3+ items rarely stay put
    assert np.array_equal(result.altered, _content_differs(strict, result))
    noisy = result.preferences
    for n in range(len(strict)):  # item sets are kept
        lo, hi = strict.offsets[n], strict.offsets[n + 1]
        assert np.array_equal(np.sort(noisy.items[lo:hi]), np.sort(strict.items[lo:hi]))


def test_spammers_answers_are_uniform_and_strict():
    prefs = Preferences.from_lists([[{0, 1}, 2]] * 24000, rankers=np.arange(24000))
    result = spammers(prefs, 1.0, random_state=9)
    assert not result.preferences.has_ties
    rows = result.preferences.items.reshape(-1, 3)
    index = {o: i for i, o in enumerate(itertools.permutations(range(3)))}
    counts = np.bincount([index[tuple(r)] for r in rows.tolist()], minlength=6)
    assert chisquare(counts).pvalue > P_MIN


def test_spammers_without_rankers_treat_each_preference_as_a_ranker():
    prefs, _ = simulate_pl(50, 101, length=5, random_state=0)
    result = spammers(prefs, 0.2, random_state=1)
    assert result.extra["spammers"].size == 20
    assert result.altered.sum() <= 20 and result.altered.sum() >= 18
    assert not result.preferences.has_rankers


# ---------------------------------------------------------------------- subsample
@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.35, 1.0])
def test_subsample_keeps_the_rounded_share_per_ranker(tied, fraction):
    result = subsample(tied, fraction, random_state=10)
    per_ranker = np.bincount(tied.rankers, minlength=tied.n_rankers)
    kept = np.bincount(result.preferences.rankers, minlength=tied.n_rankers)
    expected = np.maximum(1, np.floor(fraction * per_ranker + 0.5))
    assert np.array_equal(kept, expected)
    assert np.all(np.diff(result.source) > 0)
    assert result.preferences == tied.subset(result.source)
    assert not result.altered.any()


def test_subsample_without_rankers_samples_the_whole_collection():
    prefs, _ = simulate_pl(10, 200, length=3, random_state=0)
    assert len(subsample(prefs, 0.1, random_state=0).preferences) == 20
    assert len(subsample(prefs, 0.001, random_state=0).preferences) == 1


def test_subsample_choice_is_uniform():
    prefs = Preferences.from_lists([[0, 1]] * 10, rankers=[0] * 10)
    hits = np.zeros(10)
    for seed in range(3000):
        hits[subsample(prefs, 0.2, random_state=seed).source] += 1
    assert hits.sum() == 6000
    assert chisquare(hits).pvalue > P_MIN


# ---------------------------------------------------------------------- magnify
def test_magnify_tiles_the_collection(tied):
    result = magnify(tied, 3)
    assert len(result.preferences) == 3 * len(tied)
    assert np.array_equal(result.source, np.tile(np.arange(len(tied)), 3))
    assert not result.altered.any()
    assert result.preferences.subset(np.arange(len(tied), 2 * len(tied))) == tied
    assert result.preferences.total_weight == 3 * tied.total_weight
    assert magnify(tied, 1).preferences == tied


def test_magnify_equals_tripled_weights_and_keeps_scores_at_the_matching_alpha():
    prefs, _ = simulate_pl(8, 60, length=3, random_state=0)
    factor, alpha, n = 3, 10.0, 60
    fit = dict(prior=(2.0, 1.0), tol=1e-13, max_iter=10000)
    big = magnify(prefs, factor).preferences
    heavy = prefs._replace(weights=prefs.weights * factor)
    assert np.allclose(coarsen_pl(big, alpha=alpha, **fit).scores,
                       coarsen_pl(heavy, alpha=alpha, **fit).scores, rtol=1e-9)
    # same scores as the original when tau·factor is kept: alpha_F solves
    # alpha_F / (alpha_F + F N) = tau / F (scaling alpha by F keeps tau, not tau·F)
    alpha_f = alpha * n / (alpha + n - alpha / factor)
    original = coarsen_pl(prefs, alpha=alpha, **fit)
    magnified = coarsen_pl(big, alpha=alpha_f, **fit)
    assert np.isclose(magnified.tau * factor, original.tau)
    assert np.allclose(magnified.scores, original.scores, rtol=1e-9)
    scaled = coarsen_pl(big, alpha=alpha * factor, **fit)
    assert np.isclose(scaled.tau, original.tau)
    assert not np.allclose(scaled.scores, original.scores, rtol=1e-3)


def test_magnify_rejects_bad_factors(tied):
    for factor in (0, -1, 1.5):
        with pytest.raises(ValueError):
            magnify(tied, factor)


# ---------------------------------------------------------------------- altered_distance
def test_altered_distance_is_the_normalised_kendall_distance(strict):
    result = mallows_swaps(strict, 0.5, random_state=11)
    distance = altered_distance(strict, result)
    rows = np.flatnonzero(result.altered)
    assert distance.shape == rows.shape
    noisy = result.preferences
    for d, n in zip(distance, rows):
        lo, hi = strict.offsets[n], strict.offsets[n + 1]
        k = hi - lo
        expected = kendall_distance(strict.items[lo:hi], noisy.items[lo:hi]) / (k * (k - 1) / 2)
        assert d == pytest.approx(expected)
    assert np.all(distance > 0)


def test_altered_distance_counts_ties_and_missing_items():
    prefs = Preferences.from_lists([[{0, 1}, 2], [0, 1, 2], [0, 1, 2, 3]], n_items=8)
    noisy = Preferences.from_lists([[0, 1, 2], [0, {1, 2}], [4, 5, 6, 0]], n_items=8)
    result = NoiseResult(noisy, np.arange(3), np.ones(3, bool))
    assert np.allclose(altered_distance(prefs, result), [1 / 3, 1 / 3, 1.0])
    assert altered_distance(prefs, NoiseResult(prefs, np.arange(3), np.zeros(3, bool))).size == 0


def test_random_replacements_are_far_from_their_sources(strict):
    distance = altered_distance(strict, replace_random(strict, 0.5, random_state=12))
    assert distance.mean() > 0.9
    assert np.allclose(altered_distance(strict, reverse_preferences(strict, 0.5, 0)), 1.0)


# ---------------------------------------------------------------------- common behaviour
@pytest.mark.parametrize("injector", INJECTORS)
def test_injectors_are_seeded_and_leave_the_input_alone(injector, tied):
    fingerprint = tied.fingerprint
    level = 0.5
    first = injector(tied, level, random_state=13)
    again = injector(tied, level, random_state=13)
    other = injector(tied, level, random_state=14)
    assert first.preferences == again.preferences
    assert np.array_equal(first.source, again.source)
    assert np.array_equal(first.altered, again.altered)
    assert (first.preferences != other.preferences or not np.array_equal(first.source,
                                                                          other.source))
    assert tied.fingerprint == fingerprint
    assert first.preferences.item_names == tied.item_names
    assert first.preferences.ranker_names == tied.ranker_names
    with pytest.raises(ValueError):
        injector(tied, 1.5)
    with pytest.raises(ValueError):
        injector(tied, -0.1)


def test_result_arrays_and_params_are_read_only(tied):
    result = spammers(tied, 0.3, random_state=0)
    with pytest.raises(ValueError):
        result.source[0] = 1
    with pytest.raises(ValueError):
        result.altered[0] = True
    with pytest.raises(TypeError):
        result.params["fraction"] = 0.9


def test_noise_menu_entries_are_usable(tied):
    assert set(NOISE_TYPES) == {"replace_random", "reverse_preferences", "mallows_swaps",
                                "spammers", "subsample"}
    labels = [entry.label for entry in NOISE_TYPES.values()]
    assert len(set(labels)) == len(labels)
    for key, entry in NOISE_TYPES.items():
        low, high, default = entry.range
        assert low <= default <= high
        assert entry.parameter in inspect.signature(entry.function).parameters
        assert entry.description.strip() and entry.label.strip()
        result = entry.function(tied, **{entry.parameter: default}, random_state=0)
        assert result.kind == key


def test_empty_collection_is_handled():
    empty = Preferences.from_arrays(np.zeros(0, int), np.zeros(0, int), n_items=4)
    for injector in INJECTORS:
        result = injector(empty, 0.5, random_state=0)
        assert len(result.preferences) == 0 and result.fraction_altered == 0.0
    assert len(magnify(empty, 5).preferences) == 0


# ---------------------------------------------------------------------- property
@st.composite
def collections(draw):
    n_items = draw(st.integers(2, 7))
    n = draw(st.integers(1, 12))
    items, lengths, groups, rankers = [], [], [], []
    for _ in range(n):
        k = draw(st.integers(2, n_items))
        items += draw(st.permutations(range(n_items)))[:k]
        steps = draw(st.lists(st.booleans(), min_size=k - 1, max_size=k - 1))
        groups += np.concatenate([[0], np.cumsum(steps)]).tolist()
        lengths.append(k)
        rankers.append(draw(st.integers(0, 3)))
    with_rankers = draw(st.booleans())
    return Preferences.from_arrays(
        items, lengths, groups=groups, n_items=n_items,
        rankers=np.unique(rankers, return_inverse=True)[1] if with_rankers else None)


@settings(max_examples=60, deadline=None)
@given(prefs=collections(), level=st.floats(0.01, 1.0), seed=st.integers(0, 2**16),
       which=st.sampled_from(range(5)))
def test_every_injector_returns_valid_provenance(prefs, level, seed, which):
    result = INJECTORS[which](prefs, level, random_state=seed)
    noisy = result.preferences
    assert isinstance(noisy, Preferences) and noisy.n_items == prefs.n_items
    assert result.source.shape == result.altered.shape == (len(noisy),)
    assert np.all((result.source >= 0) & (result.source < len(prefs)))
    assert np.array_equal(result.altered, _content_differs(prefs, result))
    before, after = prefs.to_lists(), noisy.to_lists()
    for out, src in enumerate(result.source.tolist()):
        if not result.altered[out]:
            assert after[out] == before[src]
        assert len(after[out]) > 0
        assert noisy.lengths[out] == prefs.lengths[src]
        if which != 0:  # only replace_random draws new items
            lo, hi = noisy.offsets[out], noisy.offsets[out + 1]
            slo, shi = prefs.offsets[src], prefs.offsets[src + 1]
            assert np.array_equal(np.sort(noisy.items[lo:hi]), np.sort(prefs.items[slo:shi]))
        assert noisy.ranker_index[out] == prefs.ranker_index[src] or not prefs.has_rankers
    distance = altered_distance(prefs, result)
    assert distance.shape == (result.n_altered,)
    assert np.all((distance > 0) & (distance <= 1))
    big = magnify(prefs, 2)
    assert big.preferences.to_lists() == before + before


# ------------------------------------------------------------------ resource limits
# (moved from test_limits.py: costs bounded by the data, memory linear in the items)
def _mixed_preferences(rng, n=60, m=12):
    lists = []
    for _ in range(n):
        k = int(rng.integers(2, m + 1))
        items = rng.permutation(m)[:k].tolist()
        if k >= 4 and rng.random() < 0.5:  # a tied group in the middle
            items = [items[0], frozenset(items[1:3]), *items[3:]]
        lists.append(items)
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
    from coarsenrank_core import noise

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
    from coarsenrank_core import noise

    # 100,000 items: the insertion loop would touch 5·10⁹ cells, the free slots 3.4·10⁶
    k = 100_000
    prefs = Preferences.from_arrays(np.arange(k), [k])
    result = noise.mallows_swaps(prefs, 0.3, random_state=0)
    items = result.preferences.items
    np.testing.assert_array_equal(np.sort(items), np.arange(k))
    moved = np.mean(items != np.arange(k))
    assert 0.1 < moved < 0.9  # φ = 0.3: mostly neighbours swapped
    assert 0 < noise.altered_distance(prefs, result)[0] < 0.01


def test_the_replacing_noise_is_named_for_lists_and_points_to_spammers_for_raters():
    from coarsenrank_core.noise import NOISE_TYPES

    kind = NOISE_TYPES["replace_random"]
    assert "raters" not in kind.label.lower() and "lists" in kind.label
    assert "Spammers" in kind.description and NOISE_TYPES["spammers"].label.startswith(
        "Spammers")
