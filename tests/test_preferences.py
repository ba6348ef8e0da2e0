"""The Preferences data class: construction, validation, summaries, components, rank-breaking."""

import csv
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core import Preferences
from coarsenrank_core.preferences import CANONICAL_COLUMNS


def test_from_lists_stores_flat_arrays_with_tied_groups():
    prefs = Preferences.from_lists([[2, 0, 1], [1, {0, 2}], [0, 1]])
    assert prefs.items.tolist() == [2, 0, 1, 1, 0, 2, 0, 1]
    assert prefs.offsets.tolist() == [0, 3, 6, 8]
    assert prefs.groups.tolist() == [0, 1, 2, 0, 1, 1, 0, 1]
    assert prefs.n_items == 3 and len(prefs) == 3
    assert prefs.lengths.tolist() == [3, 3, 2]
    assert prefs.n_groups.tolist() == [3, 2, 2]
    assert prefs.has_ties and not prefs.is_pairwise
    assert prefs.to_lists() == [[2, 0, 1], [1, frozenset({0, 2})], [0, 1]]


def test_arrays_are_read_only():
    prefs = Preferences.from_lists([[0, 1]])
    with pytest.raises(ValueError):
        prefs.items[0] = 1
    with pytest.raises(AttributeError):
        prefs.n_items = 5
    # a caller's writable arrays are copied; arrays already read-only are shared
    winners, losers = np.array([0, 1]), np.array([1, 0])
    pairs = Preferences.from_pairs(winners, losers, weights=np.array([1.0, 2.0]))
    winners[0] = 1
    assert pairs.items.tolist() == [0, 1, 1, 0] and not pairs.weights.flags.writeable
    frozen = np.array([1.0, 2.0])
    frozen.flags.writeable = False
    assert pairs._replace(weights=frozen).weights is frozen


@pytest.mark.parametrize("lists, message", [
    ([[0]], "at least 2"),
    ([[0, 0]], "more than once"),
    ([[0, {1, 0}]], "more than once"),
    ([[0, 5]], None),
])
def test_invalid_lists_are_rejected(lists, message):
    if message is None:
        with pytest.raises(ValueError, match="item ids"):
            Preferences.from_lists(lists, n_items=3)
    else:
        with pytest.raises(ValueError, match=message):
            Preferences.from_lists(lists)


def test_weights_and_rankers_are_validated():
    with pytest.raises(ValueError, match="weights"):
        Preferences.from_lists([[0, 1]], weights=[0.0])
    with pytest.raises(ValueError, match="rankers"):
        Preferences.from_lists([[0, 1], [1, 0]], rankers=["a"])
    prefs = Preferences.from_lists([[0, 1], [1, 0], [0, 1]], rankers=["ann", "bob", "ann"])
    assert prefs.rankers.tolist() == [0, 1, 0]
    assert prefs.ranker_names == ("ann", "bob")


RANGE = "weights must be finite numbers from 1e-12 to 1e12"


@pytest.mark.parametrize("weights", [[1e308, 1e308], [1e-320, 1.0], [0.0, 1.0], [-1.0, 1.0],
                                     [float("nan"), 1.0], [float("inf"), 1.0],
                                     [1.0, 1e12 * (1 + 1e-15)], [1.0, 0.99e-12]])
def test_weights_outside_the_accepted_range_are_rejected_with_the_range(weights):
    with pytest.raises(ValueError, match=RANGE) as error:
        Preferences.from_lists([[0, 1], [1, 0]], weights=weights)
    bad = 1 if weights[0] != 1.0 else 2
    assert f"preference {bad} " in str(error.value)
    with pytest.raises(ValueError, match=RANGE):
        Preferences.from_pairs([0, 1], [1, 0], weights=weights)


