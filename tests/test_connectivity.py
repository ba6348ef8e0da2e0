"""The warning about groups of items that no preference links."""

from hypothesis import given, settings
from hypothesis import strategies as st

from coarsenrank_core.connectivity import separate_groups_text
from coarsenrank_core.preferences import Preferences


def test_linked_items_give_no_warning_even_through_a_chain():
    prefs = Preferences.from_lists([[0, 1], [1, 2], [3, 2]], n_items=4)
    assert separate_groups_text(prefs) is None


def test_groups_are_listed_largest_first_with_escaped_names_and_a_count_of_the_rest():
    lists = [[0, 1, 2], [3, 4]] + [[5 + 2 * k, 6 + 2 * k] for k in range(6)]
    names = ("a*", "b", "c", "d", "e") + tuple(f"x{k}" for k in range(12))
    prefs = Preferences.from_lists(lists, n_items=17, item_names=names)
    text = separate_groups_text(prefs, escape=lambda n: n.replace("*", "\\\\*"), shown=3)
    assert text.startswith("The items fall into 8 groups that are never compared")
    assert "Groups: (a\\\\*, b, c); (d, e); (x0, x1); and 5 more." in text
    assert separate_groups_text(prefs, names_shown=2).count(" …") == 1  # only (a*, b …)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 7), min_size=2, max_size=4, unique=True),
                min_size=1, max_size=6))
def test_property_the_warning_appears_exactly_when_some_item_cannot_reach_another(lists):
    prefs = Preferences.from_lists(lists, n_items=8)
    present = sorted({i for items in lists for i in items})
    reach = {present[0]}  # brute force: grow the set of items reachable from the first
    grown = True
    while grown:
        grown = False
        for items in lists:
            if reach & set(items) and not set(items) <= reach:
                reach |= set(items)
                grown = True
    assert (separate_groups_text(prefs) is None) == (reach == set(present))


def _listed(text: str, label: str) -> list[str]:
    import re
    found = re.search(re.escape(label) + r": ([^.]*)\.", text)
    return [] if found is None else [part for part in found.group(1).split("; ")]


def _one_way_truth(lists, n_items):
    """Brute force: above[i, j] when j was ranked above (or tied with) i in some list."""
    import numpy as np
    above = np.zeros((n_items, n_items), dtype=bool)
    for entry in lists:
        sets = [set(e) if isinstance(e, frozenset) else {e} for e in entry]
        for a, high in enumerate(sets):
            for low in sets[a:]:
                for j in high:
                    for i in low:
                        if i != j:
                            above[i, j] = True
    reach = above.copy()
    for k in range(n_items):  # Warshall
        reach |= reach[:, [k]] & reach[[k], :]
    same = (reach & reach.T) | np.eye(n_items, dtype=bool)
    beaten = (reach & ~same).any(axis=1)
    beat = (reach.T & ~same).any(axis=1)
    return reach, same, beat & ~beaten, beaten & ~beat, beat & beaten


_entry = st.one_of(st.integers(0, 6), st.frozensets(st.integers(0, 6), min_size=2, max_size=2))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_entry, min_size=2, max_size=4), min_size=1, max_size=7))
def test_property_one_way_groups_match_brute_force_at_top_bottom_and_in_between(lists):
    import numpy as np

    from coarsenrank_core.connectivity import one_way_items_text
    seen: set = set()
    clean = []
    for entry in lists:  # every item at most once per list
        kept = []
        for e in entry:
            members = set(e) if isinstance(e, frozenset) else {e}
            if members & seen or (isinstance(e, frozenset) and len(members) < 2):
                continue
            seen |= members
            kept.append(e)
        seen = set()
        if sum(len(e) if isinstance(e, frozenset) else 1 for e in kept) >= 2:
            clean.append(kept)
    if not clean:
        return
    n_items = 7
    prefs = Preferences.from_lists(clean, n_items=n_items)
    reach, same, top, bottom, middle = _one_way_truth(clean, n_items)
    text = one_way_items_text(prefs, names_shown=n_items)
    if not (top.any() or bottom.any()):
        assert text is None
        assert not middle.any()
        return
    names = [str(i) for i in range(n_items)]
    assert set(_listed(text, "Never beaten by the rest")[0].split(", ")) == {
        names[i] for i in np.flatnonzero(top)}
    assert set(_listed(text, "Never beat the rest")[0].split(", ")) == {
        names[i] for i in np.flatnonzero(bottom)}
    groups = [[int(n) for n in g.strip("()").split(", ")]
              for g in _listed(text, "best first")]
    assert sorted(i for g in groups for i in g) == list(np.flatnonzero(middle))
    for a, group in enumerate(groups):  # each listed group is one whole group of the truth
        assert set(group) == set(np.flatnonzero(same[group[0]] & middle))
        for later in groups[a + 1:]:  # best first: no later group was ever above it
            assert not reach[np.ix_(group, later)].any()


def test_a_group_in_the_middle_of_a_chain_is_named():
    # {a, b} above {c, d} above {e, f}; each pair ranked both ways
    lists = [[0, 1], [1, 0], [2, 3], [3, 2], [4, 5], [5, 4], [0, 2], [2, 4]]
    prefs = Preferences.from_lists(lists, n_items=6, item_names=list("abcdef"))
    from coarsenrank_core.connectivity import one_way_items_text
    text = one_way_items_text(prefs)
    assert "Never beaten by the rest: a, b." in text
    assert "Never beat the rest: e, f." in text
    assert "In between, 1 group beaten only by groups above and beating only groups below, "\
           "best first: (c, d)." in text


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=20),
       st.randoms(use_true_random=False))
def test_property_groups_come_top_down_whatever_their_numbering(n, edges, random):
    """Kahn's sort (used when SciPy's numbering is not already top-down) gives an order in
    which no group comes after one it beat."""
    import numpy as np

    from coarsenrank_core.connectivity import _top_down
    rank = list(range(n))
    random.shuffle(rank)  # a hidden order: an edge runs from the better to the worse group
    pairs = [(a % n, b % n) for a, b in edges if a % n != b % n]
    if not pairs:
        return
    winners = np.array([a if rank[a] < rank[b] else b for a, b in pairs])
    losers = np.array([b if rank[a] < rank[b] else a for a, b in pairs])
    order = _top_down(n, winners, losers)
    assert sorted(order.tolist()) == list(range(n))
    position = np.empty(n, dtype=int)
    position[order] = np.arange(n)
    assert np.all(position[winners] < position[losers])


def test_a_long_chain_of_groups_is_named_quickly():
    import time

    import numpy as np

    from coarsenrank_core.connectivity import one_way_items_text
    n = 100_000
    prefs = Preferences.from_pairs(np.arange(n - 1), np.arange(1, n), n_items=n)
    start = time.perf_counter()
    text = one_way_items_text(prefs)
    assert time.perf_counter() - start < 2.0  # one group at a time over all items: 4 s
    assert "In between, 99,998 groups" in text and "best first: (1); (2); (3)" in text
