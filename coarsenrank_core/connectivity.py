"""Items the answers never compare with each other: the groups of the comparison graph."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
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
    """A warning naming the groups of items that the answers only ever rank one way round
    against the items outside the group, else ``None``.

    The groups are the strongly connected components of the "ranked above" graph: two items
    share one when a chain of answers puts each above the other. Where there is more than
    one (among items that the answers link at all), every item outside a group that it met
    was always above it or always below it, so Hunter's (2004) assumption 1 fails: the plain
    Plackett-Luce likelihood grows without bound as the gaps between the groups go to
    infinity. That holds for the top groups (never beaten by the rest), the bottom ones
    (never beat the rest) and every group between them in a chain (beaten only by groups
    above it, beating only groups below it). Their scores, and so the gaps between them, come
    from the prior alone, which can place an item that met few rivals below one it beat.
    Groups that nothing links are :func:`separate_groups_text`'s warning.

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
    between = won & lost  # groups in the middle of a chain: beaten, and beating, one way only

    def listed(items: np.ndarray) -> str:
        names = ", ".join(escape(prefs.item_names[i]) for i in items[:names_shown])
        more = f" and {items.size - names_shown:,} more" if items.size > names_shown else ""
        return names + more

    middle = ""
    if between.any():
        order = _top_down(n_labels, labels[dst[across]], labels[src[across]])
        groups = order[between[order]]
        sizes = np.bincount(labels, minlength=n_labels)
        by_group = np.argsort(labels, kind="stable")  # items, group by group
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        shown, parts = 0, []
        for group in groups:  # only the few groups whose names are shown
            if shown >= names_shown:
                break
            members = by_group[first[group]:first[group] + sizes[group]]
            parts.append(f"({listed(members[:names_shown - shown])})")
            shown += min(members.size, names_shown - shown)
        rest = int(sizes[groups].sum()) - shown
        more = f" and {rest:,} more" if rest > 0 else ""
        middle = (f" In between, {count(groups.size, 'group')} beaten only by groups above "
                  "and beating only groups below, best first: " + "; ".join(parts) + more + ".")
    return ("Some groups of items only ever met the items outside their own group one way "
            "round (each such item was always ranked above them, or always below them), so "
            "the plain likelihood would put the gaps between these groups at infinity: "
            "the gaps between the groups, and so their scores, come from the prior, and an "
            "item that met few rivals can be placed below one it beat (the prior holds it "
            "near the middle until more answers place it). "
            "To measure those gaps, collect answers where these items meet closer "
            "rivals; meanwhile read their places with care. "
            f"Never beaten by the rest: {listed(never_beaten)}. "
            f"Never beat the rest: {listed(never_won)}." + middle)


def count(n: int, noun: str) -> str:
    """``"1 group"``, ``"3 groups"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _top_down(n_groups: int, winners: np.ndarray, losers: np.ndarray) -> np.ndarray:
    """The groups in an order where no group comes after one it beat (Kahn's topological
    sort of the condensed "beats" graph, which has no cycle).

    SciPy's strong components come numbered in a topological order of that graph (Pearce's
    algorithm numbers a component once all it reaches are numbered): when every edge agrees
    with the numbering it is used as it is, in one vectorised check, and Kahn's sort, one
    Python step per group, is left for the case it does not (200,000 groups in a chain:
    1.3 s).
    """
    if np.all(winners < losers):
        return np.arange(n_groups)
    if np.all(winners > losers):
        return np.arange(n_groups)[::-1]
    pairs = np.unique(np.stack([winners, losers], axis=1), axis=0)
    beaten = csr_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])),
                        shape=(n_groups, n_groups))
    waiting = np.bincount(pairs[:, 1], minlength=n_groups)
    ready = list(np.flatnonzero(waiting == 0)[::-1])
    order = []
    while ready:
        group = ready.pop()
        order.append(group)
        below = beaten.indices[beaten.indptr[group]:beaten.indptr[group + 1]]
        waiting[below] -= 1
        ready.extend(below[waiting[below] == 0][::-1].tolist())
    return np.asarray(order, dtype=np.intp)