@pytest.mark.slow  # fits every registered method
def test_weights_at_the_ends_of_the_range_give_finite_scores_for_every_method():
    from coarsenrank_core.registry import METHODS, run_method

    lists = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2]]
    for weights in ([1e-12] * 5, [1e12] * 5, [1e12, 1e-12, 1e-12, 1.0, 1e-12]):
        prefs = Preferences.from_lists(lists, weights=weights, rankers=[0, 1, 0, 1, 2])
        assert np.isfinite(prefs.total_weight)
        assert np.isfinite(prefs.rank_break().total_weight)
        for method in METHODS:
            with np.errstate(over="raise", invalid="raise"):
                result = run_method(method, prefs, alpha=10.0)
            assert np.all(np.isfinite(result.scores)), (method, weights)


def test_summary_counts():
    prefs = Preferences.from_lists([[0, 1, 2], [1, 0], [3, {1, 2}]], n_items=5,
                                   rankers=["a", "a", "b"], weights=[1, 2, 1])
    summary = prefs.summary()
    assert summary.n_items == 5 and summary.n_preferences == 3 and summary.n_rankers == 2
    assert summary.total_weight == 4.0
    assert summary.length_counts == {2: 1, 3: 2}
    assert summary.preferences_per_ranker.tolist() == [2, 1]
    assert summary.appearances.tolist() == [2, 3, 2, 1, 0]
    # stage winners: 0 and 1 in the first list, 1 in the second, 3 then 1 and 2 (tied
    # trailing group of two adds two stages) in the third
    assert summary.wins.tolist() == [1, 3, 1, 1, 0]
    assert summary.n_tied_preferences == 1
    assert summary.n_components == 1


def test_components_weak_and_strong():
    prefs = Preferences.from_lists([[0, 1], [1, 2], [3, 4]], n_items=6)
    weak = prefs.components()
    assert [c.tolist() for c in weak] == [[0, 1, 2], [3, 4]]
    # 0 > 1 > 2 with no way back: every item is its own strong component
    assert len(prefs.components(strong=True)) == 5
    cycle = Preferences.from_lists([[0, 1], [1, 2], [2, 0]])
    assert [c.tolist() for c in cycle.components(strong=True)] == [[0, 1, 2]]
    tied = Preferences.from_lists([[0, {1, 2}], [2, 0]])
    assert [c.tolist() for c in tied.components(strong=True)] == [[0, 1, 2]]


def _brute_pairs(lists, weights):
    pairs = []
    for pref, w in zip(lists, weights):
        groups = [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]
        for i, upper in enumerate(groups):
            for lower in groups[i + 1:]:
                pairs.extend((a, b, w) for a in upper for b in lower)
    return sorted(pairs)


lists_strategy = st.lists(
    st.permutations(range(6)).flatmap(
        lambda perm: st.integers(2, 6).flatmap(
            lambda k: st.lists(st.booleans(), min_size=k - 1, max_size=k - 1).map(
                lambda cuts: _with_ties(perm[:k], cuts)))),
    min_size=1, max_size=8)


def _with_ties(order, tie_flags):
    out, current = [], [order[0]]
    for item, tied in zip(order[1:], tie_flags):
        if tied:
            current.append(item)
        else:
            out.append(current)
            current = [item]
    out.append(current)
    if len(out) == 1 and len(out[0]) < 2:
        return [order[0], order[1]]
    return [g[0] if len(g) == 1 else frozenset(g) for g in out]


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.data())
def test_rank_break_matches_brute_force(lists, data):
    weights = data.draw(st.lists(st.sampled_from([1.0, 2.0, 0.5]), min_size=len(lists),
                                 max_size=len(lists)))
    prefs = Preferences.from_lists(lists, n_items=6, weights=weights)
    pairs, source = prefs.rank_break(return_source=True)
    got = sorted(zip(pairs.items[0::2].tolist(), pairs.items[1::2].tolist(),
                     pairs.weights.tolist()))
    assert got == _brute_pairs(prefs.to_lists(), weights)
    assert np.all(np.diff(source) >= 0)
    assert pairs.is_pairwise


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.booleans())
def test_count_pairs_counts_what_rank_break_builds(lists, keep_ties):
    prefs = Preferences.from_lists(lists, n_items=6)
    assert prefs.count_pairs(keep_ties) == len(prefs.rank_break(keep_ties=keep_ties))


