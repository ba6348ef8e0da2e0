"""Items the answers never compare with each other: the groups of the comparison graph."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .preferences import Preferences

__all__ = ["one_way_items_text", "separate_groups_text"]


def separate_groups_text(prefs: Preferences, escape: Callable[[str], str] = str,
                         shown: int = 5, names_shown: int = 6) -> str | None:
    """A warning when the items fall into groups that no preference links, else ``None``.

    Two items are linked when some preference holds both, or a chain of preferences joins
    them (:meth:`Preferences.components`). Between groups that nothing links, the scores,
    and so the order and the likely ranks across groups, come from the prior, not from the
    answers (Hunter 2004, assumption 1; the R package PlackettLuce checks the same).

    Parameters
    ----------
    prefs : Preferences
    escape : callable
        Applied to every item name (e.g. Markdown escaping on a page).
    shown, names_shown : int
        The largest groups listed, and the names listed from each.
    """
    groups = prefs.components()
    if len(groups) < 2:
        return None
    listed = []
    for group in groups[:shown]:
        names = ", ".join(escape(prefs.item_names[i]) for i in group[:names_shown])
        listed.append(f"({names}{' …' if group.size > names_shown else ''})")
    more = f"; and {len(groups) - shown:,} more" if len(groups) > shown else ""
    return (f"The items fall into {len(groups):,} groups that are never compared with each "
            "other, so the order between groups, and any likely ranks across them, come from "
            "the prior rather than from the answers: read ranks inside a group only. To "
            "link the groups, collect answers that mix their items. Groups: "
            + "; ".join(listed) + more + ".")


def one_way_items_text(prefs: Preferences, escape: Callable[[str], str] = str,
                       names_shown: int = 6) -> str | None:
    """A warning naming the items the answers never rank below, or never above, the rest.

    An item (or a group of items) that no other item ever beat, or that never beat another
    item, breaks Hunter's (2004) assumption 1: the plain Plackett-Luce likelihood grows
    without bound as its worth goes to infinity, or to zero. Its rank at the top or the
    bottom follows the answers, but its score, and so the gap to its neighbours, comes from
    the prior alone. Groups that nothing links are :func:`separate_groups_text`'s warning.

    Parameters
    ----------
    prefs : Preferences
    escape : callable
        Applied to every item name (e.g. Markdown escaping on a page).
    names_shown : int
        The names listed of each kind.
    """
    src, dst = prefs.ranked_above_edges()  # from each item to the one ranked just above it
    graph = coo_matrix((np.ones(src.size), (src, dst)), shape=(prefs.n_items,) * 2)
    n_labels, labels = connected_components(graph, directed=True, connection="strong")
    across = labels[src] != labels[dst]
    if not across.any():
        return None
    lost = np.zeros(n_labels, dtype=bool)
    won = np.zeros(n_labels, dtype=bool)
    lost[labels[src[across]]] = True
    won[labels[dst[across]]] = True
    never_beaten = np.flatnonzero(won[labels] & ~lost[labels])
    never_won = np.flatnonzero(lost[labels] & ~won[labels])

    def listed(items: np.ndarray) -> str:
        names = ", ".join(escape(prefs.item_names[i]) for i in items[:names_shown])
        more = f" and {items.size - names_shown:,} more" if items.size > names_shown else ""
        return names + more

    return ("Some items were never ranked below, or never above, the items outside their "
            "own group that they met, so the plain likelihood would put their worth at "
            "infinity or zero: their ranks at the top or bottom follow the answers, but "
            "their scores, and the gaps to the items next to them, come from the prior. "
            "To measure those gaps, collect answers where these items meet closer "
            "rivals; meanwhile read their ranks, not their scores. "
            f"Never beaten by the rest: {listed(never_beaten)}. "
            f"Never beat the rest: {listed(never_won)}.")
