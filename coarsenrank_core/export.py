"""Writing result tables as CSV that spreadsheets open safely."""

from __future__ import annotations

import csv
import io
import numbers
from collections.abc import Iterable, Sequence

__all__ = ["neutralise_cell", "table_to_csv"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value):
    """Prefix a text cell that a spreadsheet would run as a formula with an apostrophe.

    Text starting with ``= + - @`` (or a tab or carriage return) is written as ``'=…`` so
    that Excel, LibreOffice and Google Sheets show it as text (OWASP "CSV injection").
    Numbers are returned unchanged, so ``-0.5`` stays a number.
    """
    if isinstance(value, (numbers.Number, bool)) or value is None:
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def table_to_csv(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """Render rows as CSV text with every text cell neutralised."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([neutralise_cell(h) for h in header])
    for row in rows:
        writer.writerow([neutralise_cell(v) for v in row])
    return buffer.getvalue()