@pytest.mark.slow  # builds lists long enough to cross the pair limit
def test_rank_break_refuses_pairs_that_grow_with_the_square_of_the_lists():
    import tracemalloc

    from coarsenrank_core.preferences import MAX_PAIRS

    # 4 rankings of 4,000 items (a 100 KB file) would give 32 million pairs (2.5 GB)
    rng = np.random.default_rng(0)
    items = np.concatenate([rng.permutation(4000) for _ in range(4)])
    long_lists = Preferences.from_arrays(items, [4000] * 4, n_items=4000)
    assert long_lists.count_pairs() == 4 * 4000 * 3999 // 2 > MAX_PAIRS
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="31,992,000 pairs.*k\\(k-1\\)/2.*5,000,000"):
            long_lists.rank_break()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5e6
    from coarsenrank_core.registry import run_method

    for method in ("crowdbt", "coarsen-th"):
        with pytest.raises(ValueError, match="whole rankings"):
            run_method(method, long_lists, alpha=10.0)
    one = Preferences.from_arrays(np.arange(1500), [1500])
    assert len(one.rank_break(max_pairs=1_124_250)) == 1500 * 1499 // 2
    with pytest.raises(ValueError, match="1,124,250 pairs"):
        one.rank_break(max_pairs=1_124_249)
    assert len(one.rank_break(max_pairs=0)) == 1500 * 1499 // 2
    # 5 million pairs with rankers and sources: about 80 bytes a pair at the peak
    rng = np.random.default_rng(1)
    n = 111_111
    tens = Preferences.from_arrays(np.argsort(rng.random((n, 200)), axis=1)[:, :10].ravel(),
                                   [10] * n, n_items=200, rankers=rng.integers(0, 100, n))
    tens.owner, tens.positions  # noqa: B018 - cached layout, as after any other use
    tracemalloc.start()
    try:
        broken, source = tens.rank_break(return_source=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(broken) == 45 * n <= MAX_PAIRS and peak < 100 * len(broken)
    assert not broken.items.flags.writeable and not source.flags.writeable
    # pairs already are pairs: nothing is built, nothing is refused
    pairs = Preferences.from_pairs(np.zeros(6_000_000, np.intp), np.ones(6_000_000, np.intp))
    assert pairs.rank_break() is pairs


def test_the_pair_cap_counts_only_the_pairs_that_rank_breaking_adds():
    # tied pairs are not "pairwise" (they go through rank-breaking) but are pairs already
    n = 3000
    tied = Preferences.from_pairs(np.arange(n) % 7, (np.arange(n) + 1) % 7, 7,
                                  tied=np.arange(n) % 2 == 0)
    assert len(tied.rank_break(max_pairs=10)) == n // 2
    assert len(tied.rank_break(keep_ties=True, max_pairs=10)) == n
    mixed = Preferences.from_lists([[0, 1], [2, 1], [0, 1, 2, 3, 4], [{0, 1}]] * 10)
    assert len(mixed.rank_break(max_pairs=100)) == 20 + 100
    with pytest.raises(ValueError, match="100 pairs"):
        mixed.rank_break(max_pairs=99)


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.data())
def test_subset_selects_the_same_preferences(lists, data):
    prefs = Preferences.from_lists(lists, n_items=6, rankers=[i % 3 for i in range(len(lists))])
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(lists), max_size=len(lists))))
    sub = prefs.subset(mask)
    assert sub.to_lists() == [p for p, keep in zip(prefs.to_lists(), mask) if keep]
    assert sub.n_items == prefs.n_items
    by_ranker = prefs.subset_rankers([1])
    assert len(by_ranker) == int(np.sum(prefs.rankers == 1))


