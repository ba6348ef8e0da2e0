"""What the user tells the readers: layout corrections and the meaning of rank numbers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ReadOptions", "override_roles"]


@dataclass(frozen=True)
class ReadOptions:
    """Corrections to the automatic reading of a file.

    Attributes
    ----------
    sheet : str or int, optional
        The workbook sheet to read (name or 0-based position among the sheets, hidden ones
        last); the first sheet Excel shows by default.
    item_columns : tuple of str, optional
        The titles of the columns that hold items (or their ranks); all others are skipped.
    ranker_column, count_column : str, optional
        The title of the column naming the ranker, or holding how many times a row was
        given. ``None`` finds them automatically; ``""`` means there is none.
    one_is_best : bool
        For ranks written as numbers: whether 1 is the best (default) or the worst.
    list_columns : tuple of str, optional
        For long rankings: the titles of the columns that together tell one ranking from
        another besides the ranker (a round and its heat: one ranking per heat of each
        round). ``None`` finds them (a ranking column, or the one event column); ``()``
        means none.
    """

    sheet: str | int | None = None
    item_columns: tuple[str, ...] | None = None
    ranker_column: str | None = None
    count_column: str | None = None
    one_is_best: bool = True
    list_columns: tuple[str, ...] | None = None


def override_roles(roles: dict[str, int], header: Sequence[str], options: ReadOptions
                   ) -> dict[str, int]:
    """Column roles with the user's choice of ranker and count column applied."""
    roles = dict(roles)
    labels = [c or str(j + 1) for j, c in enumerate(header)]
    for role, choice in (("ranker", options.ranker_column), ("weight", options.count_column)):
        if choice is None:
            continue
        roles.pop(role, None)
        if choice:
            if choice not in labels:
                from ..errors import PreferenceFormatError
                raise PreferenceFormatError(f"There is no column called '{choice}'.",
                                            fix="Choose a column of the file, or none.")
            roles[role] = labels.index(choice)
    return roles
