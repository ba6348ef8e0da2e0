"""What a read did: the record shown before data replaces what is loaded, and by the CLI."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..preferences import Preferences
from .columns import lower_is_better_words

__all__ = ["ReadReport", "ReadResult"]


def _names(values: Iterable[Any], limit: int = 8) -> str:
    values = list(values)
    text = ", ".join(f"'{v}'" for v in values[:limit])
    return text + (f" and {len(values) - limit} more" if len(values) > limit else "")


@dataclass(frozen=True)
class ReadReport:
    """How a file was read.

    Attributes
    ----------
    layout, layout_title : str
        The format's registry id and its title.
    file_name : str or None
        The file's name, when it has one.
    platform : str or None
        The survey platform the file looks like an export of.
    sheet : str or None
        The workbook sheet read; ``sheets`` lists all of them.
    header_rows : int
        How many rows at the top were titles, not data.
    columns : tuple of str
        Every column's title (or position), for corrections.
    item_columns : tuple of str
        Columns whose cells (or titles) are the items.
    ranker_column, count_column : str or None
        The column naming the ranker, and the one saying how many times a row was given.
    list_columns : tuple of str
        For long rankings, the columns that together tell one ranking from another besides
        the ranker (a ranking column; a round and its heat).
    skipped_columns : tuple of str
        Columns not used, each with the reason, e.g. ``"Timestamp (survey metadata)"``.
    one_is_best : bool or None
        For ranks written as numbers, whether 1 meant the best; None otherwise.
    smaller_is_better : bool
        Whether a long file's number column, titled as a time, a count or a penalty
        (:func:`~coarsenrank_core.io.columns.lower_is_better_words`) or chosen by hand under a
        title that promises no ranks (``points``), was read as any numbers with a smaller one
        better (with ``one_is_best``), not as whole ranks.
    notes : tuple of str
        Rows skipped or changed while reading.
    automatic : bool
        Whether the layout was detected rather than chosen.
    warning : str or None
        One line when the read looks unusual (more items than rankings, an item in only
        one ranking while the rest are in many, item names that look like people, dates,
        ids or numbers), so that the user checks it and corrects the reading.
    """

    layout: str
    layout_title: str
    file_name: str | None = None
    platform: str | None = None
    sheet: str | None = None
    sheets: tuple[str, ...] = ()
    header_rows: int = 0
    columns: tuple[str, ...] = ()
    item_columns: tuple[str, ...] = ()
    ranker_column: str | None = None
    count_column: str | None = None
    list_columns: tuple[str, ...] = ()
    skipped_columns: tuple[str, ...] = ()
    one_is_best: bool | None = None
    smaller_is_better: bool = False
    notes: tuple[str, ...] = ()
    automatic: bool = True
    warning: str | None = None

    def lines(self) -> list[str]:
        """The record in plain sentences, one per line (the warning, if any, second)."""
        how = "detected" if self.automatic else "chosen"
        out = [f"We read this as: {self.layout_title} ({how})"
               + (f", a {self.platform} export" if self.platform else "") + "."]
        if self.warning:
            out.append(self.warning)
        if self.sheet is not None:
            out.append(f"Sheet: '{self.sheet}'"
                       + (f" (of {len(self.sheets)})" if len(self.sheets) > 1 else "") + ".")
        if self.header_rows:
            out.append(f"Title rows at the top: {self.header_rows}.")
        elif self.columns:
            out.append("No title row: the first row is data.")
        if self.item_columns:
            out.append(f"Item columns: {_names(self.item_columns)}.")
        own = "ranking" if self.layout == "long" else "row"  # long: several rows a ranking
        out.append(f"Ranker column: '{self.ranker_column}'." if self.ranker_column
                   else f"Ranker column: none (each {own} is its own ranker).")
        if self.list_columns:
            out.append(f"Ranking column{'s' if len(self.list_columns) > 1 else ''}: "
                       f"{_names(self.list_columns)}.")
        if self.count_column:
            out.append(f"Count column: '{self.count_column}'.")
        if self.skipped_columns:
            out.append(f"Skipped columns: {_names(self.skipped_columns)}.")
        if self.one_is_best and self.smaller_is_better:
            out.append(self._smaller_line())
        elif self.one_is_best is not None:
            out.append("Rank 1 means the best." if self.one_is_best
                       else "Rank 1 means the worst (larger numbers are better).")
        out.extend(f"{note}." for note in self.notes)
        return out

    def _smaller_line(self) -> str:
        """Why a long file's number column was read with a smaller number better."""
        title = self.item_columns[1] if len(self.item_columns) > 1 else ""
        if lower_is_better_words(title):
            return ("Smaller numbers are better (the column is titled as a time, a count or a "
                    "penalty).")
        return (f"Smaller numbers are better: '{title}' was chosen as the rank column, where 1 "
                "is the best. If a larger number is better there (points, a score, a rating), "
                "add --one-is-worst ('Rank numbers mean: 1 is the worst').")


@dataclass(frozen=True)
class ReadResult:
    """The preferences read from a file, with the record of how they were read."""

    preferences: Preferences
    report: ReadReport