@settings(max_examples=40, deadline=None)
@given(lists_strategy, st.permutations(range(6)))
def test_relabel_moves_items_and_names(lists, perm):
    prefs = Preferences.from_lists(lists, n_items=6, item_names=list("abcdef"))
    moved = prefs.relabel(perm)
    assert moved.to_lists(names=True) == prefs.to_lists(names=True)


def test_merge_duplicates_sums_weights():
    prefs = Preferences.from_lists([[0, 1], [1, 0], [0, 1], [0, 1]], rankers=[0, 0, 0, 1],
                                   weights=[1, 1, 2, 1])
    merged = prefs.merge_duplicates()
    assert merged.to_lists() == [[0, 1], [1, 0], [0, 1]]
    assert merged.weights.tolist() == [3.0, 1.0, 1.0]
    assert merged.total_weight == prefs.total_weight


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.data())
def test_merge_duplicates_matches_a_dictionary_of_copies(lists, data):
    lists = lists + data.draw(st.lists(st.sampled_from(lists), max_size=6))
    rankers = data.draw(st.lists(st.integers(0, 1), min_size=len(lists), max_size=len(lists)))
    weights = data.draw(st.lists(st.sampled_from([1.0, 2.0, 0.5]), min_size=len(lists),
                                 max_size=len(lists)))
    prefs = Preferences.from_lists(lists, n_items=6, rankers=rankers, weights=weights)
    expected: dict = {}
    for pref, ranker, weight in zip(prefs.to_lists(), prefs.rankers.tolist(), weights):
        key = (repr([sorted(g) if isinstance(g, frozenset) else g for g in pref]), ranker)
        expected[key] = expected.get(key, 0.0) + weight  # dicts keep first-seen order
    merged = prefs.merge_duplicates()
    got = [(repr([sorted(g) if isinstance(g, frozenset) else g for g in pref]), ranker)
           for pref, ranker in zip(merged.to_lists(), merged.rankers.tolist())]
    assert got == list(expected)
    np.testing.assert_allclose(merged.weights, list(expected.values()))


def test_merge_duplicates_memory_grows_with_the_data_not_the_longest_list():
    import tracemalloc

    # one ranking of 200,000 items beside 100,000 pairs: a table as wide as the longest
    # ranking would hold 100,001 x 400,001 numbers (320 GB)
    items = np.concatenate([np.arange(200_000), np.tile([0, 1], 100_000)])
    prefs = Preferences.from_arrays(items, [200_000] + [2] * 100_000,
                                    rankers=np.zeros(100_001, np.intp))
    tracemalloc.start()
    try:
        merged = prefs.merge_duplicates()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(merged) == 2 and merged.weights.tolist() == [1.0, 100_000.0]
    assert peak < 100e6


def test_canonical_csv_has_one_row_per_entry():
    prefs = Preferences.from_lists([[1, {0, 2}]], item_names=["a", "b", "c"], rankers=["r"])
    assert prefs.to_csv().splitlines() == ["preference,ranker,weight,item,rank",
                                           "1,r,1,b,1", "1,r,1,a,2", "1,r,1,c,2"]


