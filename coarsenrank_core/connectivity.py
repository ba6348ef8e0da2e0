"""Items the answers never compare with each other: the groups of the comparison graph."""

from __future__ import annotations

from collections.abc import Callable

from .preferences import Preferences

__all__ = ["separate_groups_text"]


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
