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