def test_canonical_csv_neutralises_formula_names_by_default():
    from coarsenrank_core.export import neutralise_cell

    names = ["=HYPERLINK(\"http://evil\")", "+1", "-a", "@SUM(A1)", "\tx", "plain", "a=b", "b"]
    prefs = Preferences.from_lists([[0, 1, 2, 3], [4, 5, 6, 7]], item_names=names,
                                   rankers=["=cmd|' /C calc'!A0", "bob"])
    assert prefs.to_csv() == prefs.to_csv(neutralise=True)
    rows = list(csv.reader(io.StringIO(prefs.to_csv())))
    assert rows[0] == list(CANONICAL_COLUMNS)
    items = [row[3] for row in rows[1:]]
    assert items == [neutralise_cell(n) for n in names]
    assert items[:5] == ["'" + n for n in names[:5]] and items[5:] == ["plain", "a=b", "b"]
    assert {row[1] for row in rows[1:]} == {"'=cmd|' /C calc'!A0", "bob"}
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r"))
                   for row in rows[1:] for cell in row)
    # neutralise=False writes the names as they are; either file reads back equal
    plain = list(csv.reader(io.StringIO(prefs.to_csv(neutralise=False))))
    assert [row[3] for row in plain[1:]] == names
    from coarsenrank_core import read_preferences

    stripped = [[name.strip() for name in pref] for pref in prefs.to_lists(names=True)]
    for text in (prefs.to_csv(), prefs.to_csv(neutralise=False)):  # readers trim the tab
        assert read_preferences(text.encode()).to_lists(names=True) == stripped
    # a carriage return (which Python's csv writer leaves unquoted) is neutralised too
    assert "'\ry" in Preferences.from_lists([[0, 1]], item_names=["\ry", "z"]).to_csv(
        neutralise=True)
    numbered = Preferences.from_lists([[1, 0]], rankers=[7])
    assert numbered.to_csv(neutralise=True) == numbered.to_csv()


def test_equality_and_fingerprint():
    a = Preferences.from_lists([[0, 1], [1, {0, 2}]])
    b = Preferences.from_lists([[0, 1], [1, {2, 0}]])
    c = Preferences.from_lists([[0, 1], [1, 0, 2]])
    assert a == b and hash(a) == hash(b)
    assert a != c


def test_from_pairs_with_ties_and_large_input_is_fast_path():
    prefs = Preferences.from_pairs([0, 1, 2], [1, 2, 0], tied=[False, True, False])
    assert prefs.to_lists() == [[0, 1], [frozenset({1, 2})], [2, 0]]
    with pytest.raises(ValueError, match="more than once"):
        Preferences.from_pairs([0, 1], [1, 1])


def test_tied_pairs_are_stored_in_canonical_order():
    prefs = Preferences.from_pairs([2, 0], [1, 3], tied=[True, False])
    assert prefs.items.tolist() == [1, 2, 0, 3]
    assert prefs == Preferences.from_lists([[{1, 2}], [0, 3]])
    with pytest.raises(ValueError, match="tied-group"):
        Preferences(items=[0, 1], offsets=[0, 2], groups=[1, 1], n_items=2)


def _to_lists_reference(prefs, names=False):
    """to_lists written the direct way: one tied group at a time."""
    label = (lambda i: prefs.item_names[i]) if names else int
    out = []
    for n in range(len(prefs)):
        lo, hi = prefs.offsets[n], prefs.offsets[n + 1]
        pref = []
        for g in range(int(prefs.groups[hi - 1]) + 1):
            members = prefs.items[lo:hi][prefs.groups[lo:hi] == g]
            pref.append(label(members[0]) if members.size == 1
                        else frozenset(label(m) for m in members))
        out.append(pref)
    return out


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.integers(0, 10))
def test_to_lists_round_trips_and_stops_early(lists, stop):
    prefs = Preferences.from_lists(lists, n_items=6, item_names=list("abcdef"))
    assert prefs.to_lists() == _to_lists_reference(prefs) == lists
    named = prefs.to_lists(names=True)
    assert named == _to_lists_reference(prefs, names=True)
    assert prefs.to_lists(names=True, stop=stop) == named[:stop]
    assert all(type(i) is int for pref in prefs.to_lists() for i in pref if isinstance(i, int))


