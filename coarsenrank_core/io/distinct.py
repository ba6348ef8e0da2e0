"""Tests and rewrites of a column's text cells, worked out once per distinct cell."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd


def per_distinct(cells: Any, function: Callable[[str], Any], dtype: Any = object
                 ) -> np.ndarray:
    """``function`` of each cell's text (``str(cell)``), called once for each distinct cell.

    A column of a table repeats few values (marks, places, names), so this costs one hash
    per cell and one Python call per distinct value: on a column of a few cells it is far
    cheaper than a pandas string method, which pays a fixed price per call.

    Parameters
    ----------
    cells : array-like
        The column's cells.
    function : callable
        ``function(text) -> value``.
    dtype : numpy dtype
        Of the result.

    Returns
    -------
    numpy.ndarray, shape (len(cells),)
    """
    codes, uniques = pd.factorize(np.asarray(cells, dtype=object).ravel(),
                                  use_na_sentinel=False)
    values = np.empty(len(uniques), dtype=dtype)
    values[:] = [function(str(u)) for u in uniques]
    read: np.ndarray = values[codes]
    return read