@settings(max_examples=60, deadline=None)
@given(lists_strategy, st.booleans())
def test_components_equal_a_scan_per_component(lists, strong):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    prefs = Preferences.from_lists(lists, n_items=8)
    present = np.flatnonzero(prefs.appearances() > 0)
    src, dst = [], []
    for pref in prefs.to_lists():
        groups = [sorted(g) if isinstance(g, frozenset) else [g] for g in pref]
        for upper, lower in zip(groups, groups[1:]):
            for a in upper:
                for b in lower:
                    src.append(b if strong else a)
                    dst.append(a if strong else b)
        for group in groups:  # tied items reach each other both ways
            for a in group:
                for b in group:
                    if a != b:
                        src.append(a)
                        dst.append(b)
    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(8, 8))
    _, labels = connected_components(graph, directed=strong,
                                     connection="strong" if strong else "weak")
    expected = sorted((present[labels[present] == lab] for lab in np.unique(labels[present])),
                      key=lambda c: (-c.size, c[0]))
    got = prefs.components(strong=strong)
    assert [c.tolist() for c in got] == [c.tolist() for c in expected]


def test_components_of_many_disjoint_pairs_come_from_one_sort():
    # 200,000 components: scanning all 400,000 items once per component took minutes
    n = 200_000
    prefs = Preferences.from_pairs(np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2))
    components = prefs.components()
    assert len(components) == n == prefs.summary().n_components
    assert components[0].tolist() == [0, 1] and components[-1].tolist() == [2 * n - 2, 2 * n - 1]


def test_pooled_merges_identical_preferences_whoever_ranked_them():
    lists = [[0, 1, 2], [0, 1, 2], [2, 1, 0], [0, 1], [0, 1], [1, 0]] * 5
    prefs = Preferences.from_lists(lists, rankers=list(range(len(lists))),
                                   weights=[1.0, 2.0, 1.0, 0.5, 1.5, 1.0] * 5)
    pooled = prefs.pooled
    assert pooled.to_lists() == [[0, 1, 2], [2, 1, 0], [0, 1], [1, 0]]
    np.testing.assert_allclose(pooled.weights, [15.0, 5.0, 10.0, 5.0])
    assert pooled.rankers is None and pooled.total_weight == prefs.total_weight
    theta = np.array([1.0, 0.5, 0.25])
    assert pooled.stages.log_likelihood(theta) == pytest.approx(
        prefs.stages.log_likelihood(theta), rel=1e-13)
    distinct = Preferences.from_lists([[0, 1], [1, 2], [2, 0], [1, 0], [0, 2], [0, 1]])
    assert distinct.pooled is distinct  # 5 of 6 kept: not worth a second copy


@pytest.mark.parametrize("n_lengths", [3, 80])
def test_the_first_preference_with_a_repeated_item_is_named_whatever_the_lengths(n_lengths):
    # few distinct lengths: each block of rows is sorted; many: one key per entry is sorted
    rng = np.random.default_rng(n_lengths)
    lists = [list(rng.permutation(100)[:2 + i % n_lengths]) for i in range(300)]
    assert Preferences.from_lists(lists, n_items=100).n_preferences == 300
    for bad in (0, 137, 299):
        broken = [row[:] for row in lists]
        broken[bad][-1] = broken[bad][0]
        later = (bad + 50) % 300
        if later > bad:
            broken[later][1] = broken[later][0]
        with pytest.raises(ValueError, match=f"preference {bad} lists an item more than once"):
            Preferences.from_lists(broken, n_items=100)


def _pool_by_dict(prefs, tag=None):
    """Brute force: merged rows in order of first copy, summed weights, each row's group."""
    first: dict = {}
    index = []
    for n, row in enumerate(prefs.to_lists()):
        key = (tuple(x if isinstance(x, int) else tuple(sorted(x)) for x in row),
               None if tag is None else int(tag[n]))
        index.append(first.setdefault(key, len(first)))
    index = np.array(index)
    weights = np.bincount(index, weights=np.asarray(prefs.weights, float))
    return [list(k[0]) for k in first], weights, index


@pytest.mark.parametrize("by", ["count", "sort"])
@pytest.mark.parametrize("tagged", [False, True])
def test_pairs_pool_by_counting_keys_or_by_sorting_them_alike(monkeypatch, by, tagged):
    import coarsenrank_core.preferences as module

    if by == "sort":  # a key range too large to count: the sort fallback
        monkeypatch.setattr(module, "_COUNT_RANGE", -10**9)
    rng = np.random.default_rng(3)
    n = 2000
    winners = rng.integers(0, 6, n)
    losers = (winners + rng.integers(1, 6, n)) % 6
    prefs = Preferences.from_pairs(winners, losers, 6, tied=rng.random(n) < 0.2,
                                   weights=rng.choice([1.0, 2.5], n))
    tag = rng.integers(0, 3, n) if tagged else None
    merged, index = prefs.pool_identical(tag)
    rows, weights, groups = _pool_by_dict(prefs, tag)
    assert [[x if isinstance(x, int) else tuple(sorted(x)) for x in row]
            for row in merged.to_lists()] == rows
    np.testing.assert_allclose(merged.weights, weights, rtol=1e-12)
    np.testing.assert_array_equal(index, groups)
    assert prefs.pooling[0] is prefs.pooled


def test_pooling_keeps_rows_apart_by_tag_and_refuses_a_bad_tag():
    prefs = Preferences.from_lists([[0, 1, 2], [0, 1, 2], [0, 1, 2], [2, 1, 0]] * 3)
    merged, index = prefs.pool_identical(np.array([0, 0, 1, 0] * 3))
    assert merged.to_lists() == [[0, 1, 2], [0, 1, 2], [2, 1, 0]]
    np.testing.assert_allclose(merged.weights, [6.0, 3.0, 3.0])
    assert index.tolist() == [0, 0, 1, 2] * 3
    with pytest.raises(ValueError, match="tag"):
        prefs.pool_identical(np.array([0, -1] * 6))


@settings(max_examples=60, deadline=None)
@given(lists_strategy)
def test_vectorised_from_lists_equals_the_element_loop(lists):
    from coarsenrank_core.preferences import _flat_lists_with_ties

    prefs = Preferences.from_lists(lists, n_items=6)
    items, lengths, groups = _flat_lists_with_ties(lists, None)
    looped = Preferences.from_arrays(items, lengths, groups=groups, n_items=6)
    assert prefs == looped and prefs.to_lists() == looped.to_lists()


def test_from_lists_reads_2d_arrays_and_padded_rows_without_a_loop():
    rng = np.random.default_rng(2)
    table = np.argsort(rng.random((500, 30)), axis=1)[:, :6]
    expected = [row.tolist() for row in table]
    for data in (table, table.tolist(), [tuple(row) for row in expected], list(table)):
        prefs = Preferences.from_lists(data, n_items=30)
        assert prefs.to_lists() == expected
    padded = table.copy()
    padded[::2, 4:] = -1
    prefs = Preferences.from_lists(padded, pad=-1, n_items=30)
    assert prefs.lengths.tolist() == [4, 6] * 250
    assert prefs.to_lists()[0] == expected[0][:4] and prefs.to_lists()[1] == expected[1]
    assert Preferences.from_lists(padded.tolist(), pad=-1, n_items=30) == prefs
    ragged = [row[:2 + i % 5] for i, row in enumerate(expected)]
    assert Preferences.from_lists(ragged).to_lists() == ragged
    assert Preferences.from_lists([[0, 1, -1], [1, {0, 2}, -1]], pad=-1).to_lists() == [
        [0, 1], [1, frozenset({0, 2})]]
    holed = padded.copy()
    holed[7, 2] = -1
    with pytest.raises(ValueError, match="preference 8 .* after the padding -1"):
        Preferences.from_lists(holed, pad=-1)
    with pytest.raises(ValueError, match="item ids must lie"):
        Preferences.from_lists(padded)  # -1 is no item without pad
